#!/usr/bin/env python3
"""PyTorch peer for scripts/bench.sh: Hugging Face transformers' Qwen3 on the CPU, float32, the real
Qwen3-0.6B config, random weights; prefill N tokens, then decode M tokens one at a time with the KV
cache, as the Go engine's benchmark does. Prints a RESULT line that bench.sh reads.

    python scripts/bench_torch.py [--prefill 128] [--decode 64] [--threads N]
"""

import argparse
import os
import time

import torch
from transformers import DynamicCache, Qwen3Config, Qwen3ForCausalLM


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefill", type=int, default=128)
    ap.add_argument("--decode", type=int, default=64)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--attn", default="sdpa", help="attention implementation: sdpa (default) or eager")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    cfg = Qwen3Config(vocab_size=151936, hidden_size=1024, intermediate_size=3072, num_hidden_layers=28,
                      num_attention_heads=16, num_key_value_heads=8, head_dim=128, max_position_embeddings=40960,
                      rope_theta=1e6, rms_norm_eps=1e-6, tie_word_embeddings=True, attn_implementation=args.attn)
    model = Qwen3ForCausalLM(cfg).to(torch.float32).eval()  # random weights (transformers' init)
    prompt = torch.randint(0, 150000, (1, args.prefill))
    with torch.inference_mode():
        model(prompt[:, :8])  # warm-up
        cache = DynamicCache(config=cfg)
        t0 = time.perf_counter()
        out = model(prompt, past_key_values=cache, use_cache=True, logits_to_keep=1)
        prefill = time.perf_counter() - t0
        t0 = time.perf_counter()
        for i in range(args.decode):
            out = model(prompt[:, i % args.prefill:i % args.prefill + 1], past_key_values=cache, use_cache=True)
        decode = time.perf_counter() - t0
    print(f"torch {torch.__version__}, {args.threads} threads, {args.attn} attention, float32")
    print(f"prefill     {args.prefill} tokens in {prefill:.2f} s = {args.prefill / prefill:.2f} tok/s")
    print(f"decode      {args.decode} tokens in {decode:.2f} s = {args.decode / decode:.2f} tok/s")
    print(f"RESULT type=torch-F32 prefill_tps={args.prefill / prefill:.3f} decode_tps={args.decode / decode:.3f}")


if __name__ == "__main__":
    main()
