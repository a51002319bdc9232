# Shared by build_wheel.sh and build_bundle.sh (sourced, not run).
#
# Everything is built under build/packaging/ and dist/ (both gitignored). Inputs:
#   BEAM_JLINK_JDK  the JDK whose jlink makes the runtime (default: Temurin 25, else the
#                   newest JDK >= 21 under /usr/lib/jvm); the runtime is that JDK's version
#   BEAM_PYTHON     the Python that makes the build venv (default python3, >= 3.10)
#   BEAM_JLINK_CDS  1: add a CDS archive to the runtime (+28 MB, ~50 ms less per JVM start)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build/packaging"
DIST="$ROOT/dist"
# The modules the daemon needs. `jdeps --list-deps` on the jar also names java.desktop,
# java.sql and java.xml: Jackson's optional adapters (java.beans annotations, java.sql and
# javax.xml date types), which jackson-databind's module-info declares `requires static`;
# beam uses none of them. jdk.unsupported: sun.misc.Signal, so that SIGTERM ends `ray start
# --block` with status 0 (cli/StartCommand). jdk.httpserver: the HTTP face (beam.http).
# check_modules() fails the build when jdeps finds anything else.
RUNTIME_MODULES="java.base,java.logging,java.management,jdk.httpserver,jdk.unsupported"
OPTIONAL_MODULES="java.desktop java.sql java.xml"
JLINK_OPTS=(--strip-debug --no-man-pages --no-header-files --compress=zip-6)

log() { echo "packaging: $*" >&2; }
die() { echo "packaging: error: $*" >&2; exit 1; }

# beam's one JDK finder (python/ray/_beam/launch/findjava.py), asked for one with jlink:
# $BEAM_JLINK_JDK, Temurin 25 (the runtime the AOT cache is made for), $JAVA_HOME, /usr/lib/jvm/*
find_jdk() {
  python3 "$ROOT/python/ray/_beam/launch/findjava.py" --jdk --tool jlink \
    ${BEAM_JLINK_JDK:+--prefer "$BEAM_JLINK_JDK"} --prefer /usr/lib/jvm/temurin-25-jdk-amd64 \
    || die "no JDK >= 21 with jlink found (set BEAM_JLINK_JDK)"
}

find_python() {
  local p
  for p in "${BEAM_PYTHON:-}" python3 python3.12 python3.11 python3.10; do
    [ -n "$p" ] && command -v "$p" >/dev/null || continue
    if "$p" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
      command -v "$p"; return
    fi
  done
  die "no Python >= 3.10 found"
}

JDK="$(find_jdk)"
# One build at a time per checkout (tests and people may run the scripts concurrently).
mkdir -p "$BUILD"
exec 9>"$BUILD/.lock"
command -v flock >/dev/null && flock 9

# The daemon jar, rebuilt with Maven when a source is newer; copied so that a concurrent
# `mvn package` cannot change it under us.
ensure_jar() {
  local jar="$ROOT/java/target/beam.jar"
  if [ ! -f "$jar" ] || [ -n "$(find "$ROOT/java/src/main" "$ROOT/java/pom.xml" -newer "$jar" -print -quit)" ]; then
    command -v mvn >/dev/null || die "java/target/beam.jar is missing or stale and Maven is not installed"
    log "building the daemon jar (mvn package)"
    (cd "$ROOT/java" && JAVA_HOME="$JDK" mvn -q -B -DskipTests package) >&2
  fi
  mkdir -p "$BUILD"
  cp "$jar" "$BUILD/beam.jar.tmp" && mv "$BUILD/beam.jar.tmp" "$BUILD/beam.jar"
  JAR="$BUILD/beam.jar"
}

check_modules() {
  local m wanted=" ${RUNTIME_MODULES//,/ } $OPTIONAL_MODULES "
  for m in $("$JDK/bin/jdeps" --list-deps --ignore-missing-deps "$JAR"); do
    case "$wanted" in
      *" $m "*) ;;
      *) die "the jar now needs module $m (jdeps --list-deps); add it to RUNTIME_MODULES in packaging/common.sh" ;;
    esac
  done
}

# The jlink image at $BUILD/runtime; rebuilt only when the JDK, modules or options change.
ensure_runtime() {
  local opts=("${JLINK_OPTS[@]}") key
  [ "${BEAM_JLINK_CDS:-0}" = 1 ] && opts+=(--generate-cds-archive)
  check_modules
  key="$(sed -n 's/^JAVA_RUNTIME_VERSION=//p' "$JDK/release") $JDK $RUNTIME_MODULES ${opts[*]}"
  RUNTIME="$BUILD/runtime"
  if [ -x "$RUNTIME/bin/java" ] && [ "$(cat "$BUILD/runtime.key" 2>/dev/null)" = "$key" ]; then
    return
  fi
  log "jlink: $RUNTIME_MODULES from $JDK"
  rm -rf "$RUNTIME" "$BUILD/runtime.key"
  "$JDK/bin/jlink" --add-modules "$RUNTIME_MODULES" "${opts[@]}" --output "$RUNTIME" \
    2> >(grep -v '\[warning\]\[cds\]' >&2)
  "$RUNTIME/bin/java" -XX:+UseSerialGC -Xshare:auto -cp "$JAR" beam.cli.Main --help >/dev/null \
    || die "the jlink runtime cannot run the daemon CLI"
  echo "$key" > "$BUILD/runtime.key"
}

# A venv with setuptools and wheel, made once.
ensure_build_venv() {
  BVENV="$BUILD/venv"
  # cloudpickle: the AOT cache's training driver (tools/train_aot.py) imports the ray package
  if ! "$BVENV/bin/python" -c 'import setuptools, wheel, cloudpickle' 2>/dev/null; then
    log "creating the build venv"
    rm -rf "$BVENV"
    "$(find_python)" -m venv "$BVENV"
    "$BVENV/bin/pip" install -q --disable-pip-version-check "setuptools>=69" "wheel>=0.43" cloudpickle
  fi
}

# The AOT cache for jar $2 made with java $1 (tools/train_aot.py: beside the jar, with the
# .aot.info that binds it to that java and jar). It must be made with the very runtime that ships.
train_aot_cache() {
  log "AOT cache: training run with $1"
  "$BVENV/bin/python" "$ROOT/tools/train_aot.py" --java "$1" --jar "$2" >&2
}

# Copy python/ (pyproject.toml, the ray package without caches, the dev copy of the jar or
# any runtime, and bin/ray, the `ray` command's script) to a fresh folder $1.
stage_python() {
  local dest="$1"
  rm -rf "$dest"
  mkdir -p "$dest"
  cp "$ROOT/python/pyproject.toml" "$dest/"
  (cd "$ROOT/python" && tar -cf - --exclude=__pycache__ --exclude='*.pyc' --exclude='*.egg-info' \
     --exclude=ray/_beam/lib --exclude=ray/_beam/runtime ray bin) | (cd "$dest" && tar -xf -)
}

# Build a wheel from the staged folder $1 into folder $2; prints its path.
build_wheel_from() {
  local src="$1" out="$2"
  rm -rf "$out" "$src/build"
  mkdir -p "$out"
  "$BVENV/bin/python" -m pip wheel -q --no-deps --no-build-isolation --disable-pip-version-check \
    -w "$out" "$src" >&2
  ls "$out"/ray-*.whl
}
