"""Driver for tests/vllm/test_vllm_cpu.py: real vLLM (CPU build) generating greedy tokens
from a tiny Llama with dummy weights, on the Ray executor (beam) or the mp executor.

    python tests/vllm/vllm_generate.py --backend ray --model-dir DIR [--hold] [--tp N --pp M]

Writes DIR/config.json (a 2-layer Llama small enough for a 2-core machine) if missing,
then ``LLM(model=DIR, load_format="dummy", skip_tokenizer_init=True,
tensor_parallel_size=2, distributed_executor_backend=BACKEND)`` (or --tp / --pp) and generates from
``prompt_token_ids``. Prints ``@@TOKENS [[...], ...]`` (one list per prompt). With
``--hold`` it then keeps generating until vLLM raises, printing ``@@HOLDING`` once the loop
runs and ``@@RAISED {type, message, at}`` (wall-clock time) when it does.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 256,
    "intermediate_size": 512,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 64,
    "vocab_size": 512,
    "max_position_embeddings": 512,
    "rms_norm_eps": 1e-5,
    "rope_theta": 10000.0,
    "hidden_act": "silu",
    "tie_word_embeddings": False,
    "torch_dtype": "float32",
    "bos_token_id": 1,
    "eos_token_id": 2,
}
PROMPTS = [[1, 17, 42, 99, 7, 300], [1, 5, 6, 7], [1, 250, 251, 252, 253, 254, 255, 256]]


def emit(tag, obj=None):
    sys.stdout.write("@@" + tag + " " + json.dumps(obj, default=str) + "\n")
    sys.stdout.flush()


def write_model(model_dir):
    os.makedirs(model_dir, exist_ok=True)
    path = os.path.join(model_dir, "config.json")
    if not os.path.exists(path):
        with open(path, "w") as f:
            json.dump(CONFIG, f, indent=1)
    return model_dir


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", choices=("ray", "mp"), required=True)
    ap.add_argument("--model-dir", required=True)
    ap.add_argument("--max-tokens", type=int, default=24)
    ap.add_argument("--tp", type=int, default=2, help="tensor_parallel_size")
    ap.add_argument("--pp", type=int, default=1, help="pipeline_parallel_size")
    ap.add_argument("--hold", action="store_true")
    args = ap.parse_args()

    from vllm import LLM, SamplingParams

    t0 = time.time()
    llm = LLM(model=write_model(args.model_dir), load_format="dummy", skip_tokenizer_init=True,
              tensor_parallel_size=args.tp, pipeline_parallel_size=args.pp,
              distributed_executor_backend=args.backend,
              dtype="float32", enforce_eager=True, max_model_len=256, max_num_seqs=8,
              kv_cache_memory_bytes=64 << 20, seed=0)
    emit("READY", {"startup_s": round(time.time() - t0, 2)})
    params = SamplingParams(temperature=0.0, max_tokens=args.max_tokens, ignore_eos=True,
                            detokenize=False)
    prompts = [{"prompt_token_ids": p} for p in PROMPTS]
    outs = llm.generate(prompts, params, use_tqdm=False)
    emit("TOKENS", [list(o.outputs[0].token_ids) for o in outs])
    if not args.hold:
        return 0
    emit("HOLDING", {"pid": os.getpid()})
    long = SamplingParams(temperature=0.0, max_tokens=200, ignore_eos=True, detokenize=False)
    steps = 0
    try:
        while True:
            llm.generate(prompts, long, use_tqdm=False)
            steps += 1
    except BaseException as e:  # noqa: BLE001
        emit("RAISED", {"type": type(e).__name__, "mro": [c.__name__ for c in type(e).__mro__],
                        "message": str(e)[:500], "at": time.time(), "rounds": steps})
        return 3


if __name__ == "__main__":
    sys.exit(main())
