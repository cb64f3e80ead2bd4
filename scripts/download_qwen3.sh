#!/usr/bin/env bash
# download_qwen3.sh — fetch the real Qwen3-0.6B for use with the qwen3 command and QWEN3_MODEL tests.
# (The machines this course is built on have no model hub access; this is for you, with internet.)
#
#   scripts/download_qwen3.sh gguf [DIR]          the official Q8_0 GGUF (639,446,688 bytes)
#   scripts/download_qwen3.sh safetensors [DIR]   the Hugging Face directory (BF16, ~1.5 GB)
#
# DIR defaults to ./models. Downloads resume where they stopped (curl -C -), and every file's size
# is checked against the size the server announces (and, for the GGUF, the known size).
# Then:  QWEN3_MODEL=models/Qwen3-0.6B-Q8_0.gguf go test ./qwen3/ -run Real
#        go run ./qwen3/cmd/qwen3 chat -model models/Qwen3-0.6B-Q8_0.gguf
set -euo pipefail
HUB="${HF_ENDPOINT:-https://huggingface.co}"
kind="${1:-}"
dir="${2:-models}"

size() { wc -c <"$1" | tr -d ' '; } # portable (GNU and BSD): the file's size in bytes

fetch() { # fetch URL DEST [EXPECTED_SIZE]
	local url="$1" dest="$2" want="${3:-}"
	if [[ -z "$want" ]]; then
		want="$( (curl -sIL "$url" || true) | tr -d '\r' | awk 'tolower($1)=="x-linked-size:"{s=$2} tolower($1)=="content-length:"{c=$2} END{print (s?s:c)}')"
		[[ -n "$want" ]] || echo "note    the server announced no size for $url; the download is not size-checked"
	fi
	if [[ -f "$dest" && -n "$want" && "$(size "$dest")" == "$want" ]]; then
		echo "ok      $dest ($want bytes, already complete)"
		return
	fi
	echo "fetch   $url"
	curl -fL --retry 5 --retry-delay 3 -C - -o "$dest" "$url"
	local got
	got="$(size "$dest")"
	if [[ -n "$want" && "$got" != "$want" ]]; then
		echo "download_qwen3.sh: $dest has $got bytes, expected $want; run again to resume" >&2
		exit 1
	fi
	echo "ok      $dest ($got bytes)"
}

case "$kind" in
gguf)
	mkdir -p "$dir"
	fetch "$HUB/Qwen/Qwen3-0.6B-GGUF/resolve/main/Qwen3-0.6B-Q8_0.gguf" "$dir/Qwen3-0.6B-Q8_0.gguf" 639446688
	echo "QWEN3_MODEL=$dir/Qwen3-0.6B-Q8_0.gguf"
	;;
safetensors)
	mkdir -p "$dir/Qwen3-0.6B"
	for f in config.json generation_config.json tokenizer.json tokenizer_config.json model.safetensors; do
		fetch "$HUB/Qwen/Qwen3-0.6B/resolve/main/$f" "$dir/Qwen3-0.6B/$f"
	done
	echo "QWEN3_MODEL=$dir/Qwen3-0.6B"
	;;
*)
	echo "usage: scripts/download_qwen3.sh gguf|safetensors [DIR]" >&2
	exit 2
	;;
esac
