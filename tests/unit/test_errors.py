"""The one table of error names (ray/_beam/wire/errors.py) agrees with what the daemon sends.

The daemon names an error's ``kind`` with a string literal (``Frames.error(rid, "ValueError",
...)``, ``new RequestException("ValueError", ...)``, a failed result's ``"ActorDiedError"``),
so every whole literal of its source that looks like an exception class name is one kind it
can send: each must be in the table, and the table holds nothing the daemon never sends.
"""

import builtins
import os
import re

import pytest

from _paths import ROOT
import ray.exceptions
from ray._beam.wire import errors
from ray._beam.wire.connection import Connection
from test_connection import FakeDaemon

JAVA_SOURCES = os.path.join(ROOT, "java", "src", "main", "java")
KIND_LITERAL = re.compile(r'"([A-Z][A-Za-z]*(?:Error|Exception))"')


def _kinds_the_daemon_sends():
    found = {}
    for folder, _dirs, files in os.walk(JAVA_SOURCES):
        for f in files:
            if f.endswith(".java"):
                path = os.path.join(folder, f)
                with open(path) as src:
                    for kind in KIND_LITERAL.findall(src.read()):
                        found.setdefault(kind, os.path.relpath(path, ROOT))
    return found


DAEMON_KINDS = _kinds_the_daemon_sends()


def test_the_daemon_source_is_read():
    # the kinds of a bad request and of a dead actor: a scan that found nothing would pass below
    assert {"ValueError", "ActorDiedError"} <= set(DAEMON_KINDS)


def test_every_kind_the_daemon_sends_is_in_the_table():
    missing = {k: where for k, where in DAEMON_KINDS.items() if k not in errors.ERRORS}
    assert missing == {}, (f"the daemon sends these error kinds (first seen in) {missing}, which "
                           "python/ray/_beam/wire/errors.py ERRORS lacks: add each with its class")


def test_the_table_holds_only_kinds_the_daemon_sends():
    unsent = sorted(set(errors.ERRORS) - set(DAEMON_KINDS))
    assert unsent == [], f"ERRORS names kinds no daemon source sends: {unsent}; remove them"


@pytest.mark.parametrize("kind", sorted(errors.ERRORS))
def test_each_kind_becomes_the_class_of_its_name(kind):
    e = errors.make_error(kind, "what went wrong")
    assert type(e) is (getattr(ray.exceptions, kind, None) or getattr(builtins, kind))
    assert "what went wrong" in str(e)


def test_an_unknown_kind_becomes_the_default_with_its_message():
    for kind in ("NoSuchError", "", None, "TypeError", "ActorUnavailableError"):
        e = errors.make_error(kind, "from a newer daemon")
        assert type(e) is errors.DEFAULT_ERROR is RuntimeError and str(e) == "from a newer daemon"


def test_the_transport_raises_through_the_table(monkeypatch):
    class Refused(Exception):
        pass

    monkeypatch.setitem(errors.ERRORS, "ValueError", Refused)
    daemon = FakeDaemon(lambda h, p, send: send({"op": "reply", "rid": h["rid"], "ok": False,
                                                  "kind": "ValueError", "error": "bad field"}))
    conn = Connection(daemon.path)
    conn.start()
    try:
        with pytest.raises(Refused, match="bad field"):
            conn.request("anything")
    finally:
        conn.close()
