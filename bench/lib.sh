# Common helpers of the benchmark scripts: sourced, not run.
# shellcheck shell=bash
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
OUT="$BENCH_DIR/out"            # git-ignored
RSC="$OUT/rsconform"
RUNS=${BENCH_RUNS:-5}           # measured runs per tool (median); at least 5
[ "$RUNS" -ge 5 ] || { echo "BENCH_RUNS must be at least 5" >&2; exit 2; }
mkdir -p "$OUT"
cd "$ROOT"

# need CMD PACKAGE: installs the Debian PACKAGE when CMD is missing
# (apt-get update once, only when the package is not found).
need() {
  local cmd=$1 pkg=$2
  if [ -x "$cmd" ] || command -v "$cmd" >/dev/null 2>&1; then return 0; fi
  echo "bench: installing $pkg (for $cmd)" >&2
  local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$pkg" >/dev/null 2>&1; then
    $sudo apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$pkg" >/dev/null
  fi
}
need /usr/bin/time time
need python3 python3
need curl curl

# build: builds rsconform once per run (bench/run.sh sets BENCH_BUILT so that
# the scripts it runs reuse its build).
build() {
  if [ "${BENCH_BUILT:-}" != 1 ] || [ ! -x "$RSC" ]; then
    echo "bench: go build -o bench/out/rsconform ./cmd/rsconform" >&2
    go build -o "$RSC" ./cmd/rsconform
    export BENCH_BUILT=1
  fi
}

load() { cut -d' ' -f1-3 /proc/loadavg; }

# timed FILE CMD...: runs CMD under /usr/bin/time and appends
# "elapsed_s maxrss_KB exit user_s sys_s" to FILE; CMD's stdout and stderr go to
# FILE.stdout and FILE.stderr (last run).
timed() {
  local rec=$1; shift
  local rc=0 e m u s
  /usr/bin/time -f '%e %M %U %S' -o "$rec.t" "$@" >"$rec.stdout" 2>"$rec.stderr" || rc=$?
  read -r e m u s < <(tail -n1 "$rec.t")
  echo "$e $m $rc $u $s" >>"$rec"
}

# alternate RUNS A_REC B_REC -- A_CMD... -- B_CMD...: one warm-up of each, then
# RUNS rounds running A and B alternately (A B, B A, A B, ...), so that both see
# the same machine load; the i-th lines of A_REC and B_REC are one round.
alternate() {
  local runs=$1 ra=$2 rb=$3; shift 3
  [ "$1" = -- ] || return 2; shift
  local a=() b=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do a+=("$1"); shift; done
  shift
  b=("$@")
  : >"$ra.warm"; : >"$rb.warm"; : >"$ra"; : >"$rb"
  timed "$ra.warm" "${a[@]}"; timed "$rb.warm" "${b[@]}"
  local i
  for ((i = 0; i < runs; i++)); do
    if ((i % 2 == 0)); then timed "$ra" "${a[@]}"; timed "$rb" "${b[@]}"
    else timed "$rb" "${b[@]}"; timed "$ra" "${a[@]}"; fi
  done
}

# stats CMD ARGS...: medians, ratios, rates; see stats.py.
stats() { python3 "$BENCH_DIR/stats.py" "$@"; }

verdict() { # verdict VALUE OP TARGET -> PASS or MISS
  python3 -c 'import sys,operator as o; v,op,t=float(sys.argv[1]),sys.argv[2],float(sys.argv[3]); print("PASS" if {"<=":o.le,"<":o.lt,">=":o.ge,">":o.gt}[op](v,t) else "MISS")' "$@"
}

# free_port: a free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_mock LOG ARGS...: starts "rsconform mock ARGS" under /usr/bin/time
# (its peak RSS lands in LOG.t when it stops), waits until it serves, and
# sets MOCK_PID (the time process), MOCK_URL.
start_mock() {
  local log=$1; shift
  local port; port=$(free_port)
  /usr/bin/time -f '%e %M' -o "$log.t" "$RSC" mock --addr "127.0.0.1:$port" "$@" >"$log" 2>&1 &
  MOCK_PID=$!
  MOCK_URL="http://127.0.0.1:$port"
  local i
  for ((i = 0; i < 200; i++)); do
    curl -sf -o /dev/null "$MOCK_URL/_rsconform/status" && return 0
    kill -0 "$MOCK_PID" 2>/dev/null || { cat "$log" >&2; return 1; }
    sleep 0.1
  done
  echo "bench: the mock did not start" >&2; cat "$log" >&2; return 1
}

# stop_mock: stops the mock started by start_mock (SIGINT to rsconform itself,
# the child of the time process), and waits for its peak RSS to be written.
stop_mock() {
  [ -n "${MOCK_PID:-}" ] || return 0
  local child
  child=$(ps -o pid= --ppid "$MOCK_PID" 2>/dev/null | tr -d ' ' || true)
  if [ -n "$child" ]; then kill -INT "$child" 2>/dev/null || true; fi
  local i
  for ((i = 0; i < 50; i++)); do kill -0 "$MOCK_PID" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$MOCK_PID" 2>/dev/null; then
    [ -n "$child" ] && kill -TERM "$child" 2>/dev/null || true
  fi
  wait "$MOCK_PID" 2>/dev/null || true
  MOCK_PID=""
}
