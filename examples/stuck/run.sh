#!/usr/bin/env bash
# Two loopback nodes stuck the ways docs/DIAGNOSE.md walks through, and what each command
# says about them. The joined node (127.0.0.2) has a /dev/shm of 64 MiB-like size (a
# folder on a small tmpfs is not needed: BEAM_SHM_PATH points at /dev/pts, which is tiny),
# an NCCL_SOCKET_IFNAME other than the head's, a VLLM_HOST_IP that is not its IP, and an
# nvidia-smi that hangs; the head's nvidia-smi answers. Nothing here touches real devices.
# Usage: examples/stuck/run.sh [--keep]   (--keep leaves the cluster up; ray stop --temp-dir DIR ends it)
# LONG_CALL_S (default 20) is the head's --long-call-seconds; the commands run 5 s after it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
base=$(mktemp -d /tmp/beam-stuck.XXXXXX)
mkdir -p "$base/head-bin" "$base/member-bin"
cat > "$base/head-bin/nvidia-smi" <<'TOOL'
#!/bin/sh
case "$*" in
  *query-gpu*) echo "0, GPU-11111111-0000, NVIDIA H200, 0, 512, 143771"
               echo "1, GPU-11111111-0001, NVIDIA H200, 0, 0, 143771" ;;
  *) echo "GPU 0: NVIDIA H200 (UUID: GPU-11111111-0000)"; echo "GPU 1: NVIDIA H200 (UUID: GPU-11111111-0001)" ;;
esac
TOOL
cat > "$base/member-bin/nvidia-smi" <<'TOOL'
#!/bin/sh
case "$*" in
  *query-gpu*) exec sleep 600 ;;   # a wedged GPU: the tool never answers
  *) echo "GPU 0: NVIDIA H200 (UUID: GPU-22222222-0000)"; echo "GPU 1: NVIDIA H200 (UUID: GPU-22222222-0001)" ;;
esac
TOOL
chmod +x "$base/head-bin/nvidia-smi" "$base/member-bin/nvidia-smi"
show() { echo; echo "\$ $*"; "$@" || true; }

PATH="$base/head-bin:$PATH" ray start --head --port 0 --temp-dir "$base/head" --num-gpus 2 \
    --node-ip-address 127.0.0.1 --long-call-seconds "${LONG_CALL_S:-20}" --dashboard-port 0 --metrics-export-port 0 > /dev/null
address=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['address'])" "$base/head/session_latest/node.json")
RAY_AUTH_TOKEN=$(cat "$base/head/session_latest/auth_token") PATH="$base/member-bin:$PATH" \
    BEAM_SHM_PATH=/dev/pts NCCL_SOCKET_IFNAME=eth1 VLLM_HOST_IP=10.9.9.9 \
    ray start --address "$address" --temp-dir "$base/member" --num-gpus 2 --node-ip-address 127.0.0.2 > /dev/null
RAY_TMPDIR="$base/head" python3 "$here/driver.py" 127.0.0.1 127.0.0.2 > "$base/driver.out" 2> "$base/driver.err" &
driver=$!
until grep -q STUCK "$base/driver.out" 2>/dev/null; do
    kill -0 "$driver" 2>/dev/null || { cat "$base/driver.err"; ray stop --temp-dir "$base/member"; ray stop --temp-dir "$base/head"; exit 1; }
    sleep 0.2
done
sleep $(( ${LONG_CALL_S:-20} + 5 ))   # past --long-call-seconds, and past the hung tool's 5 s
show ray status --temp-dir "$base/head"
show ray list tasks --temp-dir "$base/head" --filter state=RUNNING
show ray stack --temp-dir "$base/member" --node-ip 127.0.0.2
show ray logs actor --temp-dir "$base/head" --tail 3 --id "$(awk '/^STUCK/ {print $2}' "$base/driver.out")"
show ray doctor --temp-dir "$base/member"
echo; echo "driver's log:"; grep -v '^$' "$base/driver.err" | head -5
if [ "${1:-}" = "--keep" ]; then echo "left running: $base (ray stop --temp-dir $base/member; ray stop --temp-dir $base/head)"; exit 0; fi
kill "$driver" 2>/dev/null || true
ray stop --temp-dir "$base/member" > /dev/null || true
ray stop --temp-dir "$base/head" > /dev/null || true
rm -rf "$base"
