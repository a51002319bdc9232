"""Every accelerator kind as Ray 2.58 treats it: device ids per unit, the visibility variable
each worker gets (or, with RAY_EXPERIMENTAL_NOSET_*, does not get), Ray's refusals, and
detection from fake device trees and fake vendor tools (BEAM_DEVICE_ROOT, PATH), never from
this machine's devices. The expected values are what real Ray 2.58 gives for the same
`ray start` and actors (the table is in docs/DESIGN.md, "Accelerators")."""
import json
import os
import stat

import pytest

from conftest import ray_cli, run_driver

PROBE = """
import json, os, ray
ray.init(address="auto")
VARS = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ONEAPI_DEVICE_SELECTOR", "ASCEND_RT_VISIBLE_DEVICES",
        "HABANA_VISIBLE_MODULES", "NEURON_RT_VISIBLE_CORES", "TPU_VISIBLE_CHIPS", "TPU_CHIPS_PER_HOST_BOUNDS",
        "TPU_HOST_BOUNDS")

@ray.remote(num_cpus=0)
class Probe:
    def look(self):
        ctx = ray.get_runtime_context()
        return {"ids": ctx.get_accelerator_ids(), "gpu_ids": ray.get_gpu_ids(),
                "env": {k: os.environ.get(k) for k in VARS}}

def look(**options):
    a = Probe.options(**options).remote()
    try:
        return ray.get(a.look.remote(), timeout=60)
    finally:
        ray.kill(a)
"""


def drive(base, code):
    done = run_driver(base, PROBE + code)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_declared_npu_hpu_neuron_get_ids_and_their_variables_like_ray(clusters):
    # the check against Ray 2.58: ids ["0"] / ["1"] and each kind's variable set
    base = clusters.start("--num-gpus", "0", "--num-cpus", "2",
                          "--resources", '{"NPU": 2, "HPU": 2, "neuron_cores": 2}')
    got = drive(base, """
each = {"NPU": 1, "HPU": 1, "neuron_cores": 1}
actors = [Probe.options(resources=each).remote() for _ in range(2)]
print(json.dumps({"looks": ray.get([a.look.remote() for a in actors], timeout=60),
                  "total": ray.cluster_resources()}))
""")
    looks = sorted(got["looks"], key=lambda l: l["ids"]["NPU"])
    for i, look in enumerate(looks):
        want = [str(i)]
        assert look["ids"]["NPU"] == look["ids"]["HPU"] == look["ids"]["neuron_cores"] == want, look
        assert look["ids"]["GPU"] == [] and look["gpu_ids"] == [], look
        assert look["env"]["ASCEND_RT_VISIBLE_DEVICES"] == str(i), look
        assert look["env"]["HABANA_VISIBLE_MODULES"] == str(i), look
        assert look["env"]["NEURON_RT_VISIBLE_CORES"] == str(i), look
        assert look["env"]["CUDA_VISIBLE_DEVICES"] is None, look
    assert set(looks[0]["ids"]) >= {"GPU", "NPU", "HPU", "TPU", "neuron_cores", "RBLN", "TTNPU", "FURIOSA"}
    assert got["total"]["NPU"] == 2.0 and got["total"]["neuron_cores"] == 2.0


def test_noset_leaves_each_variable_alone_while_ids_are_reported(clusters):
    base = clusters.start("--num-gpus", "1", "--num-cpus", "2", "--resources", '{"NPU": 1, "HPU": 1}')
    got = drive(base, """
noset = {"RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES": "1", "RAY_EXPERIMENTAL_NOSET_HABANA_VISIBLE_MODULES": "1",
         "RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES": "1"}
print(json.dumps(look(num_gpus=1, resources={"NPU": 1, "HPU": 1}, runtime_env={"env_vars": noset})))
""")
    assert got["ids"]["NPU"] == got["ids"]["HPU"] == got["ids"]["GPU"] == ["0"], got
    assert got["gpu_ids"] == [0]
    assert got["env"]["ASCEND_RT_VISIBLE_DEVICES"] is None and got["env"]["HABANA_VISIBLE_MODULES"] is None, got
    assert got["env"]["CUDA_VISIBLE_DEVICES"] is None, got


