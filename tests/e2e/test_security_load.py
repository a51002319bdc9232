"""Secure by default and unbreakable: TLS on node links, frame limits, a socket fuzzer while
a driver works, and a load test across two nodes (a joined node on 127.0.0.2).

The full fuzz run (100,000 frames, then the hostile-peer attacks at full size) is
`python tools/fuzz_daemon.py --temp-dir DIR`; here it runs 20,000 frames and the short
attacks so CI stays quick.
"""
import os
import shutil
import subprocess
import tempfile

import pytest

from conftest import ROOT, VENV_PYTHON, beam_env, ray_cli, run_driver, wait_gone


def start_head(base, *extra):
    done = ray_cli(["start", "--head", "--port", "0", "--temp-dir", base, "--num-gpus", "2",
                    "--node-ip-address", "127.0.0.1", *extra], timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    import json
    with open(os.path.join(base, "session_latest", "node.json")) as f:
        return json.load(f)["address"]


def token_of(base):
    with open(os.path.join(base, "session_latest", "auth_token")) as f:
        return f.read().strip()


@pytest.fixture
def dirs():
    made = [tempfile.mkdtemp(prefix=f"beam-sec{i}-") for i in range(3)]
    yield made
    for d in reversed(made):
        ray_cli(["stop", "--temp-dir", d], timeout=30)
    wait_gone(base=made[0], within=10)
    for d in made:
        shutil.rmtree(d, ignore_errors=True)


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_ca(workdir, name):
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}-ca.key", "-out", f"{name}-ca.pem",
            "-days", "2", "-subj", f"/CN={name} test CA", cwd=workdir)


def make_cert(workdir, ca, name):
    """A node certificate signed by ``ca``, with its key in PKCS#8 PEM."""
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
            "-subj", f"/CN={name}", cwd=workdir)
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}-ca.pem", "-CAkey", f"{ca}-ca.key",
            "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", cwd=workdir)
    return [os.path.join(workdir, f"{name}.pem"), os.path.join(workdir, f"{name}.key")]


@pytest.mark.skipif(subprocess.run(["which", "openssl"], capture_output=True).returncode != 0,
                    reason="openssl is needed to make the test CA")
def test_tls_links_need_certificates_from_the_cluster_ca(dirs, tmp_path):
    work = str(tmp_path)
    make_ca(work, "good")
    make_ca(work, "evil")
    head_cert, head_key = make_cert(work, "good", "head")
    node_cert, node_key = make_cert(work, "good", "node")
    rogue_cert, rogue_key = make_cert(work, "evil", "rogue")
    ca = os.path.join(work, "good-ca.pem")
    address = start_head(dirs[0], "--tls-cert", head_cert, "--tls-key", head_key, "--tls-ca", ca)
    token = token_of(dirs[0])

    good = ray_cli(["start", "--address", address, "--temp-dir", dirs[1], "--node-ip-address", "127.0.0.2",
                    "--tls-cert", node_cert, "--tls-key", node_key, "--tls-ca", ca], RAY_AUTH_TOKEN=token)
    assert good.returncode == 0, good.stderr

    rogue = ray_cli(["start", "--address", address, "--temp-dir", dirs[2], "--node-ip-address", "127.0.0.3",
                     "--tls-cert", rogue_cert, "--tls-key", rogue_key, "--tls-ca", os.path.join(work, "evil-ca.pem")],
                    RAY_AUTH_TOKEN=token)
    assert rogue.returncode != 0
    assert "TLS handshake" in rogue.stderr, rogue.stderr

    plain = ray_cli(["start", "--address", address, "--temp-dir", dirs[2], "--node-ip-address", "127.0.0.3"],
                    RAY_AUTH_TOKEN=token)
    assert plain.returncode != 0, "a plain-TCP node must not join a TLS head"

    out = run_driver(dirs[0], """
        import ray
        ray.init()
        print(sorted(n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]))
        @ray.remote
        class A:
            def ip(self):
                return ray.util.get_node_ip_address()
        a = A.options(resources={"node:127.0.0.2": 0.01}).remote()
        print(ray.get(a.ip.remote()))
    """)
    assert out.returncode == 0, out.stderr
    assert "['127.0.0.1', '127.0.0.2']" in out.stdout
    assert out.stdout.strip().endswith("127.0.0.2"), "calls cross the TLS link"


