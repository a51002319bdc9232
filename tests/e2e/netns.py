"""Hosts for multi-host end-to-end tests: Linux network namespaces on one bridge, or (when
namespaces cannot be made) addresses on the loopback interface.

``NetnsHosts(n)`` builds ``n`` hosts ``beamh1-<sfx> .. beamhN-<sfx>`` (``sfx`` is random per
run, so parallel runs do not collide). Each host is a network namespace with ``lo`` up and
one veth whose other end is enslaved to a bridge in the root namespace; the hosts get
10.231.X.(10+i)/24 with a random X that no address or route of the root namespace uses.
The root namespace has no address on the bridge, so the namespaces have no default route
(like hosts on a private cluster network). ``Host.cut()`` / ``Host.restore()`` set the
namespace's end of the veth down / up.

``LoopbackHosts(n)`` is the fallback: every host is the root namespace, with IPs 127.0.0.i
(Linux routes all of 127/8 to ``lo``). It cannot cut links.

Both ``teardown()`` everything they made, even after failures, and also at interpreter
exit: every process started in a namespace (or, on loopback, every process started for a
host and every beam process naming its temp dir) is SIGKILLed, then namespaces, veths and
the bridge are deleted. Interface names stay within 15 characters.
"""

from __future__ import annotations

import atexit
import contextlib
import ipaddress
import os
import random
import shutil
import signal
import string
import subprocess
import time

IP = shutil.which("ip") or "/usr/sbin/ip"
SUBNET_PREFIX = "10.231"


class NetnsUnavailable(Exception):
    """Network namespaces cannot be made here; the message says why."""


def _ip(*args, check=True, timeout=20):
    done = subprocess.run([IP, *args], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise RuntimeError(f"`ip {' '.join(args)}` failed ({done.returncode}): "
                           f"{done.stderr.strip() or done.stdout.strip()}")
    return done


def _suffix(n=5):
    return "".join(random.choice(string.ascii_lowercase + string.digits) for _ in range(n))


_REASON_CACHE: list = []


def unavailable_reason():
    """None if this process can build namespace hosts; else why not (cached)."""
    if _REASON_CACHE:
        return _REASON_CACHE[0]
    reason = None
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        reason = "network namespaces need root (euid is not 0)"
    elif not shutil.which("ip"):
        reason = "the `ip` command (iproute2) is not installed"
    else:
        name = f"beamprobe-{_suffix()}"
        try:
            _ip("netns", "add", name)
            _ip("netns", "exec", name, "ip", "link", "set", "lo", "up")
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
            reason = f"cannot create a network namespace: {e}"
        finally:
            _ip("netns", "del", name, check=False)
    _REASON_CACHE.append(reason)
    return reason


def _ns_pids(ns):
    done = _ip("netns", "pids", ns, check=False)
    if done.returncode != 0:
        return []
    return [int(x) for x in done.stdout.split() if x.isdigit() and int(x) != os.getpid()]


def _kill(pid, sig=signal.SIGKILL):
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _beam_pids_naming(path):
    """Live beam daemons / actor workers whose command line names ``path``."""
    found = []
    if not path:
        return found
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if (f"{path}/" in cmd or f"{path} " in cmd + " ") and \
                ("beam.cli.Main" in cmd or "ray._beam.worker" in cmd) and _alive(int(entry)):
            found.append(int(entry))
    return found


class Host:
    """One host. ``ns`` is its network namespace, or None on the loopback fallback."""

    def __init__(self, index, ip, ns=None, veth=None, veth_root=None):
        self.index = index
        self.name = f"h{index}"
        self.ip = ip
        self.ns = ns
        self.veth = veth            # the interface inside the namespace
        self.veth_root = veth_root  # its peer, on the bridge
        self.temp_dir = None        # set by whoever starts a beam daemon here
        self.procs = []             # Popen objects started for this host

    def __repr__(self):
        where = f"netns {self.ns}" if self.ns else "root namespace"
        return f"<Host {self.name} {self.ip} ({where})>"

    @property
    def can_cut(self):
        return self.ns is not None

    def argv(self, argv):
        """``argv`` run inside this host."""
        return [IP, "netns", "exec", self.ns, *argv] if self.ns else list(argv)

    def run(self, argv, timeout=60, **kw):
        kw.setdefault("capture_output", True)
        kw.setdefault("text", True)
        return subprocess.run(self.argv(argv), timeout=timeout, **kw)

    def popen(self, argv, **kw):
        proc = subprocess.Popen(self.argv(argv), **kw)
        self.procs.append(proc)
        return proc

    def pids(self):
        """Every process running on this host (namespace: all of them; loopback: the ones
        started for it and the beam processes naming its temp dir)."""
        if self.ns:
            return _ns_pids(self.ns)
        pids = {p.pid for p in self.procs if p.poll() is None}
        pids.update(_beam_pids_naming(self.temp_dir))
        return sorted(pids)

    def kill_all(self, within=30.0):
        """SIGKILL everything on this host (as if it lost power); waits until it is gone.
        Returns the pids killed."""
        killed = []
        deadline = time.monotonic() + within
        while True:
            pids = [p for p in self.pids() if _alive(p)]
            if not pids:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self}: processes {pids} survive SIGKILL after {within} s")
            for pid in pids:
                _kill(pid)
                killed.append(pid)
            time.sleep(0.05)
        for proc in self.procs:
            with contextlib.suppress(Exception):
                proc.wait(timeout=1)
        # A host that lost power has no zombies: wait until init has reaped the killed
        # daemons (orphans; a slow init can take a second or two), so that a `ray start`
        # afterwards does not see a "running" daemon.
        killed = sorted(set(killed))
        reap_deadline = time.monotonic() + 30.0
        while any(os.path.exists(f"/proc/{p}") for p in killed) and \
                time.monotonic() < reap_deadline:
            time.sleep(0.05)
        return killed

    def cut(self):
        """Take this host off the network (its veth down); TCP peers see silence, no RST."""
        if not self.ns:
            raise RuntimeError("cannot cut a loopback host's link")
        _ip("netns", "exec", self.ns, IP, "link", "set", self.veth, "down")

    def restore(self):
        if not self.ns:
            raise RuntimeError("cannot restore a loopback host's link")
        _ip("netns", "exec", self.ns, IP, "link", "set", self.veth, "up")
        # up is asked; the carrier (LOWER_UP) follows when the kernel gets to it
        deadline = time.monotonic() + 30
        while "LOWER_UP" not in _ip("netns", "exec", self.ns, IP, "-o", "link", "show", self.veth).stdout:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self}: {self.veth} has no carrier 30 s after `ip link set up`")
            time.sleep(0.05)


