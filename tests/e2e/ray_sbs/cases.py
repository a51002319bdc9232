"""Small actor programs whose outcome Ray 2.58 (2.60 for issue 40's cases) defines; run under beam or real Ray.

``python cases.py OUT.json``: one ``ray.init()``, every case in turn, and for each a short
text of what was observed (values, exception class, the part of its message that matters),
written as JSON. tools/actor_sbs.py runs this under each implementation and compares the
texts with EXPECTED, which is what Ray 2.58 gives (checked by running it on Ray).
"""

import asyncio
import atexit
import json
import os
import sys
import tempfile
import time
import warnings

import ray
from ray.util.placement_group import placement_group

MARKS = tempfile.mkdtemp(prefix="sbs-marks-")


@ray.remote(num_cpus=0)
class Probe:
    LIMIT = 7

    def __init__(self, mark=None, exit_in_init=False):
        self.ping = "an instance attribute named like a method"
        if mark:
            atexit.register(lambda: open(mark, "w").close())
        if exit_in_init:
            ray.actor.exit_actor()

    def ping(self):
        return "method"

    def bye(self):
        ray.actor.exit_actor()

    def labels(self):
        return ray.get_runtime_context().get_node_labels()

    def bye_caught(self):
        try:
            ray.actor.exit_actor()
        except SystemExit:
            pass
        return "returned"

    def put_ref(self):
        return ray.put(5)

    def ref_to_own_call(self, me):
        return me.pong.remote()

    def pong(self):
        return "pong"

    def limit(self):
        return Probe.LIMIT

    @staticmethod
    def helper():
        return "static"

    def via_static(self):
        return Probe.helper()

    def pair(self):
        return 1, 2

    @ray.method(num_returns=3)
    def three(self):
        return 1, 2, 3

    def scalar(self):
        return 5


@ray.remote(num_cpus=0)
class AsyncProbe:
    def __init__(self, mark):
        atexit.register(lambda: open(mark, "w").close())

    async def ping(self):
        return 1

    async def bye(self):
        ray.actor.exit_actor()

    async def bye_nested(self):
        async def inner():
            ray.actor.exit_actor()
        await asyncio.create_task(inner())


def outcome(fn):
    try:
        return f"ok {fn()!r}"
    except Exception as e:  # noqa: BLE001 - the outcome is the observation
        return f"{type(e).__name__}: {str(e).strip().splitlines()[-1]}"


def died_text(fn):
    """For calls that must fail with ActorDiedError: the class and the cause's wording."""
    try:
        return f"ok {fn()!r}"
    except ray.exceptions.ActorDiedError as e:
        text = str(e)
        return "ActorDiedError " + ("INTENDED_USER_EXIT" if "INTENDED_USER_EXIT" in text
                                    else "killed by ray.kill" if "killed by `ray.kill`" in text
                                    else text.splitlines()[-1])


def mark_appears(name):
    for _ in range(100):
        if os.path.exists(os.path.join(MARKS, name)):
            return "atexit ran"
        time.sleep(0.05)
    return "atexit did not run"


def graceful_exit(name, make, end):
    a = make(os.path.join(MARKS, name))
    ray.get(a.ping.remote())
    return f"{died_text(lambda: ray.get(end(a), timeout=30))} / " \
           f"{died_text(lambda: ray.get(a.ping.remote(), timeout=30))} / {mark_appears(name)}"


def case_exit_sync():
    return graceful_exit("sync", Probe.remote, lambda a: a.bye.remote())


def case_exit_caught():
    return graceful_exit("caught", Probe.remote, lambda a: a.bye_caught.remote())


def case_exit_async():
    return graceful_exit("async", AsyncProbe.remote, lambda a: a.bye.remote())


def case_exit_nested_task():
    return graceful_exit("nested", AsyncProbe.remote, lambda a: a.bye_nested.remote())


def case_ray_terminate():
    return graceful_exit("terminate", Probe.remote, lambda a: a.__ray_terminate__.remote())


def case_exit_in_constructor():
    a = Probe.remote(os.path.join(MARKS, "init"), exit_in_init=True)
    return f"{died_text(lambda: ray.get(a.ping.remote(), timeout=30))} / {mark_appears('init')}"


def case_ray_kill():
    a = Probe.remote(os.path.join(MARKS, "kill"))
    ray.get(a.ping.remote())
    ray.kill(a)
    for _ in range(100):  # Ray's kill lands asynchronously: a call right after it may still run
        text = died_text(lambda: ray.get(a.ping.remote(), timeout=30))
        if not text.startswith("ok"):
            break
        time.sleep(0.1)
    return f"{text} / {mark_appears('kill')}"


