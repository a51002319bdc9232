"""Secrets stay in the daemon: the cluster token, the path of its file and the TLS
variables that a daemon was started with never reach an actor's environment, its .out/.err
logs, or `ray status` / `ray list` / `ray doctor`, on the head and on a joined node."""
import glob
import json
import os
import time

from conftest import ray_cli, run_driver
from test_security_load import dirs, token_of  # noqa: F401 - dirs: the fixture (three temp dirs)


def test_token_and_credentials_never_reach_actors_logs_or_views(dirs, tmp_path):
    token_file = tmp_path / "token"
    secrets = dict(RAY_AUTH_TOKEN_PATH=str(token_file))
    # the head takes RAY_AUTH_TOKEN as the cluster's token (one Secret for every pod); neither it
    # nor the token path in its environment may reach an actor, a log or a view
    head = ray_cli(["start", "--head", "--port", "0", "--temp-dir", dirs[0], "--node-ip-address", "127.0.0.1"],
                   RAY_AUTH_TOKEN="head-env-credential", **secrets)
    assert head.returncode == 0, head.stderr
    with open(os.path.join(dirs[0], "session_latest", "node.json")) as f:
        address = json.load(f)["address"]
    token = token_of(dirs[0])
    token_file.write_text(token)
    os.chmod(token_file, 0o600)
    joined = ray_cli(["start", "--address", address, "--temp-dir", dirs[1], "--num-gpus", "1",
                      "--node-ip-address", "127.0.0.2"], RAY_AUTH_TOKEN=token, **secrets)
    assert joined.returncode == 0, joined.stderr
    out = run_driver(dirs[0], """
        import os, sys, ray
        ray.init()
        @ray.remote
        class Snoop:
            def env(self):
                print("ENV", dict(os.environ), flush=True)
                print("ENV", dict(os.environ), file=sys.stderr, flush=True)
                return dict(os.environ)
        for ip in ("127.0.0.1", "127.0.0.2"):
            env = ray.get(Snoop.options(resources={f"node:{ip}": 0.01}).remote().env.remote())
            print(ip, sorted(k for k in env if k.startswith(("RAY_AUTH", "RAY_TLS"))))
            print(ip, "token in values:", any(s in v for v in env.values() for s in os.environ["SECRETS"].split()))
    """, SECRETS=f"{token} head-env-credential {token_file}")
    assert out.returncode == 0, out.stderr
    for ip in ("127.0.0.1", "127.0.0.2"):
        assert f"{ip} []" in out.stdout, out.stdout
        assert f"{ip} token in values: False" in out.stdout, out.stdout
    logs = glob.glob(os.path.join(dirs[0], "session_latest", "logs", "*")) + glob.glob(
        os.path.join(dirs[1], "session_latest", "logs", "*"))
    actor_logs = [p for p in logs if os.path.basename(p).startswith("actor-Snoop")]
    assert len(actor_logs) == 4, logs  # .out and .err on each node
    for path in actor_logs:
        deadline = time.monotonic() + 30  # the log pump writes a moment after the actor prints
        while True:
            with open(path, errors="replace") as f:
                text = f.read()
            if "ENV" in text or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert "ENV" in text, path
        for secret in (token, "head-env-credential", str(token_file)):
            assert secret not in text, (path, secret)
    for base in dirs[:2]:  # the head and the joined node
        for args in (["status"], ["status", "--json"], ["list", "actors"], ["list", "nodes"], ["doctor"]):
            done = ray_cli(args, temp_dir=base, timeout=60)
            text = done.stdout + done.stderr
            assert done.returncode == 0 or args == ["doctor"], (args, text)
            for secret in (token, "head-env-credential", str(token_file)):
                assert secret not in text, (base, args, secret)
