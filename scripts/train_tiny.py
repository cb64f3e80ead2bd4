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

  More Go. `--modules golang.org/x/tools@v0.52.0,golang.org/x/net@v0.62.0` adds pinned modules (MODULES: x/tools,
  x/net, x/text, gonum), each fetched by `go mod download -json`, its go.sum hash compared with the pinned one, and
  its selected text with a pinned sha256. A module gives its non-test, non-generated .go files outside testdata/ and
  vendor/ (module_select). Files whose text repeats one kept before them (the standard library first, then MODULES'
  order) are dropped before the split (dedup), and every file goes through the same held_out rule, a hash of its
  import path and name: a file's side never depends on which modules are added, which check_split verifies at every
  run with modules. A module's training file that copies most of a standard-library held-out file with small
  changes (a fork: x/net's webdav/internal/xml/read.go of encoding/xml/read.go) is dropped too (near_copies). The
  curve's and the final held-out measures stay on the standard library's held-out files (comparable with every
  earlier recipe's), and so do the head probes; the modules' held-out files are measured apart, at the end. The
  script prints, per source, files, bytes, tokens and their split, and the epochs the run will make.

  Vocabulary. The LM head over 151,936 tokens costs about 7x the rest of a step at hidden 64, so training uses a compact
  vocabulary: the ids that occur in the training split (25,867 for the standard library alone; the held-out split
  plays no part in it), plus one "other" row shared by every other id. In the training softmax the "other" logit gets
  + log(number of other ids): that is exactly the softmax of the full model in which every other id has the "other"
  row as its embedding (N equal terms exp(l) sum to exp(l + log N)). So the compact loss IS the full-vocabulary loss, and the saved model is that
  full model: every row outside the training vocabulary is the shared row. Without the trick a never-seen row would
  stay at its initial value (or at zero), and a tied head gives such a row a logit near 0, not -inf: 126,000 of them
  would take a large share of the probability. After training the script checks on the whole held-out split that the
  full model's loss equals the compact one's and that the probability it puts outside the training vocabulary is
  under 1% on average; it reports the worst position's too (held-out tokens that training never saw, 0.84% of them,
  are part of that test: their vocabulary is held out with them).

  Training. AdamW (--lr, betas 0.9/0.95, weight decay 0.1 on matrices), linear warm-up then cosine decay to a tenth,
  --steps steps of --batch sequences of --seq tokens cut from the shuffled training files (each file ends with
  <|endoftext|>, Qwen's document separator); the defaults are the committed checkpoint's recipe. Seeds are fixed; torch
  runs deterministic algorithms on --threads threads (default one: two were no faster on this model, and two threads
  slow down threefold when another program keeps a core busy). Another thread count or CPU can round differently in
  the last bits, and the run then drifts apart.

  Measures. Every --eval-every steps: the mean training loss since the last point; the held-out loss on a fixed random
  sample of EVAL_SEQS held-out windows of EVAL_SEQ tokens (seeded, the same sample at every point); and the head
  scores of chapter 07 (head_scores, threshold, probe_report mirror its ScoreHeads, Threshold and Evidence.Named) on
  the probes of head_probes: held-out Go snippets, random tokens, a random sequence repeated twice. At the end: loss,
  top-1 accuracy and the probability outside the training vocabulary (mean and worst position) on the whole held-out
  split, the number of epochs, how much the held-out loss moved over the last quarter of the curve (still falling or
  not), and the head scores of the saved model. `--evaluate FILE` prints the same measures for a saved model.

Run it from the repository root with the pinned packages of scripts/requirements.txt (about an hour on a quiet core),
under `nice -n 10` on a shared machine:
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
# More Go (--modules; reference/README.md, "More Go"): module@version -> (its go.sum hash, the sha256 of the files
# module_select picks, as corpus' digest). All four are under BSD-3-Clause licences, LICENSE at each module's root.
MODULES = {
    "golang.org/x/tools@v0.52.0": ("h1:ryxg4U63oaUYk7uOLTF37n43f4qgtGvqV4Ioit1BaEs=",
                                   "dc7dc971c138befaa47754fd742fafd16fdfa13275e83b3ffe0995115b7d9423"),
    "golang.org/x/net@v0.62.0": ("h1:18ELalfM5+XNRwzM2nYqXsZQ9ByS1uhj2O/U7+5jqRY=",
                                   "62c89fd09b46eaa3706ce509fd68779b0383d2b87ab8921ede4be5fb3a4af7b6"),
    "golang.org/x/text@v0.44.0": ("h1:YItdp/mQNGnsmrgpcdA5yQ3bnRxCfo/Tj/iByGW9GGo=",
                                   "e39b066a41b5dfb52cd3f6bd4d549bf0546ce967e181520a5fa07b1c507547dc"),
    "gonum.org/v1/gonum@v0.17.0": ("h1:VbpOemQlsSMrYmn7T2OUvQ4dqxQXU+ouZFQsZOx50z4=",
                                   "e3e2695d4f52f4fa0dca03b9fd98741e2cd3444f17a8539f3d019eb4646bb04c"),
}
MODULE_SKIP_DIRS = {"testdata", "vendor"}

SEED = 20251125
# The recipe of the committed checkpoint (reference/README.md lists the others tried, with their flags).
STEPS = 1200
BATCH = 8
SEQ = 256
LR = 3e-3
WARMUP = 100
EVAL_EVERY = 100
EVAL_SEQS = 96  # held-out windows scored at each point of the curve: a fixed random sample (seeded), the same each time
EVAL_SEQ = 128  # their length in tokens (the final measures also use windows of REPORT_SEQ)
REPORT_SEQ = 256  # the whole held-out split is reported in windows of this length, as for every earlier model
ENDOFTEXT = 151643

OUT = ROOT / ".cache" / "tiny-go"
CURVE = ROOT / "notebooks" / "data" / "tiny_training.json"


# ---------------------------------------------------------------------------------------------------------------------
# the corpus


def module_zip(module: str, want_sum: str) -> Path:
    """The zip of module (path@version), downloaded (or found in the module cache) by `go mod download -json`, which
    checks it against the checksum database; its reported hash must also be want_sum, the go.sum line pinned here."""
    try:
        with tempfile.TemporaryDirectory() as tmp:  # outside any module, so no go.mod is consulted or changed
            run = subprocess.run(["go", "mod", "download", "-json", module], cwd=tmp, capture_output=True, text=True,
                                 env={**os.environ, "GOFLAGS": ""})
    except FileNotFoundError:
        sys.exit(f"go mod download {module}: no go command on PATH (the corpus is fetched and checked by it)")
    try:
        info = json.loads(run.stdout)
    except json.JSONDecodeError:
        sys.exit(f"go mod download {module}: exit status {run.returncode}: {run.stderr.strip() or run.stdout.strip()}")
    if info.get("Error") or run.returncode:
        sys.exit(f"go mod download {module}: {info.get('Error') or run.stderr.strip()}")
    if info.get("Sum") != want_sum:
        sys.exit(f"{module}: the go command reports go.sum hash {info.get('Sum')}, but {want_sum} is pinned in "
                 f"scripts/train_tiny.py: another module zip than the one recorded in reference/README.md; refused")
    return Path(info["Zip"])


def toolchain_zip() -> Path:
    """The Go release's module zip, downloaded (or found in the module cache) and checked by the go command."""
    return module_zip(GO_TOOLCHAIN, GO_TOOLCHAIN_SUM)


def select(rel: str, data: bytes) -> bool:
    """The rule that picks the corpus' files from src/ (see the module doc)."""
    parts = rel.split("/")
    return (rel.endswith(".go") and not rel.endswith("_test.go") and parts[0] not in SKIP_TOP
            and not SKIP_DIRS.intersection(parts[:-1]) and not GENERATED.search(data))


def held_out(key: str) -> bool:
    """The held-out rule, one for every source: a hash of the file's key (its import path and file name: the path under
    src/ for the standard library, module path + path in the module for a module), nothing else. So a file's side
    depends on no other file: adding a module moves no file across the split."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % HOLDOUT_EVERY == 0


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


def module_select(rel: str, data: bytes) -> bool:
    """The rule that picks a module's files (reference/README.md, "More Go"): non-test .go files outside testdata/ and
    vendor/, and not generated: no line `// Code generated ... DO NOT EDIT.` (Go's convention,
    https://pkg.go.dev/cmd/go#hdr-Generate_Go_files_by_processing_source; GENERATED, as for the standard library, looks
    for it anywhere in the file, where Go wants it before the package clause: one generator's source in each of x/tools
    and x/net, which writes that line in a string, is left out too)."""
    parts = rel.split("/")
    return (rel.endswith(".go") and not rel.endswith("_test.go") and not MODULE_SKIP_DIRS.intersection(parts[:-1])
            and not GENERATED.search(data))


def module_corpus(module: str, zip_path: Path) -> tuple[list[tuple[str, str]], str]:
    """A module's selected files as (module path/path in the module, text), sorted, and their sha256 as corpus'."""
    prefix, path = module + "/", module.split("@")[0]
    files, h = [], hashlib.sha256()
    with zipfile.ZipFile(zip_path) as z:
        for name in sorted(z.namelist()):
            rel = name[len(prefix):]
            if not name.startswith(prefix) or not rel.endswith(".go"):
                continue
            data = z.read(name)
            if module_select(rel, data):
                key = f"{path}/{rel}"
                try:
                    files.append((key, data.decode("utf-8")))
                except UnicodeDecodeError as e:
                    sys.exit(f"{module}: {rel} is not UTF-8 ({e})")
                h.update(key.encode() + b"\0" + data + b"\0")
    return files, h.hexdigest()


def checked_module(module: str) -> tuple[list[tuple[str, str]], str]:
    """A pinned module's files, refused unless the go command's hash is the pinned go.sum line and the selected text's
    sha256 is the pinned one. module is one of MODULES (main checks --modules first)."""
    want_sum, want_sha = MODULES[module]
    files, digest = module_corpus(module, module_zip(module, want_sum))
    if digest != want_sha:
        sys.exit(f"{module}: selected files' sha256 {digest}, want {want_sha} ({len(files)} files): another rule?")
    return files, digest


def dedup(sources: list[list[tuple[str, str]]]) -> tuple[list[list[tuple[str, str]]], list[tuple[str, str]]]:
    """Drop every module file whose text (sha256) equals a file's seen before it (the standard library first, then the
    modules in MODULES' order, files by path), so that one text cannot be on both sides of the split. The standard
    library's pinned corpus stays whole (its 9 repeated texts, per-OS variants, are each on one side, which
    check_split verifies). Returns the kept files per source and the dropped (key, key of the kept copy) pairs."""
    seen, kept, dropped = {}, [], []
    for i, files in enumerate(sources):
        out = []
        for key, text in files:
            h = hashlib.sha256(text.encode()).digest()
            if i and h in seen:
                dropped.append((key, seen[h]))
                continue
            seen.setdefault(h, key)
            out.append((key, text))
        kept.append(out)
    return kept, dropped


def split(files: list[tuple[str, str]], rng: np.random.Generator) -> tuple[list, list]:
    """The training files in a seeded order (rng) and the held-out files in the given order, by held_out."""
    order = rng.permutation(len(files))  # the training stream visits files in a seeded order
    return [files[i] for i in order if not held_out(files[i][0])], [f for f in files if held_out(f[0])]


def check_split(sources: list[list[tuple[str, str]]]) -> str:
    """The split's invariants, checked on the sources at hand (the standard library first): (1) every file is on the
    side it is on when the standard library alone, or the standard library and any single one of the modules, go
    through dedup and split; (2) no text (sha256) is on both sides; (3) no module file kept has the text of a file kept
    before it. Exits with the first file that breaks them."""
    def sides(srcs):
        kept, _ = dedup(srcs)
        train, val = split([f for s in kept for f in s], np.random.default_rng(0))
        return {k: False for k, _ in train} | {k: True for k, _ in val}, train, val

    everything, train, val = sides(sources)
    first = {}
    for i, src in enumerate(dedup(sources)[0]):
        for key, text in src:
            h = hashlib.sha256(text.encode()).digest()
            if i and h in first:
                sys.exit(f"split check: {key} is kept with the same text as {first[h]}: dedup let a copy through")
            first.setdefault(h, key)
    for sub in [sources[:1]] + [[sources[0], m] for m in sources[1:]]:
        for key, side in sides(sub)[0].items():
            if everything.get(key, side) != side:
                sys.exit(f"split check: {key} is {'held out' if side else 'in training'} with "
                         f"{len(sub) - 1} module(s) and {'held out' if everything[key] else 'in training'} with "
                         f"{len(sources) - 1}: the split depends on which modules are added")
    train_text = {hashlib.sha256(t.encode()).digest(): k for k, t in train}
    for key, text in val:
        if (other := train_text.get(hashlib.sha256(text.encode()).digest())) is not None:
            sys.exit(f"split check: held-out {key} has the same text as training file {other}")
    return (f"split check: {len(everything):,} files keep their side when modules are added or left out "
            f"({len(sources) - 1} module(s) tried one at a time), no text on both sides, no module text twice")


NEAR_LINE = 25  # near_copies compares the distinct lines of at least this many characters (spaces stripped),
NEAR_MIN, NEAR_SHARE = 20, 0.4  # and drops a module's training file that holds NEAR_MIN of a held-out file's and
# NEAR_SHARE of them. The two forks of held-out files in x/tools and x/net clear it widely (194 lines, 68%; 42, 45%);
# what comes next is a licence header (3 lines) or a sibling file of the same source.


def near_copies(train_files: list[tuple[str, str]], held: list[tuple[str, str]], is_module) -> list[tuple[str, str]]:
    """The modules' training files that copy most of one of the held-out files held (the standard library's, which the
    curve and the final measures use), as (key, held-out key) pairs: forks, such as x/net's webdav/internal/xml/read.go
    of encoding/xml/read.go, whose text differs a little and so passes dedup. They are dropped from training, so that
    adding modules keeps the standard library's held-out measures comparable; held-out files are never dropped."""
    def lines(text):
        return {l.strip() for l in text.splitlines() if len(l.strip()) >= NEAR_LINE}

    held_lines = [(k, lines(t)) for k, t in held]
    out = []
    for key, text in train_files:
        if not is_module(key):
            continue
        mine = lines(text)
        for hk, h in held_lines:
            n = len(mine & h)
            if n >= NEAR_MIN and n >= NEAR_SHARE * len(h):
                out.append((key, hk))
                break
    return out


