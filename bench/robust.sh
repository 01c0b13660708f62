#!/usr/bin/env bash
# Robustness, side by side: ivm with its default kernel learning against libsvm at its defaults
# and libsvm tuned by 5-fold cross-validation, on the same files, same machine, same run.
#
#   bash bench/robust.sh                       (all data sets; ~20–30 min on 2 cores)
#   ROBUST_SETS="moons flips" bash bench/robust.sh   (a subset; names below)
#   ROBUST_GPC=0 bash bench/robust.sh          (skip the optional sklearn GPC reference)
#
# Data sets (bench/gen, seeded, nothing downloaded), train / test:
#   gauss20  two Gaussian classes in 20-D, means ±0.25·1        20 000 / 5 000   ivm -d 200, -d 500
#   moons    two half-moons in 2-D, noise sd 0.3                  2 000 / 2 000   ivm -d 200
#   flips    make_classification-style, 10-D, 2 informative,      5 000 / 5 000   ivm -d 200
#            XOR clusters, 10 % of the TRAINING labels flipped (test labels clean)
#   digits   USPS (data/usps) one-vs-rest for digit 3             7 291 / 2 007   ivm -d 500
#
# Every data set is standardised by the awk scaler below (z-score per feature, mean and sd fitted
# on the training file and applied to both files; a constant feature is only centred), and the
# same standardised files go to every program.
#
# ivm: `ivm train -d D` with nothing else (default kernel rbf+bias+white, start-up γ = 1, 8 outer
# iterations of Algorithm 2, expected-entropy selection), then `ivm predict`.
# libsvm default: `svm-train -c 1` (γ = 1/num_features). libsvm tuned: `svm-train -v 5` over
# C ∈ {0.1, 1, 10} × γ ∈ {0.25, 1, 4}/num_features (first best CV accuracy wins), then the best
# pair trained on the whole training file and tested; its time is the sum of the nine CV runs and
# the final training, its peak RSS the largest of them.
# Wall time and peak RSS are GNU time's for the whole process (parsing included). Optional
# reference: scikit-learn's GaussianProcessClassifier (Laplace, 1.0·RBF(1.0), Debian's
# /usr/bin/python3) on the first 1000 training points of moons and flips.
#
# Installs libsvm-tools, time and python3-sklearn from Debian if missing. Scratch files go to
# bench/out/robust/: ivm's stderr for data set S and size D is in S-dD.ivm.log. The summary
# table (markdown) is printed at the end and written to bench/out/robust/table.md.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v svm-train >/dev/null && command -v svm-predict >/dev/null || need+=(libsvm-tools)
[ -x /usr/bin/time ] || need+=(time)
if [ "${ROBUST_GPC:-1}" != 0 ] && ! /usr/bin/python3 -c 'import sklearn' 2>/dev/null; then
	need+=(python3-sklearn)
