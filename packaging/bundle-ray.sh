#!/bin/bash
# beam's `ray` command in the one-mount bundle (packaging/build_bundle.sh): runs the daemon CLI
# on the bundle's own Java runtime; needs no Python and no installed Java.
# A Java >= 21 named by BEAM_JAVA or JAVA_HOME wins over the bundled runtime, as in
# ray/_beam/launch/launcher.py. `ray start` spawns the daemon itself, as the wheel's `ray` does: this
# script sets the java command line and runs the wheel's script's run_java (lib/ray-command,
# a copy of python/bin/ray), so one JVM starts, not two.
self=$(readlink -f "$0" 2>/dev/null || echo "$0")
root=$(cd "$(dirname "$self")/.." && pwd)

major() { # major Java version of the java binary $1 (0 if unknown)
  local home v
  home=$(dirname "$(dirname "$(readlink -f "$1" 2>/dev/null || echo "$1")")")
  if [ -f "$home/release" ]; then
    v=$(sed -n 's/^JAVA_VERSION="\{0,1\}\([0-9]*\).*/\1/p' "$home/release")
  else
    v=$("$1" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
  fi
  echo "${v:-0}"
}

java=""
for c in "${BEAM_JAVA:-}" "${JAVA_HOME:+$JAVA_HOME/bin/java}"; do
  if [ -n "$c" ] && [ -x "$c" ] && [ "$(major "$c")" -ge 21 ]; then java=$c; break; fi
done
[ -n "$java" ] || java="$root/runtime/bin/java"
[ -x "$java" ] || { echo "ray: no Java runtime at $java (the bundle is incomplete)" >&2; exit 1; }
jar=${BEAM_JAR:-$root/lib/beam.jar}
read -r -a flags <<< "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto"  # no globbing of '*'
# The AOT cache was made for exactly the bundle's runtime and jar (ray/_beam/launch/aotcache.py)
if [ "$java" = "$root/runtime/bin/java" ] && [ "$jar" = "$root/lib/beam.jar" ] && [ -f "$root/lib/beam.aot" ]; then
  flags=("${flags[@]/-Xshare:auto/-XX:AOTCache=$root/lib/beam.aot}")
fi
beam_command=("$java" "${flags[@]}" -cp "$jar" beam.cli.Main)
. "$root/lib/ray-command" || exit 1
# as PID 1 (a container's command), stay PID 1 and run this script as the child (python/bin/ray)
(( $$ == 1 )) && [[ ${1-} == start ]] && self=$(readlink -f "$0") supervise_as_init "$@"
run_java "$@"
