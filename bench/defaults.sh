#!/usr/bin/env bash
# Defaults side by side: `ivm train` with no flags against `svm-train` with no flags (-s 3
# for regression), on public data sets, same machine, same run.
#
#   bash bench/defaults.sh
#
# Data: scikit-learn's bundled sets (breast cancer, iris, wine, digits, diabetes; Debian's
# python3-sklearn, run with Debian's own /usr/bin/python3) and the USPS digits shipped in
# data/usps, each split 70/30 (stratified for classification, seed 0) into libsvm files
# under bench/out/defaults/. Installs libsvm-tools, python3-sklearn and GNU time from Debian
# if missing. Prints accuracy (or MSE), training time and peak memory of both, and the
# ratios ivm/libsvm.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_install libsvm-tools time python3-sklearn
out=bench/out/defaults; mkdir -p "$out"
go build -o "$out/ivm" ./cmd/ivm
# The same files as bench/suite.sh's for these sets (bench/suite.py prep).
bench_py bench/suite.py prep "$out" breast_cancer iris wine digits diabetes usps
tm() { /usr/bin/time -f "%e %U %M" -o "$out/time.txt" "$@" >"$out/stdout.txt" 2>&1 || { cat "$out/stdout.txt"; exit 1; }; cat "$out/time.txt"; }
metric() { sed -n 's/^Accuracy = \([^%]*\)%.*/\1/p; s/^Mean squared error = \([^ ]*\).*/\1/p' | head -1; }
printf "%-14s %6s %4s | %10s %8s %8s %7s | %10s %8s %8s %7s | %6s\n" set N D "ivm" "wall s" "cpu s" "MB" "libsvm" "wall s" "cpu s" "MB" "time x"
for s in breast_cancer iris wine digits diabetes usps; do
	svmflags=(); [ "$s" = diabetes ] && svmflags=(-s 3)
	read -r iw iu ik < <(tm "$out/ivm" train -quiet "$out/$s.train" "$out/$s.ivm")
	im=$("$out/ivm" predict "$out/$s.test" "$out/$s.ivm" | metric)
	read -r sw su sk < <(tm svm-train "${svmflags[@]}" "$out/$s.train" "$out/$s.svm")
	sm=$(svm-predict "$out/$s.test" "$out/$s.svm" "$out/$s.svmpred" | metric)
	n=$(wc -l < "$out/$s.train"); dim=$(awk '{for(i=2;i<=NF;i++){split($i,a,":"); if(a[1]>m)m=a[1]}} END{print m}' "$out/$s.train")
	printf "%-14s %6d %4d | %10s %8.2f %8.2f %7.1f | %10s %8.2f %8.2f %7.1f | %6.1f\n" "$s" "$n" "$dim" "$im" "$iw" "$iu" "$(echo "$ik/1024" | bc -l)" "$sm" "$sw" "$su" "$(echo "$sk/1024" | bc -l)" "$(echo "$iw/($sw+0.005)" | bc -l)"
done
echo "metric: accuracy % (diabetes: test mean squared error); time x = ivm wall / (libsvm wall + 0.005 s)"
