#!/usr/bin/env bash
# Active learning against random sampling (issue 49, deliverable 3): learning curves of models
# trained on the rows Predictor.Query chooses (`ivm query`) and on as many rows drawn at random,
# on public binary, multi-class and regression sets, and the figures `ivm plot -curves` draws.
#
#   bash bench/active.sh                          all sets below, 5 seeds, budgets 20..300
#   bash bench/active.sh spambase friedman1       a subset
#   ACTIVE_SEEDS=3 ACTIVE_WORKERS=1 bash bench/active.sh
#   ACTIVE_FLAGS="-keep 60" ACTIVE_OUT=bench/out/active-keep bash bench/active.sh
#                                                 more bench/active flags, another directory
#
# Sets (pools of 693 to 7 291 training rows, each with its own test rows):
#   usps10     10 classes: the USPS digits (data/usps, 7 291 / 2 007; a start of 2 rows a class,
#              whose defaults are one-vs-rest until every pair of classes has 6 rows)
#   usps3      binary: USPS digit 3 against the rest (data/usps, 7 291 / 2 007; bench/gen -kind
#              digits -digit 3)
#   spambase   binary: kernlab's spam (bench/suite.py prep: 70/30 split, 3 220 / 1 381)
#   satellite  6 classes: mlbench's Satellite (bench/suite.py, 4 504 / 1 931)
#   friedman1  regression: mlbench's Friedman #1 (bench/suite.py, 1 400 / 600)
#   mathach    regression: nlme's MathAchieve (bench/suite.py, 5 029 / 2 156)
#   digits     10 classes: scikit-learn's 8×8 digits (bench/suite.py, 1 257 / 540)
#   vowel      11 classes: Deterding's vowels (bench/suite.py, 693 / 297; a start of 22 rows)
#
# For each set, bench/active (go run ./bench/active; see its doc comment) runs 5 seeds: each
# draws 20 labelled rows (3 of each class for a classifier), then labels rows up to 30, 40, 60,
# 80, 100, 125, 150, 200, 250 and 300 in rounds of at most 10 rows (bench/active's -batch), the
# model trained again after each, by three strategies from the same 20: "active", the rows
# `ivm query -n K MODEL POOL` picks from the unlabelled training rows; "mix50", half of them
# Query's and half drawn at random; "random", drawn uniformly. At every budget the model is
# trained anew with no flags (`ivm train`; -noise gaussian for regression, whose targets may be
# integers) on the labelled rows and scored on the test rows: accuracy and log loss, or MSE and
# NLPD. The full-data model (all training rows, no flags) is the reference.
#
# Installs from Debian what it needs (one `apt-get update`, then `apt-get install -y`):
# python3-sklearn (numpy for bench/suite.py and bench/active.py), time, r-base-core, r-cran-mlbench, r-cran-kernlab, r-cran-nlme (a set whose
# package cannot be had is skipped).
#
# Output in bench/out/active/ (ACTIVE_OUT): SET.tsv (the table: a line per set, strategy, seed
# and budget), SET.picks.tsv (each row a round added, its label and Query score), SET.txt (the
# summary: mean ± sd per budget, the full-data model, the targets of issue 49), SET.time (GNU
# time: wall s, user s, sys s, peak kB), SET-logloss.svg or SET-mse.svg (ivm plot -curves;
# friedman1's on a logarithmic axis),
# SET.isolation.txt (bench/active.py isolation: how isolated the rows each strategy added are,
# as percentiles of the training rows' mean distance to their 10 nearest neighbours).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
out=${ACTIVE_OUT:-bench/out/active}
seeds=${ACTIVE_SEEDS:-5}
workers=${ACTIVE_WORKERS:-2}
strategies=${ACTIVE_STRATEGIES:-active,mix50,random}
read -r -a extra <<<"${ACTIVE_FLAGS:-}"
all_sets="usps3 spambase satellite friedman1 mathach usps10 digits vowel"
sets=("$@")
((${#sets[@]})) || read -r -a sets <<<"$all_sets"
for s in "${sets[@]}"; do
	case " $all_sets " in *" $s "*) ;; *) echo "active.sh: unknown set $s (want: $all_sets)" >&2; exit 2 ;; esac
done

bench_install python3-sklearn time
bench_install r-base-core r-cran-mlbench r-cran-kernlab r-cran-nlme || echo "active.sh: R packages not installed" >&2
mkdir -p "$out"
go build -o "$out/ivm" ./cmd/ivm
go build -o "$out/active" ./bench/active

# The sets' files: USPS from the repository, the others from bench/suite.py.
have_r=0
Rscript -e 'suppressMessages(library(mlbench)); suppressMessages(library(kernlab)); suppressMessages(library(nlme))' >/dev/null 2>&1 && have_r=1
r_sets=() py_sets=()
for s in "${sets[@]}"; do
	if [ "$s" = usps10 ]; then # the CSV files (label first) as libsvm rows
		for part in train test; do
			gzip -dc "data/usps/usps_$part.csv.gz" | awk -F, 'NR > 1 { printf "%s", $1
				for (i = 2; i <= NF; i++) if ($i != 0) printf " %d:%s", i - 1, $i
				print "" }' >"$out/usps10.$part"
		done
	elif [ "$s" = usps3 ]; then
		go run ./bench/gen -kind digits -in data/usps/usps_train.csv.gz -digit 3 >"$out/usps3.train"
		go run ./bench/gen -kind digits -in data/usps/usps_test.csv.gz -digit 3 >"$out/usps3.test"
	elif [ "$s" = digits ] || [ "$s" = vowel ]; then # scikit-learn's, and the repository's
		py_sets+=("$s")
	elif [ "$have_r" = 1 ]; then
		r_sets+=("$s")
	else
		echo "active.sh: $s skipped (R, mlbench, kernlab or nlme missing)" >&2
	fi
done
sets_py=("${r_sets[@]}" "${py_sets[@]}")
((${#sets_py[@]} == 0)) || bench_py bench/suite.py prep "$out" "${sets_py[@]}" >/dev/null

for s in "${sets[@]}"; do
	[ -f "$out/$s.train" ] || continue
	flags=() metric=logloss logy=()
	case $s in friedman1 | mathach) flags=(-regression) metric=mse ;; esac
	# vowel's 11 classes need a start of 22 rows, two a class.
	[ "$s" = vowel ] && flags=(-budgets 22,30,40,60,80,100,125,150,200,250,300)
	[ "$s" = friedman1 ] && logy=(-logy) # its MSE falls tenfold
	echo "== $s" >&2
	bench_time "$out/$s.time" "$out/$s.log" nice -n 10 "$out/active" -train "$out/$s.train" \
		-test "$out/$s.test" -name "$s" "${flags[@]}" -seeds "$seeds" -workers "$workers" \
		-strategies "$strategies" -out "$out/$s.tsv" -picks "$out/$s.picks.tsv" "${extra[@]}"
	grep -v ' done (' "$out/$s.log" >"$out/$s.txt"
	cat "$out/$s.txt"
	read -r wall user sys _ <"$out/$s.time"
	echo "$s: $wall s wall, $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') s CPU"
	"$out/ivm" plot -quiet -curves "$out/$s.tsv" -metric "$metric" "${logy[@]}" -w 14cm \
		-o "$out/$s-$metric.svg"
	bench_py bench/active.py isolation "$out/$s.train" "$out/$s.picks.tsv" | tee "$out/$s.isolation.txt"
done
