"""Argument checks of the public API that Ray makes before touching the cluster."""

import json

import pytest

from _paths import SHAPES
import ray
from ray._beam.api import options
from ray._beam.api.objects import ObjectRef
from ray.util.placement_group import placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy
from ray._version import RAY as RAY_VERSION

with open(SHAPES) as f:
    SHAPE = json.load(f)


def test_get_rejects_non_refs_like_ray():
    with pytest.raises(ValueError) as e:
        ray.get("notaref")
    assert str(e.value) == SHAPE["get non-ref: str"]
    assert [c.__name__ for c in type(e.value).__mro__] == SHAPE["get non-ref: types"]


def test_wait_checks():
    ref = ObjectRef("00" * 28)
    with pytest.raises(TypeError, match="single ray.ObjectRef"):
        ray.wait(ref)
    with pytest.raises(TypeError, match="got <class 'tuple'>"):
        ray.wait((ref,))
    with pytest.raises(TypeError, match="list containing <class 'int'>"):
        ray.wait([1])
    with pytest.raises(ValueError, match="nonnegative"):
        ray.wait([ref], timeout=-1)
    with pytest.raises(ValueError, match="unique"):
        ray.wait([ref, ObjectRef("00" * 28)])
    with pytest.raises(ValueError, match="num_returns cannot be greater"):
        ray.wait([ref], num_returns=2)
    with pytest.raises(ValueError, match="Invalid number of objects"):
        ray.wait([ref], num_returns=0)
    assert ray.wait([]) == ([], [])


def test_put_rejects_refs():
    with pytest.raises(TypeError, match="Calling 'put' on an ray.ObjectRef"):
        ray.put(ObjectRef("00" * 28))


@pytest.mark.parametrize("bundles,match", [
    ({"GPU": 1}, "must be a list"),
    ([], "non-empty list"),
    (["GPU"], "resource dictionaries"),
    ([{"GPU": "1"}], "resource dictionaries"),
    ([{}], "cannot be an empty dictionary"),
    ([{"GPU": 0}], "only 0 values"),
    ([{"GPU": -1}], "non-negative"),
])
def test_placement_group_bundle_checks(bundles, match):
    with pytest.raises(ValueError, match=match):
        placement_group(bundles)


def test_placement_group_strategy_and_lifetime_checks():
    with pytest.raises(ValueError, match="Invalid placement group strategy"):
        placement_group([{"GPU": 1}], strategy="TIGHT")
    with pytest.raises(ValueError, match="lifetime"):
        placement_group([{"GPU": 1}], lifetime="forever")


def test_remote_options_checks():
    class A:
        def m(self):
            return 1

        async def n(self):
            return 2

    with pytest.raises(ValueError, match="Invalid option keyword bogus for actors"):
        ray.remote(bogus=1)(A)
    with pytest.raises(ValueError, match="Invalid option keyword"):
        ray.remote(A).options(bogus=1)
    cls = ray.remote(num_cpus=0, max_concurrency=1)(A)
    cls.options(num_gpus=0.5, enable_tensor_transport=True, max_restarts=0,
                runtime_env={"env_vars": {"K": "V"}}, name="x", namespace="n")
    with pytest.raises(TypeError, match="cannot be instantiated directly"):
        cls()
    with pytest.raises(ValueError):
        ray.remote(A).options(num_gpus=-1)
    with pytest.raises(ValueError, match="num_gpus"):
        ray.remote(A).options(resources={"GPU": 1})
    assert options.is_async_class(A)
    assert {"m", "n", "__ray_ready__"} <= set(options.class_methods(A))


def test_remote_function_is_rejected_clearly():
    def f():
        return 1
    with pytest.raises(TypeError, match="actors only"):
        ray.remote(f)
    with pytest.raises(TypeError, match="actors only"):
        ray.remote(num_cpus=1)(f)


def test_wire_options_from_pg_strategy():
    from ray._beam.api.ids import PlacementGroupID
    from ray._beam.api.pgs import PlacementGroup

    class W:
        def run(self):
            pass
    pg = PlacementGroup(PlacementGroupID("ab" * 18), [{"GPU": 1.0}])
    wire = options.wire_options(
        {"num_cpus": 0, "num_gpus": 1, "scheduling_strategy":
         PlacementGroupSchedulingStrategy(placement_group=pg, placement_group_bundle_index=0),
         "runtime_env": {"env_vars": {"A": "1"}}},
        W, {"env_vars": {"B": "2"}})
    assert wire["pg_id"] == "ab" * 18 and wire["bundle_index"] == 0
    assert wire["num_gpus"] == 1.0 and wire["num_cpus"] == 0.0
    assert wire["env_vars"] == {"A": "1", "B": "2"}
    assert wire["max_concurrency"] == 1 and wire["is_async"] is False
    assert "run" in wire["methods"]


def test_dag_is_unsupported():
    from ray.dag import InputNode
    with pytest.raises(NotImplementedError, match="compiled graphs are not supported by beam"):
        InputNode()
    import importlib.util
    assert importlib.util.find_spec("ray.experimental") is None


def test_runtime_env():
    from ray.runtime_env import RuntimeEnv
    env = RuntimeEnv(env_vars={"A": "1"})
    assert env.to_dict() == {"env_vars": {"A": "1"}} and env.env_vars() == {"A": "1"}
    assert isinstance(env, dict)


def test_metrics_check_arguments_like_ray():
    from ray.util import metrics
    metrics.Counter("c", description="d", tag_keys=("a",)).inc(1, tags={"a": "x"})
    metrics.Gauge("g", tag_keys=("a",)).set_default_tags({"a": "b"}).set(3)
    metrics.Histogram("h", boundaries=[1.0, 2.0]).observe(1.5)
    with pytest.raises(ValueError):
        metrics.Histogram("h")


def test_version_metadata():
    import importlib.metadata
    assert ray.__version__ == RAY_VERSION == importlib.metadata.version("ray")
