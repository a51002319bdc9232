#!/usr/bin/env bash
# The side-by-side benchmark of beam and real Ray 2.58.0 (docs/PERFORMANCE.md).
#
#   bench/run.sh           full run: installs Ray into .bench/ray-venv if missing, measures beam then
#                          Ray (never both at once), writes bench/results/latest.json and chart.png,
#                          then measures JVM start-up options (bench/results/jvm_options.json)
#   bench/run.sh --quick   CI smoke run (< 2 min): few iterations; Ray only if already installed;
#                          writes bench/results/quick.json; checks that everything completes
#   bench/run.sh --no-jvm  full run without the JVM options part
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

quick=0; jvm=1
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    --no-jvm) jvm=0 ;;
    *) sed -n '2,10p' "$0"; exit 2 ;;
  esac
done

# Build only when needed: `./dev build` rewrites python/ray/_beam/lib/beam.jar in place, which breaks
# daemons that other sessions on this machine are running from it (docs/PERFORMANCE.md).
jar=python/ray/_beam/lib/beam.jar
if [ ! -f "$jar" ] || [ ! -x .venv/bin/python ] \
    || [ -n "$(find java/src java/pom.xml python/pyproject.toml -newer "$jar" -print -quit 2>/dev/null)" ]; then
  ./dev build >/dev/null
fi
py="$(command -v python3)"

if [ "$quick" = 1 ]; then
  systems=beam
  if bench/setup_ray.sh --check; then systems=beam,ray; else echo "bench: Ray not installed (bench/setup_ray.sh); beam only"; fi
  "$py" bench/bench.py --quick --systems "$systems" --out bench/results/quick.json
  if bench/setup_ray.sh --check; then
    .bench/ray-venv/bin/python bench/chart.py bench/results/quick.json bench/results/quick.png
  fi
  echo "bench: quick run completed"
  exit 0
fi

bench/setup_ray.sh >/dev/null
"$py" bench/bench.py --systems beam,ray --out bench/results/latest.json
.bench/ray-venv/bin/python bench/chart.py bench/results/latest.json bench/results/chart.png
if [ "$jvm" = 1 ]; then
  "$py" bench/jvm_options.py --out bench/results/jvm_options.json
fi
