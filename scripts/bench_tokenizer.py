#!/usr/bin/env python3
"""Time Hugging Face tokenizers (one thread) on the text of chapter 02's BenchmarkEncode.

The text is built exactly as benchText in chapters/02_tokenizer/bench_test.go does (splitmix64
over the words of chapters/02_tokenizer/testdata/bench_seed.txt); its sha256 is checked against the
Go test's pin. Usage, from the repository root, with `tokenizers` installed:

    python scripts/bench_tokenizer.py [--bytes 4194304] [--runs 5] [--whole]
    go test -run '^$' -bench 'Encode' -benchtime 5x ./chapters/02_tokenizer

It encodes the text line by line (encode_batch on the ~40,000 lines, with a one-thread pool), like
BenchmarkEncodeLines; --whole also times one encode of the whole text, like BenchmarkEncode (slow:
Hugging Face takes tens of seconds on one 4 MiB string). Like the Go benchmarks, a first untimed
run warms the BPE cache.
"""
import argparse
import hashlib
import os
import pathlib
import time

os.environ["RAYON_NUM_THREADS"] = "1"  # before importing tokenizers: a one-thread pool
os.environ["TOKENIZERS_PARALLELISM"] = "false"

from tokenizers import Tokenizer  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEED = ROOT / "chapters" / "02_tokenizer" / "testdata" / "bench_seed.txt"
TOKENIZER = ROOT / "reference" / "tiny-qwen3" / "tokenizer.json"
SHA_4MIB = "ca89dc9486d59ce93ac0d33d230ce5156166aa5ece34d9996ab227c0d1467641"
MASK = (1 << 64) - 1


def bench_text(n: int) -> str:
    words = SEED.read_bytes().split(b" ")
    state = 20250101
    parts, size = [], 0

    def nxt() -> int:
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    while size < n:
        r = nxt()
        w = str(nxt() % 100000).encode() if r % 10 == 0 else words[nxt() % len(words)]
        sep = b"\n" if r % 17 == 0 else b" "
        parts += [w, sep]
        size += len(w) + 1
    return b"".join(parts).decode("utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bytes", type=int, default=4 << 20)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--whole", action="store_true", help="also time one encode of the whole text")
    args = ap.parse_args()

    text = bench_text(args.bytes)
    raw = text.encode("utf-8")
    sha = hashlib.sha256(raw).hexdigest()
    if args.bytes == 4 << 20 and sha != SHA_4MIB:
        raise SystemExit(f"bench text sha256 {sha} differs from the Go benchmark's {SHA_4MIB}")
    tok = Tokenizer.from_file(str(TOKENIZER))
    lines = [line + "\n" for line in text.split("\n")]  # like Go's strings.SplitAfter(text, "\n")
    lines[-1] = lines[-1][:-1]
    lines = [line for line in lines if line]
    print(f"text: {len(raw)} bytes, sha256 {sha}, {len(lines)} lines")

    def timed(label, fn):
        n_tokens = fn()  # warm-up (fills the BPE cache)
        times, cpu = [], time.process_time()
        for _ in range(args.runs):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        cpu = time.process_time() - cpu
        best = min(times)
        # MB/cpu-s: bytes per CPU second of this process, as the Go benchmarks' MB/cpu-s metric;
        # on a machine shared with other jobs it is the fairer number.
        print(f"HF tokenizers {label}, 1 thread: {n_tokens} tokens, best {best:.3f} s = "
              f"{len(raw) / best / 1e6:.2f} MB/s wall (median {sorted(times)[len(times) // 2]:.3f} s, "
              f"{args.runs} runs), {len(raw) * args.runs / cpu / 1e6:.2f} MB/cpu-s")

    timed("encode_batch(lines)", lambda: sum(len(e.ids) for e in tok.encode_batch(lines, add_special_tokens=False)))
    if args.whole:
        timed("encode(whole text)", lambda: len(tok.encode(text).ids))

if __name__ == "__main__":
    main()
