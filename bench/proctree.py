"""The process tree under /proc, for the benchmarks: who is whose child, what a set of
processes uses (memory, CPU), and the one log line format. Standard library only, so that
bench/workload.py imports it under either system's interpreter."""

import os
import sys
import time


def logger(who):
    """A log(msg) that prints ``[who HH:MM:SS] msg`` to stderr."""
    def log(msg):
        print(f"[{who} {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)
    return log


def _stat(pid):
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    rest = s[s.rindex(")") + 2:].split()
    return {"state": rest[0], "ppid": int(rest[1])}


def stat_field(pid, field):
    try:
        return _stat(pid)[field]
    except (OSError, ValueError, IndexError):
        return None


def children_map():
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            ppid = stat_field(int(d), "ppid")
            if ppid is not None:
                kids.setdefault(ppid, []).append(int(d))
    return kids


def children_of(pid):
    return children_map().get(pid, [])


def descendants(roots, skip=()):
    """Every live (not zombie) process below ``roots``, the roots excluded, and none below a
    pid in ``skip``."""
    kids = children_map()
    out, todo = [], [p for r in roots for p in kids.get(r, []) if p not in skip]
    while todo:
        p = todo.pop()
        if p in out or stat_field(p, "state") == "Z":
            continue
        out.append(p)
        todo.extend(kids.get(p, []))
    return sorted(out)


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def memory(pids):
    """(sum of RSS, sum of PSS) in MiB, and a per-process list."""
    rss = pss = 0
    each = []
    for p in pids:
        r = s = 0
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        r = int(line.split()[1])
            with open(f"/proc/{p}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        s = int(line.split()[1])
        except OSError:
            continue
        rss += r
        pss += s
        each.append({"pid": p, "rss_mb": r / 1024, "cmd": cmdline(p)[:120]})
    return rss / 1024, pss / 1024, each


def cpu_seconds(pids):
    """utime + stime so far of the given processes."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                st = f.read()
            fields = st[st.rindex(")") + 2:].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, ValueError):
            pass
    return total / tick
