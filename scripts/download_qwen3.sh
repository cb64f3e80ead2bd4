#!/usr/bin/env bash
# download_qwen3.sh — fetch the real Qwen3-0.6B for use with the qwen3 command and QWEN3_MODEL tests.
# (The machines this course is built on have no model hub access; this is for you, with internet.)
#
#   scripts/download_qwen3.sh gguf [DIR]          the official Q8_0 GGUF (639,446,688 bytes)
#   scripts/download_qwen3.sh safetensors [DIR]   the Hugging Face directory (BF16, 1.5 GB)
#
# DIR defaults to ./models. Every file comes from a pinned revision (a commit of the hub repository,
# never the moving "main") and must have the pinned size and sha256; a download that stopped
# resumes where it stopped (curl -C -) and is checked again when complete. A file that does not
# match is moved aside as FILE.bad and the script fails: run it again to fetch it afresh.
# Then:  QWEN3_MODEL=models/Qwen3-0.6B-Q8_0.gguf go test ./qwen3/ -run Real
#        go run ./qwen3/cmd/qwen3 chat -model models/Qwen3-0.6B-Q8_0.gguf
set -euo pipefail
HUB="${HF_ENDPOINT:-https://huggingface.co}"
kind="${1:-}"
dir="${2:-models}"

# The pins. A file's sha256 is its git-LFS oid for the large files (the hub stores them by that hash)
# and the hash of its bytes for the small ones. The machines this course is built on cannot reach the
# hub, so the values were found in public sources that pin the same files, and kept only where
# independent sources agree (exact-string search of public GitHub files, November 2026):
#
# Qwen/Qwen3-0.6B-GGUF, revision 23749fefcc72300e3a2ad315e1317431b06b590a:
#   Qwen3-0.6B-Q8_0.gguf, 639,446,688 bytes, sha256 9465e63a...: the same revision, size and hash are
#   pinned by a Yocto recipe that downloads the file from .../resolve/23749fef.../ (its
#   SRC_URI[model.sha256sum]), by an application's model catalog and its test, by a CI script
#   (BLOOM_TRAINED_MODEL_REVISION/_SHA256), and by a lab's model notes that say the download
#   "matched the publisher LFS SHA256"; the size is also QWEN3_FACTS.md's.
GGUF_REPO="Qwen/Qwen3-0.6B-GGUF"
GGUF_REVISION="23749fefcc72300e3a2ad315e1317431b06b590a"
GGUF_FILES=(
	"Qwen3-0.6B-Q8_0.gguf 639446688 9465e63a22add5354d9bb4b99e90117043c7124007664907259bd16d043bb031"
)
#
# Qwen/Qwen3-0.6B, revision c1899de289a04d12100db370d81485cdf75e47ca (the revision of the hub cache
# snapshots that several projects record):
#   all five hashes and sizes below appear together, at this revision, in a project's "approved
#   artifact set" table, in a verification script's MODEL_FILES map and in a snapshot manifest
#   (EXPECTED_SNAPSHOT, with media types); model.safetensors's hash is also the name of its LFS blob
#   in a hub cache listing (1,503,300,328 bytes) and "the official weight SHA-256" of other projects;
#   tokenizer.json's is the one reference/ checks for the npm copy of Qwen's tokenizer (DESIGN.md).
HF_REPO="Qwen/Qwen3-0.6B"
HF_REVISION="c1899de289a04d12100db370d81485cdf75e47ca"
HF_FILES=(
	"config.json 726 660db3b73d788119c04535e48cf9be5f55bc3100841a718637ae695b442f27dd"
	"generation_config.json 239 2325da0f15bb848e018c5ae071b7943332e9f871d6b60e2ed22ca97d4cb993d2"
	"tokenizer.json 11422654 aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4"
	"tokenizer_config.json 9732 d5d09f07b48c3086c508b30d1c9114bd1189145b74e982a265350c923acd8101"
	"model.safetensors 1503300328 f47f71177f32bcd101b7573ec9171e6a57f4f4d31148d38e382306f42996874b"
)

die() {
	echo "download_qwen3.sh: $*" >&2
	exit 1
}

size() { wc -c <"$1" | tr -d ' '; } # portable (GNU and BSD): the file's size in bytes

sha256() { # portable: GNU coreutils or BSD/macOS
	if command -v sha256sum >/dev/null; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null; then
		shasum -a 256 "$1" | cut -d' ' -f1
	else
		die "neither sha256sum nor shasum is installed: cannot check the downloads"
	fi
}

fetch() { # fetch REPO REVISION FILE SIZE SHA256 DEST
	local repo="$1" rev="$2" file="$3" want_size="$4" want_sha="$5" dest="$6"
	[[ "$rev" =~ ^[0-9a-f]{40}$ ]] || die "$repo: revision '$rev' is not a pinned commit"
	[[ "$want_sha" =~ ^[0-9a-f]{64}$ && "$want_size" =~ ^[0-9]+$ ]] || die "$file: no pinned size and sha256; refusing to download it unchecked"
	local url="$HUB/$repo/resolve/$rev/$file"
	if [[ -f "$dest" && "$(size "$dest")" -gt "$want_size" ]]; then
		mv -f "$dest" "$dest.bad"
		echo "note    $dest was larger than $want_size bytes; moved to $dest.bad, fetching afresh"
	fi
	if [[ ! -f "$dest" || "$(size "$dest")" != "$want_size" ]]; then
		echo "fetch   $url"
		curl -fL --retry 5 --retry-delay 3 -C - -o "$dest" "$url" ||
			die "$dest: download failed or stopped at $(size "$dest" 2>/dev/null || echo 0) of $want_size bytes; run again to resume"
	fi
	local got_size got_sha
	got_size="$(size "$dest")"
	[[ "$got_size" == "$want_size" ]] || die "$dest has $got_size bytes, expected $want_size; run again to resume"
	got_sha="$(sha256 "$dest")"
	if [[ "$got_sha" != "$want_sha" ]]; then
		mv -f "$dest" "$dest.bad"
		die "$dest: sha256 $got_sha, expected $want_sha (revision $rev); moved to $dest.bad; run again to fetch it afresh"
	fi
	echo "ok      $dest ($got_size bytes, sha256 $got_sha)"
}

case "$kind" in
gguf)
	mkdir -p "$dir"
	for entry in "${GGUF_FILES[@]}"; do
		read -r file bytes sum <<<"$entry"
		fetch "$GGUF_REPO" "$GGUF_REVISION" "$file" "$bytes" "$sum" "$dir/$file"
	done
	echo "QWEN3_MODEL=$dir/Qwen3-0.6B-Q8_0.gguf"
	;;
safetensors)
	mkdir -p "$dir/Qwen3-0.6B"
	for entry in "${HF_FILES[@]}"; do
		read -r file bytes sum <<<"$entry"
		fetch "$HF_REPO" "$HF_REVISION" "$file" "$bytes" "$sum" "$dir/Qwen3-0.6B/$file"
	done
	echo "QWEN3_MODEL=$dir/Qwen3-0.6B"
	;;
*)
	echo "usage: scripts/download_qwen3.sh gguf|safetensors [DIR]" >&2
	exit 2
	;;
esac