def source_table(names: list[str], train_files: list, val_files: list, source_of: dict, ids: dict) -> list[dict]:
    """Per source (and "all" when there are several): files, bytes, tokens (each file's, with its <|endoftext|>) and
    their split."""
    rows = []
    for i, name in enumerate(names + ["all"]):
        tr = [(k, t) for k, t in train_files if name == "all" or source_of[k] == i]
        va = [(k, t) for k, t in val_files if name == "all" or source_of[k] == i]
        rows.append({"source": name, "files": len(tr) + len(va), "bytes": sum(len(t.encode()) for _, t in tr + va),
                     "tokens": sum(len(ids[k]) for k, _ in tr + va), "train_files": len(tr),
                     "train_tokens": sum(len(ids[k]) for k, _ in tr), "heldout_files": len(va),
                     "heldout_tokens": sum(len(ids[k]) for k, _ in va)})
    return rows if len(names) > 1 else rows[:1]


# ---------------------------------------------------------------------------------------------------------------------
# the compact vocabulary


class Vocab:
    """The ids that occur in the training split, renumbered 0..n-1, and row n for every other id. The held-out split
    plays no part in it: a held-out token that training never saw is one of the n_other ids of the shared row, so the
    probability the model puts outside this vocabulary on held-out text is measured on text it never trained on."""

    def __init__(self, train_ids: np.ndarray, full_size: int):
        self.ids = np.unique(train_ids)  # compact row r is real id self.ids[r]
        self.other = len(self.ids)  # the shared row
        self.n_other = full_size - len(self.ids)  # how many real ids share it
        self.to_compact = np.full(full_size, self.other, dtype=np.int64)
        self.to_compact[self.ids] = np.arange(len(self.ids))
        self.log_n_other = math.log(self.n_other)  # added to the shared row's logit


