"""Finding the cluster as Ray does (docs/DESIGN.md, "Finding the cluster"): real daemons, real
drivers, real `ray` commands, each scenario in a PID namespace of its own (`unshare --pid
--mount-proc`), so that the daemons of this user that discovery scans for in /proc are only
the ones the scenario starts; when the script ends the kernel ends whatever it left."""

import os
import re
import subprocess

import pytest

from conftest import beam_env

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for a PID namespace (unshare)")

# A driver: `ray.init(ADDRESS)`, then prints what it reached, or the error's type and text.
DRIVER = r'''
drive() {  # drive ADDRESS-EXPR: ray.init(ADDRESS-EXPR) in a fresh driver
  python3 - "$1" <<'PY'
import sys
import ray
try:
    ctx = ray.init(address=eval(sys.argv[1]))
    print("REACHED", ctx.address_info["gcs_address"],
          ray.cluster_resources().get("CPU"))
    ray.shutdown()
except Exception as e:
    print("ERROR", type(e).__name__, str(e).replace("\n", " | "))
PY
}
addr() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['address'])" "$1/session_latest/node.json"; }
'''


def in_namespace(script, base, **env):
    env = beam_env(BASE=base, **env)
    for k in ("RAY_TMPDIR", "TMPDIR"):
        env.pop(k, None)
    env.update({k: str(v) for k, v in env.items()})
    done = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "bash", "-c", DRIVER + script],
                          env=env, capture_output=True, text=True, timeout=240)
    return done.stdout, done.stdout + done.stderr


def section(out, name):
    """The lines printed after `== NAME` up to the next `== `."""
    return re.split(r"^== ", out, flags=re.M)[[s.split("\n", 1)[0] for s in re.split(r"^== ", out, flags=re.M)].index(name)]


ONE_THEN_TWO = r'''
set -u
ray start --head --port 0 --num-cpus 3 --num-gpus 0 --temp-dir "$BASE/data/ray" >/dev/null || exit 9
A=$(addr "$BASE/data/ray")
echo "== auto"; drive '"auto"'
echo "== none"; drive 'None'
echo "== status"; ray status >/dev/null; echo "rc=$?"
echo "== health"; ray health-check --address "$A"; echo "rc=$?"; ray health-check; echo "rc=$?"
echo "== list"; ray list nodes --json | grep -c node_id
echo "== tmpdir"; TMPDIR="$BASE/job" ray start --head --port 0 --num-cpus 2 --num-gpus 0 >/dev/null; echo "rc=$?"
ls -d "$BASE/job/ray/session_latest"
B=$(addr "$BASE/job/ray")
echo "== tmpdir driver"; TMPDIR="$BASE/job" drive 'None'
echo "== several"; drive '"auto"'
echo "== several none"; drive 'None'
echo "== several status"; ray status; echo "rc=$?"
echo "== by address"; RAY_ADDRESS="$A" drive 'None'
echo "== cli by address"; RAY_ADDRESS="$A" ray list nodes --json | grep -c '"ALIVE"'; ray status --address "$B" >/dev/null; echo "rc=$?"
ray status --address 10.9.9.9:1; echo "rc=$?"
echo "== by temp dir"; RAY_TMPDIR="$BASE/data/ray" drive '"auto"'
echo "== A=$A B=$B"
ray stop >/dev/null
echo "== gone"; drive '"auto"'
echo "== gone status"; ray status; echo "rc=$?"
echo "== gone health"; ray health-check --address "$A"; echo "rc=$?"; ray health-check; echo "rc=$?"
'''


