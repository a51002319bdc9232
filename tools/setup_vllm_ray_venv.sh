#!/usr/bin/env bash
# Creates .bench/vllm-ray-venv: the same vLLM for CPU as tools/setup_vllm_venv.sh but with real
# Ray (the release beam answers as, from PyPI) instead of beam's python/ package. Used only by
# bench/vllm_side_by_side.py (beam vs. Ray under the same vLLM).
#
#   tools/setup_vllm_ray_venv.sh          install if missing, print the venv path
#   tools/setup_vllm_ray_venv.sh --check  exit 0 if the venv is complete (installs nothing)
#
# BEAM_VLLM_RAY_VENV, BEAM_VLLM_VERSION, BEAM_RAY_VERSION, BEAM_VLLM_PYTHON override the defaults.
exec "$(dirname "${BASH_SOURCE[0]}")/setup_vllm_venv.sh" --ray "$@"
