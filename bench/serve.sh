#!/usr/bin/env bash
# bench/serve.sh: requests per second of the mock Source (rsconform mock
# --scenario large-source --resources 100000) under wrk -t2 -c32 -d10s, on
# one resource URL and on many (bench/wrk-resources.lua cycles through all
# 100,000 resources). The two loads run alternately, BENCH_RUNS rounds
# (default 5); medians. wrk and the mock share the machine's CPUs.
# Target: >= 10,000 requests/s on each, and no errors.
. "$(dirname "$0")/lib.sh"
need wrk wrk
build

N=${SERVE_RESOURCES:-100000}
DUR=${SERVE_DURATION:-10s}
REC=$(mktemp -d /tmp/rsbench-serve.XXXXXX)
trap 'stop_mock; rm -rf "$REC"' EXIT
start_mock "$REC/mock.log" --scenario large-source --resources "$N"
ONE="$MOCK_URL/res/0012345.txt"
code=$(curl -s -o /dev/null -w '%{http_code}' "$ONE")
[ "$code" = 200 ] || { echo "bench: $ONE answers $code" >&2; exit 2; }

echo "== serve: wrk -t2 -c32 -d$DUR against rsconform mock --scenario large-source --resources $N"
echo "   one:  wrk -t2 -c32 -d$DUR $ONE"
echo "   many: wrk -t2 -c32 -d$DUR -s bench/wrk-resources.lua $MOCK_URL -- $N"
echo "   $RUNS alternating rounds after one warm-up each; medians"
echo "   load before: $(load)   $(nproc) CPUs (wrk and the mock share them)"

# run NAME ARGS...: one wrk run; appends "req/s errors non2xx" to $REC/NAME.
run() {
  local name=$1; shift
  wrk -t2 -c32 -d"$DUR" "$@" >"$REC/$name.out" 2>&1 || true
  python3 - "$REC/$name.out" >>"$REC/$name" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
rps = re.search(r"Requests/sec:\s+([\d.]+)", t)
sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", t)
non = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
reqs = re.search(r"(\d+) requests in", t)
print(rps.group(1) if rps else 0, sum(map(int, sock.groups())) if sock else 0,
      non.group(1) if non else 0, reqs.group(1) if reqs else 0)
PY
}
run one.warm "$ONE"; run many.warm -s "$BENCH_DIR/wrk-resources.lua" "$MOCK_URL" -- "$N"
: >"$REC/one"; : >"$REC/many"
for ((i = 0; i < RUNS; i++)); do
  if ((i % 2 == 0)); then
    run one "$ONE"; run many -s "$BENCH_DIR/wrk-resources.lua" "$MOCK_URL" -- "$N"
  else
    run many -s "$BENCH_DIR/wrk-resources.lua" "$MOCK_URL" -- "$N"; run one "$ONE"
  fi
done
stop_mock
printf '%-6s %12s %14s %14s %14s  %s\n' load "req/s" "socket errors" "non-2xx/3xx" "requests" "target >= 10000 req/s, no errors"
for name in one many; do
  read -r rps sock non reqs < <(python3 - "$REC/$name" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
print("%.0f" % statistics.median(float(r[0]) for r in rows), sum(int(r[1]) for r in rows),
      sum(int(r[2]) for r in rows), sum(int(r[3]) for r in rows))
PY
)
  v=$(verdict "$rps" ">=" 10000)
  [ "$sock" = 0 ] && [ "$non" = 0 ] || v=MISS
  printf '%-6s %12s %14s %14s %14s  %s\n' "$name" "$rps" "$sock" "$non" "$reqs" "$v"
  echo "       runs (req/s): $(cut -d' ' -f1 "$REC/$name" | tr '\n' ' ')"
done
echo "   errors are summed over the $RUNS measured runs; requests too"
echo "   mock peak RSS: $(python3 -c "print(round($(tail -n1 "$REC/mock.log.t" | cut -d' ' -f2)/1024))") MB"
echo "   load after: $(load)"
exit 0
