#!/usr/bin/python3
"""measure.py CMD [ARG...]: run a command; print its wall time, the peak
RssAnon (anonymous resident memory: heap and stacks, not the file cache or
mapped files) sampled from /proc/PID/status every 5 ms, and the CPU time
it used (user + system; on a busy machine it says more than the wall time).

Output, one line on stderr:
"measure: wall=S.SSS peak_rss_anon_kib=N exit=C cpu=S.SSS".
Exit status: the command's."""
import resource
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
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = use.ru_utime + use.ru_stime
    print(f"measure: wall={wall:.3f} peak_rss_anon_kib={peak} exit={proc.returncode} cpu={cpu:.3f}", file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
