"""ray.util.metrics in the process: Ray's argument checks, and what is queued for the daemon."""

import pytest

from ray._beam.api import usermetrics
from ray.util import metrics


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.setattr(usermetrics, "_series", {})
    monkeypatch.setattr(usermetrics, "_changed", set())
    monkeypatch.setattr(usermetrics, "_thread", object())  # no sending thread in unit tests


def series(name):
    return [e for e in usermetrics._series.values() if e["name"] == name]


def test_tags_must_be_declared_and_complete():
    c = metrics.Counter("c", tag_keys=("model", "route"))
    with pytest.raises(ValueError, match="Missing value for tag key"):
        c.inc(1, tags={"model": "m"})
    with pytest.raises(ValueError, match="Unrecognized tag key"):
        c.inc(1, tags={"model": "m", "route": "/", "other": "x"})
    with pytest.raises(TypeError, match="Tag values must be str"):
        c.inc(1, tags={"model": "m", "route": 3})
    c.set_default_tags({"model": "m"})
    c.inc(2, tags={"route": "/"})
    c.inc(3, tags={"route": "/"})
    assert series("c") == [{"name": "c", "kind": "counter", "description": "",
                            "tags": {"model": "m", "route": "/"}, "value": 5.0}]


def test_counter_gauge_histogram_values():
    with pytest.raises(ValueError, match="value must be >0"):
        metrics.Counter("c2").inc(0)
    g = metrics.Gauge("g")
    g.set(4)
    g.set(None)  # ignored, as in Ray
    g.set(1.5)
    assert series("g")[0]["value"] == 1.5
    h = metrics.Histogram("h", boundaries=[1.0, 0.1])  # kept sorted
    for v in (0.05, 0.1, 0.5, 1.0, 7):
        h.observe(v)
    (e,) = series("h")
    assert e["boundaries"] == [0.1, 1.0] and e["buckets"] == [2, 2, 1] and e["sum"] == pytest.approx(8.65)
    assert usermetrics._changed == {("g",), ("h",)}  # the refused inc queued nothing


def test_flush_without_a_connection_keeps_the_changes():
    metrics.Gauge("g3").set(1)
    usermetrics.flush()  # not connected: nothing to send to, nothing lost
    assert len(usermetrics._changed) == 1


def test_batches_fit_the_daemons_header_limit_and_drop_only_what_never_could():
    # A frame over the daemon's header limit would cost the process its connection.
    import json

    from ray._beam.api import usermetrics as um

    series = [{"name": "m", "kind": "gauge", "description": "", "tags": {"t": f"{i:04d}" + "x" * 200},
               "value": 1.0} for i in range(200)]
    huge = {"name": "huge", "kind": "gauge", "description": "", "tags": {"t": "y" * 5000}, "value": 1.0}
    limit = 4096
    parts = list(um._batches(series[:100] + [huge] + series[100:], limit))
    assert [e for p in parts for e in p] == series  # order kept, only the oversize one dropped
    for p in parts:
        header = json.dumps({"op": "metrics", "metrics": p}, separators=(",", ":"))
        assert len(header) <= limit, len(header)
    assert all(len(p) <= um.SERIES_PER_FRAME for p in parts)
