#!/usr/bin/env python3
"""Train the course's tiny Qwen3 on the Go standard library's source, so that it has learned something to show.

The reference model (reference/tiny-qwen3/, reference/tiny-qwen3.gguf) is a Qwen3ForCausalLM with the Qwen3 features
that matter (grouped-query attention, QK-norm, head_dim != hidden/heads, a tied LM head, rope_theta 1e6, eps 1e-6, the
real 151,936-token vocabulary), small enough for the repository: its shape is make_reference.py's TINY. This script
trains it with transformers + torch on a corpus every machine can get offline-safe and check:

  Corpus. `go mod download -json golang.org/toolchain@v0.0.1-go1.26.8.linux-amd64` gives Go 1.26.8's release as a
  module zip whose checksum the go command verifies (GO_TOOLCHAIN_SUM below). From its src/ tree we take the non-test
  .go files of the standard library a Go programmer imports: not cmd/ (the toolchain), runtime/, syscall/ or simd/
  (low-level, per-OS and per-CPU code), nothing under an internal/, vendor/ or testdata/ directory, and no generated
  file (a line `// Code generated ... DO NOT EDIT.`). Files are held out for validation by a hash of their path (1 in
  HOLDOUT_EVERY). The selected text has a pinned sha256 (CORPUS_SHA256): another Go release or another rule is refused.

  Vocabulary. The LM head over 151,936 tokens costs about 7x the rest of a step at hidden 64, so training uses a compact
  vocabulary: the ids that occur in the training split (about 25,000), plus one "other" row shared by every other id.
  In the training softmax the "other" logit gets + log(number of other ids): that is exactly the softmax of the full
  model in which every out-of-corpus id has the "other" row as its embedding (N equal terms exp(l) sum to
  exp(l + log N)). So the compact loss IS the full-vocabulary loss, and the saved model is that full model: every
  out-of-corpus row of the embedding is the shared row. Without the trick a never-seen row would stay at its initial
  value (or at zero), and a tied head gives such a row a logit near 0, not -inf: 126,000 of them would take a large
  share of the probability. After training the script checks both claims on the held-out split: the full model's loss
  equals the compact one's, and the probability it puts outside the corpus' vocabulary is under 1%.

  Training. AdamW (3e-3, betas 0.9/0.95, weight decay 0.1 on matrices), linear warm-up then cosine decay to a tenth,
  STEPS steps of BATCH sequences of SEQ tokens cut from the shuffled training files (each file ends with
  <|endoftext|>, Qwen's document separator). Seeds are fixed; torch runs deterministic algorithms on --threads threads
  (default one: two were no faster on this model, whose steps are mostly passes over 2,048 x 25,868 logits, and two
  threads slow down threefold when another program keeps a core busy). Another thread count or CPU can round
  differently in the last bits, and the run then drifts apart.

Run it from the repository root with the pinned packages of scripts/requirements.txt (about an hour on a quiet core):
    .venv/bin/python scripts/train_tiny.py
It writes .cache/tiny-go/ (model.safetensors: the full-vocabulary model in BF16, as make_reference.py reads it;
train.json: what was done and measured) and notebooks/data/tiny_training.json (the loss curve the notebooks draw).
Then `.venv/bin/python scripts/make_reference.py` exports it into reference/.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_reference as mr  # noqa: E402  (TINY, the tokenizer's hash, bf16: one place for each)

from tokenizers import Tokenizer  # noqa: E402
from transformers import Qwen3Config, Qwen3ForCausalLM  # noqa: E402

ROOT = mr.ROOT
GO_TOOLCHAIN = "golang.org/toolchain@v0.0.1-go1.26.8.linux-amd64"
GO_TOOLCHAIN_SUM = "h1:ZOmGe1OnfREDMIdb1Qi4G9JSuDPBLGExZMQ4nis1RXM="
SRC_PREFIX = GO_TOOLCHAIN + "/src/"
SKIP_TOP = {"cmd", "runtime", "syscall", "simd"}
SKIP_DIRS = {"internal", "vendor", "testdata"}
GENERATED = re.compile(rb"^// Code generated .* DO NOT EDIT\.$", re.M)
HOLDOUT_EVERY = 20
CORPUS_SHA256 = "50ffa019b3cca73e60fd67a8891f47b5219f7ea4830cc997762906b1b0da2257"

SEED = 20251125
STEPS = 1200
BATCH = 8
SEQ = 256
LR = 3e-3
WARMUP = 100
EVAL_EVERY = 100
EVAL_SEQS = 48  # held-out sequences scored at each point of the curve (12,288 tokens)
ENDOFTEXT = 151643

OUT = ROOT / ".cache" / "tiny-go"
CURVE = ROOT / "notebooks" / "data" / "tiny_training.json"


# ---------------------------------------------------------------------------------------------------------------------
# the corpus


def toolchain_zip() -> Path:
    """The Go release's module zip, downloaded (or found in the module cache) and checked by the go command."""
    with tempfile.TemporaryDirectory() as tmp:  # outside any module, so no go.mod is consulted or changed
        out = subprocess.run(["go", "mod", "download", "-json", GO_TOOLCHAIN], cwd=tmp, check=True,
                             capture_output=True, text=True, env={**os.environ, "GOFLAGS": ""}).stdout
    info = json.loads(out)
    if info.get("Error"):
        sys.exit(f"go mod download {GO_TOOLCHAIN}: {info['Error']}")
    if info["Sum"] != GO_TOOLCHAIN_SUM:
        sys.exit(f"{GO_TOOLCHAIN}: checksum {info['Sum']}, want {GO_TOOLCHAIN_SUM}")
    return Path(info["Zip"])


