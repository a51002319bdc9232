#!/usr/bin/env bash
# The first-real-GPU check: beam's GPU detection, its telemetry (the real nvidia-smi's output
# parsed and shown in `ray status`), device mapping, sharing, NOSET, NCCL over a TCPStore on
# the node IP, and a SIGKILLed GPU worker, on one machine; one line per check, all in under 5
# minutes (tools/gpu_check.py has the checks).
#
#   tools/gpu_check.sh --pack DIR      here (network): beam's wheel (Java runtime inside),
#                                      cloudpickle's wheel and these two files into DIR
#   DIR/gpu_check.sh [--python PY]     on the GPU machine (no network): needs only PY (default
#                                      python3) with a CUDA torch and pip; installs the wheels
#                                      into a folder on PYTHONPATH, starts `ray start --head`
#                                      with detection, runs the checks, stops the cluster
#   tools/gpu_check.sh --fake          no GPU (CI): a fake device tree and nvidia-smi, host
#                                      memory for allocations, a socket sum for the all-reduce
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
PY=python3
MODE=real
PACK=""
FAKE_GPUS="${BEAM_GPU_CHECK_FAKE_GPUS:-2}"  # how many GPUs the fake tree has
LIMIT_S=330  # the checks hold themselves to 300 s; this bounds a hang anywhere else
die() { echo "gpu_check: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --fake) MODE=fake ;;
    --python) PY="${2:?--python needs a path}"; shift ;;
    --pack) PACK="${2:?--pack needs a folder}"; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done

if [ -n "$PACK" ]; then
  [ -e "$PACK" ] && die "$PACK exists; name a new folder"
  mkdir -p "$PACK"
  wheel="$("$ROOT/packaging/build_wheel.sh" | tail -1)"
  cp "$wheel" "$HERE/gpu_check.sh" "$HERE/gpu_check.py" "$PACK/"
  "$ROOT/.venv/bin/python" -m pip download -q --no-deps --only-binary :all: -d "$PACK" cloudpickle
  echo "gpu_check: $PACK holds $(du -sh "$PACK" | cut -f1): $(cd "$PACK" && ls | tr '\n' ' ')"
  exit 0
fi

WORK="$(mktemp -d /tmp/beam-gpu-check-XXXXXX)"
TEMP_DIR="$WORK/ray"
cleanup() {
  [ -n "${RAY:-}" ] && "$RAY" stop --temp-dir "$TEMP_DIR" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

if [ "$MODE" = fake ]; then
  # the checkout's venv; the daemon detects the fake GPUs through a fake nvidia-smi
  [ -x "$ROOT/.venv/bin/python" ] || die "no $ROOT/.venv: run ./dev build first"
  PY="$ROOT/.venv/bin/python"
  mkdir -p "$WORK/bin" "$WORK/devices"
  {
    # -L for detection, the telemetry query for the daemon's samples; anything else fails
    echo '#!/bin/sh'
    echo 'case "$1" in'
    echo '  -L)'
    for i in $(seq 0 $((FAKE_GPUS - 1))); do echo "    echo 'GPU $i: NVIDIA FAKE100 (UUID: GPU-fake-$i)'"; done
    echo '    ;;'
    echo '  --query-gpu=index,uuid,name,utilization.gpu,memory.used,memory.total)'
    for i in $(seq 0 $((FAKE_GPUS - 1))); do echo "    echo '$i, GPU-fake-$i, NVIDIA FAKE100, $((10 * i)), $((100 + i)), 81559'"; done
    echo '    ;;'
    echo '  *) exit 9 ;;'
    echo 'esac'
  } > "$WORK/bin/nvidia-smi"
  chmod +x "$WORK/bin/nvidia-smi"
  export PATH="$WORK/bin:$ROOT/.venv/bin:$PATH" BEAM_DEVICE_ROOT="$WORK/devices"
  unset CUDA_VISIBLE_DEVICES
  ARGS=(--fake)
else
  "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null \
    || die "$PY has no torch that sees a GPU (give one with --python PY)"
  if ls "$HERE"/ray-*.whl >/dev/null 2>&1; then
    # --target, not a venv: PY may itself be a venv (then --system-site-packages would not
    # see its torch); the folder goes first on PYTHONPATH, ahead of any real Ray in PY
    "$PY" -m pip install -q --no-index --no-deps --disable-pip-version-check --target "$WORK/site" \
      "$HERE"/cloudpickle-*.whl "$HERE"/ray-*.whl || die "$PY -m pip could not install the carried wheels"
    export PYTHONPATH="$WORK/site${PYTHONPATH:+:$PYTHONPATH}" PATH="$WORK/site/bin:$PATH"
  else
    "$PY" -c 'import ray._beam' 2>/dev/null || die "no beam wheel beside $0 and no beam in $PY (make one with --pack)"
  fi
  ARGS=()
fi
RAY="$(command -v ray)" || die "no ray command on PATH"
export RAY_TMPDIR="$TEMP_DIR"
unset RAY_ADDRESS
echo "gpu_check: cluster in $TEMP_DIR" >&2
"$RAY" start --head --port 0 --temp-dir "$TEMP_DIR" --num-cpus 4 >/dev/null \
  || die "ray start --head failed"
timeout "$LIMIT_S" "$PY" "$HERE/gpu_check.py" "${ARGS[@]}"
