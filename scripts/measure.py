#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""measure.py CMD [ARG...]: run a command; print its wall time and the peak
RssAnon (anonymous resident memory: heap and stacks, not the file cache or
mapped files) sampled from /proc/PID/status every 5 ms.

Output, one line on stderr: "measure: wall=S.SSS peak_rss_anon_kib=N exit=C".
Exit status: the command's."""
import subprocess
import sys
import time


def rss_anon_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    start = time.monotonic()
    proc = subprocess.Popen(sys.argv[1:])
    peak = 0
    while proc.poll() is None:
        peak = max(peak, rss_anon_kib(proc.pid))
        time.sleep(0.005)
    wall = time.monotonic() - start
    print(f"measure: wall={wall:.3f} peak_rss_anon_kib={peak} exit={proc.returncode}", file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