def select(rel: str, data: bytes) -> bool:
    """The rule that picks the corpus' files from src/ (see the module doc)."""
    parts = rel.split("/")
    return (rel.endswith(".go") and not rel.endswith("_test.go") and parts[0] not in SKIP_TOP
            and not SKIP_DIRS.intersection(parts[:-1]) and not GENERATED.search(data))


def held_out(rel: str) -> bool:
    return int(hashlib.sha256(rel.encode()).hexdigest()[:8], 16) % HOLDOUT_EVERY == 0


def corpus(zip_path: Path) -> tuple[list[tuple[str, str]], str]:
    """The selected files as (path under src/, text), sorted by path, and the sha256 of path NUL text NUL ... ."""
    files, h = [], hashlib.sha256()
    with zipfile.ZipFile(zip_path) as z:
        for name in sorted(z.namelist()):
            if not name.startswith(SRC_PREFIX):
                continue
            rel = name[len(SRC_PREFIX):]
            if not rel.endswith(".go"):
                continue
            data = z.read(name)
            if select(rel, data):
                files.append((rel, data.decode("utf-8")))
                h.update(rel.encode() + b"\0" + data + b"\0")
    return files, h.hexdigest()


# ---------------------------------------------------------------------------------------------------------------------
# the compact vocabulary


class Vocab:
    """The ids that occur in the corpus (training and held-out files), renumbered 0..n-1, and row n for every other
    id. Held-out ids that the training split lacks get rows of their own, which training only ever pushes down (they
    are never a target there), as it pushes down the shared row."""

    def __init__(self, corpus_ids: np.ndarray, full_size: int):
        self.ids = np.unique(corpus_ids)  # compact row r is real id self.ids[r]
        self.other = len(self.ids)  # the shared row
        self.n_other = full_size - len(self.ids)  # how many real ids share it
        self.to_compact = np.full(full_size, self.other, dtype=np.int64)
        self.to_compact[self.ids] = np.arange(len(self.ids))
        self.log_n_other = math.log(self.n_other)  # added to the shared row's logit