def test_fractions_share_a_unit_where_ray_allows_them_and_are_refused_where_not(clusters):
    base = clusters.start("--num-gpus", "0", "--num-cpus", "2", "--resources", '{"NPU": 2, "HPU": 2, "TPU": 4}')
    got = drive(base, """
halves = [Probe.options(resources={"NPU": 0.5}).remote() for _ in range(2)]
shared = [l["ids"]["NPU"] for l in ray.get([a.look.remote() for a in halves], timeout=60)]
errors = {}
for name, amount in (("HPU", 0.5), ("TPU", 3)):
    try:
        Probe.options(resources={name: amount}).remote()
        errors[name] = None
    except Exception as e:
        errors[name] = type(e).__name__ + ": " + str(e)
one, every = look(resources={"TPU": 1}), look(resources={"TPU": 4})
print(json.dumps({"shared": shared, "errors": errors, "tpu_one": one, "tpu_all": every}))
""")
    assert got["shared"][0] == got["shared"][1] and len(got["shared"][0]) == 1, got["shared"]
    assert "HPU resource quantity must be whole numbers. The specified quantity 0.5 is invalid." in got["errors"]["HPU"]
    assert got["errors"]["HPU"].startswith("ValueError")
    assert "not a supported chip configuration" in got["errors"]["TPU"]
    one = got["tpu_one"]["env"]
    assert one["TPU_VISIBLE_CHIPS"] == got["tpu_one"]["ids"]["TPU"][0]
    assert one["TPU_CHIPS_PER_HOST_BOUNDS"] == "1,1,1" and one["TPU_HOST_BOUNDS"] == "1,1,1"
    # with every chip of the node Ray lets the framework use its defaults: nothing set
    assert got["tpu_all"]["ids"]["TPU"] == ["0", "1", "2", "3"] and got["tpu_all"]["env"]["TPU_VISIBLE_CHIPS"] is None


# vLLM's platforms (docs/VLLM.md lists them): ray_device_key, device_control_env_var,
# ray_noset_device_env_vars, and what Ray then sets in the worker.
PLATFORMS = {
    "cuda": ("GPU", "CUDA_VISIBLE_DEVICES", ["RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES"]),
    "ascend": ("NPU", "ASCEND_RT_VISIBLE_DEVICES", ["RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES"]),
    "gaudi": ("HPU", "HABANA_VISIBLE_MODULES", []),
    "test-plugin-npu": ("NPU", "ASCEND_RT_VISIBLE_DEVICES", []),
    "test-plugin-hpu": ("HPU", "HABANA_VISIBLE_MODULES", []),
}


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_vllm_ray_executor_sequence_sees_what_ray_gives(clusters, platform):
    """What RayExecutorV2 does with a platform's key: a PACK group of {key: 1} bundles, one
    actor per bundle (num_gpus=1 for GPU, else resources={key: 1}) with the platform's NOSET
    switches in runtime_env, then get_accelerator_ids()[key] converted with int()."""
    key, var, noset = PLATFORMS[platform]
    base = clusters.start("--num-gpus", "2", "--num-cpus", "2", "--resources", '{"NPU": 2, "HPU": 2}')
    got = drive(base, f"""
from ray.util.placement_group import placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy
key, noset = {key!r}, {noset!r}
pg = placement_group([{{key: 1.0}}] * 2, strategy="PACK")
ray.get(pg.ready(), timeout=30)
workers = [Probe.options(num_gpus=1 if key == "GPU" else 0, resources={{}} if key == "GPU" else {{key: 1}},
                         scheduling_strategy=PlacementGroupSchedulingStrategy(placement_group=pg,
                                                                             placement_group_bundle_index=i),
                         runtime_env={{"env_vars": {{v: "1" for v in noset}}}}).remote() for i in range(2)]
looks = ray.get([w.look.remote() for w in workers], timeout=60)
print(json.dumps([{{"ids": [int(x) for x in l["ids"][key]], "var": l["env"][{var!r}]}} for l in looks]))
""")
    assert sorted(l["ids"] for l in got) == [[0], [1]], got
    for look in got:
        assert look["var"] == (None if noset else str(look["ids"][0])), (platform, got)


