#!/usr/bin/env python3
"""PyTorch peer for scripts/bench.sh: Hugging Face transformers' Qwen3 on the CPU, float32, the real
Qwen3-0.6B config, random weights; prompts of several lengths from an empty cache, then decoding with
the KV cache at several depths, as the Go engine's bench does. Prints RESULT lines that
scripts/bench/compare reads.

    python scripts/bench_torch.py [--prefill 128,512,2048] [--decode 64] [--depth 0,2048] [--threads N]
"""

import argparse
import os
import time

import torch
from transformers import DynamicCache, Qwen3Config, Qwen3ForCausalLM


def ints(s: str) -> list[int]:
    return [int(v) for v in s.split(",") if v.strip()]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefill", default="128")
    ap.add_argument("--decode", type=int, default=64)
    ap.add_argument("--depth", default="0")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--attn", default="sdpa", help="attention implementation: sdpa (default) or eager")
    args = ap.parse_args()
    prefills, depths = ints(args.prefill), ints(args.depth)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    cfg = Qwen3Config(vocab_size=151936, hidden_size=1024, intermediate_size=3072, num_hidden_layers=28,
                      num_attention_heads=16, num_key_value_heads=8, head_dim=128, max_position_embeddings=40960,
                      rope_theta=1e6, rms_norm_eps=1e-6, tie_word_embeddings=True, attn_implementation=args.attn)
    model = Qwen3ForCausalLM(cfg).to(torch.float32).eval()  # random weights (transformers' init)
    longest = max(prefills + [d + args.decode + 1 for d in depths])
    prompt = torch.randint(0, 150000, (1, longest))
    print(f"torch {torch.__version__}, {args.threads} threads, {args.attn} attention, float32")

    def result(test: str, tokens: int, depth: int, seconds: float) -> None:
        print(f"{test:7s}     {tokens} tokens at depth {depth} in {seconds:.2f} s = {tokens / seconds:.2f} tok/s")
        print(f"RESULT test={test} tokens={tokens} depth={depth} tok_s={tokens / seconds:.3f}")

    with torch.inference_mode():
        model(prompt[:, :8])  # warm-up
        for n in prefills:
            cache = DynamicCache(config=cfg)
            t0 = time.perf_counter()
            model(prompt[:, :n], past_key_values=cache, use_cache=True, logits_to_keep=1)
            result("prefill", n, 0, time.perf_counter() - t0)
        for d in depths:
            if args.decode == 0:
                break
            cache = DynamicCache(config=cfg)
            if d > 0:
                model(prompt[:, :d], past_key_values=cache, use_cache=True, logits_to_keep=1)
            t0 = time.perf_counter()
            for i in range(args.decode):
                model(prompt[:, d + i:d + i + 1], past_key_values=cache, use_cache=True)
            result("decode", args.decode, d, time.perf_counter() - t0)


if __name__ == "__main__":
    main()