def case_returned_put_ref():
    a = Probe.remote()
    ref = ray.get(a.put_ref.remote(), timeout=30)
    return f"{type(ref).__name__} -> {outcome(lambda: ray.get(ref, timeout=30))}"


def case_returned_ref_to_own_call():
    a = Probe.remote()
    ref = ray.get(a.ref_to_own_call.remote(a), timeout=30)
    return f"{type(ref).__name__} -> {outcome(lambda: ray.get(ref, timeout=30))}"


def case_method_lookup():
    a = Probe.remote()
    return " / ".join(outcome(lambda m=m: ray.get(getattr(a, m).remote(), timeout=30))
                      for m in ("ping", "limit", "via_static"))


def case_constructor_args():
    return " / ".join(outcome(f) for f in (lambda: Probe.remote(1, 2, 3),
                                            lambda: Probe.remote(nope=1)))


def case_remote_empty_parentheses():
    text = outcome(lambda: ray.remote()(type("Empty", (), {})))
    return text.split(",")[0]  # the rest lists every option name, which differs


def case_reserved_bundle_name():
    return outcome(lambda: placement_group([{"CPU": 1, "bundle": 1}]))


def case_actor_class_inheritance():
    def define():
        class Derived(Probe):
            pass
    return outcome(define)


def case_object_store_memory_deprecated():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        Probe.options(object_store_memory=1 << 20).remote()
        placement_group([{"CPU": 0.01, "object_store_memory": 1 << 20}])
    return " / ".join(f"{w.category.__name__}: {str(w.message).split(' is deprecated')[0]}"
                      for w in seen if w.category is DeprecationWarning)


def case_num_returns():
    a = Probe.remote()
    return " / ".join((
        outcome(lambda: ray.get(a.pair.options(num_returns=2).remote(), timeout=30)),
        outcome(lambda: ray.get(a.three.remote(), timeout=30)),
        outcome(lambda: ray.get(a.pair.options(num_returns=1).remote(), timeout=30)),
        outcome(lambda: a.scalar.options(num_returns=0).remote()),
        outcome(lambda: ray.get(a.three.options(num_returns=2).remote(), timeout=30)),
        outcome(lambda: ray.get(a.scalar.options(num_returns=2).remote(), timeout=30)),
        outcome(lambda: a.pair.options(num_returns=-1).remote())))


def case_max_restarts():
    return outcome(lambda: ray.get(Probe.options(max_restarts=1).remote().pong.remote(), timeout=30))


def case_remote_function():
    return outcome(lambda: ray.get(ray.remote(lambda: 1).remote(), timeout=30))


