"""Test-only vLLM platform plugin (entry point group ``vllm.platform_plugins``).

vLLM refuses its Ray executor on the CPU platform only because ``CpuPlatform.ray_device_key``
is empty ("current platform cpu does not support ray"). This plugin activates wherever
vLLM's own CPU platform would (a CPU build of vLLM, or ``VLLM_TARGET_DEVICE=cpu`` is NOT
set: that bypasses plugins) and returns ``BeamCpuPlatform``: the CPU platform unchanged but
for a Ray device key, so ``distributed_executor_backend="ray"`` places one worker per
``{key: 1}`` bundle. It is installed only in the test venv (tools/setup_vllm_venv.sh).

``BEAM_VLLM_TEST_PLATFORM=0`` turns it off (vLLM then picks its CPU platform as usual).
``BEAM_VLLM_RAY_DEVICE_KEY`` (default ``GPU``) picks the key; it must be the same in the
driver and in the actors (so also in the environment of ``ray start`` on every node).
"""

import os


def register():
    if os.environ.get("BEAM_VLLM_TEST_PLATFORM", "1") == "0":
        return None
    from vllm.platforms import cpu_platform_plugin

    if cpu_platform_plugin() is None:  # not a CPU build of vLLM: stay out of the way
        return None
    return "beam_vllm_test_plugin.platform.BeamCpuPlatform"
