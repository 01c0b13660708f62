#!/usr/bin/env bash
# Large public sets (issue 46): `ivm train` with no flags beside scikit-learn's linear model
# (LogisticRegression / Ridge on standardised inputs), HistGradientBoosting, the constant
# predictor and libsvm's default fit, in one run, one table of accuracy, log loss (NLPD and
# 95 % coverage for regression), training CPU and peak RSS.
#
#   bash bench/large.sh [DIR] [SET...]     sets: fertility60k fertility smokeban cps1988
#                                          cpssw8 diamonds shuttle letter chem97 gssvocab
#                                          mplsstops insteval storms vocab checktimes
#                                          prt twinstut hsct gvhd10 gsscat star air
#                                          cps9204 txhousing lakers muscatine tempb
#                                          awards cities baseball house lending grants
#                                          churn hpc slid wvs arrests nafld egsingle
#                                          flchain stackoverflow mlcchurn credit co2
#                                          nhanes verbagg healthins hsb82 scotssec
#                                          (default: all)
#   LARGE_LIBSVM=0 bash bench/large.sh     without libsvm (its fits take the longest)
#   LARGE_LIBSVM_TIMEOUT=S                 seconds one svm-train may take (default 1800)
#
# Data (R packages from Debian, written by bench/large.R; random splits, seed 0):
#   fertility60k  AER's Fertility, more than two children (binary, 7 census inputs, 38 %
#                 positive, many repeated rows): 60 000 training rows, 20 000 test
#   fertility     the same, 200 000 training rows, the other 54 654 test
#   smokeban      AER's SmokeBan, smoker (binary, 6 inputs, 24 % positive): 7 000 / 3 000
#   cps1988       AER's CPS1988, log wage (regression, 6 inputs): 19 700 / 8 455
#   cpssw8        AER's CPSSW8, log earnings (regression, 4 inputs): 45 000 / 16 395
#   diamonds      ggplot2's diamonds, log price (regression, 9 inputs): 40 000 / 13 940
#   shuttle       mlbench's Shuttle (7 classes, 80 % one): 43 500 / 14 500
#   letter        mlbench's LetterRecognition (26 classes, 16 inputs): 15 000 / 5 000
#   chem97        mlmRev's Chem97, A-level score (6 ordered classes, 4 inputs): 25 000 / 6 022
#   gssvocab      carData's GSSvocab, vocabulary 0-10 (regression, 5 inputs): 22 000 / 5 360
#   mplsstops     carData's MplsStops, vehicle searched (binary, 8 inputs): 40 000 / 3 638
#   insteval      lme4's InstEval, rating 1-5 (5 classes, 4 inputs, little signal): 60 000 / 13 421
#   storms        dplyr's storms, status (3 classes; date, hour and place): 9 000 / 2 859
#   vocab         carData's Vocab, vocabulary (regression, 3 inputs): 24 000 / 6 351
#   checktimes    modeldata's check_times, log time (regression, 23 inputs): 10 500 / 3 126
#   prt           mets' prt, prostate cancer in twins (binary, 3 inputs, 3.5 % positive):
#                 22 000 / 7 222
#   twinstut      mets' twinstut, stuttering (binary, 4 inputs, 5.6 % positive): 25 000 / 7 894
#   hsct          ks' hsct, a cell's population from 4 flow-cytometry markers (5 classes):
#                 30 000 / 9 128
#   gvhd10        latticeExtra's gvhd10, the day of a blood sample from 7 flow-cytometry
#                 markers (7 classes): 80 000 / 33 896
#   gsscat        forcats' gss_cat, marital status (5 classes; year, age and five coded
#                 answers): 16 000 / 5 397
#   star          mlmRev's star, a pupil's maths score (regression, 14 inputs, the school a
#                 code): 18 000 / 4 825
#   air           ks' air, log CO2 (regression; hour, day, year and 6 readings): 16 000 / 4 772
#   cps9204       AER's CPSSW9204, log earnings (regression; year, gender, age, degree):
#                 11 700 / 3 888
#   txhousing     ggplot2's txhousing, log median price of a Texas city's home sales
#                 (regression; the city a code of 46, year, month, sales, listings,
#                 inventory): 5 600 / 1 503
#   lakers        lubridate's lakers, a shot made (binary; place, period, time left, home,
#                 team, shot type and player codes): 10 000 / 3 067
#   muscatine     geepack's muscatine, obese (binary; gender, age at the first survey, age,
#                 survey; a few hundred distinct rows): 7 500 / 2 356
#   tempb         ks' tempb, a day's highest temperature (regression; year, month, day and
#                 the lowest temperature): 16 000 / 5 908
#   awards        clubSandwich's AchievementAwardsRCT, matriculation certificate (binary;
#                 school, treatment, year, sex, siblings, parents' schooling, prior score):
#                 12 500 / 4 026
#   cities        maps' world.cities, log population (regression; latitude, longitude,
#                 capital, the country a code): 30 000 / 13 628
#   baseball      plyr's baseball, a player's runs in a season (regression; year and ten
#                 counts of games, at bats, hits, home runs, walks and others): 15 000 / 2 969
#   house         spData's house, log price of a Lucas county home sale (regression; 17
#                 inputs, the assessed value left out): 19 000 / 6 357
#   lending       modeldata's lending_club, a bad loan (binary, 5 % positive, 22 inputs):
#                 7 390 / 2 467
#   grants        modeldata's grants_other, a successful grant application (binary; 1 502
#                 inputs, the signal in a few of them): 6 140 / 2 050
#   churn         modeldata's wa_churn, a customer who left (binary, 19 inputs): 5 270 / 1 762
#   hpc           modeldata's hpc_data, a computing job's class (4 classes, 7 inputs):
#                 3 250 / 1 081
#   slid          carData's SLID, log wage (regression, 4 inputs): 2 990 / 997
#   wvs           carData's WVS, a view of poverty policy (3 classes, 5 inputs): 4 035 / 1 346
#   arrests       carData's Arrests, released with a summons (binary, 7 inputs): 3 920 / 1 306
#   nafld         survival's nafld1, died during follow-up (binary, 5 inputs): 9 440 / 3 148
#   egsingle      mlmRev's egsingle, a maths score (regression, 10 inputs, the school a code):
#                 5 420 / 1 810
#   flchain       survival's flchain, died during follow-up (binary, 7 inputs): 5 100 / 1 424
#   stackoverflow modeldata's stackoverflow, a remote worker (binary, 20 inputs): 4 200 / 1 394
#   mlcchurn      modeldata's mlc_churn, a customer who left (binary, 19 inputs): 3 750 / 1 250
#   credit        modeldata's credit_data, a bad credit (binary, 13 inputs): 3 000 / 1 039
#   co2           fields' CO2, satellite CO2 from longitude and latitude (regression):
#                 20 000 / 6 633
#   nhanes        hexbin's NHANES, haemoglobin (regression, 8 inputs): 2 500 / 846
#   verbagg       lme4's VerbAgg, a verbally aggressive answer (binary; anger, gender, the
#                 item, its type, situation and mode, the person a code of 316): 5 600 / 1 984
#   healthins     AER's HealthInsurance, insured (binary, 10 inputs): 6 600 / 2 202
#   hsb82         mlmRev's Hsb82, maths achievement (regression, 6 inputs, the school a code
#                 of 160): 5 400 / 1 785
#   scotssec      mlmRev's ScotsSec, attainment (regression, 5 inputs, the primary school a
#                 code of 148): 2 600 / 835
#
# ivm: `ivm train -quiet TRAIN MODEL` (regression sets add -noise gaussian, their targets
# being numbers) and `ivm predict -prob`; its CPU is the training process's (GNU time).
# libsvm: svm-scale to [-1, 1], then `svm-train -q -b 1` (regression `-s 3`) with its
# defaults (C = 1, γ = 1/D), and svm-predict -b 1.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
dir=${1:-bench/out/large}
shift || true
sets=("$@")
((${#sets[@]})) || sets=(fertility60k fertility smokeban cps1988 cpssw8 diamonds shuttle letter
	chem97 gssvocab mplsstops insteval storms vocab checktimes prt twinstut hsct gvhd10 gsscat
	star air cps9204 txhousing lakers muscatine tempb awards cities baseball house lending grants
	churn hpc slid wvs arrests nafld egsingle flchain stackoverflow mlcchurn credit co2 nhanes
	verbagg healthins hsb82 scotssec)
mkdir -p "$dir"
bench_install r-base-core r-cran-aer r-cran-ggplot2 r-cran-mlbench r-cran-mlmrev r-cran-cardata \
	r-cran-dplyr r-cran-lme4 r-cran-modeldata r-cran-forcats r-cran-latticeextra r-cran-ks \
	r-cran-mets r-cran-lubridate r-cran-geepack r-cran-clubsandwich r-cran-maps \
	r-cran-plyr r-cran-spdata r-cran-survival r-cran-fields r-cran-hexbin libsvm-tools \
	python3-sklearn \
	time bc
[ -f "$dir/scotssec.csv" ] || Rscript bench/large.R "$dir"
go build -o "$dir/ivm" ./cmd/ivm

declare -A src=([fertility60k]=fertility [fertility]=fertility [smokeban]=smokeban
	[cpssw8]=cpssw8 [cps1988]=cps1988
	[diamonds]=diamonds [shuttle]=shuttle [letter]=letter [chem97]=chem97 [gssvocab]=gssvocab
	[mplsstops]=mplsstops [insteval]=insteval [storms]=storms [vocab]=vocab
	[checktimes]=checktimes [prt]=prt [twinstut]=twinstut [hsct]=hsct [gvhd10]=gvhd10
	[gsscat]=gsscat [star]=star [air]=air [cps9204]=cps9204 [txhousing]=txhousing
	[lakers]=lakers [muscatine]=muscatine [tempb]=tempb [awards]=awards [cities]=cities
	[baseball]=baseball [house]=house [lending]=lending [grants]=grants [churn]=churn [hpc]=hpc
	[slid]=slid [wvs]=wvs [arrests]=arrests [nafld]=nafld [egsingle]=egsingle
	[flchain]=flchain [stackoverflow]=stackoverflow [mlcchurn]=mlcchurn [credit]=credit
	[co2]=co2 [nhanes]=nhanes [verbagg]=verbagg [healthins]=healthins [hsb82]=hsb82
	[scotssec]=scotssec)
declare -A sizes=([fertility60k]="60000 20000" [fertility]="200000 60000" [smokeban]="7000 3000"
	[cpssw8]="45000 16395" [cps1988]="19700 9000"
	[diamonds]="40000 14000" [shuttle]="43500 14500" [letter]="15000 5000"
	[chem97]="25000 6022" [gssvocab]="22000 6867" [mplsstops]="40000 11920"
	[insteval]="60000 13421" [storms]="9000 2859" [vocab]="24000 6351"
	[checktimes]="10500 3126" [prt]="22000 7222" [twinstut]="25000 7894"
	[hsct]="30000 9128" [gvhd10]="80000 33896" [gsscat]="16000 6000" [star]="18000 5000"
	[air]="16000 5000" [cps9204]="11700 3888" [txhousing]="5600 1503" [lakers]="10000 3067"
	[muscatine]="7500 2356" [tempb]="16000 5908" [awards]="12500 4026"
	[cities]="30000 13628" [baseball]="15000 10000" [house]="19000 6357" [lending]="7390 2467"
	[grants]="6140 2050" [churn]="5270 1762" [hpc]="3250 1081" [slid]="2990 997"
	[wvs]="4035 1346" [arrests]="3920 1306" [nafld]="9440 3148" [egsingle]="5420 1810"
	[flchain]="5100 1424" [stackoverflow]="4200 1394" [mlcchurn]="3750 1250"
	[credit]="3000 1039" [co2]="20000 6633" [nhanes]="2500 900" [verbagg]="5600 2000"
	[healthins]="6600 2200" [hsb82]="5400 1785" [scotssec]="2600 835")
declare -A kind=([cps1988]=reg [cpssw8]=reg [diamonds]=reg [gssvocab]=reg [vocab]=reg
	[checktimes]=reg [star]=reg [air]=reg [cps9204]=reg [txhousing]=reg [tempb]=reg
	[cities]=reg [baseball]=reg [house]=reg [slid]=reg [egsingle]=reg [co2]=reg [nhanes]=reg
	[hsb82]=reg [scotssec]=reg)

results="$dir/results.txt"
: >"$results"
for s in "${sets[@]}"; do
	task=class
	[ "${kind[$s]:-}" = reg ] && task=reg
	bench_py bench/large.py split "$dir/${src[$s]}.csv" "$dir" "$s" ${sizes[$s]}
	echo "== $s ($task)" | tee -a "$results"
	flags=()
	[ $task = reg ] && flags=(-noise gaussian)
	bench_time "$dir/$s.ivm.time" "$dir/$s.ivm.log" "$dir/ivm" train -quiet "${flags[@]}" \
		"$dir/$s.train.csv" "$dir/$s.json"
	"$dir/ivm" predict -prob "$dir/$s.test.csv" "$dir/$s.json" "$dir/$s.probs" >/dev/null
	read -r wall user sys rss <"$dir/$s.ivm.time"
	echo "$(bench_py bench/large.py score "$dir" "$s" $task "$dir/$s.probs" | sed "s/cpu 0.00/cpu $(echo "$user + $sys" | bc)/") wall $wall rss_MB $((rss / 1024))" | tee -a "$results"
	grep -h 'warning' "$dir/$s.ivm.log" | tee -a "$results" || true
	bench_py bench/large.py base "$dir" "$s" $task | tee -a "$results"
	if [ "${LARGE_LIBSVM:-1}" = 1 ]; then
		for part in train test; do
			awk -F, '{printf "%s", $NF; for (i = 1; i < NF; i++) printf " %d:%s", i, $i; print ""}' \
				"$dir/$s.$part.csv" >"$dir/$s.$part.svm"
		done
		svm-scale -l -1 -u 1 -s "$dir/$s.range" "$dir/$s.train.svm" >"$dir/$s.train.scaled"
		svm-scale -r "$dir/$s.range" "$dir/$s.test.svm" >"$dir/$s.test.scaled"
		opt=(-q -b 1)
		[ $task = reg ] && opt=(-q -s 3)
		if bench_time "$dir/$s.svm.time" "$dir/$s.svm.log" timeout "${LARGE_LIBSVM_TIMEOUT:-1800}" \
			svm-train "${opt[@]}" "$dir/$s.train.scaled" "$dir/$s.svmmodel"; then
			popt=(-b 1)
			[ $task = reg ] && popt=()
			svm-predict "${popt[@]}" "$dir/$s.test.scaled" "$dir/$s.svmmodel" "$dir/$s.svmout" >/dev/null
			read -r wall user sys rss <"$dir/$s.svm.time"
			echo "libsvm $(bench_py - "$dir/$s.svmout" "$dir/$s.test.csv" $task <<'PY'
import sys, numpy as np
out, test, task = sys.argv[1:4]
yt = np.loadtxt(test, delimiter=",", ndmin=2)[:, -1]
if task == "reg":
    mu = np.loadtxt(out)
    print("mse %.5f" % np.mean((yt - mu) ** 2), end="")
else:
    head = open(out).readline().split()[1:]
    a = np.loadtxt(out, skiprows=1, ndmin=2)
    cls = np.array([float(c) for c in head])
    P = np.clip(a[:, 1:], 1e-15, 1)
    idx = [list(cls).index(v) for v in yt]
    print("acc %.4f logloss %.4f" % (np.mean(a[:, 0] == yt), -np.mean(np.log(P[np.arange(len(yt)), idx]))), end="")
PY
) cpu $(echo "$user + $sys" | bc) wall $wall rss_MB $((rss / 1024))" | tee -a "$results"
		else
			echo "libsvm: no result within ${LARGE_LIBSVM_TIMEOUT:-1800} s" | tee -a "$results"
		fi
	fi
done
echo "table: $results"