def case_get_or_create(threads=10):
    import threading
    got, start = [], threading.Barrier(threads)

    def one():
        start.wait(timeout=60)
        got.append(outcome(lambda: Probe.options(name="sbs-goc", get_if_exists=True,
                                                 lifetime="detached").remote()._actor_id.hex()))
    workers = [threading.Thread(target=one) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
    ray.kill(ray.get_actor("sbs-goc"))
    return f"{len(set(got))} distinct of {len(got)}, errors: {[g for g in got if not g.startswith('ok')]}"


def case_get_if_exists_without_name():
    return " / ".join((outcome(lambda: Probe.options(get_if_exists=True)),
                       outcome(lambda: Probe.options(name="").remote())))


def _refusal(fn, words):
    """The exception class, and whether its message has Ray's words (beam may name the request before them)."""
    try:
        fn()
        return "accepted"
    except Exception as e:  # noqa: BLE001 - the outcome is the observation
        return f"{type(e).__name__} {'with' if words in str(e) else 'without'} Ray's words"


def case_node_labels():
    node_id = ray.get_runtime_context().get_node_id()
    labels = ray.get_runtime_context().get_node_labels()
    inside = ray.get(Probe.options(label_selector={"ray.io/node-id": node_id}).remote().labels.remote(), timeout=30)
    return f"driver {sorted(labels)} is own id {labels.get('ray.io/node-id') == node_id} / actor same {inside == labels}"


def case_label_selector_refused():
    return " / ".join((
        _refusal(lambda: Probe.options(label_selector={"zone": "-x"}).remote(), "Invalid label selector value `-x`"),
        _refusal(lambda: Probe.options(label_selector={"-k": "a"}).remote(), "Invalid label key name `-k`"),
        _refusal(lambda: Probe.options(label_selector={"zone": "in(a,b)", "ray.io/node-id": "!x"}).remote(), "")))


def case_bundle_label_selector():
    node_id = ray.get_runtime_context().get_node_id()
    pg = placement_group([{"CPU": 1}], bundle_label_selector=[{"ray.io/node-id": node_id}])
    placed = pg.wait(30)
    never = placement_group([{"CPU": 1}], bundle_label_selector=[{"zone": "nowhere"}])
    waits = not never.wait(1)
    from ray.util.placement_group import remove_placement_group
    for g in (pg, never):
        remove_placement_group(g)
    return " / ".join((f"placed {placed}", f"unmatched waits {waits}",
                       _refusal(lambda: placement_group([{"CPU": 1}], bundle_label_selector=[{}, {}]),
                                "The length of `bundle_label_selector` should equal the length of `bundles`."),
                       _refusal(lambda: placement_group([{"CPU": 1}], bundle_label_selector={"a": "b"}),
                                "Placement group bundle_label_selector must be a list, got <class 'dict'>.")))


EXPECTED = {
    "exit_sync": "ActorDiedError INTENDED_USER_EXIT / ActorDiedError INTENDED_USER_EXIT / atexit ran",
    "exit_caught": "ActorDiedError INTENDED_USER_EXIT / ActorDiedError INTENDED_USER_EXIT / atexit ran",
    "exit_async": "ActorDiedError INTENDED_USER_EXIT / ActorDiedError INTENDED_USER_EXIT / atexit ran",
    "exit_nested_task": "ActorDiedError INTENDED_USER_EXIT / ActorDiedError INTENDED_USER_EXIT / atexit ran",
    "ray_terminate": "ActorDiedError INTENDED_USER_EXIT / ActorDiedError INTENDED_USER_EXIT / atexit ran",
    "exit_in_constructor": "ActorDiedError INTENDED_USER_EXIT / atexit ran",
    "ray_kill": "ActorDiedError killed by ray.kill / atexit did not run",
    "returned_put_ref": "ObjectRef -> ok 5",
    "returned_ref_to_own_call": "ObjectRef -> ok 'pong'",
    "method_lookup": "ok 'method' / ok 7 / ok 'static'",
    "constructor_args": "TypeError: too many positional arguments / TypeError: got an unexpected keyword argument 'nope'",
    "remote_empty_parentheses": "AssertionError: The @ray.remote decorator must be applied either with no arguments and no parentheses",
    "reserved_bundle_name": "RaySystemError: System error: bundle is a system reserved resource, which is not allowed to be used in placement group.",
    "actor_class_inheritance": "ActorClassInheritanceException: Attempted to define subclass 'Derived' of actor class 'Probe'. Inheriting from actor classes is not currently supported. You can instead inherit from a non-actor base class and make the derived class an actor class (with @ray.remote).",
    "object_store_memory_deprecated": "DeprecationWarning: Setting 'object_store_memory' for actors / DeprecationWarning: Setting 'object_store_memory' for bundles",
    "num_returns": "ok [1, 2] / ok [1, 2, 3] / ok (1, 2) / ok None / RayTaskError(ValueError): ValueError: Task returned 3 objects, but num_returns=2. / RayTaskError(TypeError): TypeError: object of type 'int' has no len() / ValueError: num_returns must be >= 0, but got -1.",
    "max_restarts": "ok 'pong'",
    "remote_function": "ok 1",
    "get_or_create": "1 distinct of 10, errors: []",
    "get_if_exists_without_name": "ValueError: The actor name must be specified to use `get_if_exists`. / ValueError: Actor name cannot be an empty string.",
    "node_labels": "driver ['ray.io/node-id'] is own id True / actor same True",
    "label_selector_refused": "ValueError with Ray's words / ValueError with Ray's words / accepted",
    "bundle_label_selector": "placed True / unmatched waits True / ValueError with Ray's words / ValueError with Ray's words",
}
# Where beam differs on purpose (README, "Scope"): it refuses with its own error instead.
OUT_OF_SCOPE = {"max_restarts", "remote_function"}


def main(out_path):
    ray.init(num_cpus=4, include_dashboard=False)
    results = {}
    try:
        for name in EXPECTED:
            results[name] = globals()["case_" + name]()
    finally:
        ray.shutdown()
    with open(out_path, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
