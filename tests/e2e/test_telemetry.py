"""Accelerator telemetry from fake vendor tools on the daemon's PATH (never this machine's
devices): one that answers with numbers that change, one that hangs, one that fails, and a
joined node whose devices the head shows. Real daemons, real processes, real kills."""
import json
import os
import stat
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

from conftest import WAIT_S, node_json, ray_cli, spawn_driver, read_line_with, finish, wait_until

HUNG = "nvidia-smi did not answer in 5 s: a hung nvidia-smi usually means a driver or GPU fault"
ANSWERING = """#!/bin/sh
# each call answers with the next utilization, so samples differ over time
n=$(cat "{dir}/calls" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "{dir}/calls"
echo "0, GPU-aaaa-0000, NVIDIA H200, $((n * 7 % 100)), $((1000 + n)), 143771"
echo "1, GPU-bbbb-1111, NVIDIA H200, [N/A], 0, 143771"
"""
HANGING = """#!/bin/sh
echo $$ >> "{dir}/started"
exec sleep 600
"""
FAILING = """#!/bin/sh
echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." >&2
exit 9
"""


def fake_nvidia_smi(tmp_path, script):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "nvidia-smi"
    tool.write_text(script.replace("{dir}", str(tmp_path)))
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}"}


def status_json(base):
    done = ray_cli(["status", "--json", "--temp-dir", base])
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def telemetry_of(base, ip, until, what, timeout=WAIT_S):
    """The node's BeamTelemetry once ``until(it)`` holds."""
    def holds():
        nodes = [n for n in status_json(base)["nodes"] if n["NodeManagerAddress"] == ip and n["Alive"]]
        t = nodes[0].get("BeamTelemetry") if nodes else None
        return t if t is not None and until(t) else None
    return wait_until(holds, timeout, f"telemetry of {ip}: {what}", interval=0.5)


def metrics(base):
    port = node_json(base)["http_ports"]["metrics"]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        return {f.name: f for f in text_string_to_metric_families(r.read().decode())}


def wait_metrics_port(base):
    wait_until(lambda: "metrics" in node_json(base).get("http_ports", {}), WAIT_S, "the metrics port opened")


def test_an_answering_tool_is_sampled_every_5_s_and_shown_with_its_holder(clusters, tmp_path):
    env = fake_nvidia_smi(tmp_path, ANSWERING)
    base = clusters.start("--num-gpus", "2", "--num-cpus", "2", "--node-ip-address", "127.0.0.1",
                          "--metrics-export-port", "0", **env)
    first = telemetry_of(base, "127.0.0.1", lambda t: t["devices"], "a first sample with devices")
    assert first["tool"] == "nvidia-smi" and first["problem"] is None
    assert [d["index"] for d in first["devices"]] == ["0", "1"]
    assert first["devices"][1]["utilization_gpu"] is None and first["devices"][0]["memory_total_mib"] == 143771
    later = telemetry_of(base, "127.0.0.1", lambda t: t["sampled_ms"] > first["sampled_ms"], "a second sample")
    gap = later["sampled_ms"] - first["sampled_ms"]
    assert gap >= 4000, gap  # one sample every 5 s, no faster (a loaded machine may be slower)
    assert later["devices"][0]["utilization_gpu"] != first["devices"][0]["utilization_gpu"]

    driver = spawn_driver(base, """
import ray, time
ray.init()
@ray.remote(num_gpus=1)
class Engine:
    def gpu(self):
        return ray.get_gpu_ids()
e = Engine.remote()
print("HELD", ray.get(e.gpu.remote())[0], flush=True)
time.sleep(120)
""")
    try:
        held = [x for x in read_line_with(driver, "HELD", timeout=90) if x.startswith("HELD")][0].split()[1]
        status = ray_cli(["status", "--temp-dir", base]).stdout
        section = status[status.index("Accelerator telemetry"):]
        line = [x for x in section.splitlines() if x.startswith(f" 127.0.0.1 GPU {held} NVIDIA H200: ")]
        assert line and "/143771 MiB, held by Engine " in line[0], section
        other = "1" if held == "0" else "0"
        assert any(x.startswith(f" 127.0.0.1 GPU {other} ") and x.endswith(", free") for x in section.splitlines()), section

        wait_metrics_port(base)
        fams = metrics(base)
        (util,) = [s for s in fams["ray_node_gpus_utilization"].samples if s.labels["GpuIndex"] == "0"]
        assert util.labels["GpuDeviceName"] == "NVIDIA H200" and util.labels["ip"] == "127.0.0.1"
        assert util.labels["GpuUuid"] == "GPU-aaaa-0000" and util.labels["RayNodeType"] == "head"
        used = [s for s in fams["ray_node_gram_used"].samples if s.labels["GpuIndex"] == "0"][0].value
        free = [s for s in fams["ray_node_gram_available"].samples if s.labels["GpuIndex"] == "0"][0].value
        assert used > 1000 and used + free == 143771  # MiB, as Ray reports them
        assert [s.value for s in fams["beam_accelerator_tool_hung"].samples] == [0.0]
    finally:
        finish(driver)


