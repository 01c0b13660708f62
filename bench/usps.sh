#!/usr/bin/env bash
# USPS side by side (issue 5): ivm, libsvm and scikit-learn on the same files, machine and
# run. Ten-class USPS (7291 training, 2007 test images of 256 pixels in [-1, 1]).
#
#   bash bench/usps.sh            # everything (about half an hour on 2 cores)
#   GRID=0 bash bench/usps.sh     # skip libsvm's grid search
#
#   (a) ivm, fixed kernel: rbf(gamma=1/128)+lin(variance=0.01)+bias+white, d = 500, the
#       papers' entropy criterion,
#       ten one-vs-rest IVMs (no learning)
#   (b) ivm, Algorithm 2: the same start, 5 iterations with noise updates, the paper's
#       objective (the IVM paper's Table-1 protocol; `ivm reproduce usps-table1` runs it
#       for three kernels)
#   (c) svm-train -c 10 -g 0.0078125 (libsvm's rbf exp(-g|x-x'|^2), one-vs-one)
#   (d) libsvm tuned: 5-fold cross-validation (svm-train -v 5) over C in {1, 10, 100} x
#       g in {1/512, 1/128, 1/32}, then the best pair trained on all the data; its time is
#       the nine cross-validations plus the final training
#   (e) scikit-learn GaussianProcessClassifier (rbf kernel, its own marginal-likelihood
#       optimiser, one-vs-rest) on the first 1000 training images; its time for all 7291
#       is extrapolated as t * (7291/1000)^3 (exact GP classification costs O(N^3))
#
# Reports test accuracy, training and prediction wall/CPU seconds, peak resident memory
# and ratios to (c). Installs libsvm-tools, python3-sklearn and GNU time from Debian when
# missing; scikit-learn runs under Debian's /usr/bin/python3.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v svm-train >/dev/null || [ ! -x /usr/bin/time ] || ! /usr/bin/python3 -c 'import sklearn' 2>/dev/null; then
	apt-get update -qq && apt-get install -y -qq libsvm-tools time python3-sklearn >/dev/null
fi
out=bench/out/usps; mkdir -p "$out"
go build -o "$out/ivm" ./cmd/ivm
zcat data/usps/usps_train.csv.gz | awk -F, 'NR>1{printf "%s", $1; for(i=2;i<=NF;i++) printf " %d:%s", i-1, $i; print ""}' > "$out/usps.train"
zcat data/usps/usps_test.csv.gz | awk -F, 'NR>1{printf "%s", $1; for(i=2;i<=NF;i++) printf " %d:%s", i-1, $i; print ""}' > "$out/usps.test"

# tm FILE CMD...: runs CMD, appends "wall cpu maxrss_kB" to FILE, keeps CMD's output in $out/last.txt.
tm() { local f=$1; shift; /usr/bin/time -f "%e %U %S %M" -o "$out/t.txt" "$@" >"$out/last.txt" 2>&1 || { cat "$out/last.txt"; exit 1; }; awk '{printf "%s %.2f %s\n", $1, $2+$3, $4}' "$out/t.txt" > "$f"; }
acc() { sed -n 's/^Accuracy = \([^%]*\)%.*/\1/p' "$out/last.txt" | head -1; }
row() { # name acc train-file predict-file
	read -r tw tc tk < "$3"; read -r pw pc pk < "$4"
	printf "%-34s %8s %9.1f %9.1f %8.2f %8.0f %9s\n" "$1" "$2" "$tw" "$tc" "$pw" "$(( (tk > pk ? tk : pk) / 1024 ))" "$(echo "$tw / $libsvm_wall" | bc -l | xargs printf %.2f)"
}

kernel='rbf(gamma=0.0078125)+lin(variance=0.01)+bias+white'
tm "$out/a.train" "$out/ivm" train -quiet -scale none -kernel "$kernel" -d 500 -iters 0 -criterion entropy "$out/usps.train" "$out/a.model"
tm "$out/a.pred" "$out/ivm" predict "$out/usps.test" "$out/a.model" "$out/a.out"; a_acc=$(acc)
tm "$out/b.train" "$out/ivm" train -quiet -scale none -kernel "$kernel" -d 500 -iters 5 -niters 20 -objective fixed -last-iterate -criterion entropy "$out/usps.train" "$out/b.model"
tm "$out/b.pred" "$out/ivm" predict "$out/usps.test" "$out/b.model" "$out/b.out"; b_acc=$(acc)
tm "$out/c.train" svm-train -q -c 10 -g 0.0078125 "$out/usps.train" "$out/c.model"
tm "$out/c.pred" svm-predict "$out/usps.test" "$out/c.model" "$out/c.out"; c_acc=$(acc)
read -r libsvm_wall _ < "$out/c.train"

