"""beam daemons running on this machine, read from /proc as Ray finds its GCS: which are
there, with which temp dir, and which driver owns a private one. discovery.py decides
from these which daemon a driver connects to.

"This machine" is this network namespace too: a daemon in another one is another host's
(the multi-host tests' hosts are namespaces), whose addresses are not ours.
"""

from __future__ import annotations

import os
from typing import List, Optional, Tuple

from ray._beam.launch import tempdirs

DAEMON_MAIN = b"beam.cli.Main"  # what a daemon's command line holds (beam.cli.LocalDaemons.isDaemon)


def _cmdline(pid) -> List[bytes]:
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return f.read().split(b"\0")


def environ(pid) -> Tuple[dict, str]:
    """(environment, cwd) of process ``pid``; OSError when it cannot be read."""
    with open(f"/proc/{pid}/environ", "rb") as f:
        env = dict(e.split(b"=", 1) for e in f.read().split(b"\0") if b"=" in e)
    env = {k.decode(errors="replace"): v.decode(errors="replace") for k, v in env.items()}
    return env, os.readlink(f"/proc/{pid}/cwd")


def is_daemon(pid) -> Optional[bool]:
    """Whether process ``pid`` is a beam daemon; None when this process cannot see it (gone,
    or in another PID namespace: a container beside ours)."""
    try:
        return DAEMON_MAIN in _cmdline(int(pid or 0))
    except (OSError, ValueError, TypeError):
        return None


def daemons(private: bool = False) -> List[Tuple[int, str]]:
    """(pid, temp dir) of each beam daemon of this user in this network namespace; private
    clusters of drivers (``--owner-pid``) only with ``private``."""
    me, found = os.geteuid(), []
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
        net = os.readlink("/proc/self/ns/net")
    except OSError:
        return []
    for pid in pids:
        try:
            if os.stat(f"/proc/{pid}").st_uid != me:
                continue
            args = _cmdline(pid)
            if DAEMON_MAIN not in args or os.path.basename(args[0]) != b"java":
                continue
            rest = args[args.index(DAEMON_MAIN) + 1:]
            if rest[:1] != [b"start"] or b"--block" not in rest or (b"--owner-pid" in rest) != private:
                continue
            env, cwd = environ(pid)
            if os.readlink(f"/proc/{pid}/ns/net") != net:
                continue
        except (OSError, ValueError):
            continue
        text = [a.decode(errors="replace") for a in rest]
        found.append((pid, tempdirs.temp_dir(tempdirs.flag_in(text), env, cwd, me)))
    return found


def owner_temp(pid: int) -> Optional[str]:
    """The temp dir of the driver owning private cluster ``pid``: a second driver joins it by
    "auto" only from that same temp dir, as a Ray driver finds the cluster in its own."""
    try:
        args = _cmdline(pid)
        owner = int(args[args.index(b"--owner-pid") + 1])
        env, cwd = environ(owner)
    except (OSError, ValueError, IndexError):
        return None
    return tempdirs.temp_dir(None, env, cwd, os.geteuid())
