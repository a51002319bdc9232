"""The session directory a daemon lays out under its temp dir, as Ray does."""

import glob
import os
import stat
import sys
import time

import ray


@ray.remote(num_cpus=0)
class Talker:
    def __init__(self):
        print("TALKER-INIT-OUT", flush=True)

    def say(self, word):
        print(f"OUT:{word}", flush=True)
        print(f"ERR:{word}", file=sys.stderr, flush=True)
        return os.getpid()


def _wait_for_text(path, text, within=30.0):
    deadline = time.monotonic() + within
    content = ""
    while time.monotonic() < deadline:
        try:
            with open(path, errors="replace") as f:
                content = f.read()
        except OSError:
            content = ""
        if text in content:
            return content
        time.sleep(0.05)
    raise AssertionError(f"{text!r} not in {path} within {within} s; it has: {content!r}")


def test_session_latest_sockets_and_daemon_log(cluster):
    latest = os.path.join(cluster, "session_latest")
    assert os.path.islink(latest), f"{latest} is not a symlink"
    target = os.path.realpath(latest)
    assert os.path.dirname(target) == os.path.realpath(cluster)
    assert os.path.basename(target).startswith("session_")
    sockets = os.path.join(latest, "sockets")
    assert os.path.isdir(sockets)
    mode = stat.S_IMODE(os.stat(sockets).st_mode)
    assert mode == 0o700, f"sockets/ has mode {oct(mode)}, want 0o700"
    log = os.path.join(latest, "logs", "beamd.log")
    assert os.path.isfile(log) and os.path.getsize(log) > 0, f"{log} missing or empty"


def test_one_out_and_one_err_file_per_actor_with_its_output(cluster):
    a, b = Talker.remote(), Talker.remote()
    pid_a, pid_b = ray.get([a.say.remote("alpha"), b.say.remote("beta")], timeout=60)
    logs = os.path.join(cluster, "session_latest", "logs")
    for pid, word in ((pid_a, "alpha"), (pid_b, "beta")):
        outs = glob.glob(os.path.join(logs, f"*{pid}.out"))
        errs = glob.glob(os.path.join(logs, f"*{pid}.err"))
        assert len(outs) == 1 and len(errs) == 1, \
            f"want one .out and one .err for actor pid {pid}: {sorted(os.listdir(logs))}"
        out = _wait_for_text(outs[0], f"OUT:{word}")
        assert "TALKER-INIT-OUT" in out, out
        assert f"ERR:{word}" not in out, "stderr text landed in the .out file"
        err = _wait_for_text(errs[0], f"ERR:{word}")
        assert f"OUT:{word}" not in err, "stdout text landed in the .err file"
