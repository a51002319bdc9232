#!/usr/bin/env bash
# The side-by-side benchmark of beam and real Ray 2.58.0 (docs/PERFORMANCE.md).
#
#   bench/run.sh           full run: installs Ray into .bench/ray-venv if missing, measures beam then
#                          Ray (never both at once), writes bench/results/latest.json and chart.png,
#                          then measures JVM start-up options (bench/results/jvm_options.json)
#   bench/run.sh --quick   CI smoke run (< 2 min): few iterations; Ray only if already installed;
#                          writes bench/results/quick.json; checks that everything completes
#   bench/run.sh --no-jvm  full run without the JVM options part
#   bench/run.sh --cold [--runs N]
#                          only the cold shape: N fresh heads of each system, alternating,
#                          no warm-up (default 5); every run's figures, then the table with pass/fail
#                          against each target in every run; bench/results/cold.json and cold.png
#   A full run measures the warm table, then the cold shape.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

quick=0; jvm=1; cold_only=0; runs=5
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --no-jvm) jvm=0 ;;
    --cold) cold_only=1 ;;
    --runs) shift; runs="${1:?--runs needs a number}" ;;
    *) sed -n '2,15p' "$0"; exit 2 ;;
  esac
  shift
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
cold() {
  "$py" bench/cold.py --runs "$runs" --systems beam,ray --out bench/results/cold.json
  .bench/ray-venv/bin/python bench/chart.py bench/results/cold.json bench/results/cold.png
}
if [ "$cold_only" = 1 ]; then cold; exit 0; fi
"$py" bench/bench.py --systems beam,ray --out bench/results/latest.json
.bench/ray-venv/bin/python bench/chart.py bench/results/latest.json bench/results/chart.png
cold
if [ "$jvm" = 1 ]; then
  "$py" bench/jvm_options.py --out bench/results/jvm_options.json
fi
