"""The platform wheel and the one-mount bundle run a cluster with no Java on the machine.

Builds both with packaging/build_wheel.sh and packaging/build_bundle.sh (about 20 s the first
time: jlink, a build venv; seconds after), then for each: `ray start --head --num-gpus 2`,
a driver with two GPU actors, `ray status`, `ray stop`, and no process left behind. The
daemon must run on the bundled runtime: its /proc/PID/exe is checked.
"""

import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from ray._version import RAY as RAY_VERSION

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120

DRIVER = textwrap.dedent("""
    import importlib.metadata, os, sys
    import ray

    ray.init()

    @ray.remote(num_gpus=1)
    class Worker:
        def hello(self, x):
            return x * 2, ray.get_gpu_ids(), os.getpid()

    workers = [Worker.remote() for _ in range(2)]
    results = ray.get([w.hello.remote(i) for i, w in enumerate(workers)], timeout=60)
    assert [r[0] for r in results] == [0, 2], results
    assert sorted(r[1][0] for r in results) == [0, 1], results
    assert len({r[2] for r in results}) == 2, results
    assert importlib.metadata.version("ray") == ray.__version__ == "@RAY_VERSION@", ray.__version__
    for w in workers:
        ray.kill(w)
    ray.shutdown()
    print("DRIVER-OK", ray.__file__)
""").replace("@RAY_VERSION@", RAY_VERSION)


