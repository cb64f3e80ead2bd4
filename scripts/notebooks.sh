#!/usr/bin/env bash
# notebooks.sh — set up GoNB (a Go kernel for Jupyter) and open, run or check the course notebooks.
#
# Usage, from anywhere inside the repository:
#   scripts/notebooks.sh              set up, then open Jupyter on notebooks/ (needs a Jupyter front end)
#   scripts/notebooks.sh setup        set up only: build gonb + goimports, install the GoNB kernel
#   scripts/notebooks.sh run [NB..]   execute notebooks IN PLACE, refreshing their committed outputs
#                                     (alias: --execute); use this before committing a notebook
#   scripts/notebooks.sh check [NB..] execute into temporary copies (the tree is left untouched) and
#                                     fail on any cell error, on a plotting cell without a picture,
#                                     or when the committed notebook lacks a kind of output (an
#                                     image, a printout) that the fresh run produced; this is what
#                                     CI runs
# NB.. are notebook files; the default is every notebooks/*.ipynb, in name order.
#
# "Set up" means:
#   1. Debian's Jupyter packages (nbconvert, nbclient, jupyter-client, ipykernel) are installed with
#      apt-get when `jupyter nbconvert` is missing (needs root or sudo).
#   2. gonb and goimports are built from the versions pinned as tools in go.mod (`tool` directives),
#      so every machine runs the same kernel. They go to $QWEN3_BIN (default: <repo>/.cache/bin,
#      which git ignores). gopls is not needed for running notebooks, so it is not built.
#   3. The kernel is registered for the current user (`gonb --install`, in ~/.local/share/jupyter
#      or $JUPYTER_DATA_DIR), and its kernel.json gets a PATH that starts with $QWEN3_BIN, so the
#      kernel finds goimports however Jupyter is started.
#
# Running a notebook: every cell error fails the run, a Go panic included (GoNB reports a cell whose
# program exits non-zero as an error), and so does a cell that calls a plot's .Show( or
# .ShowTiles( (package notebooks/plots) without producing an image. check also compares each
# cell's kinds of output with the committed notebook's (see check_outputs). Each cell may run for NB_TIMEOUT seconds (default 900); the
# first Go cell of a fresh machine compiles gonum and plot, which takes a while.
# Both run and check also refuse a notebook whose saved file contains a machine path (the checkout
# directory, $HOME or a GoNB temporary directory): committed outputs must not reveal where they ran.
#
# How a notebook imports this module's packages is explained in the first cell of
# notebooks/00_setup.ipynb (a `replace` rule pointing GoNB's temporary module at the checkout).
set -euo pipefail
# Needs bash 4+ (mapfile) and GNU sed; on macOS: brew install bash gnu-sed, and put gnubin first on PATH.
((BASH_VERSINFO[0] >= 4)) || { echo "notebooks.sh: needs bash 4 or newer (this is $BASH_VERSION)" >&2; exit 1; }