fi
if ((${#need[@]})); then
	echo "installing ${need[*]} from Debian" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

out=bench/out/robust
mkdir -p "$out"
go build -o "$out/ivm" ./cmd/ivm
go build -o "$out/gen" ./bench/gen
sets=${ROBUST_SETS:-gauss20 moons flips digits}

# tm LOG CMD...: runs CMD with stdout+stderr to LOG and prints "wall_s peak_kB".
tm() {
	local log=$1
	shift
	/usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" >"$log" 2>&1 || true
	tail -n 1 "$out/time.txt"
}

# scale TRAIN TEST OUTTRAIN OUTTEST: z-score every feature with the training file's mean and sd
# (population sd; missing libsvm entries count as 0); writes every feature, dense.
scale() {
	awk -v otr="$3" -v ote="$4" '
	FNR == 1 { file++ }
	file == 1 {
		n++
		for (i = 2; i <= NF; i++) {
			split($i, kv, ":"); k = kv[1] + 0; v = kv[2] + 0
			s[k] += v; q[k] += v * v
			if (k > dim) dim = k
		}
		next
	}
	file == 2 && FNR == 1 {
		for (k = 1; k <= dim; k++) {
			m[k] = s[k] / n
			var = q[k] / n - m[k] * m[k]
			sd[k] = var > 1e-24 ? sqrt(var) : 1
		}
	}
	{
		o = file == 2 ? otr : ote
		delete x
		for (i = 2; i <= NF; i++) { split($i, kv, ":"); x[kv[1] + 0] = kv[2] + 0 }
		line = $1
		for (k = 1; k <= dim; k++) line = line " " k ":" sprintf("%.6g", ((k in x ? x[k] : 0) - m[k]) / sd[k])
		print line > o
	}' "$1" "$1" "$2"
}

# acc_of OUT: the accuracy in % printed by svm-predict or ivm predict, to 2 decimals.
acc_of() { sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p' "$1" | awk '{ printf "%.2f", $1 }'; }

table=$out/table.md
{
	echo "| data set | train / test | ivm -d | ivm acc % | ivm s | ivm MB | libsvm default acc % | s | MB | libsvm tuned (C, γ·nf) | tuned #SV | tuned acc % | tuned s | tuned MB | ivm − tuned | majority % | flag |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} >"$table"
flags=()

run_set() { # NAME "D..." : expects $out/NAME.raw.{train,test}
	local name=$1 ds=$2
	local tr=$out/$name.train te=$out/$name.test
	scale "$out/$name.raw.train" "$out/$name.raw.test" "$tr" "$te"
	local ntr nte nf maj
	ntr=$(wc -l <"$tr")
	nte=$(wc -l <"$te")
	nf=$(awk '{ if (NF - 1 > m) m = NF - 1 } END { print m }' "$tr")
	maj=$(awk '{ c[$1]++ } END { for (k in c) if (c[k] > m) m = c[k]; printf "%.2f", 100 * m / NR }' "$te")
	echo "== $name: $ntr train, $nte test, $nf features; test majority class $maj %" >&2

	# libsvm at its defaults.
	local ds_s ds_kb ds_acc
	read -r ds_s ds_kb < <(tm "$out/$name.svm-default.log" svm-train -q -c 1 "$tr" "$out/$name.svm-default.model")
	svm-predict "$te" "$out/$name.svm-default.model" "$out/$name.svm-default.pred" >"$out/$name.svm-default.out"
	ds_acc=$(acc_of "$out/$name.svm-default.out")
	echo "   libsvm default: $ds_acc % in $ds_s s" >&2

	# libsvm tuned: 5-fold CV over the grid, then the best pair on all the training data.
	local c gm g s kb cv best_cv=-1 best_c best_gm tot_s=0 max_kb=0
	for c in 0.1 1 10; do
		for gm in 0.25 1 4; do
			g=$(awk -v a="$gm" -v n="$nf" 'BEGIN { printf "%.6g", a / n }')
			read -r s kb < <(tm "$out/$name.cv.log" svm-train -q -v 5 -c "$c" -g "$g" "$tr")
			cv=$(sed -n 's/^Cross Validation Accuracy = \([0-9.]*\)%.*/\1/p' "$out/$name.cv.log" | awk '{ printf "%.2f", $1 }')
			echo "   libsvm CV C=$c γ=$gm/nf: $cv % in $s s" >&2
			tot_s=$(awk -v a="$tot_s" -v b="$s" 'BEGIN { print a + b }')
			if ((kb > max_kb)); then max_kb=$kb; fi
			if awk -v a="$cv" -v b="$best_cv" 'BEGIN { exit !(a > b) }'; then
				best_cv=$cv best_c=$c best_gm=$gm
			fi
		done
	done
	g=$(awk -v a="$best_gm" -v n="$nf" 'BEGIN { printf "%.6g", a / n }')
	read -r s kb < <(tm "$out/$name.svm-tuned.log" svm-train -q -c "$best_c" -g "$g" "$tr" "$out/$name.svm-tuned.model")
	tot_s=$(awk -v a="$tot_s" -v b="$s" 'BEGIN { print a + b }')
	if ((kb > max_kb)); then max_kb=$kb; fi
	svm-predict "$te" "$out/$name.svm-tuned.model" "$out/$name.svm-tuned.pred" >"$out/$name.svm-tuned.out"
	local dt_acc nsv
	dt_acc=$(acc_of "$out/$name.svm-tuned.out")
	nsv=$(awk '$1 == "total_sv" { print $2 }' "$out/$name.svm-tuned.model")
	echo "   libsvm tuned (C=$best_c, γ=$best_gm/nf, CV $best_cv %): $dt_acc % in $tot_s s" >&2

	# ivm with default learning.
	local d is ikb iacc npred diff flag
	for d in $ds; do
		local log=$out/$name-d$d.ivm.log
		rm -f "$out/$name-d$d.ivm.model"
		read -r is ikb < <(tm "$log" "$out/ivm" train -d "$d" "$tr" "$out/$name-d$d.ivm.model")
		if [ ! -s "$out/$name-d$d.ivm.model" ] || ! "$out/ivm" predict "$te" "$out/$name-d$d.ivm.model" "$out/$name-d$d.ivm.pred" >"$out/$name-d$d.ivm.out" 2>&1; then
			echo "   ivm -d $d FAILED; see $log" >&2
			iacc=NaN npred=0
		else
			iacc=$(acc_of "$out/$name-d$d.ivm.out")
			npred=$(cut -d' ' -f1 "$out/$name-d$d.ivm.pred" | sort -u | wc -l)
		fi
		echo "   ivm -d $d: $iacc % in $is s ($npred distinct predicted labels)" >&2
		diff=$(awk -v a="$iacc" -v b="$dt_acc" 'BEGIN { printf "%+.2f", a - b }')
		flag=""
		if [ "$npred" -lt 2 ]; then
			flag="CONSTANT"
		elif awk -v a="$iacc" -v m="$maj" 'BEGIN { exit !(a <= m + 0.5) }'; then
			flag="≈PRIOR"
		fi
		if awk -v x="$diff" 'BEGIN { exit !(x < -1) }'; then
			flag="${flag:+$flag, }BELOW"
		fi
		if [ -n "$flag" ]; then flags+=("$name-d$d"); fi
		printf '| %s | %s / %s | %s | %s | %s | %.0f | %s | %s | %.0f | %s, %s/nf | %s | %s | %s | %.0f | %s | %s | %s |\n' \
			"$name" "$ntr" "$nte" "$d" "$iacc" "$is" "$((ikb / 1024))" "$ds_acc" "$ds_s" "$((ds_kb / 1024))" \
			"$best_c" "$best_gm" "$nsv" "$dt_acc" "$tot_s" "$((max_kb / 1024))" "$diff" "$maj" "${flag:--}" >>"$table"
	done
}

for set in $sets; do
	case $set in
	gauss20)
		"$out/gen" -kind gauss -n 20000 -dim 20 -seed 1 >"$out/$set.raw.train"
		"$out/gen" -kind gauss -n 5000 -dim 20 -seed 2 >"$out/$set.raw.test"
		run_set "$set" "200 500"
		;;
	moons)
		"$out/gen" -kind moons -n 2000 -noise 0.3 -seed 1 >"$out/$set.raw.train"
		"$out/gen" -kind moons -n 2000 -noise 0.3 -seed 2 >"$out/$set.raw.test"
		run_set "$set" 200
		;;
	flips)
		"$out/gen" -kind flips -n 5000 -dim 10 -informative 2 -flip 0.1 -seed 1 >"$out/$set.raw.train"
		"$out/gen" -kind flips -n 5000 -dim 10 -informative 2 -flip 0 -seed 2 >"$out/$set.raw.test"
		run_set "$set" 200
		;;
	digits)
		"$out/gen" -kind digits -digit 3 -in data/usps/usps_train.csv.gz >"$out/$set.raw.train"
		"$out/gen" -kind digits -digit 3 -in data/usps/usps_test.csv.gz >"$out/$set.raw.test"
		run_set "$set" 500
		;;
	*)
		echo "robust.sh: unknown data set $set (want gauss20, moons, flips, digits)" >&2
		exit 2
		;;
	esac
