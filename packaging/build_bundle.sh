#!/usr/bin/env bash
# Build the one-mount bundle dist/beam-bundle/:
#   bin/ray      bash script: the bundled Java runtime runs the daemon CLI (no Python needed)
#   lib/beam.jar the daemon
#   lib/ray-command  the wheel's `ray` script (python/bin/ray), whose functions bin/ray uses
#   python/      the `ray` package and its ray-<version>.dist-info (for importlib.metadata)
#   runtime/     the jlink Java runtime
# Use it on any glibc x86_64 Linux, e.g. mounted into a container at /opt/beam:
#   PATH=/opt/beam/bin:$PATH PYTHONPATH=/opt/beam/python ray start --head
# The container's Python needs cloudpickle. See docs/PACKAGING.md. Prints the folder's path.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ensure_jar
ensure_runtime
ensure_build_venv

STAGE="$BUILD/bundle-src"
stage_python "$STAGE"
log "building the bundle's python/"
PURE="$(build_wheel_from "$STAGE" "$BUILD/bundle-wheel")"

OUT="$DIST/beam-bundle"
rm -rf "$OUT"
mkdir -p "$OUT/bin" "$OUT/lib"
# pip --target lays out the package and its dist-info exactly as an install would.
"$BVENV/bin/python" -m pip install -q --no-deps --no-compile --disable-pip-version-check \
  --target "$OUT/python" "$PURE"
rm -rf "$OUT/python/bin"                      # pip's console script; bin/ray replaces it
META="$(echo "$OUT"/python/ray-*.dist-info)"
rm -f "$META/direct_url.json" "$META/REQUESTED"   # a build-machine path; not a user request
grep -vE '^(\.\./|ray-[^/]*\.dist-info/(direct_url\.json|REQUESTED),)' "$META/RECORD" > "$META/RECORD.new"
mv "$META/RECORD.new" "$META/RECORD"
cp "$JAR" "$OUT/lib/beam.jar"
cp -R "$RUNTIME" "$OUT/runtime"
chmod -R u+w "$OUT/runtime"
train_aot_cache "$OUT/runtime/bin/java" "$OUT/lib/beam.jar"
# ray.init() without a running cluster starts one through ray/_beam/launch/launcher.py, which looks
# for ray/_beam/lib/beam.jar (here a link to lib/) and for <root>/runtime.
mkdir -p "$OUT/python/ray/_beam/lib"
for f in beam.jar beam.aot beam.aot.info; do ln -s "../../../../lib/$f" "$OUT/python/ray/_beam/lib/$f"; done
# bin/ray uses the launcher's JVM flags, so both ways of starting the daemon agree.
FLAGS="$("$BVENV/bin/python" -c 'import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
for node in tree.body:
    if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "JVM_FLAGS":
        print(" ".join(ast.literal_eval(node.value)))' "$ROOT/python/ray/_beam/launch/jvmflags.py")"
[ -n "$FLAGS" ] || die "could not read JVM_FLAGS from ray/_beam/launch/jvmflags.py"
sed "s|-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto|$FLAGS|" "$ROOT/packaging/bundle-ray.sh" > "$OUT/bin/ray"
chmod 755 "$OUT/bin/ray"
cp "$ROOT/python/bin/ray" "$OUT/lib/ray-command"  # sourced by bin/ray for `ray start`'s spawn and relay
cat > "$OUT/README.txt" <<EOF
beam $(cat "$ROOT/python/ray/_version/BEAM") one-mount bundle (Ray API $(cat "$ROOT/python/ray/_version/RAY")), Java $(sed -n 's/^JAVA_VERSION="\(.*\)"/\1/p' "$RUNTIME/release") runtime ($RUNTIME_MODULES).
Mount this folder anywhere (here /opt/beam) on a glibc x86_64 Linux whose Python (>= 3.10) has cloudpickle:
  export PATH=/opt/beam/bin:\$PATH PYTHONPATH=/opt/beam/python
  ray start --head [--num-gpus N]
  python -c 'import ray; ray.init(); print(ray.cluster_resources())'
  ray stop
EOF
log "$OUT: $(du -sk "$OUT" | cut -f1) KiB"
echo "$OUT"
