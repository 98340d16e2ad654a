#!/usr/bin/env bash
# bench/validate.sh: rsconform validate vs xmllint --stream --noout --schema
# (issue 13: the streaming validator users run on big Sitemaps) on generated
# documents: a 50,000-entry Resource List, a 50,000-entry Change List, a
# ~47 MB Resource List near the 50 MB limit, the 50,000-entry Resource List
# on one line, an element with 50,000 attributes, and a directory of 8
# Resource Lists (xmllint validates them one after the other in one process,
# rsconform validates the directory). Runs the two tools alternately,
# BENCH_RUNS times (default 5), and prints medians and per-round ratios;
# then one sampled run of each splits the peak RSS into anonymous and
# file-backed memory (bench/rss.py).
# Targets (issue 13): time ratio (rsconform/xmllint) <= 1.3 and memory ratio
# <= 3 on one document, time <= 3 on any layout; time <= 0.8 on the directory.
. "$(dirname "$0")/lib.sh"
need xmllint libxml2-utils
build

IN="$OUT/in"; mkdir -p "$IN"
XSD=$(mktemp -d /tmp/rsbench-xsd.XXXXXX)
REC=$(mktemp -d /tmp/rsbench-validate.XXXXXX)
trap 'rm -rf "$XSD" "$REC"' EXIT
cp schema/*.xsd "$XSD/"      # sitemap.xsd imports rs.xsd by a relative URL

for k in resourcelist changelist biglist oneline attrs; do
  [ -s "$IN/$k.xml" ] && [ "$IN/$k.xml" -nt "$BENCH_DIR/gen.py" ] || python3 "$BENCH_DIR/gen.py" "$k" "$IN/$k.xml"
done
mkdir -p "$IN/dir8"
for i in 1 2 3 4 5 6 7 8; do
  [ -s "$IN/dir8/list$i.xml" ] && [ "$IN/dir8/list$i.xml" -nt "$IN/resourcelist.xml" ] || cp "$IN/resourcelist.xml" "$IN/dir8/list$i.xml"
done

echo "== validate: xmllint --stream --noout --schema sitemap.xsd FILE...  vs  rsconform validate FILE|DIR (all rules)"
echo "   $RUNS alternating rounds after one warm-up each; medians; ratios = median of per-round rsconform/xmllint"
echo "   load before: $(load)   $(nproc) CPUs   $(xmllint --version 2>&1 | head -n1)"
printf '%-13s %8s %8s %8s %7s %6s %8s %8s %7s %6s  %s\n' \
  input MB "xmllint" "rscnf" "t-ratio" "" "xl-RSS" "rs-RSS" "m-ratio" "" "valid (xmllint / rsconform)"
printf '%-13s %8s %8s %8s %7s %6s %8s %8s %7s %6s\n' "" "" "s" "s" "target" "" "MB" "MB" "<=3" ""
mb() { python3 -c "print('%.1f' % ($1 / 1024))"; }
echo "   rsconform binary: $(mb $(( $(stat -c %s "$RSC") / 1024 ))) MB; its mapped image is counted in its RSS (file-backed), whatever the input"
pass=0; miss=0
for k in resourcelist changelist biglist oneline attrs dir8; do
  f="$IN/$k.xml"; files=("$f"); ttarget=1.3; mtarget=3; n=1
  case $k in
    oneline | attrs) ttarget=3 ;;
    dir8) f="$IN/dir8"; files=("$f"/*.xml); ttarget=0.8; mtarget=""; n=8 ;;
  esac
  alternate "$RUNS" "$REC/$k.x" "$REC/$k.r" \
    -- xmllint --stream --noout --schema "$XSD/sitemap.xsd" "${files[@]}" \
    -- "$RSC" validate --color never "$f"
  xt=$(stats med "$REC/$k.x" 0); rt=$(stats med "$REC/$k.r" 0)
  xm=$(stats med "$REC/$k.x" 1); rm_=$(stats med "$REC/$k.r" 1)
  tr=$(stats ratio "$REC/$k.x" "$REC/$k.r" 0); mr=$(stats ratio "$REC/$k.x" "$REC/$k.r" 1)
  tv=$(verdict "$tr" "<=" "$ttarget"); mv=-
  [ -n "$mtarget" ] && mv=$(verdict "$mr" "<=" "$mtarget")
  for v in $tv $mv; do case $v in PASS) pass=$((pass + 1)) ;; MISS) miss=$((miss + 1)) ;; esac; done
  # Validity, from the last measured run of each tool.
  if [ "$(grep -c ' validates$' "$REC/$k.x.stderr")" = "$n" ]; then xv=valid; else xv="NOT valid: $(head -c 200 "$REC/$k.x.stderr")"; fi
  if [ "$(tail -n1 "$REC/$k.r" | cut -d' ' -f3)" = 0 ] && grep -q "^$n documents\?: $n valid" "$REC/$k.r.stdout"; then
    rv="valid ($(tail -n1 "$REC/$k.r.stdout" | sed 's/^[0-9]* documents\?: [0-9]* valid, 0 invalid, 0 unprocessed; //'))"
  else rv="NOT valid: $(tail -n1 "$REC/$k.r.stdout")"; fi
  printf '%-13s %8.1f %8.2f %8.2f %7.2f %6s %8.0f %8.0f %7.2f %6s  %s / %s\n' "$k" \
    "$(du -b -s "$f" | cut -f1 | python3 -c "import sys;print(int(sys.stdin.read())/1e6)")" "$xt" "$rt" "$tr" "<=$ttarget $tv" \
    "$(python3 -c "print($xm/1024)")" "$(python3 -c "print($rm_/1024)")" "$mr" "$mv" "$xv" "$rv"
  echo "   $k runs (s) xmllint: $(stats list "$REC/$k.x" 0) | rsconform: $(stats list "$REC/$k.r" 0); median CPU (user+sys) s: xmllint $(stats med "$REC/$k.x" cpu), rsconform $(stats med "$REC/$k.r" cpu), CPU ratio $(stats ratio "$REC/$k.x" "$REC/$k.r" cpu)"
  # Where the memory is: one more run of each, sampled (bench/rss.py).
  read -r xa xf < <(python3 "$BENCH_DIR/rss.py" xmllint --stream --noout --schema "$XSD/sitemap.xsd" "${files[@]}")
  read -r ra rf < <(python3 "$BENCH_DIR/rss.py" "$RSC" validate --color never "$f")
  echo "   $k peak resident MB, anonymous + file-backed (one sampled run): xmllint $(mb "$xa") + $(mb "$xf"), rsconform $(mb "$ra") + $(mb "$rf"); anonymous ratio $(python3 -c "print('%.2f' % ($ra / max($xa, 1)))")"
done
echo "   load after: $(load)"
echo "targets (issue 13): $pass PASS, $miss MISS"
exit 0
