#!/usr/bin/env bash
# Creates .bench/torch-venv: PyTorch (CPU use only) and beam's `ray` package (editable,
# --no-deps, plus cloudpickle) for the torch harness (examples/vllm_torch_harness.py,
# tests/vllm/test_torch_harness.py). Real Ray is never installed there.
#
#   tools/setup_torch_venv.sh          install if missing, print the venv path
#   tools/setup_torch_venv.sh --check  exit 0 if the venv is complete (installs nothing)
#   BEAM_TORCH_FULL=1 tools/setup_torch_venv.sh   plain `pip install torch==V` instead
#
# Only PyPI is reachable, and PyPI's Linux x86_64 torch is the CUDA build: `pip install
# torch` pulls ~3.0 GB of wheels (5.3 GB installed, ~75 s here). The lean default installs
# torch --no-deps plus only what `import torch` links at load time: it leaves out triton,
# cusolver (loaded lazily for CUDA linear algebra), cuda-bindings and headers: ~2.5 GB of
# wheels, 4.1 GB installed, ~55 s here. Both run gloo on CPU; no GPU is needed.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${BEAM_TORCH_VENV:-$ROOT/.bench/torch-venv}"
TORCH_VERSION=2.15.0
# The exact pins of torch 2.15.0's own requirements (its METADATA and cuda-toolkit 13.2.2's
# extras) for the libraries libtorch*.so link (readelf -d): keep in step with TORCH_VERSION.
LEAN_DEPS=(
  filelock 'typing-extensions>=4.13.0' 'setuptools>=77.0.3' 'sympy>=1.13.3' 'networkx>=2.5.1' jinja2 'fsspec>=0.8.5'
  'nvidia-cuda-runtime==13.2.86.*' 'nvidia-cuda-cupti==13.2.86.*' 'nvidia-cuda-nvrtc==13.2.86.*'
  'nvidia-cublas==13.4.1.3.*' 'nvidia-cufft==12.2.0.57.*' 'nvidia-cufile==1.17.1.22.*'
  'nvidia-cusparse==12.7.10.12.*' 'nvidia-nvjitlink>=13.2.86,<14' 'nvidia-cudnn-cu13==9.26.0.51'
  'nvidia-cusparselt-cu13==0.8.1' 'nvidia-nccl-cu13==2.30.7' 'nvidia-nvshmem-cu13==3.7.2'
)

complete() {
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" - "$ROOT" <<'PY' 2>/dev/null
import os, sys, warnings
warnings.filterwarnings("ignore")
import torch.distributed as dist
import cloudpickle, ray  # noqa: F401
assert dist.is_gloo_available()
assert os.path.realpath(ray.__file__).startswith(os.path.realpath(sys.argv[1]) + "/python/"), ray.__file__
PY
}

if [ "${1:-}" = "--check" ]; then complete; exit $?; fi
if complete; then echo "$VENV"; exit 0; fi

py=""
for p in "${BEAM_PYTHON:-}" python3.12 python3.11 python3.10 python3; do
  [ -n "$p" ] && command -v "$p" >/dev/null || continue
  if "$p" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' 2>/dev/null; then
    py="$(command -v "$p")"; break
  fi
done
[ -n "$py" ] || { echo "setup_torch_venv: no python3 >= 3.10 found" >&2; exit 1; }
mkdir -p "$(dirname "$VENV")"
[ -x "$VENV/bin/python" ] || "$py" -m venv "$VENV"
PIP=("$VENV/bin/pip" install -q --disable-pip-version-check)
start=$SECONDS
if [ "${BEAM_TORCH_FULL:-0}" = 1 ]; then
  echo "setup_torch_venv: pip install torch==$TORCH_VERSION (full, ~3 GB download) into $VENV" >&2
  "${PIP[@]}" "torch==$TORCH_VERSION" >&2
else
  echo "setup_torch_venv: torch==$TORCH_VERSION --no-deps + the libraries it links (~2.5 GB download) into $VENV" >&2
  "${PIP[@]}" --no-deps "torch==$TORCH_VERSION" >&2
  # pip then warns that torch's other requirements (triton, cuda-toolkit extras, ...) are
  # missing: that is the point; its output is shown only if the step fails.
  log="$(mktemp)"
  if ! "${PIP[@]}" "${LEAN_DEPS[@]}" > "$log" 2>&1; then cat "$log" >&2; rm -f "$log"; exit 1; fi
  rm -f "$log"
fi
"${PIP[@]}" cloudpickle >&2
"${PIP[@]}" --no-deps -e "$ROOT/python" >&2
complete || { echo "setup_torch_venv: install incomplete; try: $VENV/bin/python -c 'import torch.distributed, ray'" >&2; exit 1; }
echo "setup_torch_venv: done in $((SECONDS - start)) s ($(du -sh "$VENV" | cut -f1) installed)" >&2
echo "$VENV"
