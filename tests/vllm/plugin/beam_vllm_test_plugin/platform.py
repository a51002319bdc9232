"""vLLM's CPU platform with a Ray device key (see the package docstring)."""

import os

from vllm.platforms.cpu import CpuPlatform

KEY = os.environ.get("BEAM_VLLM_RAY_DEVICE_KEY", "GPU")


class BeamCpuPlatform(CpuPlatform):
    # With "GPU" the Ray executors take the same path as on CUDA: bundles {"GPU": 1},
    # actors num_gpus=1, ids from get_accelerator_ids()["GPU"] (declared with
    # `ray start --num-gpus N`). Another key K makes them use resources={K: 1} and
    # get_accelerator_ids()[K] (declared with `ray start --resources '{"K": N}'`).
    ray_device_key = KEY
    ray_noset_device_env_vars = (
        ["RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES"] if KEY == "GPU" else []
    )