def test_auto_finds_any_temp_dir_tmpdir_agrees_and_several_are_listed(clusters):
    base = clusters.new_dir()
    stdout, out = in_namespace(ONE_THEN_TWO, base)
    a, b = re.search(r"^== A=(\S+) B=(\S+)$", stdout, re.M).groups()
    # `ray start --temp-dir /data/ray`, then a plain driver: found, as Ray finds its GCS
    assert section(stdout, "auto").split("\n")[1] == f"REACHED {a} 3.0", out
    assert section(stdout, "none").split("\n")[1] == f"REACHED {a} 3.0", out
    assert "rc=0" in section(stdout, "status") and section(stdout, "list").split("\n")[1] == "1", out
    # `ray health-check` (KubeRay's worker init container, Slurm scripts): the head's port, the local daemon
    assert section(stdout, "health").split("\n")[1:3] == ["rc=0", "rc=0"], out
    # TMPDIR moves the default for `ray start` and the driver alike: the job's own daemon wins
    assert "rc=0" in section(stdout, "tmpdir"), out
    assert section(stdout, "tmpdir driver").split("\n")[1] == f"REACHED {b} 2.0", out
    # two daemons, none in the default place: listed with address, temp dir and start time
    for name in ("several", "several none"):
        said = section(stdout, name)
        assert said.startswith(f"{name}\nERROR ConnectionError Found multiple active Ray instances: "), out
        assert f"{a}  temp dir {base}/data/ray  started 20" in said and f"{b}  temp dir {base}/job/ray  started" in said, out
        assert "RAY_ADDRESS=<address>" in said, out
    status = section(stdout, "several status")
    assert "Found multiple active Ray instances" in out and "rc=1" in status, out
    assert f"temp dir {base}/data/ray" in out and "`ray status --address <address>` or `--temp-dir <temp dir>`" in out, out
    cli = section(stdout, "cli by address").split("\n")
    assert cli[1:4] == ["1", "rc=0", "rc=1"], out
    assert "no beam daemon of yours on this machine serves the cluster at 10.9.9.9:1" in out, out
    # either picked by its address or its folder
    assert section(stdout, "by address").split("\n")[1] == f"REACHED {a} 3.0", out
    assert section(stdout, "by temp dir").split("\n")[1] == f"REACHED {a} 3.0", out
    # none: Ray's own words, as ConnectionError (vLLM's ROCm/XPU path catches that type)
    assert section(stdout, "gone").split("\n")[1] == (
        "ERROR ConnectionError Could not find any running Ray instance. Please specify the one to "
        "connect to by setting `--address` flag or `RAY_ADDRESS` environment variable."), out
    gone = section(stdout, "gone status")
    assert "rc=1" in gone and "Could not find any running Ray instance" in out, out
    assert section(stdout, "gone health").split("\n")[1:3] == ["rc=1", "rc=1"], out
    assert f"nothing answers at {a}" in out, out


STALE = r'''
set -u
T="$BASE/t"
ray start --head --port 0 --num-cpus 1 --num-gpus 0 --temp-dir "$T" >/dev/null || exit 9
old=$(readlink -f "$T/session_latest")
pid=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['pid'])" "$T/session_latest/node.json")
kill -KILL "$pid"; while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
ls "$old/node.json" "$old/sockets/beamd.sock" >/dev/null && echo "== left behind"
echo "== driver"; RAY_TMPDIR="$T" drive '"auto"'
echo "== plain driver"; drive '"auto"'
echo "== status"; ray status --temp-dir "$T"; echo "rc=$?"
echo "== start again"; ray start --head --port 0 --num-cpus 1 --num-gpus 0 --temp-dir "$T" >/dev/null; echo "rc=$?"
ls "$old/node.json" "$old/sockets/beamd.sock" 2>/dev/null || echo "CLEANED"
RAY_TMPDIR="$T" drive '"auto"'
ray stop >/dev/null
'''


def test_a_dead_daemons_node_json_and_socket_are_ignored_then_cleaned(clusters):
    base = clusters.new_dir()
    stdout, out = in_namespace(STALE, base)
    assert "== left behind" in stdout, out
    for name in ("driver", "plain driver"):
        assert section(stdout, name).split("\n")[1].startswith(
            "ERROR ConnectionError Could not find any running Ray instance."), out
    assert "rc=1" in section(stdout, "status"), out
    again = section(stdout, "start again")
    assert "rc=0" in again and "CLEANED" in again and "REACHED" in again, out