die() { echo "notebooks.sh: $*" >&2; exit 1; }
log() { echo "notebooks.sh: $*" >&2; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[[ -f go.mod ]] || die "cannot find go.mod in $ROOT"

BIN="${QWEN3_BIN:-$ROOT/.cache/bin}"
NB_TIMEOUT="${NB_TIMEOUT:-900}"
export PATH="$BIN:$PATH"
TMPDIRS=()
trap 'rm -rf "${TMPDIRS[@]}"' EXIT

# --- 1. Jupyter (Debian packages) -------------------------------------------------------------
ensure_jupyter() {
	if command -v jupyter >/dev/null 2>&1 && jupyter nbconvert --version >/dev/null 2>&1 &&
		jupyter kernelspec --version >/dev/null 2>&1; then
		return
	fi
	local pkgs=(jupyter-nbconvert python3-nbclient jupyter-client python3-ipykernel python3-nbformat)
	command -v apt-get >/dev/null 2>&1 ||
		die "Jupyter's nbconvert is missing and there is no apt-get; install jupyter nbconvert + nbclient yourself"
	local sudo=()
	if [[ "$(id -u)" != 0 ]]; then
		command -v sudo >/dev/null 2>&1 || die "Jupyter is missing; run as root or install: ${pkgs[*]}"
		sudo=(sudo)
	fi
	log "installing ${pkgs[*]} with apt-get"
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
	jupyter nbconvert --version >/dev/null 2>&1 || die "jupyter nbconvert still does not run after apt-get install"
}

# --- 2. gonb and goimports, from the versions pinned in go.mod ---------------------------------
build_tools() {
	mkdir -p "$BIN"
	log "building gonb and goimports (versions pinned in go.mod) into ${BIN#"$ROOT"/}"
	go build -o "$BIN/gonb" github.com/janpfeifer/gonb
	go build -o "$BIN/goimports" golang.org/x/tools/cmd/goimports
}

# --- 3. the kernel ---------------------------------------------------------------------------
install_kernel() {
	# --force_deps: gonb --install insists on gopls, which only serves auto-completion.
	gonb --install --force_deps >/dev/null 2>&1 || die "gonb --install failed (run '$BIN/gonb --install --force_deps' to see why)"
	local dir="${JUPYTER_DATA_DIR:-$HOME/.local/share/jupyter}/kernels/gonb"
	[[ -f "$dir/kernel.json" ]] || die "gonb --install did not write $dir/kernel.json"
	# Give the kernel a PATH with goimports and go on it, whatever environment starts Jupyter.
	local gobin
	gobin="$(dirname "$(command -v go)")"
	local path_json="$BIN:$gobin:/usr/local/bin:/usr/bin:/bin"
	sed -i "s|\"env\":{}|\"env\":{\"PATH\":\"$path_json\"}|" "$dir/kernel.json"
	grep -q '"PATH"' "$dir/kernel.json" || die "could not set PATH in $dir/kernel.json"
	log "GoNB kernel installed (github.com/janpfeifer/gonb $(go list -m -f '{{.Version}}' github.com/janpfeifer/gonb))"
}

setup() {
	ensure_jupyter
	build_tools
	install_kernel
}

# --- running notebooks -----------------------------------------------------------------------
notebook_list() {
	if (($# > 0)); then
		for nb in "$@"; do
			[[ -f "$nb" ]] || die "no such notebook: $nb"
			echo "$nb"
		done
	else
		ls notebooks/*.ipynb 2>/dev/null | sort || true
	fi
}

# has_machine_paths FILE: true when FILE mentions this checkout, $HOME or a GoNB temp directory.
has_machine_paths() {
	local f="$1" pats=(-e "$ROOT/" -e '/tmp/gonb_')
	[[ -n "${HOME:-}" && "$HOME" != / ]] && pats+=(-e "$HOME/")
	grep -q -F "${pats[@]}" "$f"
}

# jupyter_python prints the Python interpreter that runs Jupyter (it has nbformat).
jupyter_python() {
	local shebang
	shebang="$(head -1 "$(command -v jupyter)")"
	case "$shebang" in
	'#!/usr/bin/env '*) echo "${shebang#'#!/usr/bin/env '}" ;;
	'#!'*) echo "${shebang#'#!'}" ;;
	*) echo python3 ;;
	esac
}

# report_errors NB: print every cell of executed notebook NB that has an error output, with the
# cell's stderr (a Go panic's message and stack are there); exit status 1 when there is one.
report_errors() {
	"$(jupyter_python)" - "$1" <<-'EOF'
		import sys, nbformat
		nb = nbformat.read(sys.argv[1], as_version=4)
		bad = 0
		for i, cell in enumerate(nb.cells):
		    errs = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
		    if not errs:
		        continue
		    bad += 1
		    print(f"--- cell {i} failed:\n{cell.source}\n--- its output:", file=sys.stderr)
		    for o in cell.outputs:
		        if o.get("output_type") == "stream":
		            print(o.get("text", ""), end="", file=sys.stderr)
		        elif o.get("output_type") == "error":
		            print(f"{o.get('ename', '')}: {o.get('evalue', '')}", file=sys.stderr)
		sys.exit(1 if bad else 0)
	EOF
}

# check_outputs EXECUTED [COMMITTED]: the checks on what the cells showed.
#   1. A cell that displays a plot (its code calls .Show( or .ShowTiles(, the notebooks/plots
#      package's display functions) must have produced an image: a plot that silently failed to
#      render or display is an error, not an empty space.
#   2. With COMMITTED (check mode): every kind of output a cell of the fresh run produced (a stream
#      on stdout or stderr, an image, markdown, ...) must be in the committed notebook's same cell
#      too, so a committed notebook cannot lack a picture or a printout that the code now makes.
#      Only the kinds are compared, not the bytes (timings and PNG encodings may differ), and
#      output on stderr is not required (a cold machine's Go toolchain may print downloads there).
# Exit status 1 when a check fails, with one line per problem.
check_outputs() {
	"$(jupyter_python)" - "$@" <<-'EOF'
		import re, sys, nbformat
		fresh = nbformat.read(sys.argv[1], as_version=4)
		committed = nbformat.read(sys.argv[2], as_version=4) if len(sys.argv) > 2 else None
		show = re.compile(r"\.Show(Tiles)?\(")

		def kinds(cell):
		    out = set()
		    for o in cell.get("outputs", []):
		        t = o.get("output_type")
		        if t == "stream":
		            out.add(f"stream:{o.get('name')}")
		        elif t in ("display_data", "execute_result"):
		            out.update(f"{t}:{mime}" for mime in o.get("data", {}))
		        else:
		            out.add(t)
		    return out

		def code(cell):  # the cell's Go code without // comments
		    return "\n".join(line.split("//", 1)[0] for line in cell.source.splitlines())

		problems = []
		for i, cell in enumerate(fresh.cells):
		    if cell.cell_type != "code":
		        continue
		    got = kinds(cell)
		    if show.search(code(cell)) and not any(k.endswith("image/png") for k in got):
		        problems.append(f"cell {i} displays a plot but produced no image")
		if committed is not None:
		    if [c.source for c in committed.cells] != [c.source for c in fresh.cells]:
		        problems.append("the executed copy's cells differ from the committed ones")
		    else:
		        for i, (f, c) in enumerate(zip(fresh.cells, committed.cells)):
		            if f.cell_type != "code":
		                continue
		            # stderr is left out: a cold machine's toolchain may chat there (downloads).
		            missing = sorted(kinds(f) - kinds(c) - {"stream:stderr"})
		            if missing:
		                problems.append(f"cell {i}: a fresh run shows {', '.join(missing)}, the committed notebook does not")
		for p in problems:
		    print(f"  {p}", file=sys.stderr)
		sys.exit(1 if problems else 0)
	EOF
}

# execute NB OUTDIR: run every cell of NB with cwd = NB's own directory (GoNB's $GONB_DIR), writing
# the result into OUTDIR under the same name. Fails when a cell fails (errors are listed) or when a
# cell runs longer than NB_TIMEOUT.
execute() {
	local nb="$1" outdir="$2" rc=0
	jupyter nbconvert --to notebook --execute --allow-errors \
		--ExecutePreprocessor.kernel_name=gonb \
		--ExecutePreprocessor.timeout="$NB_TIMEOUT" \
		--ExecutePreprocessor.startup_timeout=120 \
		--ExecutePreprocessor.record_timing=False \
		--output-dir "$outdir" --output "$(basename "$nb")" "$nb" >"$outdir/log" 2>&1 || rc=$?
	if ((rc != 0)); then
		# nbconvert itself failed (kernel did not start, a cell timed out, ...): show its log.
		cat "$outdir/log" >&2
		return "$rc"
	fi
	report_errors "$outdir/$(basename "$nb")"
}

run_notebooks() {
	local mode="$1"
	shift
	local nbs
	mapfile -t nbs < <(notebook_list "$@")
	((${#nbs[@]} > 0)) || {
		log "no notebooks to run"
		return 0
	}
	local tmp failed=() start nb out ref
	tmp="$(mktemp -d)"
	TMPDIRS+=("$tmp")
	for nb in "${nbs[@]}"; do
		start=$SECONDS
		log "executing $nb ($mode)"
		if ! execute "$nb" "$tmp"; then
			log "FAIL $nb: a cell failed (see above) after $((SECONDS - start))s"
			failed+=("$nb")
			continue
		fi
		out="$tmp/$(basename "$nb")"
		ref=()
		[[ "$mode" == check ]] && ref=("$nb")
		if ! check_outputs "$out" "${ref[@]}"; then
			log "FAIL $nb (above): a plotting cell without a picture is a bug in the cell or in notebooks/plots;" \
				"a missing output means the committed notebook is stale: scripts/notebooks.sh run $nb"
			failed+=("$nb")
			continue
		fi
		if has_machine_paths "$out"; then
			log "FAIL $nb: its outputs contain a machine path:"
			grep -n -o -F -e "$ROOT/" -e '/tmp/gonb_' "$out" | head -5 >&2 || true
			failed+=("$nb")
			continue
		fi
		if [[ "$mode" == run ]]; then
			cp "$out" "$nb"
		elif has_machine_paths "$nb"; then
			log "FAIL $nb: the committed file contains a machine path; refresh it with: scripts/notebooks.sh run $nb"
			failed+=("$nb")
			continue
		fi
		log "ok   $nb ($((SECONDS - start))s)"
	done
	if ((${#failed[@]} > 0)); then
		log "${#failed[@]} of ${#nbs[@]} notebook(s) failed: ${failed[*]}"
		return 1
	fi
	log "all ${#nbs[@]} notebook(s) ran without errors"
}

open_jupyter() {
	local front=""
	for f in lab notebook nbclassic; do
		if jupyter "$f" --version >/dev/null 2>&1; then
			front="$f"
			break
		fi
	done
	if [[ -z "$front" ]]; then
		cat >&2 <<-EOF
			notebooks.sh: the GoNB kernel is installed, but no Jupyter front end was found.
			Install one, then run this script again:
			    apt-get install jupyter-notebook        (Debian/Ubuntu), or
			    pip install notebook                    (any Python), or
			    open notebooks/ in VS Code with the Jupyter extension and pick the "Go (gonb)" kernel.
		EOF
		exit 1
	fi
	log "starting 'jupyter $front' on notebooks/: open the http://localhost:8888/... URL it prints,"
	log "then pick a notebook; its kernel is \"Go (gonb)\". Stop with Ctrl-C."
	exec jupyter "$front" --notebook-dir="$ROOT/notebooks"
}

case "${1:-open}" in
open)
	setup
	open_jupyter
	;;
setup)
	setup
	;;
run | --execute)
	shift
	setup
	run_notebooks run "$@"
	;;
check)
	shift
	setup
	run_notebooks check "$@"
	;;
-h | --help | help)
	sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
	;;
*)
	die "unknown command '$1' (try: setup, run, check, or no argument to open Jupyter)"
	;;
esac