def _build(script):
    done = subprocess.run([str(ROOT / "packaging" / script)], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert done.returncode == 0, f"{script} failed:\n{done.stdout}\n{done.stderr}"
    return Path(done.stdout.strip().splitlines()[-1])


def _run(cmd, env, cwd, timeout=TIMEOUT, check=True):
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
    if check:
        assert done.returncode == 0, f"{cmd} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def _processes(temp_dir, root):
    """Live (pid, exe, cmdline) of processes that mention ``temp_dir`` or run from ``root``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            exe = os.readlink(f"/proc/{entry}/exe")
            with open(f"/proc/{entry}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
        except OSError:
            continue
        if str(temp_dir) in cmd or exe.startswith(str(root)):
            found.append((int(entry), exe, cmd.strip()))
    return found


def _kill_all(temp_dir, root):
    for pid, _, _ in _processes(temp_dir, root):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _cluster_round_trip(ray_cmd, python, env, cwd, temp_dir, runtime):
    """start, driver, status, stop; returns the seconds `ray start` took."""
    t0 = time.monotonic()
    _run([ray_cmd, "start", "--head", "--num-gpus", "2", "--port", "0", "--temp-dir", str(temp_dir)],
         env, cwd)
    start_s = time.monotonic() - t0
    daemons = [p for p in _processes(temp_dir, runtime) if "beam.cli.Main" in p[2]]
    assert daemons, "no daemon process after ray start"
    for pid, exe, cmd in daemons:
        assert exe.startswith(str(runtime)), f"daemon {pid} runs {exe}, not the bundled runtime {runtime}"

    driver = _run([python, "-c", DRIVER], env, cwd)
    assert "DRIVER-OK" in driver.stdout, driver.stdout + driver.stderr

    status = _run([ray_cmd, "status"], env, cwd)
    assert "2.0 GPU" in status.stdout and "head" in status.stdout, status.stdout

    _run([ray_cmd, "stop", "--temp-dir", str(temp_dir)], env, cwd)
    deadline = time.monotonic() + 30  # ends as soon as they are gone
    while _processes(temp_dir, runtime) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _processes(temp_dir, runtime)
    assert not left, f"processes left after ray stop: {left}"
    return start_s


def _no_java_bin(tmp_path):
    """A folder with a few basic commands and no `java`, to stand in for /usr/bin."""
    shim = tmp_path / "shim-bin"
    shim.mkdir()
    for name in ("sh", "bash", "env", "cat", "ls", "sed", "readlink", "dirname", "setsid"):
        path = shutil.which(name, path="/usr/bin:/bin")
        if path:
            (shim / name).symlink_to(path)
    return shim


@pytest.fixture
def temp_dir():
    """The cluster's --temp-dir: short, as unix socket paths under it must fit 107 bytes."""
    path = Path(tempfile.mkdtemp(prefix="beam-pk-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def wheel():
    return _build("build_wheel.sh")


@pytest.fixture(scope="module")
def bundle():
    return _build("build_bundle.sh")


def test_wheel_name_and_contents(wheel):
    import zipfile

    arch = platform.machine()
    assert wheel.name == f"ray-{RAY_VERSION}-py3-none-manylinux2014_{arch}.manylinux_2_17_{arch}.whl"
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        assert {"ray/__init__.py", "ray/_beam/launch/coexist.py", "ray/_beam/lib/beam.jar",
                "ray/_beam/lib/beam.aot", "ray/_beam/lib/beam.aot.info",
                "ray/_beam/runtime/bin/java", "ray/_beam/runtime/lib/server/libjvm.so",
                "ray/_beam/runtime/release"} <= names
        java_mode = z.getinfo("ray/_beam/runtime/bin/java").external_attr >> 16
        assert java_mode & 0o111, oct(java_mode)
        # `ray` is the bash script; its Python fallback is pip's wrapper with beam's interpreter
        assert z.read(f"ray-{RAY_VERSION}.data/scripts/ray").startswith(b"#!/bin/bash\n")
        entry_points = z.read(f"ray-{RAY_VERSION}.dist-info/entry_points.txt").decode()
        assert "beam-ray-launcher = ray._beam.launch.launcher:main" in entry_points, entry_points
        meta = z.read(f"ray-{RAY_VERSION}.dist-info/WHEEL").decode()
        assert "Root-Is-Purelib: false" in meta
        release = z.read("ray/_beam/runtime/release").decode()
        assert 'MODULES="java.base java.logging java.management jdk.httpserver jdk.unsupported"' in release


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory):
    """A fresh venv with the wheel installed (cloudpickle comes from the package index)."""
    venv = tmp_path_factory.mktemp("wheel") / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], dict(os.environ), venv.parent)
    _run([str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", str(wheel)],
         dict(os.environ), venv.parent, timeout=300)
    return venv


def test_wheel_in_fresh_venv_without_java(venv, tmp_path, temp_dir):
    path = f"{venv / 'bin'}:{_no_java_bin(tmp_path)}"
    assert shutil.which("java", path=path) is None
    env = {"PATH": path, "HOME": str(tmp_path), "RAY_TMPDIR": str(temp_dir), "LANG": "C.UTF-8"}
    site = Path(_run([str(venv / "bin" / "python"), "-c",
                      "import ray, os; print(os.path.dirname(ray.__file__))"], env, tmp_path).stdout.strip())
    assert str(site).startswith(str(venv)), site
    runtime = site / "_beam" / "runtime"
    # the AOT cache made at packaging time is the one this install's launcher passes
    flags = _run([str(venv / "bin" / "python"), "-c",
                  "from ray._beam.launch import launcher as l; print(l.jvm_flags(l.find_java(), l.find_jar()))"],
                 env, tmp_path).stdout
    assert f"-XX:AOTCache={site / '_beam' / 'lib' / 'beam.aot'}" in flags, flags
    try:
        start_s = _cluster_round_trip(str(venv / "bin" / "ray"), str(venv / "bin" / "python"), env,
                                      tmp_path, temp_dir, runtime)
        print(f"wheel: ray start --head took {start_s:.2f} s")
        launch = (venv / "bin" / ".beam-launch").read_text()  # the script's, from its first run
        assert f"'{runtime / 'bin' / 'java'}'" in launch and "-XX:AOTCache=" in launch, launch
    finally:
        _kill_all(temp_dir, runtime)


def test_wheel_java_override_order(venv, tmp_path):
    """BEAM_JAVA, then JAVA_HOME when >= 21, then the bundled runtime."""
    fake = _fake_jdk(tmp_path / "jdk25", "25.0.1")
    old = _fake_jdk(tmp_path / "jdk17", "17.0.9")
    probe = [str(venv / "bin" / "python"), "-c",
             "from ray._beam.launch import launcher; print(launcher.find_java())"]
    base = {"PATH": str(_no_java_bin(tmp_path)), "HOME": str(tmp_path)}
    bundled = _run(probe, base, tmp_path).stdout.strip()
    assert bundled.startswith(str(venv)) and bundled.endswith("ray/_beam/runtime/bin/java"), bundled
    assert _run(probe, {**base, "JAVA_HOME": str(old.parent.parent)}, tmp_path).stdout.strip() == bundled
    assert _run(probe, {**base, "JAVA_HOME": str(fake.parent.parent)}, tmp_path).stdout.strip() == str(fake)
    assert _run(probe, {**base, "BEAM_JAVA": str(fake)}, tmp_path).stdout.strip() == str(fake)


def _fake_jdk(home, version):
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text('#!/bin/sh\necho "FAKE-JAVA $*"\n')
    java.chmod(0o755)
    (home / "release").write_text(f'JAVA_VERSION="{version}"\n')
    return java


def test_bundle_minimal_env(bundle, tmp_path, temp_dir):
    system_python = shutil.which("python3", path="/usr/bin:/bin")
    if not system_python:
        pytest.skip("no python3 in /usr/bin or /bin to play the container's Python")
    # Mounted somewhere else than where it was built, and run from a third folder.
    mount = tmp_path / "mnt" / "beam"
    shutil.copytree(bundle, mount, symlinks=True)
    import cloudpickle

    scratch = tmp_path / "site"
    shutil.copytree(Path(cloudpickle.__file__).parent, scratch / "cloudpickle",
                    ignore=shutil.ignore_patterns("__pycache__"))
    work = tmp_path / "work"
    work.mkdir()
    env = {"PATH": f"{mount / 'bin'}:/usr/bin:/bin", "PYTHONPATH": f"{mount / 'python'}:{scratch}",
           "HOME": str(tmp_path), "RAY_TMPDIR": str(temp_dir)}
    runtime = mount / "runtime"
    assert shutil.which("ray", path=env["PATH"]) == str(mount / "bin" / "ray")
    try:
        start_s = _cluster_round_trip("ray", "python3", env, work, temp_dir, runtime)
        print(f"bundle: ray start --head took {start_s:.2f} s")
        # ray.init() with no cluster starts a private one through the launcher, which finds
        # the bundle's runtime and jar from python/ray/_beam/.
        probe = _run(["python3", "-c", "from ray._beam.launch import launcher; print(launcher.find_java()); "
                      "print(launcher.find_jar())"], env, work)
        assert probe.stdout.split() == [str(runtime / "bin" / "java"),
                                        str(mount / "python/ray/_beam/lib/beam.jar")]
    finally:
        _kill_all(temp_dir, runtime)


def test_bundle_java_override(bundle, tmp_path):
    """bin/ray: BEAM_JAVA, then JAVA_HOME when >= 21, win over the bundled runtime."""
    fake = _fake_jdk(tmp_path / "jdk25", "25.0.1")
    old = _fake_jdk(tmp_path / "jdk17", "17.0.9")
    ray_cmd = str(bundle / "bin" / "ray")
    base = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    # (`start --block` runs the CLI in the foreground: the fake prints its command line)
    out = _run([ray_cmd, "start", "--block"], {**base, "BEAM_JAVA": str(fake)}, tmp_path).stdout
    assert out.startswith("FAKE-JAVA -XX:+UseSerialGC") and "beam.cli.Main start --block" in out, out
    out = _run([ray_cmd, "start", "--block"], {**base, "JAVA_HOME": str(fake.parent.parent)}, tmp_path).stdout
    assert out.startswith("FAKE-JAVA"), out
    out = _run([ray_cmd, "--version"], {**base, "JAVA_HOME": str(old.parent.parent)}, tmp_path).stdout
    assert "FAKE-JAVA" not in out and "beam" in out, out
