"""Record the columns of Ray's state API tables (``ray.util.state.common``), as Ray declares them.

    /opt/ray260-venv/bin/python tests/golden/ray_state_columns.py > tests/golden/ray-2.60-state-columns.json

For each table ``ray list`` serves (actors, nodes, placement_groups, tasks): every column of
its dataclass in Ray's order, with ``filterable`` and ``detail`` as its ``state_column`` says
and ``kind``, the value's type without Optional (str, int, float, bool, dict, list; a Literal
of state names is str). Nothing is started: only the classes are read. beam's tables are
checked against this file (java/.../views/StateColumnsTest.java).
"""
import dataclasses
import json
import typing

import ray
import ray.util.state.common as common

TABLES = {
    "actors": common.ActorState,
    "nodes": common.NodeState,
    "placement_groups": common.PlacementGroupState,
    "tasks": common.TaskState,
}


def kind(annotation):
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return "str"
    if origin is typing.Union and len(args) == 1:
        return kind(args[0])
    if origin in (list, dict):
        return origin.__name__
    return annotation.__name__


out = {"ray.__version__": ray.__version__}
for table, cls in TABLES.items():
    out[table] = [{"name": f.name, "kind": kind(f.type), "filterable": bool(f.metadata.get("filterable")),
                   "detail": bool(f.metadata.get("detail"))} for f in dataclasses.fields(cls)]
print(json.dumps(out, indent=1))
