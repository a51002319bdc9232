"""stackdump.register in a fresh interpreter (it registers a handler for the process's life):
a private file, dumps that start afresh after the daemon truncates it, and no handler in a
forked child or where the session has no stacks folder."""

import os
import subprocess
import sys
import textwrap


def run(code, session):
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code), session], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_dump_file_is_private_and_each_dump_starts_at_the_truncated_start(tmp_path):
    os.mkdir(tmp_path / "stacks", 0o700)
    out = run("""
        import os, signal, sys, time
        from ray._beam.api import stackdump
        stackdump.register(sys.argv[1])
        path = os.path.join(sys.argv[1], "stacks", str(os.getpid()))
        def dumped_here():
            os.kill(os.getpid(), stackdump.STACK_SIGNAL)
            deadline, last = time.monotonic() + 30, -1  # written once its size holds still
            while time.monotonic() < deadline and not (0 < os.path.getsize(path) == last):
                last = os.path.getsize(path)
                time.sleep(0.02)
            with open(path, "rb") as f:
                return f.read()
        first = dumped_here()
        os.truncate(path, 0)  # as the daemon does before each dump
        second = dumped_here()
        print(oct(os.stat(path).st_mode & 0o777), b"in dumped_here" in first, second.startswith(b"Current thread"),
              b"\\0" in second)
    """, str(tmp_path))
    assert out.split() == ["0o600", "True", "True", "False"]


def test_a_forked_child_forgets_the_handler_and_no_stacks_folder_registers_nothing(tmp_path):
    os.mkdir(tmp_path / "stacks", 0o700)
    out = run("""
        import faulthandler, os, sys
        from ray._beam.api import stackdump
        stackdump.register(sys.argv[1])
        pid = os.fork()
        if pid == 0:
            os._exit(3 if faulthandler.unregister(stackdump.STACK_SIGNAL) else 0)  # False: already forgotten
        print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), faulthandler.unregister(stackdump.STACK_SIGNAL))
    """, str(tmp_path))
    assert out.split() == ["0", "True"]
    out = run("""
        import faulthandler, sys
        from ray._beam.api import stackdump
        stackdump.register(sys.argv[1])
        print(faulthandler.unregister(stackdump.STACK_SIGNAL))
    """, str(tmp_path / "no-such-session"))
    assert out.split() == ["False"]
