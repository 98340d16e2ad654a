#!/usr/bin/env bash
# bench/validate.sh: rsconform validate vs xmllint --stream --noout --schema
# (issue 13: the streaming validator users run on big Sitemaps) on generated
# documents: a 50,000-entry Resource List, a 50,000-entry Change List, a
# ~47 MB Resource List near the 50 MB limit, the 50,000-entry Resource List
# on one line, an element with 50,000 attributes, and a directory of 8
# Resource Lists (xmllint validates them one after the other in one process,
# rsconform validates the directory). Runs the two tools alternately,
# BENCH_RUNS times (default 5), and prints medians and per-round ratios;
# then RSS_RUNS (default 5) more alternating runs of each under bench/rss.py,
# which samples the peak RSS split into anonymous and file-backed memory:
# the memory target is on the anonymous part (medians, per-round ratios).
# VALIDATE_CASES picks the inputs (default: all, in the order above:
# "resourcelist changelist biglist oneline attrs dir8"); the load average is
# printed with every case.
# Targets (issue 23, on the 50,000-entry lists): wall ratio (rsconform /
# xmllint) <= 1.0 and anonymous-memory ratio <= 3 on one list, wall <= 0.7 on
# the directory of 8; (issue 13) wall <= 1.3 and anonymous memory <= 3 on the
# 47 MB list, wall <= 3 on the one-line and many-attribute layouts.
. "$(dirname "$0")/lib.sh"
need xmllint libxml2-utils
build