def compact_loss(model: Qwen3ForCausalLM, vocab: Vocab, x: torch.Tensor) -> torch.Tensor:
    """Mean next-token cross-entropy (nats) of compact-id sequences x (batch, seq+1), which is the full model's.

    The shared row's logit gets + log(n_other), so its softmax probability is that of the whole class of other ids; a
    target in that class (held-out text only: every training id has its own row) is one id of n_other equally likely
    ones, so its loss is the class's plus log(n_other)."""
    h = model.model(input_ids=x[:, :-1]).last_hidden_state
    logits = h @ model.model.embed_tokens.weight.T
    logits[..., vocab.other] += vocab.log_n_other  # in place: a pass over 2048 x 25,868 logits costs 5% of a step
    y = x[:, 1:].reshape(-1)
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y, reduction="none")
    return (loss + (y == vocab.other) * vocab.log_n_other).mean()


def chunks(stream: np.ndarray, seq: int, offset: int = 0) -> np.ndarray:
    """Non-overlapping windows of seq+1 tokens (inputs and next-token targets), starting at offset."""
    n = (len(stream) - offset - 1) // seq
    idx = offset + np.arange(n)[:, None] * seq + np.arange(seq + 1)[None, :]
    return stream[idx]


# ---------------------------------------------------------------------------------------------------------------------
# after training: the full-vocabulary model


def expand(compact: Qwen3ForCausalLM, vocab: Vocab) -> Qwen3ForCausalLM:
    """The full-vocabulary model of TINY's shape: the compact rows at their real ids, the shared row everywhere else.
    Every weight is rounded to BF16 first (the checkpoint's dtype)."""
    cfg = Qwen3Config(**mr.TINY, attention_bias=False, use_sliding_window=False, attn_implementation="eager")
    full = Qwen3ForCausalLM(cfg).eval()
    state = {k: mr.bf16(v) for k, v in compact.state_dict().items() if k != "lm_head.weight"}
    emb = state.pop("model.embed_tokens.weight")
    big = emb[vocab.other].repeat(cfg.vocab_size, 1)
    big[torch.from_numpy(vocab.ids)] = emb[: vocab.other]
    state["model.embed_tokens.weight"] = big
    missing, unexpected = full.load_state_dict(state, strict=False)
    assert set(missing) <= {"lm_head.weight"} and not unexpected, (missing, unexpected)
    full.tie_weights()
    assert full.lm_head.weight.data_ptr() == full.model.embed_tokens.weight.data_ptr()
    return full


UNSEEN_TARGET = 1e-3  # the mean probability left on never-seen ids, on training text, after suppress_unseen


def suppress_unseen(full: Qwen3ForCausalLM, vocab: Vocab, seqs: np.ndarray) -> float:
    """Move the shared row (every never-seen id's embedding, hence its tied head row) so that, on average over the
    training sequences seqs, at most UNSEEN_TARGET of the probability stays on the never-seen ids: a few hundred
    Adam steps on the row alone, minimizing the mean of -log(1 - p_unseen) over those positions (convex in the row).

    Why: training never has a never-seen id as its target, so it pushes the shared row's logit down, but slowly, and
    after an hour the model still put about 1.2% of its probability on those 125,742 ids on held-out text (their
    logit carries + log 125,742 = 11.7). Only never-seen ids move: the corpus' rows and every other weight stay as
    trained, so on text of the corpus the loss can only fall (the probability taken from the never-seen ids goes to
    the others in proportion). The row is also those ids' input embedding; they never occur in Go code. Calibrated on
    training text only; the held-out split measures the result. Returns how far the row moved (Euclidean)."""
    emb = full.model.embed_tokens.weight
    seen = torch.from_numpy(vocab.ids)
    unseen = torch.ones(emb.shape[0], dtype=torch.bool)
    unseen[seen] = False
    with torch.no_grad():
        h = torch.cat([full.model(input_ids=torch.from_numpy(q[None, :-1])).last_hidden_state[0] for q in seqs])
        e0 = emb[unseen.nonzero()[0, 0]].clone()
        shift = math.log(int(unseen.sum())) - torch.logsumexp(h @ emb[seen].T, dim=-1)
    e = e0.clone().requires_grad_(True)
    opt = torch.optim.Adam([e], lr=0.05)
    for _ in range(2000):
        z = h @ e + shift  # p_unseen = sigmoid(z)
        if float(torch.sigmoid(z.detach()).mean()) <= UNSEEN_TARGET:
            break
        opt.zero_grad()
        torch.nn.functional.softplus(z).mean().backward()
        opt.step()
    with torch.no_grad():
        emb[unseen] = mr.bf16(e.detach())
    return float((e.detach() - e0).norm())


