#!/usr/bin/env python3
"""Write a synthetic Qwen3-0.6B: the real shapes and file layouts, random weights.

The real weights cannot be downloaded on the course's build machines, but load paths, memory use and speed must be
measured at the real size. This script writes, to a directory outside git (default: $QWEN3_SYNTH or /tmp/qwen3-synth):

    qwen3-0.6b-f32.gguf    all 2-D tensors F32   (~2.4 GB)
    qwen3-0.6b-bf16.gguf   all 2-D tensors BF16  (~1.2 GB)
    qwen3-0.6b-q8_0.gguf   all 2-D tensors Q8_0  (~0.64 GB), like the official Qwen3-0.6B-Q8_0.gguf
    hf/                    config.json, generation_config.json, model.safetensors (BF16, 311 tensors, lm_head stored too),
                           tokenizer.json, tokenizer_config.json

The GGUF files carry the real tokenizer and no output.weight (tied head), as llama.cpp writes them. 1-D tensors are F32.
Usage: python scripts/make_synthetic.py [--out DIR] [--only f32,bf16,q8_0,hf]
Needs the packages of scripts/requirements.txt and reference/ (for the tokenizer files).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_reference as mr  # noqa: E402  (names, vocabulary conversion and config writing are shared)

import gguf  # noqa: E402

REAL = dict(
    vocab_size=151936,
    hidden_size=1024,
    intermediate_size=3072,
    num_hidden_layers=28,
    num_attention_heads=16,
    num_key_value_heads=8,
    head_dim=128,
    max_position_embeddings=40960,
    rope_theta=1000000.0,
    rms_norm_eps=1e-6,
    tie_word_embeddings=True,
    bos_token_id=151643,
    eos_token_id=151645,
)


def hf_shapes(c: dict) -> list[tuple[str, tuple[int, ...]]]:
    """Qwen3's tensors in HF names and numpy shapes [out, in]."""
    h, q, kv, ff = c["hidden_size"], c["num_attention_heads"] * c["head_dim"], c["num_key_value_heads"] * c["head_dim"], c["intermediate_size"]
    out = [("model.embed_tokens.weight", (c["vocab_size"], h))]
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        out += [
            (p + "input_layernorm.weight", (h,)),
            (p + "self_attn.q_proj.weight", (q, h)),
            (p + "self_attn.k_proj.weight", (kv, h)),
            (p + "self_attn.v_proj.weight", (kv, h)),
            (p + "self_attn.o_proj.weight", (h, q)),
            (p + "self_attn.q_norm.weight", (c["head_dim"],)),
            (p + "self_attn.k_norm.weight", (c["head_dim"],)),
            (p + "post_attention_layernorm.weight", (h,)),
            (p + "mlp.gate_proj.weight", (ff, h)),
            (p + "mlp.up_proj.weight", (ff, h)),
            (p + "mlp.down_proj.weight", (h, ff)),
        ]
    out.append(("model.norm.weight", (h,)))
    return out


def tensor(name: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """A deterministic random tensor: norms near 1, matrices N(0, 0.02^2), each from its own seed."""
    rng = np.random.default_rng(seed)
    if len(shape) == 1:
        return (0.8 + 0.4 * rng.random(shape, dtype=np.float32)).astype(np.float32)
    return (rng.standard_normal(shape, dtype=np.float32) * 0.02).astype(np.float32)


def bf16_round(x: np.ndarray) -> np.ndarray:
    """Round float32 to the nearest BF16 (ties to even) and back, so every file holds the same values."""
    u = x.view(np.uint32)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    return u.view(np.float32)


def write_gguf(path: Path, qtype: gguf.GGMLQuantizationType, shapes, tok_dir: Path) -> None:
    tok_json = json.loads((tok_dir / "tokenizer.json").read_text(encoding="utf-8"))
    tok_cfg = json.loads((tok_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    file_type = {gguf.GGMLQuantizationType.F32: gguf.LlamaFileType.ALL_F32,
                 gguf.GGMLQuantizationType.BF16: gguf.LlamaFileType.MOSTLY_BF16,
                 gguf.GGMLQuantizationType.Q8_0: gguf.LlamaFileType.MOSTLY_Q8_0}[qtype]
    w = gguf.GGUFWriter(str(path), arch="qwen3")
    w.add_type("model")
    w.add_name("Synthetic Qwen3-0.6B (random weights)")
    w.add_block_count(REAL["num_hidden_layers"])
    w.add_context_length(REAL["max_position_embeddings"])
    w.add_embedding_length(REAL["hidden_size"])
    w.add_feed_forward_length(REAL["intermediate_size"])
    w.add_head_count(REAL["num_attention_heads"])
    w.add_head_count_kv(REAL["num_key_value_heads"])
    w.add_rope_freq_base(REAL["rope_theta"])
    w.add_layer_norm_rms_eps(REAL["rms_norm_eps"])
    w.add_key_length(REAL["head_dim"])
    w.add_value_length(REAL["head_dim"])
    w.add_file_type(file_type)
    w.add_quantization_version(gguf.GGML_QUANT_VERSION)
    tokens, types, merges = mr.gguf_vocab(tok_json, REAL["vocab_size"])
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_eos_token_id(151645)
    w.add_pad_token_id(151643)
    w.add_bos_token_id(151643)
    w.add_add_bos_token(False)
    w.add_chat_template(tok_cfg["chat_template"])
    for seed, (name, shape) in enumerate(shapes):
        data = bf16_round(tensor(name, shape, seed))
        gname = mr.hf_to_gguf_name(name)
        if data.ndim == 1 or qtype == gguf.GGMLQuantizationType.F32:
            w.add_tensor(gname, data)
        else:
            w.add_tensor(gname, gguf.quants.quantize(data, qtype), raw_dtype=qtype)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def write_hf(out: Path, shapes, tok_dir: Path) -> None:
    import torch
    from safetensors.torch import save_file

    mr.write_hf_config(out, REAL)
    tensors = {}
    for seed, (name, shape) in enumerate(shapes):
        tensors[name] = torch.from_numpy(bf16_round(tensor(name, shape, seed))).to(torch.bfloat16)
    tensors["lm_head.weight"] = tensors["model.embed_tokens.weight"].clone()  # the real file stores it too
    save_file(dict(sorted(tensors.items())), str(out / "model.safetensors"), metadata={"format": "pt"})
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (out / name).write_bytes((tok_dir / name).read_bytes())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.environ.get("QWEN3_SYNTH", "/tmp/qwen3-synth"))
    ap.add_argument("--only", default="f32,bf16,q8_0,hf")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tok_dir = mr.HF_DIR
    shapes = hf_shapes(REAL)
    n = sum(int(np.prod(s)) for _, s in shapes)
    print(f"{len(shapes)} tensors, {n:,} parameters (tied embedding counted once)")
    assert n == 596_049_920, n
    Q = gguf.GGMLQuantizationType
    for kind in args.only.split(","):
        t0 = time.time()
        if kind == "hf":
            write_hf(out / "hf", shapes, tok_dir)
            path = out / "hf" / "model.safetensors"
        else:
            qtype = {"f32": Q.F32, "bf16": Q.BF16, "q8_0": Q.Q8_0}[kind]
            path = out / f"qwen3-0.6b-{kind}.gguf"
            write_gguf(path, qtype, shapes, tok_dir)
        print(f"{path}: {path.stat().st_size:,} bytes in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
