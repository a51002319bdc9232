#!/usr/bin/env bash
# Build the platform wheel dist/ray-<version>-py3-none-manylinux_2_17_<arch>.manylinux2014_<arch>.whl:
# the `ray` package, the daemon jar (ray/_beam/lib/beam.jar) and a jlink Java runtime
# (ray/_beam/runtime/), so `pip install` it and `ray start --head` needs no Java on the machine.
# See docs/PACKAGING.md. Prints the wheel's path on stdout.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ensure_jar
ensure_runtime
ensure_build_venv

# The tag: the newest glibc symbol version the runtime's binaries need (2.17 for Temurin's
# Linux builds, i.e. manylinux2014) and the runtime's architecture.
# (jlink's release file keeps only the version and modules: read the JDK's.)
grep -q '^LIBC="gnu"' "$JDK/release" || die "$JDK is not a glibc build; no manylinux tag fits its runtime"
ARCH="$(sed -n 's/^OS_ARCH="\(.*\)"/\1/p' "$JDK/release")"
case "$ARCH" in amd64) ARCH=x86_64 ;; arm64) ARCH=aarch64 ;; esac
GLIBC_MINOR=17
if command -v objdump >/dev/null; then
  need=$(find "$RUNTIME" -type f \( -name '*.so' -o -path '*/bin/*' -o -name jspawnhelper -o -name jexec \) \
         -exec objdump -T {} + 2>/dev/null | grep -oE 'GLIBC_2\.[0-9]+' | sed 's/GLIBC_2\.//' | sort -n | tail -1)
  [ -n "$need" ] && [ "$need" -gt "$GLIBC_MINOR" ] && GLIBC_MINOR="$need"
fi
TAGS=("py3-none-manylinux_2_${GLIBC_MINOR}_${ARCH}")
[ "$GLIBC_MINOR" = 17 ] && TAGS+=("py3-none-manylinux2014_${ARCH}")  # the same tag, for pip < 20.3

STAGE="$BUILD/wheel-src"
stage_python "$STAGE"
mkdir -p "$STAGE/ray/_beam/lib"
cp "$JAR" "$STAGE/ray/_beam/lib/beam.jar"
cp -RL "$RUNTIME" "$STAGE/ray/_beam/runtime"   # -L: jlink's legal/ has symlinks; wheels hold files
chmod -R u+w "$STAGE/ray/_beam/runtime"
train_aot_cache "$STAGE/ray/_beam/runtime/bin/java" "$STAGE/ray/_beam/lib/beam.jar"
log "building the wheel"
PURE="$(build_wheel_from "$STAGE" "$BUILD/wheel-pure")"

# Retag: platform-specific (it holds native code), installed into platlib.
UNPACK="$BUILD/wheel-unpack"
rm -rf "$UNPACK"
"$BVENV/bin/python" -m wheel unpack -d "$UNPACK" "$PURE" >/dev/null
DIR="$(echo "$UNPACK"/ray-*)"
WHEEL_FILE="$(echo "$DIR"/ray-*.dist-info/WHEEL)"
"$BVENV/bin/python" - "$WHEEL_FILE" "${TAGS[@]}" <<'EOF'
import sys
path, tags = sys.argv[1], sys.argv[2:]
keep = [l for l in open(path).read().splitlines()
        if l.strip() and not l.startswith(("Tag:", "Root-Is-Purelib:"))]
keep += ["Root-Is-Purelib: false"] + [f"Tag: {t}" for t in tags]
open(path, "w").write("\n".join(keep) + "\n")
EOF
# pip sets the executable bit of files whose mode in the wheel has one; make sure they do.
find "$DIR/ray/_beam/runtime/bin" -type f -exec chmod 755 {} +
find "$DIR/ray/_beam/runtime/lib" -type f \( -name '*.so' -o -name jspawnhelper -o -name jexec \) -exec chmod 755 {} +

mkdir -p "$DIST"
rm -f "$DIST"/ray-*.whl
"$BVENV/bin/python" -m wheel pack -d "$DIST" "$DIR" >/dev/null
OUT="$(ls "$DIST"/ray-*.whl)"
rm -rf "$STAGE" "$UNPACK" "$BUILD/wheel-pure"   # keep only the cached runtime and build venv
log "$(basename "$OUT"): $(du -k "$OUT" | cut -f1) KiB; runtime $(du -sk "$RUNTIME" | cut -f1) KiB ($RUNTIME_MODULES, Java $(sed -n 's/^JAVA_VERSION=//p' "$RUNTIME/release"))"
echo "$OUT"
