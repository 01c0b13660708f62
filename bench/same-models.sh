#!/usr/bin/env bash
# same-models.sh: retrain every golden model file (cmd/ivm/testdata/golden) with the current
# build and check that each is the checked-in file apart from its "time" and "seconds":
# the check that a refactoring left training unchanged. The checked-in files are restored.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=cmd/ivm/testdata/golden
old=$(mktemp -d)
trap 'rm -rf "$old"; git checkout -q -- "$dir"' EXIT
cp "$dir"/*.json* "$old"/
go test ./cmd/ivm -run TestGoldenModels -update -count=1 >/dev/null
strip() { if [[ $1 == *.gz ]]; then gzip -dc "$1"; else cat "$1"; fi |
	sed -E 's/"time": ?"[^"]*"//g; s/"seconds": ?[-0-9.e+]*//g'; }
bad=0
for f in "$old"/*.json*; do
	name=$(basename "$f")
	if ! diff -q <(strip "$f") <(strip "$dir/$name") >/dev/null; then
		echo "differs: $name"
		diff <(strip "$f") <(strip "$dir/$name") | head -5 | cut -c1-200
		bad=1
	fi
done
[[ $bad == 0 ]] && echo "every golden model file retrained identically"
exit $bad
