"""Compare a `ray_shapes.py` dump from beam with the one recorded from real Ray 2.60.

What must match: the keys of every dict (recursively; ids and `node:<ip>` keys are
normalised), the JSON type of every value, list lengths, exception class chains, states,
strategies, versions, reprs (ids masked), booleans, resource amounts and counts.
What is ignored: ids, pids, IPs, ports, memory figures, timing numbers, hostnames, paths
and the text of messages.

``differences(actual, expected)`` returns one line per difference (empty when they match).
"""

from __future__ import annotations

import re
from typing import Any, List, Tuple

Path = Tuple[Any, ...]

_IP = r"\d{1,3}(?:\.\d{1,3}){3}"
_HEX_ID = re.compile(r"^[0-9a-f]{16,}$")

# Strings compared exactly (after masking ids and addresses), by the last key of the path.
EXACT_STRING_KEYS = {
    "ray.__version__", "state", "strategy", "scheduling_state", "name",
    "driver.get_current_placement_group", "cur_pg", "pg.ready()", "ray.get(pg.ready())",
    "repr(actor handle)", "repr(objectref)", "FOO", "NOSET",
    "RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES", "placement_group_table(removed pg).state",
}
# Numbers whose values are ids, ports, memory, pids or timings: only their type counts.
_IGNORED_NUMBER = re.compile(r"memory|Port$|_ms$|^stats$|pid|gpu_ids|^NodeManagerPort$")
# Individual positions that hold a timing.
IGNORED_PATHS = {("wait on dead actor ref: ready", 2)}


def _norm_key(key: str) -> str:
    if _HEX_ID.match(key):
        return "<id>"
    return re.sub(r"^node:(" + _IP + r"|<node-ip>)$", "node:<node-ip>", key)


def _mask(text: str) -> str:
    text = re.sub(r"0x[0-9a-fA-F.]+", "0x...", text)
    text = re.sub(r"[0-9a-f]{16,}", "<hex>", text)
    return re.sub(_IP, "<node-ip>", text)


def _kind(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    return {int: "int", float: "float", str: "str", list: "list", dict: "dict"}.get(
        type(v), type(v).__name__)


def _fmt(path: Path) -> str:
    return "".join(f"[{p!r}]" for p in path) or "<root>"


def _exact_strings(path: Path) -> bool:
    keys = [p for p in path if isinstance(p, str)]
    return bool(keys) and (keys[-1] in EXACT_STRING_KEYS or keys[-1].endswith("types")
                           or "env_vars" in keys)


def _number_ignored(path: Path) -> bool:
    return path in IGNORED_PATHS or any(
        isinstance(p, str) and _IGNORED_NUMBER.search(p) for p in path)


def differences(actual: Any, expected: Any, path: Path = ()) -> List[str]:
    """Every way ``actual`` differs from ``expected`` under the rules above."""
    ka, ke = _kind(actual), _kind(expected)
    if ka != ke:
        return [f"{_fmt(path)}: type {ka} ({actual!r:.80}), Ray has {ke} ({expected!r:.80})"]
    if ka == "dict":
        out = []
        a = {_norm_key(k): (k, v) for k, v in actual.items()}
        e = {_norm_key(k): (k, v) for k, v in expected.items()}
        for k in sorted(set(e) - set(a)):
            out.append(f"{_fmt(path)}: missing key {e[k][0]!r}")
        for k in sorted(set(a) - set(e)):
            out.append(f"{_fmt(path)}: extra key {a[k][0]!r} (Ray has no such key)")
        for k in sorted(set(a) & set(e)):
            out += differences(a[k][1], e[k][1], path + (k,))
        return out
    if ka == "list":
        if len(actual) != len(expected):
            return [f"{_fmt(path)}: {len(actual)} items {actual!r:.200}, Ray has "
                    f"{len(expected)} {expected!r:.200}"]
        out = []
        for i, (x, y) in enumerate(zip(actual, expected)):
            out += differences(x, y, path + (i,))
        return out
    if ka == "bool" and actual != expected:
        return [f"{_fmt(path)}: {actual!r}, Ray has {expected!r}"]
    if ka in ("int", "float") and not _number_ignored(path) and actual != expected:
        return [f"{_fmt(path)}: {actual!r}, Ray has {expected!r}"]
    if ka == "str" and _exact_strings(path) and _mask(actual) != _mask(expected):
        return [f"{_fmt(path)}: {actual!r:.200}, Ray has {expected!r:.200}"]
    return []