def test_key_in_the_wrong_format_is_explained(dirs, tmp_path):
    work = str(tmp_path)
    if subprocess.run(["which", "openssl"], capture_output=True).returncode != 0:
        pytest.skip("openssl is needed")
    make_ca(work, "good")
    cert, key = make_cert(work, "good", "head")
    openssl("rsa", "-in", key, "-out", "head-rsa.key", "-traditional", cwd=work)
    done = ray_cli(["start", "--head", "--port", "0", "--temp-dir", dirs[0], "--tls-cert", cert,
                    "--tls-key", os.path.join(work, "head-rsa.key"), "--tls-ca", os.path.join(work, "good-ca.pem")])
    assert done.returncode != 0
    assert "PKCS#8" in done.stderr and "openssl pkcs8" in done.stderr, done.stderr


def test_oversize_payload_is_refused_in_the_caller_naming_the_limit(dirs):
    start_head(dirs[0], "--max-payload-bytes", "100000")
    out = run_driver(dirs[0], """
        import ray
        ray.init()
        @ray.remote
        class A:
            def size(self, b):
                return len(b)
        a = A.remote()
        print(ray.get(a.size.remote(b"x" * 1000)))
        try:
            a.size.remote(b"x" * 200000)
        except ValueError as e:
            print("refused:", e)
        print(ray.get(a.size.remote(b"y" * 2000)))
    """)
    assert out.returncode == 0, out.stderr
    assert "refused:" in out.stdout and "max_payload_bytes" in out.stdout and "100000" in out.stdout
    assert out.stdout.strip().endswith("2000"), "the connection keeps working after the refusal"


def test_fuzzer_leaves_the_daemon_serving_with_flat_fds_and_heap(dirs):
    start_head(dirs[0])
    done = subprocess.run([VENV_PYTHON, os.path.join(ROOT, "tools", "fuzz_daemon.py"), "--temp-dir", dirs[0],
                           "--frames", "20000", "--attacks", "short"], env=beam_env(dirs[0]), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "fuzz: OK" in done.stdout
    # the hostile peers ran too (tools/hostile_peers.py), beside a node joined from 127.0.0.2
    assert "attack before auth:" in done.stdout and "attack slowloris:" in done.stdout, done.stdout[-3000:]
    assert '"joined_node_alive": true' in done.stdout


def test_load_across_two_nodes_every_result_once_and_in_order(dirs):
    address = start_head(dirs[0])
    joined = ray_cli(["start", "--address", address, "--temp-dir", dirs[1], "--num-gpus", "2",
                      "--node-ip-address", "127.0.0.2"], RAY_AUTH_TOKEN=token_of(dirs[0]))
    assert joined.returncode == 0, joined.stderr
    out = run_driver(dirs[0], """
        import threading, time, ray
        ray.init()

        @ray.remote
        class Sink:
            def __init__(self):
                self.last = {}
            def take(self, caller, seq, blob):
                assert seq == self.last.get(caller, -1) + 1, (caller, seq, self.last.get(caller))
                self.last[caller] = seq
                return caller, seq, len(blob)

        sinks = [Sink.options(resources={f"node:{ip}": 0.01}).remote() for ip in ("127.0.0.1", "127.0.0.2")]
        CALLS, IN_FLIGHT, THREADS = 100_000, 1000, 8
        per_thread = CALLS // THREADS
        big = b"b" * (64 << 20)
        errors, counts = [], [0] * THREADS

        def work(t):
            sink = sinks[t % 2]
            seq = 0
            try:
                while seq < per_thread:
                    n = min(IN_FLIGHT // THREADS, per_thread - seq)
                    blobs = [big if (t == 0 and seq + i in (500, 6000)) else b"s" for i in range(n)]
                    refs = [sink.take.remote(t, seq + i, blobs[i]) for i in range(n)]
                    got = ray.get(refs, timeout=300)
                    want = [(t, seq + i, len(blobs[i])) for i in range(n)]
                    if got != want:
                        errors.append((t, seq))
                        return
                    counts[t] += n
                    seq += n
            except Exception as e:
                errors.append(repr(e))

        t0 = time.time()
        threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
        [th.start() for th in threads]
        [th.join() for th in threads]
        print("errors", errors)
        print("results", sum(counts), "in", round(time.time() - t0, 1), "s")
    """, timeout=900)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    assert "errors []" in out.stdout, out.stdout
    assert "results 100000 in" in out.stdout, out.stdout