@torch.no_grad()
def full_eval(full: Qwen3ForCausalLM, vocab: Vocab, seqs: np.ndarray) -> tuple[float, float, float]:
    """On real-id sequences: the mean loss, the mean probability mass outside the corpus' vocabulary, its maximum."""
    outside = torch.ones(full.config.vocab_size, dtype=torch.bool)
    outside[torch.from_numpy(vocab.ids)] = False
    total, mass, worst, n = 0.0, 0.0, 0.0, 0
    for seq in seqs:  # one sequence at a time: 256 x 151,936 logits
        x = torch.from_numpy(seq)[None]
        logp = torch.log_softmax(full(input_ids=x[:, :-1]).logits[0], dim=-1)
        total += -logp.gather(-1, x[0, 1:, None]).sum().item()
        out = logp[:, outside].exp().sum(-1)
        mass += out.sum().item()
        worst = max(worst, out.max().item())
        n += x.shape[1] - 1
    return total / n, mass / n, worst


@torch.no_grad()
def mean_loss(model: Qwen3ForCausalLM, vocab: Vocab, seqs: np.ndarray) -> float:
    losses = [compact_loss(model, vocab, torch.from_numpy(seqs[i: i + BATCH])).item() * len(seqs[i: i + BATCH])
              for i in range(0, len(seqs), BATCH)]
    return sum(losses) / len(seqs)


def save_bf16(full: Qwen3ForCausalLM, path: Path) -> None:
    """The full model's weights in BF16, the tied head stored once as model.embed_tokens.weight."""
    from safetensors.torch import save_file

    tensors = {k: v.to(torch.bfloat16).contiguous() for k, v in full.state_dict().items() if k != "lm_head.weight"}
    save_file(dict(sorted(tensors.items())), str(path), metadata={"format": "pt"})


