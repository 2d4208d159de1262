#!/usr/bin/python3
"""io_of.py CMD [ARG...]: run a command and print, as its last line on
stdout, the I/O the kernel counted for it (/proc/PID/io, read while the
finished process is not yet reaped): "io: rchar=N wchar=N syscr=N syscw=N".
Exit status: the command's."""
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    proc = subprocess.Popen(sys.argv[1:])
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    with open(f"/proc/{proc.pid}/io") as f:
        io = dict(line.split(": ") for line in f.read().splitlines() if line)
    proc.wait()
    sys.stdout.flush()
    print("io: " + " ".join(f"{k}={io[k].strip()}" for k in ("rchar", "wchar", "syscr", "syscw")))
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
