#!/usr/bin/env bash
# bench/crawl.sh: rsconform crawl of the mock Source's large-source scenario
# (CRAWL_RESOURCES resources, default 1,000,000: a Resource List Index of 20
# lists of 50,000), played to its end. Measures entries validated per second
# end to end and the crawler's peak RSS, alternating with a reference that
# only downloads the same documents (curl, 4 in parallel like the crawler):
# the floor the mock Source itself sets on this machine.
# Targets: >= 50,000 entries/s, peak RSS < 300 MB.
. "$(dirname "$0")/lib.sh"
build

N=${CRAWL_RESOURCES:-1000000}
REC=$(mktemp -d /tmp/rsbench-crawl.XXXXXX)
trap 'stop_mock; rm -rf "$REC"' EXIT
start_mock "$REC/mock.log" --scenario large-source --resources "$N"

# Play the scenario to its end.
steps=0
while ((steps < 100)); do
  r=$(curl -s -X POST "$MOCK_URL/_rsconform/step")
  grep -q '"error"' <<<"$r" && break
  steps=$((steps + 1))
  grep -q '"done": *true' <<<"$r" && break
done

CRAWL=("$RSC" crawl --sample 0 --max-documents 100000 --max-bytes 10000000000 --format json -o /dev/null "$MOCK_URL/.well-known/resourcesync")

# Once, with a JSON report, to learn which documents the crawl checks.
"$RSC" crawl --sample 0 --max-documents 100000 --max-bytes 10000000000 --format json -o "$REC/report.json" "$MOCK_URL/.well-known/resourcesync" || true
python3 - "$REC/report.json" >"$REC/docs.tsv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for doc in d["documents"]:
    print("%s\t%s\t%s\t%d" % (doc["location"], doc["kind"], doc["status"], len(doc["findings"])))
PY
summary=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; print("%d documents: %d valid, %d invalid, %d unprocessed; %d errors, %d warnings" % (s["documents"],s["valid"],s["invalid"],s["unprocessed"],s["errors"],s["warnings"]))' "$REC/report.json")

# Count the entries of every document crawled (<url> and <sitemap>), fetching
# each once; bytes too.
total=0; bytes=0; : >"$REC/urls"
declare -A kinds=()
while IFS=$'\t' read -r loc kind status nf; do
  curl -s -o "$REC/doc" "$loc"
  n=$(grep -o '<url>\|<sitemap>' "$REC/doc" | wc -l || true)
  b=$(wc -c <"$REC/doc")
  total=$((total + n)); bytes=$((bytes + b))
  prev=${kinds[$kind]:-0/0}
  kinds[$kind]="$(( ${prev%%/*} + 1 ))/$(( ${prev##*/} + n ))"
  echo "$loc" >>"$REC/urls"
done <"$REC/docs.tsv"

fetch_all() { # the reference: download every document, 4 at a time
  local args=() u
  while read -r u; do args+=(-o /dev/null "$u"); done <"$REC/urls"
  curl -s --parallel --parallel-max 4 "${args[@]}"
}
export -f fetch_all; export REC

echo "== crawl: rsconform crawl --sample 0 --max-documents 100000 --max-bytes 10000000000 --format json -o /dev/null $MOCK_URL/.well-known/resourcesync"
echo "   mock: rsconform mock --scenario large-source --resources $N, played $steps steps to the end"
echo "   $RUNS alternating rounds with the reference (curl downloading the same $(wc -l <"$REC/urls") documents, 4 in parallel) after one warm-up each"
echo "   load before: $(load)   $(nproc) CPUs (the mock Source, the crawler and curl share them)"
echo "   the Source holds (documents crawled, by kind: count/entries):"
for k in "${!kinds[@]}"; do printf '     %-22s %s\n' "$k" "${kinds[$k]}"; done | sort
echo "   total: $total entries in $(wc -l <"$REC/urls") documents, $(python3 -c "print(round($bytes/1e6,1))") MB; crawl report: $summary"
if ! grep -q changelist-index "$REC/docs.tsv"; then echo "   note: no Change List Index"; fi
ncl=$(grep -c $'\tchangelist\t' "$REC/docs.tsv" || true)
[ "$ncl" -ge 100 ] || echo "   note: the scenario gives a Change List Index of $ncl Change Lists (not 100): large-source plays 2 steps (1,700 changes); measured as it is"

alternate "$RUNS" "$REC/crawl" "$REC/curl" -- "${CRAWL[@]}" -- bash -c fetch_all
ct=$(stats med "$REC/crawl" 0); cm=$(stats med "$REC/crawl" 1); ccpu=$(stats med "$REC/crawl" cpu)
rate=$(stats rate "$total" "$REC/crawl"); ft=$(stats med "$REC/curl" 0)
fails=$(stats fail "$REC/crawl")
printf '%-34s %10s %12s %10s %10s\n' "" "wall s" "entries/s" "peak MB" "CPU s"
printf '%-34s %10.2f %12s %10.0f %10.2f\n' "rsconform crawl" "$ct" "$rate" "$(python3 -c "print($cm/1024)")" "$ccpu"
printf '%-34s %10.2f %12s %10s %10.2f\n' "reference: curl, download only" "$ft" "$(stats rate "$total" "$REC/curl")" "-" "$(stats med "$REC/curl" cpu)"
echo "   runs (s)  crawl: $(stats list "$REC/crawl" 0)   curl: $(stats list "$REC/curl" 0); crawl runs that exited non-zero: $fails"
echo "   crawl/download time ratio (median per round): $(stats ratio "$REC/curl" "$REC/crawl" 0)"
stop_mock
echo "   mock Source peak RSS: $(python3 -c "print(round($(tail -n1 "$REC/mock.log.t" | cut -d' ' -f2)/1024))") MB"
echo "   load after: $(load)"
echo "target entries/s >= 50000: $rate $(verdict "$rate" ">=" 50000)"
echo "target peak RSS < 300 MB: $(python3 -c "print(round($cm/1024))") MB $(verdict "$cm" "<" $((300 * 1024)))"
exit 0
