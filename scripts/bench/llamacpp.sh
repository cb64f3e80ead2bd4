#!/usr/bin/env bash
# llamacpp.sh — build the peer engine, llama.cpp, from the sources a pinned PyPI package carries.
#
#   scripts/bench/llamacpp.sh            build once (if needed) and print the directory of the binaries
#
# The llama-cpp-python sdist vendors llama.cpp's sources (version and commit below). pip downloads
# the sdist (no binaries, no dependencies), cmake builds llama-bench, llama-quantize,
# llama-batched-bench and llama-server (the serving peer of `qwen3 serve`) for this CPU (-DGGML_NATIVE=ON) into $LLAMA_CPP_DIR (default
# <repo>/.cache/llama.cpp, ignored by git; point several checkouts at one directory to share the
# build). A second call finds the binaries and returns at once. Nothing of llama.cpp is committed.
# On failure it prints one line saying why, on stderr, and exits non-zero: callers go on without the peer.
#
# Needs: a Python with pip ($PYTHON), cmake, a C/C++ compiler (Debian: cmake build-essential; macOS:
# xcode-select --install, brew install cmake).
#
# On macOS llama.cpp's defaults add Metal (the GPU) and BLAS through Accelerate (Apple's matrix
# unit for prompts); the course compares CPU kernels, so both are turned off there. LLAMA_CMAKE_ARGS
# adds cmake options of your own (e.g. -DGGML_BLAS=ON to see Accelerate); a change rebuilds.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LLAMA_CPP_PACKAGE="llama-cpp-python==0.3.36"         # vendors llama.cpp 0c1e570
LLAMA_CPP_SHA256="832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
DIR="${LLAMA_CPP_DIR:-$ROOT/.cache/llama.cpp}"
TARGETS=(llama-bench llama-quantize llama-batched-bench llama-server)
PYTHON="${PYTHON:-$( [[ -x "$ROOT/.venv/bin/python" ]] && echo "$ROOT/.venv/bin/python" || echo python3)}"
fail() { echo "llamacpp.sh: $*" >&2; exit 1; }
cmake_options=()
if [[ "$(uname -s)" == Darwin ]]; then
	cmake_options=(-DGGML_METAL=OFF -DGGML_BLAS=OFF)
fi
read -r -a user_options <<<"${LLAMA_CMAKE_ARGS:-}"
# (bash 3.2, macOS's: an empty array is "unbound" under set -u, hence the ${a[@]+...} forms)
cmake_options+=(${user_options[@]+"${user_options[@]}"})
built="$LLAMA_CPP_PACKAGE${cmake_options[*]+ ${cmake_options[*]}}" # what the stamp records

stamp="$DIR/bin/BUILT"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$built" ]]; then
	ok=1
	for t in "${TARGETS[@]}"; do [[ -x "$DIR/bin/$t" ]] || ok=0; done
	if ((ok)); then echo "$DIR/bin"; exit 0; fi
fi
for tool in cmake cc c++; do
	command -v "$tool" >/dev/null || fail "no $tool on PATH (Debian: apt-get install cmake build-essential)"
done
"$PYTHON" -m pip --version >/dev/null 2>&1 || fail "no pip for $PYTHON (set PYTHON)"
mkdir -p "$DIR"
sdist="$DIR/llama_cpp_python-0.3.36.tar.gz"
if [[ ! -f "$sdist" ]]; then
	echo "llamacpp.sh: downloading the $LLAMA_CPP_PACKAGE sdist (sources only)" >&2
	"$PYTHON" -m pip download --quiet --no-deps --no-binary :all: "$LLAMA_CPP_PACKAGE" -d "$DIR" >&2 \
		|| fail "pip could not download $LLAMA_CPP_PACKAGE (no registry access?)"
fi
sha256() { if command -v sha256sum >/dev/null; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1; }
[[ "$(sha256 "$sdist")" == "$LLAMA_CPP_SHA256" ]] || fail "$sdist does not have the pinned sha256"
src="$DIR/src"
if [[ ! -f "$src/CMakeLists.txt" ]]; then
	rm -rf "$DIR/unpack" && mkdir -p "$DIR/unpack"
	tar -xzf "$sdist" -C "$DIR/unpack" || fail "cannot unpack $sdist"
	commit="$(cat "$DIR/unpack"/llama_cpp_python-0.3.36/.git/modules/vendor/llama.cpp/HEAD 2>/dev/null || echo unknown)"
	rm -rf "$src" && mv "$DIR/unpack"/llama_cpp_python-0.3.36/vendor/llama.cpp "$src" && rm -rf "$DIR/unpack"
	echo "llama.cpp ${commit:0:7} (from the $LLAMA_CPP_PACKAGE sdist), built with -DGGML_NATIVE=ON" >"$src/VERSION.qwen3"
fi
echo "llamacpp.sh: building ${TARGETS[*]} in $DIR/build (a few minutes on 2 cores)" >&2
cmake -S "$src" -B "$DIR/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DLLAMA_CURL=OFF \
	-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_SERVER=ON -DBUILD_SHARED_LIBS=OFF ${cmake_options[@]+"${cmake_options[@]}"} >"$DIR/cmake.log" 2>&1 \
	|| fail "cmake configure failed (see $DIR/cmake.log)"
cmake --build "$DIR/build" -j "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)" --target "${TARGETS[@]}" >"$DIR/build.log" 2>&1 \
	|| fail "the build failed (see $DIR/build.log)"
mkdir -p "$DIR/bin"
for t in "${TARGETS[@]}"; do cp "$DIR/build/bin/$t" "$DIR/bin/" || fail "the build made no $t"; done
cp "$src/VERSION.qwen3" "$DIR/bin/VERSION" 2>/dev/null || echo "llama.cpp from the $LLAMA_CPP_PACKAGE sdist" >"$DIR/bin/VERSION"
echo "$built" >"$stamp"
echo "$DIR/bin"