def compact_loss(model: Qwen3ForCausalLM, vocab: Vocab, x: torch.Tensor) -> torch.Tensor:
    """Mean next-token cross-entropy (nats) of compact-id sequences x (batch, seq+1), which is the full model's.

    The shared row's logit gets + log(n_other), so its softmax probability is that of the whole class of other ids; a
    target in that class (held-out text only: every training id has its own row) is one id of n_other equally likely
    ones, so its loss is the class's plus log(n_other). x may be one sequence (seq+1,)."""
    if x.ndim == 1:
        x = x[None]
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
def full_eval(full: Qwen3ForCausalLM, vocab: Vocab, seqs: np.ndarray) -> dict:
    """On real-id sequences (windows of seq+1 tokens): the mean loss (nats per token), top-1 accuracy (the argmax of
    the full 151,936-way distribution is the next token), and the probability the model puts outside the training
    split's vocabulary: its mean over positions and its worst position."""
    inside = torch.from_numpy(vocab.ids)
    total, hits, mass, worst, n = 0.0, 0, 0.0, 0.0, 0
    for seq in seqs:  # one sequence at a time: seq x 151,936 logits
        x = torch.from_numpy(seq)[None]
        logp = torch.log_softmax(full(input_ids=x[:, :-1]).logits[0], dim=-1)
        total += -logp.gather(-1, x[0, 1:, None]).sum().item()
        hits += int((logp.argmax(-1) == x[0, 1:]).sum())
        out = (1 - logp[:, inside].exp().sum(-1)).clamp(min=0)  # the 25,000 inside columns: cheaper than 126,000
        mass += out.sum().item()
        worst = max(worst, out.max().item())
        n += x.shape[1] - 1
    return {"loss": total / n, "top1": hits / n, "outside_mean": mass / n, "outside_worst": worst, "tokens": n}