# ---------------------------------------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=STEPS, help="optimizer steps (default %(default)s)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (default %(default)s: on this model two threads were no faster, and one thread does not collapse when the other core is busy)")
    ap.add_argument("--out", type=Path, default=OUT, help="where the trained model goes (default .cache/tiny-go)")
    ap.add_argument("--curve", type=Path, default=CURVE, help="the loss curve's JSON (default %(default)s)")
    ap.add_argument("--finish", action="store_true", help="skip training: apply suppress_unseen and the checks to the model already in --out (a run that stopped at the unseen-mass check before that step existed)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)  # make_reference set 1 for its own reproducibility
    torch.use_deterministic_algorithms(True)

    zip_path = toolchain_zip()
    files, digest = corpus(zip_path)
    if digest != CORPUS_SHA256:
        sys.exit(f"corpus: sha256 {digest}, want {CORPUS_SHA256} ({len(files)} files): another Go release or rule?")
    tok_path = mr.HF_DIR / "tokenizer.json"
    if mr.sha256(tok_path) != mr.TOKENIZER_SHA256:
        sys.exit(f"{tok_path}: not Qwen's tokenizer.json (sha256 differs from {mr.TOKENIZER_SHA256})")
    tok = Tokenizer.from_file(str(tok_path))

    rng = np.random.default_rng(SEED)
    order = rng.permutation(len(files))  # the training stream visits files in a seeded order
    train_files = [files[i] for i in order if not held_out(files[i][0])]
    val_files = [f for f in files if held_out(f[0])]

    def stream(fs):
        enc = tok.encode_batch([text for _, text in fs], add_special_tokens=False)
        return np.concatenate([np.append(np.array(e.ids, dtype=np.int64), ENDOFTEXT) for e in enc])

    train, val = stream(train_files), stream(val_files)
    vocab = Vocab(np.concatenate([train, val]), mr.TINY["vocab_size"])
    train_c, val_c = vocab.to_compact[train], vocab.to_compact[val]
    val_seqs_c = chunks(val_c, SEQ)
    val_seqs = chunks(val, SEQ)
    unseen = float((~np.isin(val, np.unique(train))).mean())
    print(f"corpus: {len(files)} files, {sum(len(t) for _, t in files) / 1e6:.2f} MB, sha256 {digest[:16]}...; "
          f"train {len(train_files)} files {len(train):,} tokens, held out {len(val_files)} files {len(val):,} tokens "
          f"({unseen:.2%} of them never seen in training); compact vocabulary (the corpus' ids) {vocab.other:,} ids + 1 shared "
          f"row for {vocab.n_other:,}", flush=True)

    train_seqs = chunks(train, SEQ)[:16]  # real ids: suppress_unseen calibrates on these 4,096 training positions
    if args.finish:
        summary = json.loads((args.out / "train.json").read_text())
        curve = json.loads(args.curve.read_text())["points"]
        finish(mr.load_trained_model(args.out / "model.safetensors"), vocab, train_seqs, val_seqs, summary, curve, args)
        return
    torch.manual_seed(SEED)
    compact = {**mr.TINY, "vocab_size": vocab.other + 1, "bos_token_id": None, "eos_token_id": None}
    cfg = Qwen3Config(**compact, attention_bias=False, use_sliding_window=False,
                      attn_implementation="sdpa")
    model = Qwen3ForCausalLM(cfg)
    model.tie_weights()
    # No weight decay on the embedding (the tied head): decay pulls the shared row towards zero, and a zero row's
    # logit plus log(n_other) is large, so decay alone would keep ~1% of the probability on never-seen ids.
    decay = [p for n, p in model.named_parameters() if p.ndim == 2 and "embed_tokens" not in n]
    rest = [p for n, p in model.named_parameters() if p.ndim < 2 or "embed_tokens" in n]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}],
                            lr=LR, betas=(0.9, 0.95))

    def lr_at(step: int) -> float:
        if step < WARMUP:
            return LR * (step + 1) / WARMUP
        t = (step - WARMUP) / max(1, args.steps - WARMUP)
        return LR * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))

    curve = []
    batches = np.zeros((0, SEQ + 1), dtype=np.int64)
    epoch, seen, running, t0 = 0, 0, [], time.time()
    load_start = os.getloadavg()
    for step in range(args.steps + 1):
        if step % EVAL_EVERY == 0 or step == args.steps:
            model.eval()
            held = mean_loss(model, vocab, val_seqs_c[:EVAL_SEQS])
            model.train()
            point = {"step": step, "tokens": seen, "seconds": round(time.time() - t0, 1), "heldout": round(held, 4),
                     "train": round(float(np.mean(running)), 4) if running else None}
            curve.append(point)
            running = []
            print(f"step {step:5d}  {point['seconds']:7.0f} s  train {point['train']}  held-out {held:.4f}  "
                  f"lr {lr_at(min(step, args.steps - 1)):.2e}  load {os.getloadavg()[0]:.1f}", flush=True)
        if step == args.steps:
            break
        if len(batches) < BATCH:  # a new epoch: another offset and order of the windows
            fresh = chunks(train_c, SEQ, offset=int(rng.integers(SEQ)))
            batches = np.concatenate([batches, fresh[rng.permutation(len(fresh))]])
            epoch += 1
        x, batches = torch.from_numpy(batches[:BATCH]), batches[BATCH:]
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        loss = compact_loss(model, vocab, x)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        running.append(loss.item())
        seen += BATCH * SEQ
    wall = time.time() - t0
    load_end = os.getloadavg()

    # The full-vocabulary model, BF16, and the two checks on the whole held-out split.
    model.eval()
    compact_f32 = mean_loss(model, vocab, val_seqs_c)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(mr.bf16(p))
    compact_bf16 = mean_loss(model, vocab, val_seqs_c)
    full = expand(model, vocab)
    full_loss, mass, worst = full_eval(full, vocab, val_seqs)
    print(f"held-out loss (all {len(val_seqs)} sequences): compact float32 {compact_f32:.5f}, compact BF16 "
          f"{compact_bf16:.5f}, full vocabulary BF16 {full_loss:.5f}; probability outside the corpus' vocabulary: "
          f"mean {mass:.3e}, worst position {worst:.3e}", flush=True)
    if abs(full_loss - compact_bf16) > 1e-3:
        sys.exit(f"the full model's loss {full_loss} is not the compact one's {compact_bf16}")
    summary = {
        "command": "python scripts/train_tiny.py" + "".join(f" {a}" for a in sys.argv[1:]),
        "corpus": {"module": GO_TOOLCHAIN, "sum": GO_TOOLCHAIN_SUM, "sha256": digest, "files": len(files),
                   "bytes": sum(len(t.encode()) for _, t in files), "train_files": len(train_files),
                   "heldout_files": [r for r, _ in val_files], "train_tokens": int(len(train)),
                   "heldout_tokens": int(len(val)), "heldout_unseen_fraction": round(unseen, 6)},
        "vocab": {"compact_ids": int(vocab.other), "shared_row_ids": int(vocab.n_other)},
        "model": {k: v for k, v in mr.TINY.items()},
        "training": {"steps": args.steps, "batch": BATCH, "seq": SEQ, "lr": LR, "warmup": WARMUP, "epochs": epoch,
                     "tokens": seen, "seed": SEED, "threads": args.threads, "seconds": round(wall, 1),
                     "steps_per_second": round(args.steps / wall, 3), "loadavg_start": load_start[0],
                     "loadavg_end": load_end[0], "cpu": cpu_name(), "torch": torch.__version__},
        "result": {"train_loss": curve[-1]["train"], "heldout_loss_compact_f32": round(compact_f32, 5),
                   "heldout_loss_compact_bf16": round(compact_bf16, 5), "heldout_loss_full_bf16": round(full_loss, 5),
                   "outside_mass_mean": mass, "outside_mass_worst": worst},
    }
    finish(full, vocab, train_seqs, val_seqs, summary, curve, args)


