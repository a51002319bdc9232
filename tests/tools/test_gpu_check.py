"""tools/gpu_check.sh in its CPU mode (--fake): the GPU machine's script keeps working in CI.

The fake mode runs every scheduling, id, visibility, NOSET, rendezvous and SIGKILL check
against a real daemon that detected GPUs from a fake nvidia-smi; only the device memory and
NCCL parts are stand-ins (host memory, a socket sum). It was not run on a GPU here."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tools", "gpu_check.sh")
CHECKS = ("detect", "telemetry", "one_gpu_actor", "half_gpus_share", "noset", "all_reduce", "sigkill_frees")


def run(**env):
    full = dict(os.environ, **env)
    full.pop("RAY_ADDRESS", None)
    return subprocess.run([SCRIPT, "--fake"], capture_output=True, text=True, timeout=400, env=full)


def test_fake_mode_passes_every_check_with_one_line_each():
    done = run()
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [l for l in done.stdout.splitlines() if l.startswith(("PASS ", "FAIL "))]
    assert [l.split()[1].rstrip(":") for l in lines] == list(CHECKS), done.stdout
    assert all(l.startswith("PASS") for l in lines), done.stdout
    assert "2 GPUs as nvidia-smi -L names them, model ['FAKE100']" in done.stdout
    assert "socket sum over 2 GPUs" in done.stdout and ": 3 everywhere" in done.stdout
    assert "2 GPUs sampled by nvidia-smi; GPU 0 0.0% busy, 100/81559 MiB, as ray status shows" in done.stdout
    assert done.stdout.strip().splitlines()[-1].startswith("OK: 0 failed")


def test_three_fake_gpus_reduce_to_six_and_nothing_is_left_running():
    done = run(BEAM_GPU_CHECK_FAKE_GPUS="3")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "socket sum over 3 GPUs" in done.stdout and ": 6 everywhere" in done.stdout, done.stdout
    temp_dir = done.stderr.split("gpu_check: cluster in ", 1)[1].split()[0]
    assert not os.path.exists(temp_dir), "the check left its temp dir"
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if temp_dir.encode() in f.read():
                    left.append(pid)
        except OSError:
            pass
    assert not left, f"processes of the check still run: {left}"


def test_an_unknown_argument_is_refused_with_the_usage_hint():
    done = subprocess.run([SCRIPT, "--bogus"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "unknown argument '--bogus' (see --help)" in done.stderr
