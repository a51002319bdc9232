"""Ray 2.59+'s token flow on beam, with real daemons and a HOME of the test's own (the machine's
~/.ray is never touched): `ray get-auth-token [--generate]` as Ray prints it, ~/.ray/auth_token
read by `ray start` on the head and on joining nodes, RAY_AUTH_TOKEN and --auth-token-path still
first, and a refused join naming the token source it used."""
import json
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from conftest import RAY_BIN, beam_env
from multihost import free_port


@pytest.fixture
def home():
    made = tempfile.mkdtemp(prefix="beam-home-")
    yield made
    shutil.rmtree(made, ignore_errors=True)


def ray(args, home, **extra):
    env = beam_env(HOME=home, **extra)
    for k in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_MODE"):
        if k not in extra:
            env.pop(k, None)
    return subprocess.run([RAY_BIN, *args], env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def nodes():
    """`ray start` helpers on loopback IPs; every daemon started is stopped after the test."""
    dirs = []

    def start(home, head_address=None, ip="127.0.0.1", **extra):
        temp = tempfile.mkdtemp(prefix="beam-au-", dir="/tmp")
        dirs.append(temp)
        args = ["start", "--temp-dir", temp, "--node-ip-address", ip, "--num-cpus", "1",
                "--dashboard-agent-listen-port", "0", "--metrics-export-port", "0"]
        args += ["--address", head_address] if head_address else ["--head", "--port", str(free_port()), "--dashboard-port", "0"]
        done = ray(args, home, **extra)
        address = None
        if done.returncode == 0 and not head_address:
            with open(os.path.join(temp, "session_latest", "node.json")) as f:
                address = json.load(f)["address"]
        return done, temp, address

    yield start
    for temp in dirs:
        subprocess.run([RAY_BIN, "stop", "--temp-dir", temp], env=beam_env(), capture_output=True, timeout=120)
        shutil.rmtree(temp, ignore_errors=True)


def test_get_auth_token_prints_generates_and_refuses_as_ray(home):
    none = ray(["get-auth-token"], home)
    assert none.returncode == 1 and none.stdout == ""
    assert none.stderr.strip() == "Error: No authentication token found. Use ray `get-auth-token --generate` to create one."
    made = ray(["get-auth-token", "--generate"], home)
    assert made.returncode == 0 and made.stderr == "Generating new authentication token...\n\n"
    assert re.fullmatch(r"[0-9a-f]{64}", made.stdout), made.stdout  # no newline on stdout: it pipes as the token
    token_file = os.path.join(home, ".ray", "auth_token")
    assert oct(os.stat(token_file).st_mode & 0o777) == "0o600"
    again = ray(["get-auth-token", "--generate"], home)
    assert again.stdout == made.stdout and "Generating" not in again.stderr
    assert ray(["get-auth-token"], home, RAY_AUTH_TOKEN="from-env").stdout == "from-env"


def test_nodes_share_the_home_token_file_and_a_wrong_one_is_named(home, nodes):
    token = ray(["get-auth-token", "--generate"], home).stdout
    done, head_temp, address = nodes(home)
    assert done.returncode == 0, done.stderr
    with open(os.path.join(head_temp, "session_latest", "auth_token")) as f:
        assert f.read().strip() == token  # the head took ~/.ray/auth_token, not a token of its own
    joined, _, _ = nodes(home, address, ip="127.0.0.2")
    assert joined.returncode == 0, joined.stderr

    other_home = tempfile.mkdtemp(prefix="beam-home-")
    try:
        assert ray(["get-auth-token", "--generate"], other_home).returncode == 0
        refused, _, _ = nodes(other_home, address, ip="127.0.0.3")
        assert refused.returncode != 0
        assert "authentication failed: wrong cluster token" in refused.stderr, refused.stderr
        assert f"this node's token came from ~/.ray/auth_token ({other_home}/.ray/auth_token)" in refused.stderr
        # the variable still wins over the home file
        first, _, _ = nodes(other_home, address, ip="127.0.0.4", RAY_AUTH_TOKEN=token)
        assert first.returncode == 0, first.stderr
    finally:
        shutil.rmtree(other_home, ignore_errors=True)


def test_auth_mode_is_checked_and_disabled_means_no_token(home, nodes):
    bad, _, _ = nodes(home, RAY_AUTH_MODE="off")
    assert bad.returncode != 0 and "RAY_AUTH_MODE must be 'token' or 'disabled', got 'off'" in bad.stderr
    done, head_temp, address = nodes(home, RAY_AUTH_MODE="disabled")
    assert done.returncode == 0, done.stderr
    assert not os.path.exists(os.path.join(head_temp, "session_latest", "auth_token"))
    joined, _, _ = nodes(home, address, ip="127.0.0.2", RAY_AUTH_MODE="disabled")
    assert joined.returncode == 0, joined.stderr
