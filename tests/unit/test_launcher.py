"""Finding Java (>= 21, by the JDK's release file) and the jar, with clear errors; the AOT
cache only for the java and jar it was made for; the daemon command of `ray start`."""

import os
import stat
import subprocess
import sys

import pytest

from _paths import ROOT
from ray._beam.launch import aotcache, findjava, jvmflags, launcher


def _fake_jdk(tmp_path, name, version, tools=()):
    home = tmp_path / name
    (home / "bin").mkdir(parents=True)
    for tool in ("java", *tools):
        exe = home / "bin" / tool
        exe.write_text("#!/bin/sh\nexit 0\n")
        exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    java = home / "bin" / "java"
    (home / "release").write_text(f'IMPLEMENTOR="x"\nJAVA_VERSION="{version}"\n')
    return str(java)


def test_java_major_from_release(tmp_path):
    assert launcher.java_major(_fake_jdk(tmp_path, "j25", "25.0.3")) == 25
    assert launcher.java_major(_fake_jdk(tmp_path, "j8", "1.8.0_392")) == 8


def test_find_java_skips_old_jdks(tmp_path, monkeypatch):
    old = _fake_jdk(tmp_path, "j17", "17.0.9")
    new = _fake_jdk(tmp_path, "j21", "21.0.2")
    monkeypatch.setenv("BEAM_JAVA", old)
    monkeypatch.setenv("JAVA_HOME", os.path.dirname(os.path.dirname(new)))
    assert launcher.find_java() == new


def test_find_java_error_names_what_it_tried(tmp_path, monkeypatch):
    old = _fake_jdk(tmp_path, "j17", "17.0.9")
    monkeypatch.setenv("BEAM_JAVA", old)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    monkeypatch.setattr(findjava, "JVM_DIR", str(tmp_path / "no-jvms"))
    with pytest.raises(launcher.LauncherError) as e:
        launcher.find_java()
    assert "Java 21 or newer" in str(e.value) and old in str(e.value) and "version 17" in str(e.value)


FINDJAVA = os.path.join(ROOT, "python", "ray", "_beam", "launch", "findjava.py")


def _findjava_cli(*args, java_home=None):
    # -S: no site-packages, so no `ray` to import: the shell runs it before any venv exists
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "PYTHONPATH")}
    if java_home:
        env["JAVA_HOME"] = java_home
    return subprocess.run([sys.executable, "-S", FINDJAVA, *args], capture_output=True,
                          text=True, env=env, cwd="/", timeout=30)


def test_the_jdk_finder_cli_runs_without_the_package(tmp_path):
    j17 = os.path.dirname(os.path.dirname(_fake_jdk(tmp_path, "j17", "17.0.9", ["javac", "jlink"])))
    j21 = os.path.dirname(os.path.dirname(_fake_jdk(tmp_path, "j21", "21.0.2", ["javac"])))
    j25 = os.path.dirname(os.path.dirname(_fake_jdk(tmp_path, "j25", "25.0.1", ["javac", "jlink"])))
    done = _findjava_cli("--jdk", "--prefer", j17, "--prefer", j21)
    assert (done.returncode, done.stdout) == (0, j21 + "\n"), done.stderr
    done = _findjava_cli("--jdk", "--tool", "jlink", "--prefer", j21, java_home=j25)
    assert (done.returncode, done.stdout) == (0, j25 + "\n"), done.stderr
    done = _findjava_cli("--jdk", "--tool", "no-such-tool", "--prefer", j17)
    assert done.returncode == 1 and done.stdout == ""
    assert f"{j17} (no bin/no-such-tool)" in done.stderr and "JAVA_HOME" in done.stderr
    done = _findjava_cli("--jdk", "--tool")
    assert done.returncode == 2 and "usage" in done.stderr


def test_the_jdk_finder_passes_over_old_jdks_by_their_release(tmp_path, monkeypatch):
    j17 = os.path.dirname(os.path.dirname(_fake_jdk(tmp_path, "j17", "17.0.9", ["javac"])))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setattr(findjava, "JVM_DIR", str(tmp_path / "no-jvms"))
    with pytest.raises(findjava.LauncherError, match=f"{j17} \\(version 17\\)"):
        findjava.find_jdk([j17])


