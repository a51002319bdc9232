"""examples/stuck/run.sh, the cluster docs/DIAGNOSE.md is made from, still shows what that
page says: each of its stuck parts named by the command the page uses for it. Real daemons on
two loopback nodes, fake vendor tools (one hangs), a real driver; the script cleans up after itself."""
import glob
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "examples", "stuck", "run.sh")


def test_the_diagnose_walkthrough_shows_every_stuck_part_and_leaves_nothing_running():
    before = set(glob.glob("/tmp/beam-stuck.*"))
    env = dict(os.environ, LONG_CALL_S="3")
    env.pop("RAY_ADDRESS", None)
    done = subprocess.run([SCRIPT], capture_output=True, text=True, timeout=240, env=env)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    sections = {c: out.split("$ ray " + c, 1)[1].split("\n$ ray ", 1)[0] for c in ("status", "list tasks", "stack", "logs", "doctor")}
    status = sections["status"]
    # 1 and 5: the rendezvous no one answers, the host slow to load the model
    assert "Calls running longer than 3 s:" in status
    assert "RayWorkerWrapper.execute_method(init_device) has run" in status and "(node 127.0.0.1, pid" in status
    assert "RayWorkerWrapper.execute_method(load_model) has run" in status and "(node 127.0.0.2, pid" in status
    assert "Total: 2" in sections["list tasks"] and "init_device" in sections["list tasks"]
    assert 'call=RayWorkerWrapper.execute_method("load_model")' in sections["stack"] and "in load_model" in sections["stack"]
    assert "shard " in sections["logs"]
    # 2: node:10.9.9.9, in status and in the driver's log
    assert "asks for node:10.9.9.9 but no node has IP 10.9.9.9" in status
    assert "Placement group 'vllm-tp'" in out.split("driver's log:", 1)[1]
    # 3: the wedged GPU's tool, and the answering one's numbers
    assert "127.0.0.2: nvidia-smi did not answer in 5 s" in status and "127.0.0.1 GPU 0 NVIDIA H200: 0%, 512/143771 MiB" in status
    # 4: the joined node's settings
    doctor = sections["doctor"]
    for problem in ("node 127.0.0.2: /dev/pts is 0 B (under 1 GiB)", "NCCL_SOCKET_IFNAME differs between nodes",
                    "node 127.0.0.2: VLLM_HOST_IP=10.9.9.9 is not this node's IP",
                    "node 127.0.0.2: nvidia-smi did not answer in 5 s"):
        assert problem in doctor, doctor
    assert set(glob.glob("/tmp/beam-stuck.*")) == before  # its temp dir and daemons are gone
