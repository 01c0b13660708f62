#!/bin/bash
# Fashion-MNIST against the issue-28 anchors, in one run: `ivm train` with no flag against one
# `svm-train -c 10 -g 1/(D·var)` without -b (the anchor fit) on the first 10 000 training
# images, ROUNDS times each, interleaved; then `ivm train` and `ivm predict -prob` with no
# flag on all 60 000 images (wall, CPU, peak RSS, test accuracy and log loss).
#
#   bash bench/fashion.sh DIR   # DIR holds fashion10k.{train,test} and fashion.{train,test}
#                               # as bench/suite.sh writes them (SUITE_OUT)
#
# Environment: ROUNDS (default 2), FASHION_FULL=0 skips the 60 000 images, IVM (a built ivm
# binary; default: built from this checkout).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
dir=${1:?usage: bench/fashion.sh DIR}
rounds=${ROUNDS:-2}
bench_install libsvm-tools time
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ivm=${IVM:-}
if [ -z "$ivm" ]; then
	ivm=$work/ivm
	(cd "$here/.." && go build -o "$ivm" ./cmd/ivm)
fi
# γ = 1/(D·var), var the variance of all training pixel values (the suite's anchor).
gamma=$(bench_py - "$dir/fashion10k.train" <<'EOF'
import sys
vals = []
n = 0
for line in open(sys.argv[1]):
    f = line.split()
    n += 1
    vals += [float(t.split(':')[1]) for t in f[1:]]
tot = n * 784
mean = sum(vals) / tot
var = (sum(v * v for v in vals) / tot) - mean * mean
print(1 / (784 * var))
EOF
)
score() { bench_py - "$1" "$2" <<'EOF'
import math, sys
y = [float(l.split()[0]) for l in open(sys.argv[1])]
lines = open(sys.argv[2]).read().split('\n')
head = lines[0].split()
classes = [float(h[2:-1]) for h in head[1:] if h.startswith('p(')]
right = loss = 0
for t, l in zip(y, lines[1:]):
    f = l.split()
    right += float(f[0]) == t
    loss -= math.log(max(float(f[1 + classes.index(t)]), 1e-300))
print(f"accuracy {100 * right / len(y):.2f} %, log loss {loss / len(y):.4f}")
EOF
}
cpu() { awk '{printf "%.1f", $2 + $3}' "$1"; }
for r in $(seq "$rounds"); do
	bench_time "$work/l.t" "$work/l.log" svm-train -q -c 10 -g "$gamma" "$dir/fashion10k.train" "$work/l.model"
	bench_time "$work/i.t" "$work/i.log" "$ivm" train -quiet "$dir/fashion10k.train" "$work/i.model"
	"$ivm" predict -prob "$dir/fashion10k.test" "$work/i.model" "$work/i.pred" >/dev/null
	echo "fashion10k round $r: svm-train $(cpu "$work/l.t") CPU s; ivm train $(cpu "$work/i.t") CPU s" \
		"($(awk -v a="$(cpu "$work/i.t")" -v b="$(cpu "$work/l.t")" 'BEGIN {printf "%.2f", a / b}')×)," \
		"$(score "$dir/fashion10k.test" "$work/i.pred")"
done
[ "${FASHION_FULL:-1}" = 0 ] && exit 0
bench_time "$work/f.t" "$work/f.log" "$ivm" train "$dir/fashion.train" "$work/f.model"
bench_time "$work/p.t" "$work/p.log" "$ivm" predict -prob "$dir/fashion.test" "$work/f.model" "$work/f.pred"
read -r wall user sys rss <"$work/f.t"
read -r pwall puser psys prss <"$work/p.t"
echo "fashion (60 000): ivm train ${wall} s wall, $(cpu "$work/f.t") CPU s, peak RSS $((rss / 1024)) MB;" \
	"ivm predict -prob ${pwall} s wall, $(cpu "$work/p.t") CPU s; $(score "$dir/fashion.test" "$work/f.pred")"
grep -E "^ivm train: (fitting|done|search)" "$work/f.log" | sed 's/^/  /'