if [ "${GRID:-1}" != 0 ]; then
	best=0; bc_=; bg=; total_w=0; total_c=0; peak=0
	for c in 1 10 100; do for g in 0.001953125 0.0078125 0.03125; do
		tm "$out/grid.t" svm-train -q -v 5 -c "$c" -g "$g" "$out/usps.train"
		cv=$(sed -n 's/^Cross Validation Accuracy = \([^%]*\)%.*/\1/p' "$out/last.txt")
		read -r w cpu k < "$out/grid.t"
		total_w=$(echo "$total_w + $w" | bc -l); total_c=$(echo "$total_c + $cpu" | bc -l); [ "$k" -gt "$peak" ] && peak=$k
		echo "  grid C=$c g=$g: 5-fold CV accuracy $cv% in ${w}s" >&2
		if (( $(echo "$cv > $best" | bc -l) )); then best=$cv; bc_=$c; bg=$g; fi
	done; done
	tm "$out/d.final" svm-train -q -c "$bc_" -g "$bg" "$out/usps.train" "$out/d.model"
	read -r w cpu k < "$out/d.final"
	total_w=$(echo "$total_w + $w" | bc -l); total_c=$(echo "$total_c + $cpu" | bc -l); [ "$k" -gt "$peak" ] && peak=$k
	echo "$total_w $total_c $peak" > "$out/d.train"
	tm "$out/d.pred" svm-predict "$out/usps.test" "$out/d.model" "$out/d.out"; d_acc=$(acc)
fi

/usr/bin/python3 - "$out" > "$out/e.txt" <<'PY'
import gzip, resource, sys, time
import numpy as np
from sklearn.gaussian_process import GaussianProcessClassifier
from sklearn.gaussian_process.kernels import RBF, ConstantKernel
out = sys.argv[1]
tr = np.loadtxt(gzip.open("data/usps/usps_train.csv.gz", "rt"), delimiter=",", skiprows=1)
te = np.loadtxt(gzip.open("data/usps/usps_test.csv.gz", "rt"), delimiter=",", skiprows=1)
X, y, Xt, yt = tr[:1000, 1:], tr[:1000, 0], te[:, 1:], te[:, 0]
t0, c0 = time.time(), time.process_time()
gpc = GaussianProcessClassifier(kernel=ConstantKernel(1.0) * RBF(length_scale=np.sqrt(128.0)), random_state=0).fit(X, y)
tw, tc = time.time() - t0, time.process_time() - c0
t0, c0 = time.time(), time.process_time()
acc = 100 * np.mean(gpc.predict(Xt) == yt)
pw, pc = time.time() - t0, time.process_time() - c0
mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{acc:.2f} {tw:.2f} {tc:.2f} {pw:.2f} {pc:.2f} {mb:.0f}")
PY
read -r e_acc e_tw e_tc e_pw e_pc e_mb < "$out/e.txt"

echo "USPS ten classes, $(nproc) cores, $(date -u +%F)"
printf "%-34s %8s %9s %9s %8s %8s %9s\n" "system" "acc %" "train s" "train cpu" "pred s" "peak MB" "train x"
row "(a) ivm fixed kernel, d=500" "$a_acc" "$out/a.train" "$out/a.pred"
row "(b) ivm Algorithm 2, 5 iterations" "$b_acc" "$out/b.train" "$out/b.pred"
row "(c) svm-train -c 10 -g 1/128" "$c_acc" "$out/c.train" "$out/c.pred"
[ "${GRID:-1}" != 0 ] && row "(d) libsvm 3x3 grid, 5-fold CV" "$d_acc" "$out/d.train" "$out/d.pred" && echo "    best C=$bc_ g=$bg (CV accuracy $best%)"
ext=$(echo "$e_tw * (7291/1000)^3" | bc -l)
printf "%-34s %8s %9.1f %9.1f %8.2f %8.0f %9.2f\n" "(e) sklearn GPC, 1000 points" "$e_acc" "$e_tw" "$e_tc" "$e_pw" "$e_mb" "$(echo "$e_tw / $libsvm_wall" | bc -l)"
printf "%-34s %8s %9.0f %9s %8s %8s %9.0f\n" "    extrapolated to 7291 points" "" "$ext" "" "" "" "$(echo "$ext / $libsvm_wall" | bc -l)"
echo "train x = training wall time / (c)'s; peak MB = max resident set of training and prediction"
