"""Where sessions live, and which files of theirs to trust: the one rule of the Python side.

The same rule is beam.cli.Paths / TrustedPaths in Java and set_temp_root in python/bin/ray;
tests/golden/discovery_cases.json holds all three to it (docs/DESIGN.md, "Where sessions
live"):

1. ``--temp-dir DIR`` (``ray.init(_temp_dir=DIR)``): DIR;
2. else ``$RAY_TMPDIR``: that folder itself (beam's sessions go right in it);
3. else ``<parent>/ray``, parent being ``$TMPDIR`` (as Ray on Linux) or ``/tmp``; when that
   folder exists and belongs to another user, ``<parent>/ray-<uid>``, a folder of one's own.

A folder named by 1 or 2 is "chosen": clients look only there. Only files of one's own
that nobody else may write are trusted: whoever controls a temp dir, ``session_latest`` or
``node.json`` could point clients at a daemon of theirs, which would answer with pickles.

Only ``os`` is imported: the ``ray`` command's launcher imports this module.
"""

from __future__ import annotations

import os

DEFAULT_PARENT = "/tmp"
SHARED_NAME = "ray"
FIX = "Use a folder of your own: `--temp-dir DIR` or RAY_TMPDIR=DIR (e.g. RAY_TMPDIR=$HOME/.beam)."


def _given(value) -> bool:
    return bool(value and value.strip())


def chosen_name(flag=None, env=None):
    """The folder the user named (the flag, else RAY_TMPDIR), or None."""
    env = os.environ if env is None else env
    if _given(flag):
        return flag
    return env.get("RAY_TMPDIR") if _given(env.get("RAY_TMPDIR")) else None


def temp_dir(flag=None, env=None, cwd=None, uid=None) -> str:
    """The temp dir by the rule above, for this process unless env, cwd and uid say otherwise."""
    env = os.environ if env is None else env
    cwd = os.getcwd() if cwd is None else cwd
    uid = os.geteuid() if uid is None else uid
    named = chosen_name(flag, env)
    if named is not None:
        return os.path.normpath(os.path.join(cwd, named))
    tmpdir = env.get("TMPDIR")
    parent = os.path.normpath(os.path.join(cwd, tmpdir)) if _given(tmpdir) else DEFAULT_PARENT
    shared = os.path.join(parent, SHARED_NAME)
    try:
        other = os.lstat(shared).st_uid != uid
    except OSError:
        other = False
    return os.path.join(parent, f"{SHARED_NAME}-{uid}") if other else shared


def fits_socket(temp: str) -> bool:
    """Whether the daemon's socket, <temp>/session_<26-char time>_<pid>/sockets/beamd.sock,
    fits the 106 bytes the JDK binds even with a 7-digit pid (beam.daemon.SessionDir decides
    the borderline, and explains a refusal: the launcher leaves a temp dir that may not fit
    to the Java CLI, before anything is made in it)."""
    return len(temp.encode()) + 62 <= 106


def flag_in(argv) -> str | None:
    """The value of the last ``--temp-dir`` in ``argv`` (as picocli takes it), or None."""
    flag = None
    for i, arg in enumerate(argv):
        if arg == "--temp-dir" and i + 1 < len(argv):
            flag = argv[i + 1]
        elif arg.startswith("--temp-dir="):
            flag = arg[len("--temp-dir="):]
    return flag


def _owner(uid: int) -> str:
    try:
        import pwd

        return f"user {pwd.getpwuid(uid).pw_name}"
    except (ImportError, KeyError):
        return f"user {uid}"


def problem(path: str, what: str) -> str | None:
    """Why ``path`` (``what``: "temp dir", "node.json", ...) is not to be trusted, or None when
    it is, or does not exist. A link counts as its own file and as its target's."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        return f"beam: cannot check the {what} {path} ({e}). {FIX}"
    me = os.geteuid()
    mode = st.st_mode & 0o7777
    link = os.path.islink(path)
    if st.st_uid != me:
        return (f"beam: refusing the {what} {path}: it belongs to {_owner(st.st_uid)} (uid {st.st_uid}, "
                f"mode {mode:04o}) and beam trusts only files of your own (uid {me}). {FIX}")
    if not link and mode & 0o022:
        return (f"beam: refusing the {what} {path}: its mode {mode:04o} lets other users write it, so "
                f"someone else could put a daemon of theirs there. Run `chmod go-w {path}`, or: {FIX}")
    if link and os.path.exists(path):
        return problem(os.path.realpath(path), f"{what} (the target of {path})")
    return None


def prepare_for_start(temp: str) -> None:
    """Check ``temp`` before ``ray start`` writes anything in it (its stderr log), and make it
    (mode 0700) when missing. Raises ValueError with the path, what is wrong and the fix.
    The daemon checks again (beam.cli.TrustedPaths), with the socket length besides."""
    bad = problem(temp, "temp dir")
    if bad:
        raise ValueError(bad[len("beam: "):])
    if os.path.lexists(temp) and not os.path.isdir(temp):
        raise ValueError(f"the temp dir {temp} is a file, not a folder. Pick a folder with --temp-dir (or RAY_TMPDIR).")
    if not os.path.isdir(temp):
        ancestor = os.path.dirname(temp)
        while ancestor != "/" and not os.path.lexists(ancestor):
            ancestor = os.path.dirname(ancestor)
        if not os.path.isdir(ancestor):
            raise ValueError(f"the temp dir {temp} cannot be made: {ancestor} is a file, not a folder. "
                             "Pick another --temp-dir (or RAY_TMPDIR).")
        try:
            os.makedirs(temp, mode=0o700)
        except OSError as e:
            raise ValueError(f"the temp dir {temp} does not exist and cannot be made ({e.strerror}). "
                             "Pick another --temp-dir (or RAY_TMPDIR), or create it.") from None
    if not os.access(temp, os.W_OK | os.X_OK):
        raise ValueError(f"the temp dir {temp} is not writable by you (mode {os.stat(temp).st_mode & 0o777:04o}). "
                         f"Run `chmod u+w {temp}` or pick another --temp-dir (or RAY_TMPDIR).")
