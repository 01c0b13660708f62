#!/usr/bin/env bash
# ivm serve under load, and partitioned training (issue 31). Loopback (127.0.0.1) only.
#
#   bash bench/serve.sh                    # 20 000 requests from 32 clients
#   REQUESTS=2000 CLIENTS=8 bash bench/serve.sh
#
# 1. Ten-class USPS with a fixed kernel (usps.sh's (a) kernel, d = 200): a single run, and
#    the same training as 3 parts (`ivm train -part i/3`, separate processes) merged by
#    `ivm merge`; `ivm predict -prob` on the test set must give byte-identical files.
# 2. `ivm serve` on the merged model; bench/serveload sends single-row requests of the test
#    images from concurrent clients, checks every answer against the in-process Predict of
#    the same row (bit for bit), replaces the model file by a d = 150 model halfway and
#    sends SIGHUP (each answer must be one model's or the other's, and some the new one's),
#    mixes in hostile requests (truncated JSON, wrong dimension, NaN, a 100 MB body, a client
#    that stalls mid-body), prints p50/p99 latency and throughput against the same
#    predictions in process, and the server's RSS before and after.
# 3. SIGTERM: the server must exit with status 0 after logging "stopped".
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${REQUESTS:-20000}; clients=${CLIENTS:-32}; port=${PORT:-18431}
out=bench/out/serve; mkdir -p "$out"
go build -o "$out/ivm" ./cmd/ivm
go build -o "$out/serveload" ./bench/serveload
train=data/usps/usps_train.csv.gz; test=data/usps/usps_test.csv.gz
kernel='rbf(gamma=0.0078125)+lin(variance=0.01)+bias+white'
flags=(-quiet -label-col first -scale none -kernel "$kernel" -iters 0 -criterion entropy)
tm() { /usr/bin/time -f "%e s, peak RSS %M kB" -o "$out/time.txt" "$@"; cat "$out/time.txt"; }

echo "== training: single run, then 3 parts as separate processes"
echo "single run:  $(tm "$out/ivm" train "${flags[@]}" -d 200 "$train" "$out/single.json")"
for i in 0 1 2; do
	echo "part $i/3:    $(tm "$out/ivm" train "${flags[@]}" -d 200 -part "$i/3" "$train" "$out/part$i.json")"
done
"$out/ivm" merge "$out/part2.json" "$out/part0.json" "$out/part1.json" "$out/merged.json"
"$out/ivm" predict -label-col first -prob "$test" "$out/single.json" "$out/single.prob"
"$out/ivm" predict -label-col first -prob "$test" "$out/merged.json" "$out/merged.prob"
cmp "$out/single.prob" "$out/merged.prob" && echo "merged model: ivm predict -prob output byte-identical to the single run's"
"$out/ivm" train "${flags[@]}" -d 150 "$train" "$out/next.json"

echo "== serving"
cp "$out/merged.json" "$out/served.json"
"$out/ivm" serve -addr "127.0.0.1:$port" -read-timeout 2s usps="$out/served.json" 2>"$out/serve.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
"$out/serveload" -url "http://127.0.0.1:$port" -requests "$requests" -clients "$clients" -pid "$pid" \
	-data "$test" -model "$out/merged.json" -next "$out/next.json" -served "$out/served.json"
curl -s "http://127.0.0.1:$port/metrics" | grep -v '^#'
kill -TERM "$pid"
wait "$pid" && echo "SIGTERM: exit status 0"
trap - EXIT
grep -c '"msg":"request"' "$out/serve.log" | sed 's/^/log: request lines: /'
grep -o '"msg":"\(model reloaded\|reload done\|stopped\|shutting down[^"]*\)"' "$out/serve.log" | sed 's/^/log: /'
