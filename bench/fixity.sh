#!/usr/bin/env bash
# bench/fixity.sh: fixity throughput of rsconform crawl --packages on a 1 GiB
# Resource Dump package (ZIP_STORED, manifest.xml + 256 bitstreams of 4 MiB of
# pseudo-random data with sha-256 in the manifest), served from a folder with
# --map (no server), vs sha256sum of the ZIP. Both read the file from the page
# cache (one warm-up each). Alternating rounds, BENCH_RUNS (default 5); medians.
# Everything is built in /tmp and deleted at the end.
# Target: rsconform's MB/s >= 80% of sha256sum's.
. "$(dirname "$0")/lib.sh"
need sha256sum coreutils
build

MB=${FIXITY_MB:-1024}; COUNT=${FIXITY_BITSTREAMS:-256}
need_mb=$((MB * 3 + 200))        # the package, rsconform's spill copy, margin
avail_mb=$(df -Pm /tmp | awk 'NR==2 {print $4}')
echo "== fixity: rsconform crawl --packages (package of $MB MiB, $COUNT bitstreams, sha-256) vs sha256sum"
echo "   disk: $(df -h /tmp | awk 'NR==2 {print $4 " available on " $6}') (need about $need_mb MB)"
if [ "$avail_mb" -lt "$need_mb" ]; then
  echo "   not enough room in /tmp: skipped"; echo "target >= 80% of sha256sum: not measured (MISS)"; exit 0
fi
DIR=$(mktemp -d /tmp/rsbench-fixity.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
python3 "$BENCH_DIR/gen.py" package "$DIR/pkg" "$MB" "$COUNT"
ZIP="$DIR/pkg/package.zip"
size=$(wc -c <"$ZIP")
BASE=http://bench.example.org
CRAWL=("$RSC" crawl --packages --sample 0 --map "$BASE/=$DIR/pkg/site"
  --max-package-size $((4 * size)) --max-bytes $((8 * size)) --format json -o "$DIR/report.json"
  "$BASE/.well-known/resourcesync")
echo "   rsconform: ${CRAWL[*]/#$DIR/DIR}" | sed "s#$DIR#DIR#g"
echo "   reference: sha256sum DIR/pkg/package.zip"
echo "   $RUNS alternating rounds after one warm-up each; MB/s = ZIP size ($(python3 -c "print(round($size/1e6))") MB) / wall time"
echo "   load before: $(load)   $(nproc) CPUs   sha_ni: $(grep -q sha_ni /proc/cpuinfo && echo yes || echo no)"

alternate "$RUNS" "$DIR/sum" "$DIR/rsc" -- sha256sum "$ZIP" -- "${CRAWL[@]}"

# Did the crawl check the package and find it fine? (last run's report)
check=$(python3 - "$DIR/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
docs = {x["kind"]: x for x in d["documents"]}
p = docs.get("package"); m = [x for x in d["documents"] if "#manifest.xml" in x["location"]]
s = d["summary"]
print("package %s, in-package manifest %s; %d documents, %d errors, %d warnings"
      % (p["status"] if p else "absent", m[0]["status"] if m else "absent", s["documents"], s["errors"], s["warnings"]))
PY
)
st=$(stats med "$DIR/sum" 0); rt=$(stats med "$DIR/rsc" 0)
smb=$(python3 -c "print(round($size/1e6/$st))"); rmb=$(python3 -c "print(round($size/1e6/$rt))")
ratio=$(stats ratio "$DIR/rsc" "$DIR/sum" 0)     # per round: t_sha256sum / t_rsconform = rsconform's share
# For context only: coreutils' sha256sum does not use the CPU's SHA
# extensions; openssl does (so does Go's crypto/sha256).
if command -v openssl >/dev/null 2>&1; then
  alternate "$RUNS" "$DIR/ossl" "$DIR/rsc2" -- openssl dgst -sha256 "$ZIP" -- "${CRAWL[@]}"
fi
printf '%-22s %8s %8s %8s %8s\n' "" "wall s" "MB/s" "CPU s" "peak MB"
printf '%-22s %8.2f %8s %8.2f %8.0f\n' sha256sum "$st" "$smb" "$(stats med "$DIR/sum" cpu)" "$(python3 -c "print($(stats med "$DIR/sum" 1)/1024)")"
printf '%-22s %8.2f %8s %8.2f %8.0f\n' "rsconform --packages" "$rt" "$rmb" "$(stats med "$DIR/rsc" cpu)" "$(python3 -c "print($(stats med "$DIR/rsc" 1)/1024)")"
if [ -s "$DIR/ossl" ]; then
  ot=$(stats med "$DIR/ossl" 0)
  printf '%-22s %8.2f %8s %8.2f %8.0f   (context, not the target: rsconform at %s%% of it, per-round median)\n' "openssl dgst -sha256" "$ot" \
    "$(python3 -c "print(round($size/1e6/$ot))")" "$(stats med "$DIR/ossl" cpu)" "$(python3 -c "print($(stats med "$DIR/ossl" 1)/1024)")" \
    "$(python3 -c "print(round(100*$(stats ratio "$DIR/rsc2" "$DIR/ossl" 0)))")"
fi
echo "   runs (s)  sha256sum: $(stats list "$DIR/sum" 0)   rsconform: $(stats list "$DIR/rsc" 0); rsconform exits: $(cut -d' ' -f3 "$DIR/rsc" | tr '\n' ' ')"
echo "   crawl report: $check"
echo "   load after: $(load)"
pct=$(python3 -c "print(round(100*$ratio))")
echo "target rsconform >= 80% of sha256sum's MB/s: ${pct}% (median per-round ratio) $(verdict "$ratio" ">=" 0.8)"
rm -rf "$DIR"; trap - EXIT
echo "   removed $DIR; disk: $(df -h /tmp | awk 'NR==2 {print $4}') available"
exit 0