done

# Optional reference: sklearn's GaussianProcessClassifier on 1000 training points.
gpc=""
if [ "${ROBUST_GPC:-1}" != 0 ]; then
	for set in moons flips; do
		[ -s "$out/$set.train" ] || continue
		r=$(/usr/bin/time -f "%e %M" -o "$out/time.txt" /usr/bin/python3 - "$out/$set.train" "$out/$set.test" <<'EOF' 2>"$out/$set.gpc.log" || true
import sys, warnings
warnings.filterwarnings("ignore")
from sklearn.datasets import load_svmlight_file
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
xtr, ytr = load_svmlight_file(sys.argv[1])
xte, yte = load_svmlight_file(sys.argv[2], n_features=xtr.shape[1])
xtr, ytr = xtr[:1000].toarray(), ytr[:1000]
m = GaussianProcessClassifier(ConstantKernel(1.0) * RBF(1.0), random_state=0).fit(xtr, ytr)
print("%.2f %s" % (100 * (m.predict(xte.toarray()) == yte).mean(), m.kernel_))
EOF
		)
		if [ -n "$r" ]; then
			read -r s kb <"$out/time.txt"
			gpc+="| $set | 1000 / $(wc -l <"$out/$set.test") | ${r%% *} | $s | $((kb / 1024)) | ${r#* } |"$'\n'
		fi
	done
fi

echo
cat "$table"
if [ -n "$gpc" ]; then
	{
		echo
		echo "Reference: sklearn GaussianProcessClassifier (Laplace, 1.0·RBF(1.0), optimizer restarts 0) on the first 1000 training points:"
		echo
		echo "| data set | train / test | acc % | s | MB | learned kernel |"
		echo "|---|---|---|---|---|---|"
		printf '%s' "$gpc"
	} | tee -a "$table"
fi
if ((${#flags[@]})); then
	echo
	echo "flagged (ivm > 1 point below libsvm tuned, or at the class prior): ${flags[*]}"
	for f in "${flags[@]}"; do
		echo "--- ivm stderr, $f:"
		cat "$out/$f.ivm.log"
	done
fi
