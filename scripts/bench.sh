#!/usr/bin/env bash
# bench.sh — the qwen3 engine beside llama.cpp (and optionally PyTorch) on the synthetic full-size
# Qwen3-0.6B, in one run: every weight type, prompts of 128/512/2048 tokens, decoding from an empty
# context and at depth 2048, peak memory, and a read-bandwidth bound; ratios first.
#
#   scripts/bench.sh [SYNTH_DIR]        default: $QWEN3_SYNTH or /tmp/qwen3-synth
#
# SYNTH_DIR holds qwen3-0.6b-{f32,bf16,q8_0}.gguf (scripts/make_synthetic.py); the Q4_K_M, Q4_0 and
# Q6_K files are made there from the F32 one by llama.cpp's llama-quantize, once. llama.cpp itself
# is built once from pinned sources by scripts/bench/llamacpp.sh (into $LLAMA_CPP_DIR, default
# .cache/llama.cpp); when it cannot be built the script says why and runs our engine alone.
# The engines run interleaved, REPS times, each test in its own process (see scripts/bench/compare).
#
# Settings (environment): REPS (3), WEIGHTS (f32,bf16,q8_0,q4_k_m,q4_0,q6_k), PREFILL (128,512,2048),
# DECODE (64), DEPTH (0,2048), THREADS (all cores), TORCH=1 to add PyTorch (F32; $PYTHON with torch
# and transformers), JSON (notebooks/data/bench.json; empty to write none), VERBOSE=1.
# KV caches: ours is the engine's default (qwen3.KVAuto: float32 for one sequence of up to 4096 tokens,
# float16 for a longer context and for a batch's caches); llama.cpp's is its default, F16
# (cache_type_k/v in its common/common.h). So the batched and long-context cells compare float16
# caches on both sides, the others our float32 against llama.cpp's F16.
# BATCH=1,4,8,16,32 measures batched generation instead: B prompts of BATCH_PROMPT (128) tokens, then
# DECODE tokens of each decoded together, aggregate tok/s, beside llama.cpp's llama-batched-bench,
# each batch size in its own process for both engines, so that the table gives each one's peak
# memory and that memory per sequence (peak RSS / B, the weights included) (JSON default:
# notebooks/data/bench_batched.json).
# LONG=8192,16384,32768 measures long contexts instead: for each L, a prefill of L tokens from an
# empty context and DECODE tokens decoded at depth L, ours (a float16 cache past 4096 tokens)
# beside llama.cpp's llama-batched-bench for one sequence (its prompt of L tokens, then DECODE tokens
# decoded after it: one prefill serves both cells) with flash attention off (-fa off: engine
# llama.cpp) and on (-fa on: llama.cpp fa), each L in its own process (JSON default:
# notebooks/data/bench_long.json). Prefill at 32k tokens takes minutes per engine and run (llama.cpp
# with -fa on: 21 minutes for the prompt on 2 cores, 2026-11-28): try LONG=8192 REPS=1 first. LONG_FA=on (or off) runs
# llama.cpp with one flash attention setting only (default: off,on).
# SERVE=1,4,8,16,32 measures serving instead: `qwen3 serve` beside llama.cpp's llama-server on one
# file (WEIGHTS, default q8_0), both with continuous batching, SERVE_SLOTS slots (default: the most
# clients) of SERVE_CTX (512) tokens, a float16 KV cache, and the same load generator at each number
# of concurrent clients: streamed completions of prompts of SERVE_PROMPT words (100: 115 to 117 tokens in bench_serving.json)
# and DECODE new tokens each, SERVE_REQUESTS (2) per client, REPS times, interleaved; aggregate tok/s,
# time to first token and inter-token latency p50/p99 (scripts/bench/serving; JSON default
# notebooks/data/bench_serving.json). The servers and the clients share the machine: run it quiet.
# A full run takes about 45 minutes on 2 cores. Close other programs first: the machine must be quiet.
#
# On macOS (Apple Silicon) it runs as it is, with the system's bash 3.2, Go, Xcode's command line
# tools (cc, c++), cmake (brew install cmake) and a Python for scripts/make_synthetic.py and pip.
# There llama.cpp is built for the CPU alone (no Metal, no Accelerate BLAS: see llamacpp.sh), so
# that both engines run their NEON kernels; THREADS defaults to the performance cores.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DIR="${1:-${QWEN3_SYNTH:-/tmp/qwen3-synth}}"
PYTHON="${PYTHON:-$( [[ -x .venv/bin/python ]] && echo .venv/bin/python || echo python3)}"
WEIGHTS="${WEIGHTS:-f32,bf16,q8_0,q4_k_m,q4_0,q6_k}"
[[ -n "${SERVE:-}" ]] && WEIGHTS="${WEIGHTS/#f32,bf16,q8_0,q4_k_m,q4_0,q6_k/q8_0}" # serving: one file
# Each weight type asked for needs its file, or (Q4_K_M, Q4_0, Q6_K) the F32 one to make it from.
for w in ${WEIGHTS//,/ }; do
	f="$DIR/qwen3-0.6b-$w.gguf"
	case "$w" in
	q4_k_m | q4_0 | q6_k) [[ -f "$f" || -f "$DIR/qwen3-0.6b-f32.gguf" ]] ;;
	*) [[ -f "$f" ]] ;;
	esac || { echo "bench.sh: no $f (run scripts/make_synthetic.py --out $DIR, or set WEIGHTS)" >&2; exit 1; }
