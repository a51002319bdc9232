"""Actor output reaches the driver that owns the actor, prefixed like Ray does."""

from conftest import finish, lines_read, read_line_with, run_driver, spawn_driver

CHATTY = """
import glob, os, sys, time, ray
ray.init(address="auto", log_to_driver={log_to_driver})
@ray.remote(num_cpus=0)
class Chatty:
    def talk(self):
        print("OUT-MARK-1")
        print("OUT-MARK-2", flush=True)
        print("ERR-MARK-3", file=sys.stderr, flush=True)
        return os.getpid()
pid = ray.get(Chatty.remote().talk.remote(), timeout=60)
# One write: print("ACTOR", pid) writes its pieces one by one, and the actor's lines, which
# the shim's reader thread prints as they arrive (as Ray's driver does), can land between them.
sys.stdout.write(f"ACTOR {{pid}}\\n")
sys.stdout.flush()
{tail}
"""

# Wait until the daemon has the actor's output (its .out/.err files have it), then linger.
LINGER = """
logs = os.path.join(os.environ["RAY_TMPDIR"], "session_latest", "logs")
deadline = time.monotonic() + 60  # ends as soon as they are there
def has(ext, mark):
    return any(mark in open(f).read() for f in glob.glob(os.path.join(logs, f"*{pid}.{ext}")))
while time.monotonic() < deadline and not (has("out", "OUT-MARK-2") and has("err", "ERR-MARK-3")):
    time.sleep(0.05)
print("SEEN-IN-FILES", has("out", "OUT-MARK-2") and has("err", "ERR-MARK-3"), flush=True)
time.sleep(1.0)
"""


def test_actor_output_reaches_its_driver_prefixed(cluster, capfd):
    driver = spawn_driver(cluster, CHATTY.format(log_to_driver=True, tail="time.sleep(120)"))
    try:
        pid = int(read_line_with(driver, "ACTOR ")[-1].split()[1])
        prefix = f"(Chatty pid={pid}) "
        read_line_with(driver, prefix + "OUT-MARK-2", timeout=30)
        assert prefix + "OUT-MARK-1\n" in lines_read(driver)
        err = read_line_with(driver, prefix + "ERR-MARK-3", timeout=30, stream="stderr")
        assert not any("OUT-MARK" in x for x in err), f"stdout lines on stderr: {err}"
        assert not any("ERR-MARK" in x for x in lines_read(driver)), "stderr line on stdout"
    finally:
        finish(driver)
    out, errout = capfd.readouterr()
    assert "OUT-MARK" not in out + errout, "another driver's actor output reached this one"


def test_log_to_driver_false_keeps_actor_output_away(cluster):
    done = run_driver(cluster, CHATTY.format(log_to_driver=False, tail=LINGER))
    assert done.returncode == 0, done.stderr
    assert "SEEN-IN-FILES True" in done.stdout, f"actor never printed: {done.stdout}"
    assert "MARK" not in done.stdout.replace("SEEN-IN-FILES", "") + done.stderr, \
        f"output reached the driver despite log_to_driver=False: {done.stdout!r} {done.stderr!r}"


def test_ray_disable_worker_log_prefix_forwards_bare_lines(cluster):
    """RAY_DISABLE_WORKER_LOG_PREFIX=1, as Ray's: the actor's lines reach the driver as printed."""
    driver = spawn_driver(cluster, CHATTY.format(log_to_driver=True, tail="time.sleep(120)"),
                          RAY_DISABLE_WORKER_LOG_PREFIX="1")
    try:
        read_line_with(driver, "ACTOR ")
        read_line_with(driver, "OUT-MARK-2", timeout=30)
        read_line_with(driver, "ERR-MARK-3", timeout=30, stream="stderr")
        lines = lines_read(driver)
        assert "OUT-MARK-1\n" in lines and "OUT-MARK-2\n" in lines, lines
        assert not any("pid=" in x for x in lines), f"a prefix is left: {lines}"
    finally:
        finish(driver)
