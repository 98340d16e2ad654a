#!/usr/bin/env bash
# bench/run.sh [validate|crawl|serve|fixity|all|go]...: builds rsconform once
# (bench/out/rsconform) and runs the benchmark scripts; each prints its table
# with the targets and PASS/MISS. BENCH_RUNS (default 5) sets the measured
# rounds per tool. "all" is validate, crawl, serve and fixity; "go" runs the
# Go micro-benchmarks (bench/gobench.sh). See bench/README.md.
. "$(dirname "$0")/lib.sh"
[ $# -gt 0 ] || set -- all
for a in "$@"; do
  case $a in validate | crawl | serve | fixity | all | go) ;; *)
    echo "usage: bench/run.sh [validate|crawl|serve|fixity|all|go]..." >&2; exit 2 ;;
  esac
done
build
args=()
for a in "$@"; do
  if [ "$a" = all ]; then args+=(validate crawl serve fixity); else args+=("$a"); fi
done
set -- "${args[@]}"
echo "rsconform $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (+local changes)'), $(go version | cut -d' ' -f3), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ), uptime:$(uptime | sed 's/.*load/ load/')"
for a in "$@"; do
  echo
  if [ "$a" = go ]; then "$BENCH_DIR/gobench.sh"; else "$BENCH_DIR/$a.sh"; fi
done