def _fake_tool(bin_dir, name, output):
    path = os.path.join(bin_dir, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\ncat <<'EOF'\n" + output + "\nEOF\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def _tree(root, files):
    for rel, content in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content)


def test_nvidia_smi_on_path_is_detected_and_named(clusters, tmp_path):
    root, bin_dir = tmp_path / "root", tmp_path / "bin"
    root.mkdir()
    bin_dir.mkdir()
    _fake_tool(str(bin_dir), "nvidia-smi", "GPU 0: NVIDIA H200 (UUID: GPU-aa)\nGPU 1: NVIDIA H200 (UUID: GPU-bb)")
    env = {"BEAM_DEVICE_ROOT": str(root), "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    base = clusters.start("--num-cpus", "2", **env)
    got = drive(base, """
typed = Probe.options(num_gpus=1, accelerator_type="H200").remote()
ray.get(typed.look.remote(), timeout=60)
ray.kill(typed)
other = Probe.options(num_gpus=1, accelerator_type="A100").remote()
ready, _ = ray.wait([other.look.remote()], timeout=1.0)
print(json.dumps({"total": ray.cluster_resources(), "look": look(num_gpus=1),
                  "labels": ray.nodes()[0]["Labels"], "a100_placed": bool(ready)}))
""")
    assert got["total"]["GPU"] == 2.0 and got["total"]["accelerator_type:H200"] == 1.0, got["total"]
    assert got["look"]["env"]["CUDA_VISIBLE_DEVICES"] == got["look"]["ids"]["GPU"][0]
    assert got["labels"]["ray.io/accelerator-type"] == "H200"
    assert not got["a100_placed"], "accelerator_type='A100' was placed on an H200 node"
    status = ray_cli(["status", "--temp-dir", base]).stdout
    assert "2 NVIDIA GPU (H200) [\"0\",\"1\"]" in status, status


def test_an_amd_ascend_gaudi_neuron_host_from_a_fake_tree(clusters, tmp_path):
    root = tmp_path / "root"
    files = {"dev/kfd": "", "dev/davinci0": "", "dev/davinci1": "", "dev/davinci_manager": "", "dev/hl0": ""}
    for n in range(2):
        files.update({f"sys/class/drm/renderD{128 + n}/device/vendor": "0x1002\n",
                      f"sys/class/drm/renderD{128 + n}/device/device": "0x74a1\n",
                      f"sys/class/drm/renderD{128 + n}/device/class": "0x038000\n"})
    _tree(str(root), files)
    os.makedirs(root / "opt/aws/neuron/bin")
    _fake_tool(str(root / "opt/aws/neuron/bin"), "neuron-ls", '[{"neuron_device": 0, "nc_count": 2}]')
    base = clusters.start("--num-cpus", "2", BEAM_DEVICE_ROOT=str(root), ASCEND_RT_VISIBLE_DEVICES="4,6")
    got = drive(base, """
print(json.dumps({"total": ray.cluster_resources(), "gpu": look(num_gpus=1),
                  "npu": look(resources={"NPU": 1, "HPU": 1, "neuron_cores": 2})}))
""")
    total = got["total"]
    assert (total["GPU"], total["NPU"], total["HPU"], total["neuron_cores"]) == (2.0, 2.0, 1.0, 2.0), total
    assert total["accelerator_type:AMD-Instinct-MI300X-OAM"] == 1.0
    gpu = got["gpu"]
    assert gpu["env"]["HIP_VISIBLE_DEVICES"] == gpu["ids"]["GPU"][0] and gpu["env"]["CUDA_VISIBLE_DEVICES"] is None
    npu = got["npu"]
    assert npu["ids"]["NPU"][0] in ("4", "6") and npu["env"]["ASCEND_RT_VISIBLE_DEVICES"] == npu["ids"]["NPU"][0]
    assert npu["env"]["HABANA_VISIBLE_MODULES"] == "0" and npu["env"]["NEURON_RT_VISIBLE_CORES"] == "0,1"

    nodes = json.loads(ray_cli(["list", "nodes", "--json", "--temp-dir", base]).stdout)
    details = nodes[0]["accelerator_details"]
    assert details["GPU"]["vendor"] == "AMD" and details["GPU"]["visible_var"] == "HIP_VISIBLE_DEVICES"
    assert details["NPU"]["ids"] == ["4", "6"] and details["NPU"]["source"] == "visible"
    assert "2 AMD GPU (AMD-Instinct-MI300X-OAM)" in nodes[0]["accelerators"]
    doctor = ray_cli(["doctor", "--temp-dir", base]).stdout
    assert "GPU [\"0\",\"1\"]: AMD AMD-Instinct-MI300X-OAM (detected), actors get HIP_VISIBLE_DEVICES" in doctor, doctor
    assert "node started with ASCEND_RT_VISIBLE_DEVICES=4,6" in doctor, doctor
    assert "1 Intel Gaudi HPU" in ray_cli(["status", "--temp-dir", base]).stdout


def test_an_intel_data_center_gpu_gets_a_level_zero_selector(clusters, tmp_path):
    root = tmp_path / "root"
    _tree(str(root), {"sys/class/drm/renderD128/device/vendor": "0x8086\n",
                      "sys/class/drm/renderD128/device/class": "0x038000\n",
                      "sys/class/drm/renderD129/device/vendor": "0x8086\n",
                      "sys/class/drm/renderD129/device/class": "0x030000\n"})  # integrated: not counted
    base = clusters.start("--num-cpus", "2", BEAM_DEVICE_ROOT=str(root))
    got = drive(base, 'print(json.dumps({"total": ray.cluster_resources(), "look": look(num_gpus=1)}))')
    assert got["total"]["GPU"] == 1.0
    assert got["look"]["env"]["ONEAPI_DEVICE_SELECTOR"] == "level_zero:0"
    assert got["look"]["env"]["CUDA_VISIBLE_DEVICES"] is None


def test_rocr_visible_devices_on_an_amd_host_fails_start_with_rays_fix(clusters, tmp_path):
    root = tmp_path / "root"
    _tree(str(root), {"dev/kfd": "", "sys/class/drm/renderD128/device/vendor": "0x1002\n"})
    base = clusters.new_dir()
    done = ray_cli(["start", "--head", "--port", "0", "--temp-dir", base], BEAM_DEVICE_ROOT=str(root),
                   ROCR_VISIBLE_DEVICES="0")
    assert done.returncode != 0
    assert "Please use HIP_VISIBLE_DEVICES instead of ROCR_VISIBLE_DEVICES" in done.stderr, done.stderr


def test_a_joined_node_reports_its_accelerators_and_its_actors_get_their_variable(clusters):
    head = clusters.start("--num-gpus", "0", "--num-cpus", "1", "--node-ip-address", "127.0.0.1")
    with open(os.path.join(head, "session_latest", "node.json")) as f:
        address = json.load(f)["address"]
    with open(os.path.join(head, "session_latest", "auth_token")) as f:
        token = f.read().strip()
    member = clusters.new_dir()
    done = ray_cli(["start", "--address", address, "--temp-dir", member, "--num-gpus", "0", "--num-cpus", "1",
                    "--node-ip-address", "127.0.0.2", "--resources", '{"HPU": 2}'],
                   RAY_AUTH_TOKEN=token, HABANA_VISIBLE_MODULES="2,3")
    assert done.returncode == 0, done.stderr
    got = drive(head, 'print(json.dumps(look(resources={"HPU": 1})))')
    assert got["ids"]["HPU"] in (["2"], ["3"]), got
    assert got["env"]["HABANA_VISIBLE_MODULES"] == got["ids"]["HPU"][0], got
    nodes = {n["node_ip"]: n for n in json.loads(ray_cli(["list", "nodes", "--json", "--temp-dir", head]).stdout)}
    assert nodes["127.0.0.2"]["accelerator_details"]["HPU"]["vendor"] == "Intel Gaudi"
    assert nodes["127.0.0.2"]["accelerator_details"]["HPU"]["ids"] == ["2", "3"]
    assert nodes["127.0.0.1"]["accelerator_details"] == {}
