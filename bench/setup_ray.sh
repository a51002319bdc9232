#!/usr/bin/env bash
# Creates .bench/ray-venv with real Ray at the version beam answers as (the comparison baseline) and the
# benchmark-only tools (matplotlib for the chart, py-spy for profiles). None of these are
# beam dependencies: they live only in this gitignored venv.
#
#   bench/setup_ray.sh            install if missing, print the venv path
#   bench/setup_ray.sh --check    exit 0 if the venv is complete, 1 otherwise (installs nothing)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.bench/ray-venv"
RAY_VERSION="${BENCH_RAY_VERSION:-$(cat "$ROOT/python/ray/_version/RAY")}"  # the release beam answers as

complete() {
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" - "$RAY_VERSION" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
assert version("ray") == sys.argv[1]
import matplotlib  # noqa: F401
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
[ -n "$py" ] || { echo "setup_ray: no python3 found" >&2; exit 1; }
mkdir -p "$ROOT/.bench"
[ -x "$VENV/bin/python" ] || "$py" -m venv "$VENV"
echo "setup_ray: installing ray==$RAY_VERSION, matplotlib, py-spy into $VENV" >&2
"$VENV/bin/pip" install -q --disable-pip-version-check "ray==$RAY_VERSION" matplotlib py-spy >&2
complete || { echo "setup_ray: install incomplete" >&2; exit 1; }
echo "$VENV"