@torch.no_grad()
def mean_loss(model: Qwen3ForCausalLM, vocab: Vocab, seqs: np.ndarray, batch: int = 16) -> float:
    """The compact model's mean loss over compact-id windows (all of the same length)."""
    losses = [compact_loss(model, vocab, torch.from_numpy(seqs[i: i + batch])).item() * len(seqs[i: i + batch])
              for i in range(0, len(seqs), batch)]
    return sum(losses) / len(seqs)


# ---------------------------------------------------------------------------------------------------------------------
# head probes: the texts on which chapter 07 scores attention heads (make_reference.py stores them in
# golden/07_forward/probes.json; this script prints the scores of the model it trained, at every point of the curve)

PROBE_SEED = 20251127
PROBE_FILES = 4  # snippets cut from held-out files
PROBE_LEN = 96  # tokens in every probe (a score's chance level depends on the length: a uniform head gives 1/(i+1))
CONTROL_SEQS = 8  # random-token sequences of each control
CONTROL_MIN_COUNT = 20  # control tokens are drawn from ids the training split has at least this often
# Go written for this course, in no file of any corpus: held out by construction (cut to PROBE_LEN tokens).
COURSE_SNIPPETS = [
    ("// countWords returns how often each word occurs in lines, ignoring case.\n"
     "func countWords(lines []string) map[string]int {\n"
     "\tcounts := make(map[string]int)\n"
     "\tfor _, line := range lines {\n"
     "\t\tfor _, word := range strings.Fields(line) {\n"
     "\t\t\tcounts[strings.ToLower(word)]++\n"
     "\t\t}\n"
     "\t}\n"
     "\treturn counts\n"
     "}\n\n"
     "// topWord returns the word with the largest count in counts.\n"
     "func topWord(counts map[string]int) (string, int) {\n"
     "\tbest, n := \"\", 0\n"
     "\tfor word, c := range counts {\n"
     "\t\tif c > n {\n"
     "\t\t\tbest, n = word, c\n"
     "\t\t}\n"
     "\t}\n"
     "\treturn best, n\n"
     "}\n"),
    ("type stack struct{ items []int }\n\n"
     "func (s *stack) push(v int) { s.items = append(s.items, v) }\n\n"
     "func (s *stack) pop() (int, bool) {\n"
     "\tif len(s.items) == 0 {\n"
     "\t\treturn 0, false\n"
     "\t}\n"
     "\tv := s.items[len(s.items)-1]\n"
     "\ts.items = s.items[:len(s.items)-1]\n"
     "\treturn v, true\n"
     "}\n\n"
     "func (s *stack) peek() (int, bool) {\n"
     "\tif len(s.items) == 0 {\n"
     "\t\treturn 0, false\n"
     "\t}\n"
     "\treturn s.items[len(s.items)-1], true\n"
     "}\n"),
]


