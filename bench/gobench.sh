#!/usr/bin/env bash
# bench/gobench.sh [-profile] [COUNT]: the Go micro-benchmarks on a 50,000-entry
# Resource List (BenchmarkParse50k, BenchmarkSchema*50k, BenchmarkRules50k,
# BenchmarkValidate50k*), COUNT runs each (default 6), written to
# bench/out/gobench-REV.txt in the format benchstat compares:
#   benchstat bench/out/gobench-OLD.txt bench/out/gobench-NEW.txt
# With -profile, also a CPU profile per package in bench/out/*.cpu.prof, and
# the top of each (go tool pprof -top -cum).
. "$(dirname "$0")/lib.sh"
profile=0
if [ "${1:-}" = -profile ]; then profile=1; shift; fi
COUNT=${1:-6}
rev=$(git rev-parse --short HEAD 2>/dev/null || echo local)
git diff --quiet 2>/dev/null || rev="$rev-dirty"
out="$OUT/gobench-$rev.txt"
echo "== go test -run '^\$' -bench 50k -benchmem -count $COUNT ./resourcesync ./schema ./rules/engine   (load before: $(load))"
go test -run '^$' -bench 50k -benchmem -count "$COUNT" ./resourcesync ./schema ./rules/engine | tee "$out"
echo "   written to ${out#"$ROOT"/}; load after: $(load)"
if [ "$profile" = 1 ]; then
  for p in resourcesync schema rules/engine; do
    n=${p//\//-} # rules/engine: bench/out/rules-engine.test
    go test -c -o "$OUT/$n.test" "./$p"
    (cd "$OUT" && "./$n.test" -test.run '^$' -test.bench 50k -test.benchtime 10x -test.cpuprofile "$n.cpu.prof" >/dev/null)
    echo "== CPU profile of ./$p (go tool pprof -top -cum bench/out/$n.test bench/out/$n.cpu.prof)"
    go tool pprof -top -cum "$OUT/$n.test" "$OUT/$n.cpu.prof" 2>/dev/null | sed -n '6,30p'
  done
fi
exit 0
