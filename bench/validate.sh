#!/usr/bin/env bash
# bench/validate.sh: rsconform validate vs xmllint --schema on three generated
# documents (50,000-entry Resource List, 50,000-entry Change List, a ~47 MB
# Resource List near the 50 MB limit). Runs the two tools alternately,
# BENCH_RUNS times (default 5), and prints medians and per-round ratios.
# Targets: time ratio (rsconform/xmllint) <= 1.2, memory ratio <= 1.5.
. "$(dirname "$0")/lib.sh"
need xmllint libxml2-utils
build

IN="$OUT/in"; mkdir -p "$IN"
XSD=$(mktemp -d /tmp/rsbench-xsd.XXXXXX)
REC=$(mktemp -d /tmp/rsbench-validate.XXXXXX)
trap 'rm -rf "$XSD" "$REC"' EXIT
cp schema/*.xsd "$XSD/"      # sitemap.xsd imports rs.xsd by a relative URL

for k in resourcelist changelist biglist; do
  [ -s "$IN/$k.xml" ] && [ "$IN/$k.xml" -nt "$BENCH_DIR/gen.py" ] || python3 "$BENCH_DIR/gen.py" "$k" "$IN/$k.xml"
done

echo "== validate: xmllint --noout --schema sitemap.xsd FILE  vs  rsconform validate FILE (all rules)"
echo "   $RUNS alternating rounds after one warm-up each; medians; ratios = median of per-round rsconform/xmllint"
echo "   load before: $(load)   $(nproc) CPUs   $(xmllint --version 2>&1 | head -n1)"
printf '%-13s %8s %8s %8s %7s %6s %8s %8s %7s %6s  %s\n' \
  input MB "xmllint" "rscnf" "t-ratio" "" "xl-RSS" "rs-RSS" "m-ratio" "" "valid (xmllint / rsconform)"
printf '%-13s %8s %8s %8s %7s %6s %8s %8s %7s %6s\n' "" "" "s" "s" "<=1.2" "" "MB" "MB" "<=1.5" ""
pass=0; miss=0
for k in resourcelist changelist biglist; do
  f="$IN/$k.xml"
  alternate "$RUNS" "$REC/$k.x" "$REC/$k.r" \
    -- xmllint --noout --schema "$XSD/sitemap.xsd" "$f" \
    -- "$RSC" validate --color never "$f"
  xt=$(stats med "$REC/$k.x" 0); rt=$(stats med "$REC/$k.r" 0)
  xm=$(stats med "$REC/$k.x" 1); rm_=$(stats med "$REC/$k.r" 1)
  tr=$(stats ratio "$REC/$k.x" "$REC/$k.r" 0); mr=$(stats ratio "$REC/$k.x" "$REC/$k.r" 1)
  tv=$(verdict "$tr" "<=" 1.2); mv=$(verdict "$mr" "<=" 1.5)
  for v in $tv $mv; do [ "$v" = PASS ] && pass=$((pass + 1)) || miss=$((miss + 1)); done
  # Validity, from the last measured run of each tool.
  if grep -q ' validates$' "$REC/$k.x.stderr"; then xv=valid; else xv="NOT valid: $(head -c 200 "$REC/$k.x.stderr")"; fi
  if [ "$(tail -n1 "$REC/$k.r" | cut -d' ' -f3)" = 0 ] && grep -q '^1 document: 1 valid' "$REC/$k.r.stdout"; then
    rv="valid ($(tail -n1 "$REC/$k.r.stdout" | sed 's/^1 document: 1 valid, 0 invalid, 0 unprocessed; //'))"
  else rv="NOT valid: $(tail -n1 "$REC/$k.r.stdout")"; fi
  printf '%-13s %8.1f %8.2f %8.2f %7.2f %6s %8.0f %8.0f %7.2f %6s  %s / %s\n' "$k" \
    "$(python3 -c "import os;print(os.path.getsize('$f')/1e6)")" "$xt" "$rt" "$tr" "$tv" \
    "$(python3 -c "print($xm/1024)")" "$(python3 -c "print($rm_/1024)")" "$mr" "$mv" "$xv" "$rv"
  echo "   $k runs (s) xmllint: $(stats list "$REC/$k.x" 0) | rsconform: $(stats list "$REC/$k.r" 0); median CPU (user+sys) s: xmllint $(stats med "$REC/$k.x" cpu), rsconform $(stats med "$REC/$k.r" cpu), CPU ratio $(stats ratio "$REC/$k.x" "$REC/$k.r" cpu)"
done
echo "   load after: $(load)"
echo "targets: time ratio <= 1.2 and memory ratio <= 1.5 on each input: $pass PASS, $miss MISS"
exit 0