IN="$OUT/in"; mkdir -p "$IN"
XSD=$(mktemp -d /tmp/rsbench-xsd.XXXXXX)
REC=$(mktemp -d /tmp/rsbench-validate.XXXXXX)
trap 'rm -rf "$XSD" "$REC"' EXIT
cp schema/*.xsd "$XSD/"      # sitemap.xsd imports rs.xsd by a relative URL

CASES=${VALIDATE_CASES:-resourcelist changelist biglist oneline attrs dir8}
RSS_RUNS=${RSS_RUNS:-5}
for k in $CASES; do
  [ "$k" = dir8 ] && continue
  case $k in resourcelist | changelist | biglist | oneline | attrs) ;; *)
    echo "bench/validate.sh: unknown case $k (VALIDATE_CASES)" >&2; exit 2 ;;
  esac
  [ -s "$IN/$k.xml" ] && [ "$IN/$k.xml" -nt "$BENCH_DIR/gen.py" ] || python3 "$BENCH_DIR/gen.py" "$k" "$IN/$k.xml"
done
[ -s "$IN/resourcelist.xml" ] && [ "$IN/resourcelist.xml" -nt "$BENCH_DIR/gen.py" ] || python3 "$BENCH_DIR/gen.py" resourcelist "$IN/resourcelist.xml"
mkdir -p "$IN/dir8"
for i in 1 2 3 4 5 6 7 8; do
  [ -s "$IN/dir8/list$i.xml" ] && [ "$IN/dir8/list$i.xml" -nt "$IN/resourcelist.xml" ] || cp "$IN/resourcelist.xml" "$IN/dir8/list$i.xml"
done

echo "== validate: xmllint --stream --noout --schema sitemap.xsd FILE...  vs  rsconform validate FILE|DIR (all rules)"
echo "   $RUNS alternating rounds after one warm-up each; medians; ratios = median of per-round rsconform/xmllint"
echo "   memory: $RSS_RUNS more alternating rounds under bench/rss.py; peak anonymous (RssAnon) and file-backed MB"
echo "   load before: $(load)   $(nproc) CPUs   $(xmllint --version 2>&1 | head -n1)"
printf '%-13s %6s %7s %7s %7s %9s %6s %6s %7s %9s  %s\n' \
  input MB "xmllint" "rscnf" "t-ratio" "" "xl-anon" "rs-anon" "a-ratio" "" "valid (xmllint / rsconform)"
printf '%-13s %6s %7s %7s %7s %9s %6s %6s %7s %9s\n' "" "" "s" "s" "" "target" "MB" "MB" "" "target"
mb() { python3 -c "print('%.1f' % ($1 / 1024))"; }
echo "   rsconform binary: $(mb $(( $(stat -c %s "$RSC") / 1024 ))) MB; its mapped image is counted in its RSS (file-backed), whatever the input"
pass=0; miss=0
for k in $CASES; do
  f="$IN/$k.xml"; files=("$f"); ttarget=1.3; mtarget=3; n=1
  case $k in
    resourcelist | changelist) ttarget=1.0 ;;
    oneline | attrs) ttarget=3; mtarget="" ;;
    dir8) f="$IN/dir8"; files=("$f"/*.xml); ttarget=0.7; mtarget=""; n=8 ;;
  esac
  l0=$(load)
  alternate "$RUNS" "$REC/$k.x" "$REC/$k.r" \
    -- xmllint --stream --noout --schema "$XSD/sitemap.xsd" "${files[@]}" \
    -- "$RSC" validate --color never "$f"
  xt=$(stats med "$REC/$k.x" 0); rt=$(stats med "$REC/$k.r" 0)
  tr=$(stats ratio "$REC/$k.x" "$REC/$k.r" 0)
  # Where the memory is: RSS_RUNS more runs of each, alternating, sampled.
  : >"$REC/$k.xa"; : >"$REC/$k.ra"
  for ((i = 0; i < RSS_RUNS; i++)); do
    python3 "$BENCH_DIR/rss.py" xmllint --stream --noout --schema "$XSD/sitemap.xsd" "${files[@]}" >>"$REC/$k.xa"
    python3 "$BENCH_DIR/rss.py" "$RSC" validate --color never "$f" >>"$REC/$k.ra"
  done
  read -r xa xf ra rf mr < <(python3 -c '
import statistics as s, sys
x = [list(map(int, l.split())) for l in open(sys.argv[1])]
r = [list(map(int, l.split())) for l in open(sys.argv[2])]
m = lambda v, c: s.median(a[c] for a in v)
print(m(x, 0), m(x, 1), m(r, 0), m(r, 1), "%.2f" % s.median(b[0] / max(a[0], 1) for a, b in zip(x, r)))' "$REC/$k.xa" "$REC/$k.ra")
  tv=$(verdict "$tr" "<=" "$ttarget"); mv=-
  [ -n "$mtarget" ] && mv=$(verdict "$mr" "<=" "$mtarget")
  for v in $tv $mv; do case $v in PASS) pass=$((pass + 1)) ;; MISS) miss=$((miss + 1)) ;; esac; done
  # Validity, from the last measured run of each tool.
  if [ "$(grep -c ' validates$' "$REC/$k.x.stderr")" = "$n" ]; then xv=valid; else xv="NOT valid: $(head -c 200 "$REC/$k.x.stderr")"; fi
  if [ "$(tail -n1 "$REC/$k.r" | cut -d' ' -f3)" = 0 ] && grep -q "^$n documents\?: $n valid" "$REC/$k.r.stdout"; then
    rv="valid ($(tail -n1 "$REC/$k.r.stdout" | sed 's/^[0-9]* documents\?: [0-9]* valid, 0 invalid, 0 unprocessed; //'))"
  else rv="NOT valid: $(tail -n1 "$REC/$k.r.stdout")"; fi
  printf '%-13s %6.1f %7.3f %7.3f %7.2f %9s %6s %6s %7s %9s  %s / %s\n' "$k" \
    "$(du -b -s "$f" | cut -f1 | python3 -c "import sys;print(int(sys.stdin.read())/1e6)")" "$xt" "$rt" "$tr" "<=$ttarget $tv" \
    "$(mb "$xa")" "$(mb "$ra")" "$mr" "${mtarget:+<=$mtarget }$mv" "$xv" "$rv"
  echo "   $k load $l0 -> $(load); runs (s) xmllint: $(stats list "$REC/$k.x" 0) | rsconform: $(stats list "$REC/$k.r" 0)"
  echo "   $k median CPU (user+sys) s: xmllint $(stats med "$REC/$k.x" cpu), rsconform $(stats med "$REC/$k.r" cpu), CPU ratio $(stats ratio "$REC/$k.x" "$REC/$k.r" cpu); peak RSS (time, anonymous + file-backed) MB: xmllint $(mb "$(stats med "$REC/$k.x" 1)"), rsconform $(mb "$(stats med "$REC/$k.r" 1)"), ratio $(stats ratio "$REC/$k.x" "$REC/$k.r" 1)"
  echo "   $k peak MB (rss.py medians) anonymous + file-backed: xmllint $(mb "$xa") + $(mb "$xf"), rsconform $(mb "$ra") + $(mb "$rf")"
done
echo "   load after: $(load)"
echo "targets (issues 23 and 13): $pass PASS, $miss MISS"
exit 0
