#!/usr/bin/env python3
"""rss.py CMD...: runs CMD once (output discarded) and prints the peaks of its
anonymous and file-backed resident memory, "anon_KB file_KB", sampled from
/proc/PID/status every half millisecond (RssAnon, RssFile + RssShmem).

/usr/bin/time gives the peak of their sum (what the benchmarks' ratios use);
this splits it: file-backed pages are the mapped executable and libraries
(for rsconform mostly its own image, resident whatever the input), anonymous
ones the heaps (the rules' state, libxml2's parser and validator)."""
import subprocess
import sys
import time


def sample(pid):
    anon = file_ = 0
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    anon = int(line.split()[1])
                elif line.startswith(("RssFile:", "RssShmem:")):
                    file_ += int(line.split()[1])
    except OSError:
        return None
    return anon, file_


def main(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak_anon = peak_file = 0
    while p.poll() is None:
        s = sample(p.pid)
        if s:
            peak_anon, peak_file = max(peak_anon, s[0]), max(peak_file, s[1])
        time.sleep(0.0005)
    print(peak_anon, peak_file)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
