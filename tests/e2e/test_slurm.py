"""docs/DEPLOY.md's sbatch script (examples/slurm/vllm-beam.sbatch), this very file, run as
Slurm runs it: on the first node of the job, with SLURM_JOB_ID, SLURM_JOB_NODELIST and
SLURM_NNODES set, and `srun` / `scontrol` (tests/e2e/slurm_shims) running tasks on the
other nodes, which are network-namespace hosts (tests/e2e/netns.py). Two jobs run at once
on the same two hosts, sharing one TMPDIR as a site without per-job TMPDIRs would: each must
see only its own cluster and run a vLLM-shaped workload (examples/vllm_shaped.py) across
both hosts, and leave nothing running."""

import json
import os
import subprocess
import tempfile

import pytest

import netns
from conftest import ROOT, VENV_BIN
from multihost import host_env

SBATCH = os.path.join(ROOT, "examples", "slurm", "vllm-beam.sbatch")
SHIMS = os.path.join(ROOT, "tests", "e2e", "slurm_shims")
# The driver the job runs on its head: what the cluster looks like from there, then the workload.
DRIVER = 'ray list nodes --json > "$OUT/nodes-$SLURM_JOB_ID.json" && exec python examples/vllm_shaped.py'


@pytest.fixture
def hosts():
    reason = netns.unavailable_reason()
    if reason:
        pytest.skip(f"network namespaces unavailable ({reason})")
    h = netns.NetnsHosts(2, prefix="bslurm")
    yield h
    h.teardown()


def _beam_daemons(ns):
    found = []
    for pid in netns._ns_pids(ns):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"beam.cli.Main" in f.read().split(b"\0"):
                    found.append(pid)
        except OSError:
            pass
    return found


def test_two_jobs_on_the_same_hosts_each_see_only_their_own_cluster(hosts):
    out = tempfile.mkdtemp(prefix="bslurm-")
    shared_tmp = tempfile.mkdtemp(prefix="bst-")  # short: the sockets live under it
    jobs = {}
    try:
        for job in ("7001", "7002"):
            env = host_env(PATH=f"{SHIMS}:{VENV_BIN}:{os.environ['PATH']}", SLURM_JOB_ID=job,
                           SLURM_JOB_NODELIST="h1,h2", SLURM_NNODES=2, TMPDIR=shared_tmp, OUT=out,
                           BEAM_NUM_GPUS=2, BEAM_DEMO_WORKERS=4,
                           BEAM_TEST_NETNS_h1=hosts[0].ns, BEAM_TEST_NETNS_h2=hosts[1].ns)
            env.pop("RAY_TMPDIR", None)
            jobs[job] = hosts[0].popen(["bash", SBATCH, "bash", "-c", DRIVER], env=env, cwd=ROOT,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        said = {job: p.communicate(timeout=300) for job, p in jobs.items()}
        for job, p in jobs.items():
            assert p.returncode == 0, f"job {job} exited {p.returncode}: {said[job]}"
            assert "done in" in said[job][0] and "monitor saw worker 3 die" in said[job][0], said[job]
        seen = {}
        for job in jobs:
            with open(os.path.join(out, f"nodes-{job}.json")) as f:
                nodes = json.load(f)
            alive = [n for n in nodes if n["state"] == "ALIVE"]
            assert sorted(n["node_ip"] for n in alive) == sorted([hosts[0].ip, hosts[1].ip]), nodes
            seen[job] = {n["node_id"] for n in alive}
            for host in hosts:  # each job's sessions under its own folder of the shared TMPDIR
                assert os.path.isdir(os.path.join(shared_tmp, f"beam-job-{job}", "ray")), os.listdir(shared_tmp)
        assert not seen["7001"] & seen["7002"], seen
        for host in hosts:
            assert _beam_daemons(host.ns) == [], f"beam daemons left on {host}"
    finally:
        for p in jobs.values():
            if p.poll() is None:
                p.kill()
                p.wait()


def test_deploy_md_shows_the_script_this_test_runs():
    with open(os.path.join(ROOT, "docs", "DEPLOY.md")) as f:
        doc = f.read()
    with open(SBATCH) as f:
        script = f.read()
    assert f"```bash\n{script}```" in doc, "docs/DEPLOY.md's sbatch script differs from examples/slurm/vllm-beam.sbatch"