def _term_as_interrupt():
    """SIGTERM (a CI timeout, say) would end the interpreter without running fixture
    teardowns or atexit hooks, leaking namespaces and daemons: make it an interrupt."""
    import threading
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        def on_term(signum, frame):
            raise KeyboardInterrupt("SIGTERM")
        signal.signal(signal.SIGTERM, on_term)


class _Hosts:
    kind = "?"

    def __init__(self):
        self.hosts = []
        self._down = False
        _term_as_interrupt()
        atexit.register(self.teardown)

    def __getitem__(self, i):
        return self.hosts[i]

    def __len__(self):
        return len(self.hosts)

    def __iter__(self):
        return iter(self.hosts)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.teardown()


class NetnsHosts(_Hosts):
    """``n`` hosts as network namespaces on one bridge; ``add_host()`` adds more."""

    kind = "netns"

    def __init__(self, n, prefix="beamh"):
        super().__init__()
        reason = unavailable_reason()
        if reason:
            raise NetnsUnavailable(reason)
        self.suffix = _suffix()
        self.prefix = prefix
        self.bridge = f"bmbr{self.suffix}"
        self.subnet = self._pick_subnet()
        try:
            _ip("link", "add", "name", self.bridge, "type", "bridge")
            _ip("link", "set", self.bridge, "up")
            for _ in range(n):
                self.add_host()
        except BaseException:
            self.teardown()
            raise

    @staticmethod
    def _pick_subnet():
        used = _ip("-4", "-o", "addr", "show", check=False).stdout + \
            _ip("-4", "route", "show", "table", "all", check=False).stdout
        choices = list(range(16, 250))
        random.shuffle(choices)
        for x in choices:
            net = ipaddress.ip_network(f"{SUBNET_PREFIX}.{x}.0/24")
            if f"{SUBNET_PREFIX}.{x}." not in used:
                return net
        raise NetnsUnavailable(f"every {SUBNET_PREFIX}.X.0/24 is in use in the root namespace")

    def add_host(self):
        i = len(self.hosts) + 1
        ns = f"{self.prefix}{i}-{self.suffix}"
        veth_root = f"bmr{i}{self.suffix}"   # <= 3 + 2 + 5 chars
        veth = f"bmn{i}{self.suffix}"
        ip = str(self.subnet.network_address + 10 + i)
        host = Host(i, ip, ns=ns, veth=veth, veth_root=veth_root)
        self.hosts.append(host)  # before creating anything, so teardown sees it
        _ip("netns", "add", ns)
        _ip("link", "add", veth_root, "type", "veth", "peer", "name", veth, "netns", ns)
        _ip("link", "set", veth_root, "master", self.bridge, "up")
        _ip("netns", "exec", ns, IP, "link", "set", "lo", "up")
        _ip("netns", "exec", ns, IP, "addr", "add", f"{ip}/{self.subnet.prefixlen}", "dev", veth)
        _ip("netns", "exec", ns, IP, "link", "set", veth, "up")
        return host

    def teardown(self):
        if self._down:
            return
        self._down = True
        errors = []
        for host in self.hosts:
            try:
                host.kill_all()
            except Exception as e:  # keep tearing down the rest
                errors.append(str(e))
        for host in self.hosts:
            _ip("link", "del", host.veth_root, check=False)
            _ip("netns", "del", host.ns, check=False)
        _ip("link", "del", self.bridge, check=False)
        left = [h.ns for h in self.hosts
                if h.ns in _ip("netns", "list", check=False).stdout.split()]
        if left:
            errors.append(f"namespaces not deleted: {left}")
        if errors:
            raise RuntimeError("netns teardown: " + "; ".join(errors))


class LoopbackHosts(_Hosts):
    """``n`` hosts in the root namespace on 127.0.0.1 .. 127.0.0.n."""

    kind = "loopback"

    def __init__(self, n):
        super().__init__()
        for _ in range(n):
            self.add_host()

    def add_host(self):
        i = len(self.hosts) + 1
        host = Host(i, f"127.0.0.{i}")
        self.hosts.append(host)
        return host

    def teardown(self):
        if self._down:
            return
        self._down = True
        errors = []
        for host in self.hosts:
            try:
                host.kill_all()
            except Exception as e:
                errors.append(str(e))
        if errors:
            raise RuntimeError("loopback teardown: " + "; ".join(errors))


def make_hosts(kind, n):
    """``NetnsHosts(n)`` or ``LoopbackHosts(n)``."""
    if kind == "netns":
        return NetnsHosts(n)
    if kind == "loopback":
        return LoopbackHosts(n)
    raise ValueError(kind)
