#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""measure.py CMD [ARG...]: run a command; print its wall time, the peak
RssAnon (anonymous resident memory: heap and stacks, not the file cache or
mapped files) sampled from /proc/PID/status every 5 ms, its CPU time (user
plus system: what a loaded machine changes least), and the bytes the
kernel counted it reading and writing (rchar and wchar of /proc/PID/io,
read once it has ended and before it is reaped: read, pread and
copy_file_range, page cache or disk; pages read through a mapping are not
in rchar); and the KiB the whole machine read from its disks meanwhile
(pgpgin of /proc/vmstat, read right before the command starts and right
after it ends: every process's reads count, so only an otherwise idle
machine gives the command's own).

Output, one line on stderr: "measure: wall=S.SSS peak_rss_anon_kib=N
exit=C rchar=N wchar=N cpu=S.SSS pgpgin_kib=N". Exit status: the command's."""
import os
import subprocess
import sys
import time


def number_after(path, key):
    """The number after KEY at the start of a line of PATH (0 if none)."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def rss_anon_kib(pid):
    return number_after(f"/proc/{pid}/status", "RssAnon:")


def io_of(pid):
    try:
        with open(f"/proc/{pid}/io") as f:
            return dict((k, int(v)) for k, v in (line.split(": ") for line in f.read().splitlines() if line))
    except OSError:
        return {}


def pgpgin_kib():
    return number_after("/proc/vmstat", "pgpgin ")


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    pgpgin = pgpgin_kib()
    start = time.monotonic()
    proc = subprocess.Popen(sys.argv[1:])
    peak = 0
    # wait without reaping, so /proc/PID/io still holds the totals
    while not os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
        peak = max(peak, rss_anon_kib(proc.pid))
        time.sleep(0.005)
    wall = time.monotonic() - start
    pgpgin = pgpgin_kib() - pgpgin
    io = io_of(proc.pid)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    print(f"measure: wall={wall:.3f} peak_rss_anon_kib={peak} exit={proc.returncode} "
          f"rchar={io.get('rchar', 0)} wchar={io.get('wchar', 0)} cpu={usage.ru_utime + usage.ru_stime:.3f} "
          f"pgpgin_kib={pgpgin}",
          file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