def test_jar_lookup(tmp_path, monkeypatch):
    jar = tmp_path / "beam.jar"
    jar.write_bytes(b"PK")
    monkeypatch.setenv("BEAM_JAR", str(jar))
    assert launcher.find_jar() == str(jar)
    monkeypatch.setenv("BEAM_JAR", str(tmp_path / "missing.jar"))
    with pytest.raises(launcher.LauncherError, match="BEAM_JAR"):
        launcher.find_jar()


def test_command_shape(tmp_path, monkeypatch):
    jar = tmp_path / "beam.jar"
    jar.write_bytes(b"PK")
    monkeypatch.setenv("BEAM_JAR", str(jar))
    monkeypatch.setenv("BEAM_JAVA", _fake_jdk(tmp_path, "j25", "25.0.3"))
    cmd = launcher.command(["start", "--head"])
    assert cmd[1:] == [*launcher.JVM_FLAGS, "-cp", str(jar), "beam.cli.Main", "start", "--head"]
    assert "-Xshare:auto" in cmd and "-XX:+UseSerialGC" in cmd


def _cache_for(tmp_path, java, jar):
    cache, meta = aotcache.paths(str(jar))
    with open(cache, "wb") as f:
        f.write(b"cache")
    aotcache.write_description(meta, aotcache.describe(java, str(jar)))
    return cache


def test_aot_cache_is_used_only_for_its_own_java_and_jar(tmp_path, monkeypatch):
    jar = tmp_path / "beam.jar"
    jar.write_bytes(b"PK one")
    java = _fake_jdk(tmp_path, "j25", "25.0.3")
    other_java = _fake_jdk(tmp_path, "k25", "25.0.3")
    monkeypatch.setenv("BEAM_JAR", str(jar))
    monkeypatch.setenv("BEAM_JAVA", java)
    cache = _cache_for(tmp_path, java, jar)
    assert aotcache.usable(java, str(jar)) == cache
    cmd = launcher.command(["stop"])
    assert f"-XX:AOTCache={cache}" in cmd and "-Xshare:auto" not in cmd  # the JVM refuses both
    assert aotcache.usable(other_java, str(jar)) is None  # another java
    monkeypatch.setattr(jvmflags, "JVM_FLAGS", [*jvmflags.JVM_FLAGS, "-Xss512k"])
    assert aotcache.usable(java, str(jar)) is None  # trained under other JVM flags
    monkeypatch.undo()
    monkeypatch.setenv("BEAM_JAR", str(jar))
    monkeypatch.setenv("BEAM_JAVA", java)
    assert aotcache.usable(java, str(jar)) == cache
    before = os.stat(jar).st_mtime_ns
    jar.write_bytes(b"PK two")  # same size, other bytes (a new modification time: hashed again)
    os.utime(jar, ns=(before + 10**9, before + 10**9))
    assert aotcache.usable(java, str(jar)) is None
    assert launcher.command(["stop"])[1:1 + len(launcher.JVM_FLAGS)] == launcher.JVM_FLAGS


