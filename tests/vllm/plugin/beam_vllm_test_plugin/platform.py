"""vLLM's CPU platform with a Ray device key (see the package docstring)."""

import json
import os

from vllm.platforms.cpu import CpuPlatform

KEY = os.environ.get("BEAM_VLLM_RAY_DEVICE_KEY", "GPU")


def _record_visibility():
    """With BEAM_VLLM_TEST_RECORD_DIR set, writes <dir>/<pid>.json: the visibility variables
    this process started with. tests/vllm reads them for the Ray workers: vLLM renames its
    workers (setproctitle), which overwrites what /proc/<pid>/environ shows."""
    folder = os.environ.get("BEAM_VLLM_TEST_RECORD_DIR")
    if not folder:
        return
    seen = {k: v for k, v in os.environ.items() if k.endswith("_VISIBLE_DEVICES")
            or k in ("HABANA_VISIBLE_MODULES", "NEURON_RT_VISIBLE_CORES")}
    with open(os.path.join(folder, f"{os.getpid()}.json"), "w") as f:
        json.dump({"pid": os.getpid(), "env": seen}, f)


_record_visibility()


class BeamCpuPlatform(CpuPlatform):
    # With "GPU" the Ray executors take the same path as on CUDA: bundles {"GPU": 1},
    # actors num_gpus=1, ids from get_accelerator_ids()["GPU"] (declared with
    # `ray start --num-gpus N`). Another key K makes them use resources={K: 1} and
    # get_accelerator_ids()[K] (declared with `ray start --resources '{"K": N}'`).
    ray_device_key = KEY
    ray_noset_device_env_vars = (
        ["RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES"] if KEY == "GPU" else []
    )
