"""Only your own files are trusted, and a bad temp dir is refused before anything starts.

A second real local user (useradd here, userdel after) plants a temp dir with a session,
node.json and a listening socket of theirs, where root's clients would look; root's
`ray.init()`, `ray status` and `ray start` must refuse it, naming the path, its owner and
mode and the fix, and never connect to it. Scenarios run in PID namespaces of their own (as
tests/e2e/test_discovery.py) so no other daemon of this user on the machine is found."""

import os
import pwd
import subprocess

import pytest

from test_discovery import in_namespace, section

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (useradd, unshare, mount)")

# The other user's fake daemon: a node.json and a socket where root's clients look by
# default; it notes every connection it is offered. System Python: the venv is under /root.
FAKE = r'''
import json, os, socket, sys
base = sys.argv[1]
temp = os.path.join(base, "ray")
session = os.path.join(temp, "session_2026-01-01_00-00-00_000000_1")
os.makedirs(os.path.join(session, "sockets"))
sock = os.path.join(session, "sockets", "beamd.sock")
with open(os.path.join(session, "node.json"), "w") as f:
    json.dump({"pid": os.getpid(), "socket": sock, "address": "10.9.9.9:6379", "node_id": "f" * 56,
               "node_ip": "10.9.9.9", "session_dir": session}, f)
os.symlink(session, os.path.join(temp, "session_latest"))
s = socket.socket(socket.AF_UNIX)
s.bind(sock)
s.listen(16)
print("READY", flush=True)
while True:
    c, _ = s.accept()
    with open(os.path.join(base, "connections"), "a") as f:
        f.write("CONNECTED\n")
    c.close()
'''


@pytest.fixture
def other_user():
    name = f"beamt{os.getpid() % 100000}"
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
    try:
        yield pwd.getpwnam(name)
    finally:
        subprocess.run(["userdel", name], check=False)


PLANTED = r'''
set -u
echo "== default"; TMPDIR="$BASE" drive '"auto"'
echo "== named"; RAY_TMPDIR="$BASE/ray" drive '"auto"'
echo "== status"; ray status --temp-dir "$BASE/ray"; echo "rc=$?"
echo "== start"; ray start --head --port 0 --temp-dir "$BASE/ray"; echo "rc=$?"
echo "== start block"; ray start --head --port 0 --block --temp-dir "$BASE/ray"; echo "rc=$?"
echo "== own"; TMPDIR="$BASE" ray start --head --port 0 --num-cpus 2 --num-gpus 0 >/dev/null; echo "rc=$?"
stat -c '%a %n' "$BASE/ray-$EUID" "$BASE/ray-$EUID/session_latest/" "$BASE/ray-$EUID/session_latest/sockets" \
  "$BASE/ray-$EUID/session_latest/logs" "$BASE/ray-$EUID/session_latest/node.json"
echo "== own driver"; TMPDIR="$BASE" drive '"auto"'
chmod 0777 "$BASE/ray-$EUID"
echo "== writable"; TMPDIR="$BASE" drive '"auto"'
echo "== writable status"; TMPDIR="$BASE" ray status; echo "rc=$?"
chmod 0700 "$BASE/ray-$EUID"
ln -sfn "$(readlink -f "$BASE/ray/session_latest")" "$BASE/ray-$EUID/session_latest"
echo "== swapped"; TMPDIR="$BASE" drive '"auto"'
ray stop >/dev/null
'''


def test_another_users_temp_dir_is_refused_and_never_connected_to(clusters, other_user):
    base = clusters.new_dir()
    os.chmod(base, 0o1777)  # like /tmp: anyone may make a folder in it
    as_other = ["setpriv", f"--reuid={other_user.pw_uid}", f"--regid={other_user.pw_gid}", "--clear-groups"]
    fake = subprocess.Popen([*as_other, "/usr/bin/python3", "-c", FAKE, base],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert fake.stdout.readline().strip() == "READY", fake.stderr.read()
        stdout, out = in_namespace(PLANTED, base)
    finally:
        fake.kill()
        fake.wait()
    who = f"it belongs to user {other_user.pw_name} (uid {other_user.pw_uid}, mode 0755)"
    # the default: a folder of one's own beside the other user's, where nothing runs yet
    assert section(stdout, "default").split("\n")[1].startswith("ERROR ConnectionError Could not find"), out
    # named: refused, with the path, the owner, the mode and the fix
    named = section(stdout, "named")
    assert f"ERROR PermissionError beam: refusing the temp dir {base}/ray: {who}" in named, out
    assert "RAY_TMPDIR=DIR" in named and "--temp-dir DIR" in named, out
    assert "rc=1" in section(stdout, "status"), out
    assert f"beam: refusing the temp dir {base}/ray: {who}" in out, out
    for name in ("start", "start block"):
        assert "rc=2" in section(stdout, name), out
    # a folder of one's own: made 0700, as every folder beam makes; node.json 0600
    own = section(stdout, "own")
    assert "rc=0" in own, out
    modes = dict(reversed(line.split(" ", 1)) for line in own.strip().split("\n")[2:])
    assert set(modes.values()) == {"700", "600"}, own
    assert section(stdout, "own driver").split("\n")[1].startswith("REACHED"), out
    writable = section(stdout, "writable")
    assert f"ERROR PermissionError beam: refusing the temp dir {base}/ray-0: its mode 0777" in writable, out
    assert "chmod go-w" in writable and "rc=1" in section(stdout, "writable status"), out
    swapped = section(stdout, "swapped")
    assert "ERROR PermissionError beam: refusing the session dir" in swapped and other_user.pw_name in swapped, out
    # and through all of it the other user's socket was never connected to
    assert not os.path.exists(os.path.join(base, "connections")), out


BAD = r'''
set -u
touch "$BASE/file"
mkdir "$BASE/ro" && mount --bind "$BASE/ro" "$BASE/ro" && mount -o remount,bind,ro "$BASE/ro" || exit 9
for dir in "$BASE/file" "$BASE/file/sub" "$BASE/ro"; do
  echo "== detached $dir"; ray start --head --port 0 --temp-dir "$dir"; echo "rc=$?"
  echo "== block $dir"; ray start --head --port 0 --block --temp-dir "$dir"; echo "rc=$?"
  echo "== env $dir"; RAY_TMPDIR="$dir" ray start --head --port 0; echo "rc=$?"
done
pgrep -x java >/dev/null && echo "== a daemon started"
echo "== status"; ray status --temp-dir "$BASE/nothing"; echo "rc=$?"
echo "== missing"; ray start --head --port 0 --num-gpus 0 --temp-dir "$BASE/new/deeper" >/dev/null; echo "rc=$?"
stat -c '%a' "$BASE/new/deeper"
ray stop >/dev/null
'''


def test_bad_temp_dirs_are_refused_before_anything_starts(clusters):
    base = clusters.new_dir()
    stdout, out = in_namespace(BAD, base)
    assert "== a daemon started" not in stdout, out
    want = {f"{base}/file": f"the temp dir {base}/file is a file, not a folder",
            f"{base}/file/sub": f"the temp dir {base}/file/sub cannot be made: {base}/file is a file",
            f"{base}/ro": f"the temp dir {base}/ro is not writable by you"}
    for d, said in want.items():
        for how in ("detached", "block", "env"):
            assert "rc=2" in section(stdout, f"{how} {d}"), (how, d, out)
        assert out.count(said) == 3, (said, out)
    assert "rc=1" in section(stdout, "status") and f"the temp dir {base}/nothing does not exist" in out, out
    missing = section(stdout, "missing")
    assert "rc=0" in missing and missing.strip().endswith("700"), out