def head_probes(tok: Tokenizer, files: list[tuple[str, str]]) -> dict:
    """The token sequences chapter 07 scores heads on, PROBE_LEN tokens each, all drawn with PROBE_SEED:
      snippets: PROBE_FILES pieces of held-out files (each from the start of a random line) and COURSE_SNIPPETS;
      random: CONTROL_SEQS sequences of distinct random tokens (no token repeats, so nothing to copy and no Go
        structure to follow), drawn from the ids that occur at least CONTROL_MIN_COUNT times in the training split;
      repeated: CONTROL_SEQS sequences of PROBE_LEN/2 such tokens, then the same tokens again (Olsson et al. 2022,
        "In-context learning and induction heads": the repeated random tokens on which induction shows)."""
    rng = np.random.default_rng(PROBE_SEED)
    held = sorted(f for f in files if held_out(f[0]))
    train = [t for r, t in files if not held_out(r)]
    enc = tok.encode_batch(train, add_special_tokens=False)
    counts = np.bincount(np.concatenate([e.ids for e in enc]), minlength=mr.TINY["vocab_size"])
    pool = np.flatnonzero(counts >= CONTROL_MIN_COUNT)
    snippets = []
    for i in rng.permutation(len(held)):  # files in a seeded order, until PROBE_FILES of them give a snippet
        rel, text = held[i]
        starts = [0] + [k + 1 for k, c in enumerate(text) if c == "\n"]
        for _ in range(100):  # a line start with PROBE_LEN tokens after it
            a = starts[int(rng.integers(len(starts)))]
            ids = tok.encode(text[a:], add_special_tokens=False).ids[:PROBE_LEN]
            if len(ids) == PROBE_LEN:
                line = text[:a].count("\n") + 1
                snippets.append({"source": f"{rel} from line {line} (held-out file)", "text": tok.decode(ids),
                                 "ids": ids})
                break
        if len(snippets) == PROBE_FILES:
            break
    for text in COURSE_SNIPPETS:
        ids = tok.encode(text, add_special_tokens=False).ids[:PROBE_LEN]
        assert len(ids) == PROBE_LEN
        snippets.append({"source": "written for this course (in no corpus file)", "text": tok.decode(ids), "ids": ids})
    random = [rng.choice(pool, PROBE_LEN, replace=False).tolist() for _ in range(CONTROL_SEQS)]
    repeated = []
    for _ in range(CONTROL_SEQS):
        half = rng.choice(pool, PROBE_LEN // 2, replace=False).tolist()
        repeated.append(half + half)
    return {"snippets": snippets, "random": [[int(t) for t in r] for r in random],
            "repeated": [[int(t) for t in r] for r in repeated], "control_pool": int(len(pool))}


def head_scores(attn: torch.Tensor, ids: list[int]) -> dict:
    """Chapter 07's ScoreHeads, from the probabilities attn (layers, heads, seq, seq): previous = mean over queries
    i = 2 .. seq-1 of P[i, i-1]; first = mean over the same queries of P[i, 0]; induction = mean, over the queries i
    whose token appeared earlier at some j < i-1, of the weight on all such positions j+1 (the tokens that followed
    earlier copies of the query's token); NaN without such queries."""
    seq = len(ids)
    q = torch.arange(2, seq)
    succ = [sorted({j + 1 for j in range(i - 1) if ids[j] == ids[i]}) for i in range(seq)]
    queries = [i for i in range(seq) if succ[i]]
    if queries:
        induction = torch.stack([attn[:, :, i, succ[i]].sum(-1) for i in queries]).mean(0)
    else:
        induction = torch.full(attn.shape[:2], float("nan"))
    return {"previous": attn[:, :, q, q - 1].mean(-1).tolist(), "first": attn[:, :, q, 0].mean(-1).tolist(),
            "induction": induction.tolist(), "induction_queries": len(queries)}


THRESHOLD_K = 3.0


def threshold(control: np.ndarray) -> float:
    """Chapter 07's Threshold: the bar a head's score must clear to be named, from every head's score on every control
    sequence (sequences x layers x heads, pooled): median + THRESHOLD_K x 1.4826 x MAD (MAD = the median of
    |score - median|; 1.4826 x MAD estimates a standard deviation without letting the few heads that do have the
    pattern move it). NaN scores are left out."""
    v = np.asarray(control, dtype=np.float64).ravel()
    v = v[~np.isnan(v)]
    med = float(np.median(v))
    return med + THRESHOLD_K * 1.4826 * float(np.median(np.abs(v - med)))


@torch.no_grad()
def probe_report(attention, probes: dict) -> dict:
    """Head scores on the probes: attention(ids) returns (layers, heads, seq, seq) probabilities. The result holds
    each pattern's layers x heads mean (and standard deviation) over the held-out snippets, the control means, the
    thresholds, and the best head of each pattern on held-out text."""
    def scores(seqs):
        return [head_scores(attention(ids), ids) for ids in seqs]

    held = scores([s["ids"] for s in probes["snippets"]])
    rnd, rep = scores(probes["random"]), scores(probes["repeated"])
    out = {}
    for name, control in (("previous", rnd), ("first", rnd), ("induction", rep)):
        h = np.array([s[name] for s in held])  # snippets x layers x heads
        cs = np.array([s[name] for s in control])  # sequences x layers x heads
        c = cs.mean(0)
        mean, sd = np.nanmean(h, 0), np.nanstd(h, 0)
        t = threshold(cs)
        l, hd = np.unravel_index(int(np.nanargmax(mean)), mean.shape)
        cl, ch = np.unravel_index(int(np.argmax(c)), c.shape)
        # Named: the held-out mean clears the bar; an induction head must clear it on the repeated control too.
        named = [[int(a), int(b)] for a, b in zip(*np.nonzero(mean >= t))
                 if name != "induction" or c[a, b] >= t]
        out[name] = {"named": named, "heldout_mean": mean.tolist(), "heldout_sd": sd.tolist(), "control": c.tolist(), "threshold": t,
                     "best": [int(l), int(hd)], "best_heldout": float(mean[l, hd]), "best_control": float(c[l, hd]),
                     "control_best": [int(cl), int(ch)], "control_max": float(c[cl, ch])}
    return out


def print_probe_report(r: dict) -> None:
    for name in ("previous", "first", "induction"):
        p = r[name]
        l, h = p["best"]
        cl, ch = p["control_best"]
        ctrl = "random tokens" if name != "induction" else "a random sequence repeated twice"
        print(f"  {name:9s}: best on held-out Go L{l}H{h} {p['best_heldout']:.3f} (sd over snippets "
              f"{p['heldout_sd'][l][h]:.3f}; on {ctrl} {p['best_control']:.3f}); best on {ctrl} L{cl}H{ch} "
              f"{p['control_max']:.3f}; threshold {p['threshold']:.3f}; named: "
              + (", ".join(f"L{a}H{b}" for a, b in p["named"]) or "none"), flush=True)


def compact_attention(model: Qwen3ForCausalLM, vocab: Vocab):
    """attention(ids) for probe_report on the compact model (real ids mapped to compact rows), eager attention."""
    def attention(ids):
        x = torch.from_numpy(vocab.to_compact[np.asarray(ids)])[None]
        out = model.model(input_ids=x, output_attentions=True)
        return torch.stack([a[0] for a in out.attentions])
    return attention


def save_bf16(full: Qwen3ForCausalLM, path: Path) -> None:
    """The full model's weights in BF16, the tied head stored once as model.embed_tokens.weight."""
    from safetensors.torch import save_file

    tensors = {k: v.to(torch.bfloat16).contiguous() for k, v in full.state_dict().items() if k != "lm_head.weight"}
    save_file(dict(sorted(tensors.items())), str(path), metadata={"format": "pt"})


# ---------------------------------------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=STEPS, help="optimizer steps (default %(default)s)")
    ap.add_argument("--batch", type=int, default=BATCH, help="sequences per step (default %(default)s)")
    ap.add_argument("--seq", type=int, default=SEQ, help="tokens per sequence (default %(default)s)")
    ap.add_argument("--lr", type=float, default=LR, help="peak learning rate (default %(default)s)")
    ap.add_argument("--warmup", type=int, default=WARMUP, help="warm-up steps (default %(default)s)")
    ap.add_argument("--eval-every", type=int, default=EVAL_EVERY, help="steps between points of the curve (default %(default)s)")
    ap.add_argument("--threads", type=int, default=1, help="torch threads (default %(default)s: two were no faster on a shared 2-core machine, and one thread does not collapse when the other core is busy)")
    ap.add_argument("--out", type=Path, default=OUT, help="where the trained model goes (default .cache/tiny-go)")
    ap.add_argument("--curve", type=Path, default=CURVE, help="the loss curve's JSON (default %(default)s)")
    ap.add_argument("--modules", default="", help="more Go: pinned modules (module@version, comma-separated) added to the training corpus, each fetched and checked by the go command and split by the same held-out rule as the standard library; pinned: " + ", ".join(MODULES))
    ap.add_argument("--smoke", action="store_true", help="a quick check of the whole script: final measures on 8 held-out windows only (numbers not to be reported)")
    ap.add_argument("--evaluate", type=Path, help="train nothing: measure the full-vocabulary model in this BF16 safetensors file (e.g. reference/tiny-qwen3/model.safetensors) on the held-out split and the head probes, and print it")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)  # make_reference set 1 for its own reproducibility
    torch.use_deterministic_algorithms(True)

    mods = [m.strip() for m in args.modules.split(",") if m.strip()]
    for m in mods:
        if m not in MODULES:
            sys.exit(f"--modules: {m} is not pinned; pinned (module@version, reference/README.md \"More Go\"): "
                     + ", ".join(MODULES))
    mods = [m for m in MODULES if m in mods]  # MODULES' order, whatever the flag's: dedup keeps the same copies
    std_files, digest = checked_corpus()
    mod_files = [checked_module(m) for m in mods]
    sources = [std_files] + [f for f, _ in mod_files]
    names = [f"{re.search(r'-(go[0-9.]+)[.]', GO_TOOLCHAIN).group(1)} standard library"] + mods
    kept, dropped = dedup(sources)
    files = [f for src in kept for f in src]  # the standard library first, as it always was
    source_of = {k: i for i, src in enumerate(kept) for k, _ in src}
    tok = tokenizer()
    rng = np.random.default_rng(SEED)
    train_files, val_files = split(files, rng)
    near = near_copies(train_files, [f for f in val_files if source_of[f[0]] == 0], lambda k: source_of[k] > 0)
    train_files = [f for f in train_files if f[0] not in {k for k, _ in near}]
    enc = tok.encode_batch([text for _, text in files], add_special_tokens=False)
    ids = {k: np.append(np.array(e.ids, dtype=np.int64), ENDOFTEXT) for (k, _), e in zip(files, enc)}

    def stream(fs):
        return np.concatenate([ids[k] for k, _ in fs]) if fs else np.zeros(0, dtype=np.int64)

    # The held-out measures (curve, final, --evaluate) stay on the standard library's held-out files, as for every
    # model before, so that recipes compare; the modules' held-out files are measured apart, at the end.
    train = stream(train_files)
    val = stream([f for f in val_files if source_of[f[0]] == 0])
    val_mod = stream([f for f in val_files if source_of[f[0]] > 0]) if mods else None
    vocab = Vocab(train, mr.TINY["vocab_size"])  # the training split's ids only
    if args.smoke:
        val = val[: 8 * REPORT_SEQ + 1]
        val_mod = val_mod[: 8 * REPORT_SEQ + 1] if mods else None
    train_c, val_c = vocab.to_compact[train], vocab.to_compact[val]
    # The curve's held-out loss: a fixed random sample (seeded) of the held-out windows, the same at every point.
    n_win = len(chunks(val, EVAL_SEQ))
    sample = np.sort(np.random.default_rng(SEED + 1).choice(n_win, min(EVAL_SEQS, n_win), replace=False))
    val_sample_c = chunks(val_c, EVAL_SEQ)[sample]
    unseen = float((val_c == vocab.other).mean())
    table = source_table(names, train_files, val_files, source_of, ids)
    print("corpus (files kept, after dedup and near copies; tokens count one <|endoftext|> per file):\n" + "\n".join(
        f"  {r['source']:32s} {r['files']:5d} files {r['bytes'] / 1e6:5.2f} MB {r['tokens']:10,} tokens; training "
        f"{r['train_files']:5d} files {r['train_tokens']:10,} tokens; held out {r['heldout_files']:3d} files "
        f"{r['heldout_tokens']:8,} tokens" for r in table), flush=True)
    print(f"corpus: sha256 {digest[:16]}... (standard library)" + "".join(
        f", {d[:16]}... ({m})" for m, (_, d) in zip(mods, mod_files)) + (
        f"; dropped as the same text as a file kept before them: {len(dropped)} files ("
        + ", ".join(f"{k} = {o}" for k, o in dropped[:3]) + (", ..." if len(dropped) > 3 else "") + ")"
        + f"; dropped from training as near copies of the standard library's held-out files: {len(near)} ("
        + ", ".join(f"{k} ~ {o}" for k, o in near) + ")" if mods else ""), flush=True)
    if mods:
        print(check_split(sources), flush=True)
    print(f"training stream sha256 {hashlib.sha256(train.tobytes()).hexdigest()[:16]}...; held out (measured: the "
          f"standard library's {len(val):,} tokens; {unseen:.2%} of them never seen in training); compact vocabulary "
          f"(the training split's ids) {vocab.other:,} ids + 1 shared row for {vocab.n_other:,}", flush=True)
    if not args.evaluate:
        planned = args.steps * args.batch * args.seq
        print(f"this run: {args.steps:,} steps x {args.batch} x {args.seq} tokens = {planned:,} tokens = "
              f"{planned / len(train):.2f} epochs of the training split's {len(train):,} tokens", flush=True)
    probes = head_probes(tok, std_files)  # the standard library's: the same probes for every recipe, as chapter 07's
    train_seqs = chunks(train, REPORT_SEQ)[:16]  # real ids: suppress_unseen calibrates on these 4,096 training positions

    if args.evaluate:
        full = mr.load_trained_model(args.evaluate)
        print(json.dumps(evaluate(full, vocab, val, probes, val_mod), indent=1))
        return

    torch.manual_seed(SEED)
    compact = {**mr.TINY, "vocab_size": vocab.other + 1, "bos_token_id": None, "eos_token_id": None}
    cfg = Qwen3Config(**compact, attention_bias=False, use_sliding_window=False, attn_implementation="sdpa")
    model = Qwen3ForCausalLM(cfg)
    model.tie_weights()
    # No weight decay on the embedding (the tied head): decay pulls the shared row towards zero, and a zero row's
    # logit plus log(n_other) is large, so decay alone would keep ~1% of the probability on never-seen ids.
    decay = [p for n, p in model.named_parameters() if p.ndim == 2 and "embed_tokens" not in n]
    rest = [p for n, p in model.named_parameters() if p.ndim < 2 or "embed_tokens" in n]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95))

    def lr_at(step: int) -> float:
        if step < args.warmup:
            return args.lr * (step + 1) / args.warmup
        t = (step - args.warmup) / max(1, args.steps - args.warmup)
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))

    def heads_now() -> dict:
        model.set_attn_implementation("eager")
        r = probe_report(compact_attention(model, vocab), probes)
        model.set_attn_implementation("sdpa")
        return r

    curve = []
    stopped = None
    batches = np.zeros((0, args.seq + 1), dtype=np.int64)
    epoch, seen, running, t0 = 0, 0, [], time.time()
    busy, busy_tokens = 0.0, 0  # seconds in training steps (no evaluation) since the last point, and their tokens
    load_start = os.getloadavg()
    for step in range(args.steps + 1):
        if step % args.eval_every == 0 or step == args.steps:
            model.eval()
            held = mean_loss(model, vocab, val_sample_c)
            heads = heads_now()
            model.train()
            point = {"step": step, "tokens": seen, "seconds": round(time.time() - t0, 1), "heldout": round(held, 4),
                     "train": round(float(np.mean(running)), 4) if running else None, "epoch": epoch,
                     "step_tokens_per_second": round(busy_tokens / busy) if busy else None,
                     "heads": {k: {"best": v["best"], "heldout": round(v["best_heldout"], 4),
                                   "control_max": round(v["control_max"], 4), "threshold": round(v["threshold"], 4)}
                               for k, v in heads.items()}}
            curve.append(point)
            running, busy, busy_tokens = [], 0.0, 0
            print(f"step {step:6d}  {point['seconds']:7.0f} s  {point['step_tokens_per_second'] or 0:5d} tokens/s in "
                  f"steps  epoch {epoch}  train {point['train']}  held-out "
                  f"{held:.4f}  lr {lr_at(min(step, args.steps - 1)):.2e}  load {os.getloadavg()[0]:.1f}  heads: "
                  + "  ".join(f"{k} L{v['best'][0]}H{v['best'][1]} {v['heldout']:.2f} (control max {v['control_max']:.2f})"
                              for k, v in point["heads"].items()), flush=True)
        if step == args.steps:
            break
        if step % args.eval_every == 0 and (args.out / "STOP").exists():  # an early end, asked for by the file
            print(f"{args.out / 'STOP'} exists: training ends at step {step} of {args.steps}", flush=True)
            (args.out / "STOP").unlink()
            stopped = step
            break
        if len(batches) < args.batch:  # a new epoch: another offset and order of the windows
            fresh = chunks(train_c, args.seq, offset=int(rng.integers(args.seq)))
            batches = np.concatenate([batches, fresh[rng.permutation(len(fresh))]])
            epoch += 1
        x, batches = torch.from_numpy(batches[:args.batch]), batches[args.batch:]
        t_step = time.time()
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        loss = compact_loss(model, vocab, x)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        running.append(loss.item())
        seen += args.batch * args.seq
        busy, busy_tokens = busy + time.time() - t_step, busy_tokens + args.batch * args.seq
    wall = time.time() - t0
    load_end = os.getloadavg()

    # The full-vocabulary model, BF16, and the check that its loss is the compact one's.
    model.eval()
    compact_f32 = mean_loss(model, vocab, chunks(val_c, REPORT_SEQ))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(mr.bf16(p))
    compact_bf16 = mean_loss(model, vocab, chunks(val_c, REPORT_SEQ))
    full = expand(model, vocab)
    before = full_eval(full, vocab, chunks(val, REPORT_SEQ))
    print(f"held-out loss (whole split, windows of {REPORT_SEQ}): compact float32 {compact_f32:.5f}, compact BF16 "
          f"{compact_bf16:.5f}, full vocabulary BF16 {before['loss']:.5f}; probability outside the training split's "
          f"vocabulary: mean {before['outside_mean']:.3e}, worst position {before['outside_worst']:.3e}", flush=True)
    if abs(before["loss"] - compact_bf16) > 1e-3:
        sys.exit(f"the full model's loss {before['loss']} is not the compact one's {compact_bf16}")
    quarter = curve[-1 - max(1, len(curve) // 4)]
    summary = {
        "command": "python scripts/train_tiny.py" + "".join(f" {a}" for a in sys.argv[1:]),
        "corpus": {"module": GO_TOOLCHAIN, "sum": GO_TOOLCHAIN_SUM, "sha256": digest,
                   "files": len(train_files) + len(val_files),
                   "bytes": sum(len(t.encode()) for _, t in train_files + val_files), "train_files": len(train_files),
                   "heldout_files": [r for r, _ in val_files], "train_tokens": int(len(train)),
                   "heldout_tokens": int(len(val)), "heldout_unseen_fraction": round(unseen, 6),
                   **({"modules": {m: {"sum": MODULES[m][0], "sha256": d} for m, (_, d) in zip(mods, mod_files)},
                       "sources": table, "dedup_dropped": [list(x) for x in dropped],
                       "near_copies_dropped": [list(x) for x in near],
                       "heldout_measured": "the standard library's held-out files (heldout_tokens); the modules' apart "
                                           "(result.final.heldout_modules_256)"} if mods else {})},
        "vocab": {"compact_ids": int(vocab.other), "shared_row_ids": int(vocab.n_other), "from": "training split"},
        "model": {k: v for k, v in mr.TINY.items()},
        "training": {"steps": curve[-1]["step"], "planned_steps": args.steps, "stopped_early": stopped is not None,
                     "batch": args.batch, "seq": args.seq, "lr": args.lr, "warmup": args.warmup,
                     "epochs": round(seen / len(train), 3), "tokens": seen, "seed": SEED, "threads": args.threads,
                     "seconds": round(wall, 1), "tokens_per_second": round(seen / wall), "loadavg_start": load_start[0],
                     "loadavg_end": load_end[0], "cpu": cpu_name(), "torch": torch.__version__,
                     "curve_heldout": f"a fixed random sample of {EVAL_SEQS} held-out windows of {EVAL_SEQ} tokens "
                                      f"(seed {SEED + 1}), the same at every point",
                     "heldout_change_last_quarter": round(curve[-1]["heldout"] - quarter["heldout"], 4),
                     "since_step": quarter["step"]},
        "result": {"train_loss": curve[-1]["train"], "heldout_loss_compact_f32": round(compact_f32, 5),
                   "heldout_loss_compact_bf16": round(compact_bf16, 5), "heldout_loss_full_bf16": round(before["loss"], 5),
                   "outside_mass_mean": before["outside_mean"], "outside_mass_worst": before["outside_worst"]},
    }
    finish(full, vocab, train_seqs, val, val_mod, probes, summary, curve, args)


def evaluate(full: Qwen3ForCausalLM, vocab: Vocab, val: np.ndarray, probes: dict,
             val_mod: np.ndarray | None = None) -> dict:
    """The held-out measures of a full-vocabulary model: loss, top-1 and the probability outside the training split's
    vocabulary on the standard library's whole held-out split (windows of REPORT_SEQ and of EVAL_SEQ tokens), on the
    modules' held-out files if val_mod is given (windows of REPORT_SEQ), and its head scores."""
    def attention(ids):
        out = full(input_ids=torch.tensor([ids]), output_attentions=True)
        return torch.stack([a[0] for a in out.attentions])

    full.set_attn_implementation("eager")
    r = {f"heldout_{n}": {k: round(v, 6) if isinstance(v, float) else v for k, v in full_eval(full, vocab, chunks(val, n)).items()}
         for n in (REPORT_SEQ, EVAL_SEQ)}
    if val_mod is not None:
        r[f"heldout_modules_{REPORT_SEQ}"] = {k: round(v, 6) if isinstance(v, float) else v
                                              for k, v in full_eval(full, vocab, chunks(val_mod, REPORT_SEQ)).items()}
    heads = probe_report(attention, probes)
    print_probe_report(heads)
    r["heads"] = {k: {"named": v["named"], "best": v["best"], "heldout": round(v["best_heldout"], 4),
                      "heldout_sd": round(v["heldout_sd"][v["best"][0]][v["best"][1]], 4),
                      "control": round(v["best_control"], 4), "control_best": v["control_best"],
                      "control_max": round(v["control_max"], 4), "threshold": round(v["threshold"], 4)}
                  for k, v in heads.items()}
    return r


def finish(full: Qwen3ForCausalLM, vocab: Vocab, train_seqs: np.ndarray, val: np.ndarray, val_mod: np.ndarray | None,
           probes: dict, summary: dict, curve: list, args) -> None:
    """suppress_unseen, the held-out measures and head scores of the saved model, then save the model, train.json and
    the curve (before the last check, so that a failed check keeps the run to study)."""
    alpha = suppress_unseen(full, vocab, train_seqs)
    r = evaluate(full, vocab, val, probes, val_mod)
    w = r[f"heldout_{REPORT_SEQ}"]
    print(f"after suppress_unseen (the shared row moved {alpha:.3f}): held-out loss (whole split, windows of "
          f"{REPORT_SEQ}) {w['loss']:.5f}, top-1 {w['top1']:.2%}; probability outside the training split's vocabulary: "
          f"mean {w['outside_mean']:.3e}, worst position {w['outside_worst']:.3e}", flush=True)
    if val_mod is not None:
        m = r[f"heldout_modules_{REPORT_SEQ}"]
        print(f"the modules' held-out files ({m['tokens']:,} tokens in windows of {REPORT_SEQ}): loss {m['loss']:.5f}, "
              f"top-1 {m['top1']:.2%}; probability outside the training split's vocabulary: mean "
              f"{m['outside_mean']:.3e}, worst position {m['outside_worst']:.3e}", flush=True)
    t = summary["training"]
    print(f"{t['steps']} steps of {t['batch']} x {t['seq']} tokens: {t['tokens']:,} tokens, {t['epochs']} epochs of the "
          f"training split, {t['seconds'] / 60:.0f} minutes ({t['tokens_per_second']} tokens/s); the curve's held-out "
          f"loss moved {t['heldout_change_last_quarter']:+.4f} since step {t['since_step']}", flush=True)
    summary["result"].update({"suppress_moved": round(alpha, 4), "heldout_loss_final": round(w["loss"], 5),
                              "heldout_top1_final": round(w["top1"], 5), "outside_mass_mean_final": w["outside_mean"],
                              "outside_mass_worst_final": w["outside_worst"], "final": r})
    args.out.mkdir(parents=True, exist_ok=True)
    save_bf16(full, args.out / "model.safetensors")
    (args.out / "train.json").write_text(json.dumps(summary, indent=1) + "\n")
    args.curve.parent.mkdir(parents=True, exist_ok=True)
    args.curve.write_text(json.dumps({
        "about": "scripts/train_tiny.py: the tiny Qwen3's loss (nats per token) on Go's standard library while it "
                 "trained" + "".join(f" (and {', '.join(m)})" for m in [summary["corpus"].get("modules")] if m)
                 + "; train = mean over the steps since the previous point, heldout = on "
                 + t["curve_heldout"] + "; heads = the best head of each pattern on the held-out probes, the controls' "
                 "maximum and the threshold; seconds = wall time on the machine described",
        "training": summary["training"], "result": summary["result"], "points": curve}, indent=1) + "\n")
    if w["outside_mean"] >= 0.01:
        sys.exit(f"the full model puts {w['outside_mean']:.2%} of its probability outside the training split's "
                 f"vocabulary (want < 1%)")
    print(f"wrote {args.out / 'model.safetensors'}, {args.out / 'train.json'} and {args.curve}")


def checked_corpus() -> tuple[list[tuple[str, str]], str]:
    """The corpus' files, refused unless their sha256 is CORPUS_SHA256."""
    files, digest = corpus(toolchain_zip())
    if digest != CORPUS_SHA256:
        sys.exit(f"corpus: sha256 {digest}, want {CORPUS_SHA256} ({len(files)} files): another Go release or rule?")
    return files, digest


def tokenizer() -> Tokenizer:
    """Qwen's tokenizer.json as committed in reference/tiny-qwen3/, refused unless its sha256 is Qwen's."""
    path = mr.HF_DIR / "tokenizer.json"
    if mr.sha256(path) != mr.TOKENIZER_SHA256:
        sys.exit(f"{path}: not Qwen's tokenizer.json (sha256 differs from {mr.TOKENIZER_SHA256})")
    return Tokenizer.from_file(str(path))


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
