#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""measure.py CMD [ARG...]: run a command; print its wall time, the peak
RssAnon (anonymous resident memory: heap and stacks, not the file cache or
mapped files) sampled from /proc/PID/status every 5 ms, its CPU time (user
plus system: what a loaded machine changes least), and the bytes the
kernel counted it reading and writing (rchar and wchar of /proc/PID/io,
read once it has ended and before it is reaped: read, pread and
copy_file_range, page cache or disk; pages read through a mapping are not
in rchar).

Output, one line on stderr: "measure: wall=S.SSS peak_rss_anon_kib=N
exit=C rchar=N wchar=N cpu=S.SSS". Exit status: the command's."""
import os
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


def io_of(pid):
    try:
        with open(f"/proc/{pid}/io") as f:
            return dict((k, int(v)) for k, v in (line.split(": ") for line in f.read().splitlines() if line))
    except OSError:
        return {}


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    start = time.monotonic()
    proc = subprocess.Popen(sys.argv[1:])
    peak = 0
    # wait without reaping, so /proc/PID/io still holds the totals
    while not os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
        peak = max(peak, rss_anon_kib(proc.pid))
        time.sleep(0.005)
    wall = time.monotonic() - start
    io = io_of(proc.pid)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    print(f"measure: wall={wall:.3f} peak_rss_anon_kib={peak} exit={proc.returncode} "
          f"rchar={io.get('rchar', 0)} wchar={io.get('wchar', 0)} cpu={usage.ru_utime + usage.ru_stime:.3f}",
          file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