def finish(full: Qwen3ForCausalLM, vocab: Vocab, train_seqs: np.ndarray, val_seqs: np.ndarray, summary: dict,
           curve: list, args) -> None:
    """suppress_unseen, the held-out measures again, then save the model, train.json and the curve (before the last
    check, so that a failed check keeps the run to study)."""
    alpha = suppress_unseen(full, vocab, train_seqs)
    loss, mass, worst = full_eval(full, vocab, val_seqs)
    print(f"after suppress_unseen (the shared row moved {alpha:.3f}): held-out loss {loss:.5f}; probability outside the corpus' "
          f"vocabulary: mean {mass:.3e}, worst position {worst:.3e}", flush=True)
    summary["result"].update({"suppress_moved": round(alpha, 4), "heldout_loss_final": round(loss, 5),
                              "outside_mass_mean_final": mass, "outside_mass_worst_final": worst})
    args.out.mkdir(parents=True, exist_ok=True)
    save_bf16(full, args.out / "model.safetensors")
    (args.out / "train.json").write_text(json.dumps(summary, indent=1) + "\n")
    args.curve.parent.mkdir(parents=True, exist_ok=True)
    args.curve.write_text(json.dumps({
        "about": "scripts/train_tiny.py: the tiny Qwen3's loss (nats per token) on Go's standard library while it "
                 "trained; train = mean over the steps since the previous point, heldout = on the first "
                 f"{EVAL_SEQS} held-out sequences of {SEQ} tokens; seconds = wall time on the machine described",
        "training": summary["training"], "result": summary["result"], "points": curve}, indent=1) + "\n")
    if mass >= 0.01:
        sys.exit(f"the full model puts {mass:.2%} of its probability outside the corpus' vocabulary (want < 1%)")
    print(f"wrote {args.out / 'model.safetensors'}, {args.out / 'train.json'} and {args.curve}")


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return f"{line.split(':', 1)[1].strip()} x {os.cpu_count()}"
    except OSError:
        pass
    return f"{platform.processor() or platform.machine()} x {os.cpu_count()}"


if __name__ == "__main__":
    main()
