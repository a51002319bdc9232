"""Driver for tests/vllm/test_vllm_placement.py: two vLLM instances on one beam cluster, each
inside a Ray actor that lives in one shared placement group, as RL frameworks run vLLM.

    python tests/vllm/vllm_in_pg.py --model-dir DIR

One placement group of 4 bundles {"GPU": 1, "CPU": 1} over the 2 hosts (2 declared GPUs
each). Per instance, one bundle on each host is picked from the group's table; an actor
(num_cpus=0, placed in the instance's first bundle) runs ``LLM(..., tensor_parallel_size=2,
distributed_executor_backend="ray")`` with ``VLLM_RAY_BUNDLE_INDICES`` naming its two
bundles. vLLM finds the group itself (``get_current_placement_group()`` in the actor, handed
to its EngineCore) and places its workers on those bundles. Prints ``@@GROUP``,
``@@INSTANCE {index, bundles, pg_in_actor, workers: [{node, gpus}], tokens}`` per instance,
then ``@@DONE``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import vllm_generate as vg  # noqa: E402


def emit(tag, obj=None):
    sys.stdout.write("@@" + tag + " " + json.dumps(obj, default=str) + "\n")
    sys.stdout.flush()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model-dir", required=True)
    args = ap.parse_args()
    import ray
    from ray.util.placement_group import placement_group, placement_group_table
    from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

    ray.init()
    pg = placement_group([{"GPU": 1, "CPU": 1}] * 4, strategy="SPREAD")
    ray.get(pg.ready(), timeout=60)
    by_node = {}
    for bundle, node in sorted(placement_group_table(pg)["bundles_to_node_id"].items()):
        by_node.setdefault(node, []).append(int(bundle))
    assert len(by_node) == 2 and all(len(b) == 2 for b in by_node.values()), by_node
    first, second = by_node.values()
    picks = [[first[0], second[0]], [first[1], second[1]]]  # disjoint; each spans both hosts
    emit("GROUP", {"id": pg.id.hex(), "bundles_by_node": by_node, "picks": picks})

    @ray.remote(num_cpus=0)
    class Instance:
        def start(self, model_dir):
            from vllm import LLM

            pg_here = ray.util.get_current_placement_group()
            self.llm = LLM(model=model_dir, load_format="dummy", skip_tokenizer_init=True,
                           tensor_parallel_size=2, distributed_executor_backend="ray",
                           dtype="float32", enforce_eager=True, max_model_len=256,
                           max_num_seqs=8, kv_cache_memory_bytes=64 << 20, seed=0)
            return None if pg_here is None else pg_here.id.hex()

        def workers(self):
            def where(_self=None):
                import ray as r

                return {"node": r.get_runtime_context().get_node_id(),
                        "gpus": [str(g) for g in r.get_gpu_ids()], "pid": os.getpid()}
            return self.llm.collective_rpc(where)

        def generate(self, prompts, max_tokens):
            from vllm import SamplingParams

            params = SamplingParams(temperature=0.0, max_tokens=max_tokens, ignore_eos=True,
                                    detokenize=False)
            outs = self.llm.generate([{"prompt_token_ids": p} for p in prompts], params,
                                     use_tqdm=False)
            return [list(o.outputs[0].token_ids) for o in outs]

    env = {k: os.environ[k] for k in ("VLLM_CPU_OMP_THREADS_BIND", "VLLM_CPU_CI_ENV",
                                       "BEAM_VLLM_RAY_DEVICE_KEY") if k in os.environ}
    actors = [Instance.options(
        scheduling_strategy=PlacementGroupSchedulingStrategy(
            placement_group=pg, placement_group_bundle_index=b[0]),
        # collective_rpc(<function>) below pickles the function (RL frameworks set this too)
        runtime_env={"env_vars": dict(env, VLLM_RAY_BUNDLE_INDICES=",".join(map(str, b)),
                                      VLLM_ALLOW_INSECURE_SERIALIZATION="1")},
    ).remote() for b in picks]
    pgs_seen = ray.get([a.start.remote(args.model_dir) for a in actors], timeout=900)
    for i, (actor, b) in enumerate(zip(actors, picks)):
        emit("INSTANCE", {"index": i, "bundles": b, "pg_in_actor": pgs_seen[i],
                          "workers": ray.get(actor.workers.remote(), timeout=120),
                          "tokens": ray.get(actor.generate.remote(vg.PROMPTS, 24), timeout=300)})
    for a in actors:
        ray.kill(a)
    emit("DONE")
    return 0


if __name__ == "__main__":
    sys.exit(main())