done

# Cores: all of them, or on Apple Silicon the performance cores (the efficiency ones would set the pace).
ncpu="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)"
if [[ "$(uname -s)" == Darwin ]]; then
	ncpu="$(sysctl -n hw.perflevel0.physicalcpu 2>/dev/null || sysctl -n hw.ncpu)"
fi

mkdir -p .cache
go build -o .cache/bench ./scripts/bench
go build -o .cache/bench-compare ./scripts/bench/compare

# The peer: llama.cpp, built once.
llama=""
if [[ "${NO_LLAMA:-0}" != 1 ]]; then
	if llama="$(PYTHON="$PYTHON" scripts/bench/llamacpp.sh)"; then
		echo "llama.cpp: $llama"
	else
		echo "bench.sh: running without llama.cpp (the reason is above)" >&2
		llama=""
	fi
fi

# The community's quantizations, made from the F32 file by llama-quantize (once).
for q in Q4_K_M Q4_0 Q6_K; do
	w="$(tr 'A-Z' 'a-z' <<<"$q")"
	out="$DIR/qwen3-0.6b-$w.gguf"
	[[ -f "$out" || -z "$llama" || ",$WEIGHTS," != *",$w,"* ]] && continue
	echo "bench.sh: making $out with llama-quantize"
	"$llama/llama-quantize" "$DIR/qwen3-0.6b-f32.gguf" "$out.part" "$q" "$ncpu" >"$out.log" 2>&1 \
		&& mv "$out.part" "$out" || echo "bench.sh: llama-quantize $q failed (see $out.log)" >&2
done

# Serving: the two servers under the same load generator, then done.
if [[ -n "${SERVE:-}" ]]; then
	go build -o .cache/qwen3 ./qwen3/cmd/qwen3
	go build -o .cache/bench-serving ./scripts/bench/serving
	w="${WEIGHTS%%,*}"
	args=(-model "$DIR/qwen3-0.6b-$w.gguf" -qwen3 .cache/qwen3 -clients "$SERVE" -ctx "${SERVE_CTX:-512}"
		-prompt-words "${SERVE_PROMPT:-100}" -max-tokens "${DECODE:-64}" -requests "${SERVE_REQUESTS:-2}" -reps "${REPS:-3}"
		-threads "${THREADS:-$ncpu}")
	[[ -n "${SERVE_SLOTS:-}" ]] && args+=(-slots "$SERVE_SLOTS")
	[[ -n "$llama" ]] && args+=(-llama "$llama")
	[[ -n "${JSON-notebooks/data/bench_serving.json}" ]] && args+=(-json "${JSON-notebooks/data/bench_serving.json}")
	[[ "${VERBOSE:-0}" == 1 ]] && args+=(-v)
	exec .cache/bench-serving "${args[@]}"
fi

torch=()
if [[ "${TORCH:-0}" == 1 ]]; then
	if "$PYTHON" -c 'import torch, transformers' 2>/dev/null; then
		torch=(-python "$PYTHON")
	else
		echo "bench.sh: TORCH=1 but $PYTHON has no torch/transformers; skipping PyTorch" >&2
	fi
fi
args=(-synth "$DIR" -bench .cache/bench -reps "${REPS:-3}" -weights "$WEIGHTS"
	-prefill "${PREFILL:-128,512,2048}" -decode "${DECODE:-64}" -depth "${DEPTH:-0,2048}" -threads "${THREADS:-$ncpu}")
[[ -n "$llama" ]] && args+=(-llama "$llama")
json_default=notebooks/data/bench.json
if [[ -n "${BATCH:-}" ]]; then
	args+=(-batch "$BATCH" -batch-prompt "${BATCH_PROMPT:-128}")
	json_default=notebooks/data/bench_batched.json
	torch=()
elif [[ -n "${LONG:-}" ]]; then
	args+=(-long "$LONG" -long-fa "${LONG_FA:-off,on}")
	json_default=notebooks/data/bench_long.json
	torch=()
fi
[[ -n "${JSON-$json_default}" ]] && args+=(-json "${JSON-$json_default}")
[[ "${VERBOSE:-0}" == 1 ]] && args+=(-v)
.cache/bench-compare "${args[@]}" ${torch[@]+"${torch[@]}"} # (bash 3.2: an empty array is "unbound" under set -u)
