#!/usr/bin/env bash
# Side-by-side cost of IVM selection and libsvm training on the same file, same machine, same run.
#
#   bash bench/select.sh [N] [DIM] [D]      (defaults 20000 20 500: the engine issue's anchor)
#
# Installs libsvm-tools and GNU time from Debian if they are missing. Prints wall time, peak
# RSS and test accuracy of both, and the ratio ivm/libsvm. Scratch files go to bench/out/.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20000}; dim=${2:-20}; d=${3:-500}
if ! command -v svm-train >/dev/null || [ ! -x /usr/bin/time ]; then
	apt-get update -qq && apt-get install -y -qq libsvm-tools time >/dev/null
fi
out=bench/out; mkdir -p "$out"
go build -o "$out/ivm" ./cmd/ivm
go run ./bench/gen -n "$n" -dim "$dim" -seed 1 > "$out/train.libsvm"
go run ./bench/gen -n 5000 -dim "$dim" -seed 2 > "$out/test.libsvm"
# The same kernel for both: libsvm's exp(−0.05‖x−x'‖²) is rbf with γ = 0.1 here.
tm() { /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" >"$out/stdout.txt" 2>&1; cat "$out/time.txt"; }
read -r ivm_s ivm_kb < <(tm "$out/ivm" train -quiet -iters 0 -scale none -d "$d" -kernel 'rbf(gamma=0.1,variance=1)+bias+white' "$out/train.libsvm" "$out/model.ivm")
ivm_acc=$("$out/ivm" predict "$out/test.libsvm" "$out/model.ivm" | sed -n 's/^Accuracy = \([^ ]*\).*/\1/p')
read -r svm_s svm_kb < <(tm svm-train -q -c 1 -g 0.05 "$out/train.libsvm" "$out/model.svm")
svm_acc=$(svm-predict "$out/test.libsvm" "$out/model.svm" "$out/pred.svm" | sed -n 's/^Accuracy = \([^ ]*\).*/\1/p')
awk -v n="$n" -v dim="$dim" -v d="$d" -v is="$ivm_s" -v ik="$ivm_kb" -v ia="$ivm_acc" \
	-v ss="$svm_s" -v sk="$svm_kb" -v sa="$svm_acc" 'BEGIN {
	printf "%-28s %9s %10s %9s\n", "N=" n " D=" dim " d=" d, "wall s", "peak MB", "accuracy"
	printf "%-28s %9.2f %10.1f %9s\n", "ivm train -d " d, is, ik / 1024, ia
	printf "%-28s %9.2f %10.1f %9s\n", "svm-train -c 1 -g 0.05", ss, sk / 1024, sa
	printf "time ratio ivm/libsvm: %.3f; ivm peak RSS / (8*N*d bytes): %.2f\n", is / ss, ik * 1024 / (8 * n * d)
}'