def test_an_unchanged_jar_is_not_hashed_and_a_copied_one_is(tmp_path, monkeypatch):
    jar = tmp_path / "beam.jar"
    jar.write_bytes(b"PK one")
    java = _fake_jdk(tmp_path, "j25", "25.0.3")
    cache = _cache_for(tmp_path, java, jar)
    hashed = []
    real = aotcache._sha256
    monkeypatch.setattr(aotcache, "_sha256", lambda p: hashed.append(p) or real(p))
    assert aotcache.usable(java, str(jar)) == cache and hashed == []  # same size and mtime: trusted
    st = os.stat(jar)
    os.utime(jar, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # as an install's copy: same bytes, new mtime
    assert aotcache.usable(java, str(jar)) == cache and hashed == [str(jar)]
    assert aotcache.usable(java, str(jar)) == cache and hashed == [str(jar)]  # the description was refreshed


def test_aot_cache_without_description_or_with_a_bad_one_is_ignored(tmp_path):
    jar = tmp_path / "beam.jar"
    jar.write_bytes(b"PK")
    java = _fake_jdk(tmp_path, "j25", "25.0.3")
    cache, meta = aotcache.paths(str(jar))
    open(cache, "wb").close()
    assert aotcache.usable(java, str(jar)) is None
    with open(meta, "w") as f:
        f.write("not a description")
    assert aotcache.usable(java, str(jar)) is None


def test_daemon_command_has_the_cli_flags_and_reports(tmp_path, monkeypatch):
    jar = tmp_path / "beam.jar"
    jar.write_bytes(b"PK")
    monkeypatch.setenv("BEAM_JAR", str(jar))
    monkeypatch.setenv("BEAM_JAVA", _fake_jdk(tmp_path, "j25", "25.0.3"))
    cmd = launcher.daemon_command(["--head"])
    assert cmd[1:1 + len(launcher.JVM_FLAGS)] == launcher.JVM_FLAGS
    assert cmd[-4:] == ["start", "--block", "--notify-ready", "--head"]


def test_temp_root_follows_the_cli(monkeypatch):
    monkeypatch.delenv("RAY_TMPDIR", raising=False)
    assert launcher.temp_root(["--head"]) == "/tmp/ray"
    monkeypatch.setenv("RAY_TMPDIR", "/x/env")
    assert launcher.temp_root(["--head"]) == "/x/env"
    assert launcher.temp_root(["--temp-dir", "/x/flag"]) == "/x/flag"
    assert launcher.temp_root(["--temp-dir=/x/eq"]) == "/x/eq"
    monkeypatch.setenv("RAY_TMPDIR", " ")
    assert launcher.temp_root([]) == "/tmp/ray"


def test_the_daemon_gets_its_report_pipe_even_when_the_caller_has_no_stdin_or_stdout(tmp_path):
    """A caller started with fds 0 and 1 closed: the report pipe's ends come out as 0 and 1.
    The launcher moves them above 2 (glibc before 2.29, which manylinux2014 allows, keeps
    close-on-exec on a dup2 of fd 1 onto itself and the report would be lost; newer glibc
    clears it, so here this checks the whole spawn with odd descriptors)."""
    code = (f"import os, sys; sys.path.insert(0, {os.path.join(ROOT, 'python')!r})\n"
            "os.close(0); os.close(1)\n"
            "from ray._beam.launch import launcher\n"
            f"pid, report = launcher._spawn_daemon(['/bin/sh', '-c', 'echo BEAM-READY'], {str(tmp_path / 'log')!r})\n"
            "got = os.read(report, 100)\n"
            "os.waitpid(pid, 0)\n"
            "os.write(2, b'GOT ' + got)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(b"GOT BEAM-READY"), done.stderr


def test_launch_file_values_reach_bash_unchanged(tmp_path):
    """The `ray` script sources the launch file: every word must come back exactly."""
    import subprocess

    from ray._beam.launch import launchfile

    words = ["/opt/my jdk/bin/java", "-XX:CompileCommand=quiet,beam.*::*", "it's", "$HOME `id`", "a\nb", ""]
    path = tmp_path / ".beam-launch"
    launchfile.Writer(str(path)).write(words, [str(tmp_path)], ["/no/such/thing"], [])
    out = subprocess.run(["bash", "-c", '. "$1"; printf "%s\\0" "${beam_command[@]}"; printf "%s" "$beam_environment"',
                          "bash", str(path)], capture_output=True, text=True, check=True).stdout
    *got, environment = out.split("\0")
    assert got == words
    assert environment == launchfile.environment()


def test_launch_file_keeps_the_time_from_before_the_decision(tmp_path):
    """A file changed while the launcher decided must count as newer than the launch file."""
    import time

    from ray._beam.launch import launchfile

    path = tmp_path / ".beam-launch"
    writer = launchfile.Writer(str(path))
    time.sleep(0.05)
    changed = tmp_path / "jar"
    changed.write_text("")  # while the launcher decides
    writer.write(["java"], [str(changed)], [], [])
    assert path.stat().st_mtime_ns < changed.stat().st_mtime_ns
    assert not list(tmp_path.glob("*.tmp"))


def test_launch_file_in_a_folder_that_cannot_be_written(tmp_path):
    from ray._beam.launch import launchfile

    missing = tmp_path / "no-such-folder" / ".beam-launch"
    launchfile.Writer(str(missing)).write(["java"], [], [], [])  # quietly nothing
    assert not missing.parent.exists()