def test_a_hung_tool_is_killed_reported_everywhere_and_never_piles_up(clusters, tmp_path):
    env = fake_nvidia_smi(tmp_path, HANGING)
    base = clusters.start("--num-gpus", "1", "--num-cpus", "1", "--node-ip-address", "127.0.0.1",
                          "--metrics-export-port", "0", **env)
    t = telemetry_of(base, "127.0.0.1", lambda t: t["hung"], "the tool reported hung")
    assert t["problem"] == HUNG and t["devices"] == []
    status = ray_cli(["status", "--temp-dir", base], timeout=60)  # the daemon keeps serving (or this times out)
    assert status.returncode == 0, status.stderr
    assert "127.0.0.1: " + HUNG + " (no sample yet)" in status.stdout, status.stdout
    doctor = ray_cli(["doctor", "--temp-dir", base]).stdout
    assert "node 127.0.0.1: " + HUNG in doctor, doctor
    wait_metrics_port(base)
    fams = metrics(base)
    (hung,) = fams["beam_accelerator_tool_hung"].samples
    assert hung.value == 1.0 and hung.labels["tool"] == "nvidia-smi"
    # more periods: it is tried again, each try killed before the next starts
    pids = wait_until(lambda: (lambda p: p if len(p) >= 3 else None)((tmp_path / "started").read_text().split()),
                      60, "the hung tool tried three times, one period (5 s) apart")
    pids = [int(p) for p in pids]
    alive = [p for p in pids if os.path.exists(f"/proc/{p}") and "sleep" in open(f"/proc/{p}/cmdline").read()]
    assert len(alive) <= 1, f"hung tools piled up: {alive} of {pids}"


def test_a_failing_tool_is_reported_with_its_error(clusters, tmp_path):
    env = fake_nvidia_smi(tmp_path, FAILING)
    base = clusters.start("--num-gpus", "1", "--num-cpus", "1", "--node-ip-address", "127.0.0.1", **env)
    t = telemetry_of(base, "127.0.0.1", lambda t: t["problem"], "the tool's problem reported")
    assert t["problem"] == ("nvidia-smi failed (exit 9): NVIDIA-SMI has failed because it couldn't communicate "
                            "with the NVIDIA driver.") and not t["hung"]
    assert "node 127.0.0.1: nvidia-smi failed (exit 9)" in ray_cli(["doctor", "--temp-dir", base]).stdout


def test_the_head_shows_a_joined_nodes_devices(clusters, tmp_path):
    head = clusters.start("--num-gpus", "0", "--num-cpus", "1", "--node-ip-address", "127.0.0.1")
    member = clusters.new_dir()
    with open(os.path.join(head, "session_latest", "auth_token")) as f:
        token = f.read().strip()
    done = ray_cli(["start", "--address", node_json(head)["address"], "--temp-dir", member, "--num-gpus", "2",
                    "--num-cpus", "1", "--node-ip-address", "127.0.0.2"],
                   RAY_AUTH_TOKEN=token, **fake_nvidia_smi(tmp_path, ANSWERING))
    assert done.returncode == 0, done.stderr
    t = telemetry_of(head, "127.0.0.2", lambda t: t["devices"], "a sample with devices from the joined node")
    assert [d["uuid"] for d in t["devices"]] == ["GPU-aaaa-0000", "GPU-bbbb-1111"]
    status = ray_cli(["status", "--temp-dir", head]).stdout
    assert " 127.0.0.2 GPU 1 NVIDIA H200: utilization n/a, 0/143771 MiB, free" in status, status
    assert "127.0.0.1 GPU" not in status  # the head has no devices and samples nothing
