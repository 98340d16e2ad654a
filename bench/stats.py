#!/usr/bin/env python3
"""Medians of the records written by bench/lib.sh (lines "elapsed_s maxrss_KB exit user_s sys_s").

  stats.py med REC COL          median of column COL (0 elapsed, 1 maxrss KB, 3 user, 4 sys;
                                "cpu" for user + sys)
  stats.py ratio A B COL        median of the per-round ratios B/A of column COL
  stats.py rate N REC           median of N / elapsed
  stats.py list REC COL         the values, for the record
  stats.py fail REC             number of runs with a non-zero exit status
"""
import statistics
import sys


def rows(path):
    out = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 5:
                out.append((float(p[0]), float(p[1]), int(p[2]), float(p[3]), float(p[4]),
                            float(p[3]) + float(p[4])))
    return out


def col(c):
    return 5 if c == "cpu" else int(c)


def main(a):
    cmd = a[1]
    if cmd == "med":
        print("%.3f" % statistics.median(r[col(a[3])] for r in rows(a[2])))
    elif cmd == "ratio":
        ra, rb, c = rows(a[2]), rows(a[3]), col(a[4])
        print("%.2f" % statistics.median(y[c] / max(x[c], 1e-9) for x, y in zip(ra, rb)))
    elif cmd == "rate":
        n = float(a[2])
        print("%.0f" % statistics.median(n / max(r[0], 1e-9) for r in rows(a[3])))
    elif cmd == "list":
        print(" ".join("%g" % r[col(a[3])] for r in rows(a[2])))
    elif cmd == "fail":
        print(sum(1 for r in rows(a[2]) if r[2] != 0))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
