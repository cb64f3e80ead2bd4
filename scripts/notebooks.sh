#!/usr/bin/env bash
# notebooks.sh — set up GoNB (a Go kernel for Jupyter) and open, run or check the course notebooks.
#
# Usage, from anywhere inside the repository:
#   scripts/notebooks.sh [JUPYTER ARGS..]
#                                     set up, install a Jupyter front end if there is none, and start
#                                     Jupyter on notebooks/; once it answers (with the GoNB kernel
#                                     listed), print the URL to open, token included, and how to reach
#                                     it from another machine. Arguments go to Jupyter as they are:
#                                       scripts/notebooks.sh --no-browser --port 8890
#                                       scripts/notebooks.sh --ip 0.0.0.0 --no-browser   (see the risk below)
#                                     Stop it with Ctrl-C.
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
#   1. Jupyter's headless parts (nbconvert, nbclient, jupyter-client, ipykernel) are installed when
#      `jupyter nbconvert` is missing: Debian's packages with apt-get as root or with sudo; elsewhere
#      (macOS, or no root) a Python venv in <repo>/.cache/jupyter with pip (see ensure_venv).
#   2. gonb and goimports are built from the versions pinned as tools in go.mod (`tool` directives),
#      so every machine runs the same kernel. They go to $QWEN3_BIN (default: <repo>/.cache/bin,
#      which git ignores). gopls is not needed for running notebooks, so it is not built.
#   3. The kernel is registered for the current user (`gonb --install`, in ~/.local/share/jupyter,
#      ~/Library/Jupyter on macOS, or $JUPYTER_DATA_DIR), and its kernel.json gets a PATH that starts
#      with $QWEN3_BIN, so the kernel finds goimports however Jupyter is started.
#
# Opening Jupyter (the default command) also needs a front end: JupyterLab or Jupyter Notebook if
# one is installed; otherwise Debian's jupyter-notebook package (apt-get, as root or with sudo) or
# notebook in the venv above (pip). QWEN3_JUPYTER=pip takes the venv even where Debian's packages
# could be installed (JupyterLab 4 and Notebook 7 instead of Debian 12's Notebook 6.4). As root it
# adds --allow-root; on Linux without a display, --no-browser. The token comes from $JUPYTER_TOKEN
# (made up when unset) and the port is the first free one from 8888 unless --port is given.
#
# Reaching it from another machine: Jupyter listens on localhost only, so forward its port over
# ssh from the machine with the browser (ssh -N -L 8888:localhost:8888 user@host) and open the
# printed URL there. --ip 0.0.0.0 makes it listen on every network interface instead: then anyone
# who can reach that port and learns the token runs any code as this user, over plain http.
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
# Needs bash 4+ (mapfile); macOS ships bash 3.2: brew install bash, then run the script again.
((BASH_VERSINFO[0] >= 4)) || {
	echo "notebooks.sh: needs bash 4 or newer (this is $BASH_VERSION); on macOS: brew install bash" >&2
	exit 1
}

die() { echo "notebooks.sh: $*" >&2; exit 1; }
log() { echo "notebooks.sh: $*" >&2; }

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[[ -f go.mod ]] || die "cannot find go.mod in $ROOT"

BIN="${QWEN3_BIN:-$ROOT/.cache/bin}"
VENV="$ROOT/.cache/jupyter" # Jupyter from pip, where there are no Debian packages to install
NB_TIMEOUT="${NB_TIMEOUT:-900}"
export PATH="$BIN:$PATH"
[[ -x "$VENV/bin/jupyter" ]] && export PATH="$VENV/bin:$PATH"
TMPDIRS=()
trap 'rm -rf "${TMPDIRS[@]}"' EXIT

# --- 1. Jupyter (Debian packages, or a venv) -------------------------------------------------
# as_root CMD..: run CMD as root (directly, or with sudo); false when neither is possible.
as_root() {
	if [[ "$(id -u)" == 0 ]]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		return 1
	fi
}

# can_apt: apt-get is here and we can run it as root.
can_apt() {
	command -v apt-get >/dev/null 2>&1 && { [[ "$(id -u)" == 0 ]] || command -v sudo >/dev/null 2>&1; }
}

apt_install() {
	log "installing $* with apt-get"
	as_root apt-get update -qq
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# VENV_PIP is what the venv gets: Jupyter Notebook 7 (JupyterLab's interface), which brings
# nbconvert, nbclient and jupyter-client with it.
VENV_PIP=(notebook==7.6.5 ipykernel)

# ensure_venv: a Python venv in .cache/jupyter with Jupyter from pip (macOS, or Linux without
# root). Needs python3 with its venv module (Debian: python3-venv; macOS: Xcode's command line
# tools or brew install python).
ensure_venv() {
	if [[ ! -x "$VENV/bin/jupyter" ]]; then
		command -v python3 >/dev/null 2>&1 || die "no python3 to make a venv for Jupyter in (macOS: brew install python)"
		log "installing ${VENV_PIP[*]} with pip into ${VENV#"$ROOT"/} (one time, a minute or two)"
		python3 -m venv "$VENV" || die "python3 -m venv $VENV failed (Debian: apt-get install python3-venv)"
		"$VENV/bin/pip" install -q --disable-pip-version-check "${VENV_PIP[@]}" ||
			die "pip install ${VENV_PIP[*]} into $VENV failed (see above)"
	fi
	export PATH="$VENV/bin:$PATH"
}

ensure_jupyter() {
	[[ "${QWEN3_JUPYTER:-}" == pip ]] && ensure_venv
	if command -v jupyter >/dev/null 2>&1 && jupyter nbconvert --version >/dev/null 2>&1 &&
		jupyter kernelspec --version >/dev/null 2>&1; then
		return
	fi
	if can_apt; then
		apt_install jupyter-nbconvert python3-nbclient jupyter-client python3-ipykernel python3-nbformat
	else
		ensure_venv
	fi
	jupyter nbconvert --version >/dev/null 2>&1 || die "jupyter nbconvert still does not run after installing it"
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
	local data="$HOME/.local/share/jupyter" # where gonb --install writes, as Jupyter reads
	[[ "$(uname -s)" == Darwin ]] && data="$HOME/Library/Jupyter"
	local dir="${JUPYTER_DATA_DIR:-$data}/kernels/gonb"
	[[ -f "$dir/kernel.json" ]] || die "gonb --install did not write $dir/kernel.json"
	# Give the kernel a PATH with goimports and go on it, whatever environment starts Jupyter.
	local gobin
	gobin="$(dirname "$(command -v go)")"
	local path_json="$BIN:$gobin:/usr/local/bin:/usr/bin:/bin"
	sed -i.orig "s|\"env\":{}|\"env\":{\"PATH\":\"$path_json\"}|" "$dir/kernel.json" # -i.orig: GNU and BSD sed
	rm -f "$dir/kernel.json.orig"
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
#   3. Every number the markdown marks as a claim (<!--claim:NAME-->, see notebooks/plots/claims.go)
#      is checked by a cell of this run: its output has the line "claim NAME: ... holds". (A claim
#      that disagrees with its value already failed its cell.)
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

		# Claims (notebooks/plots/claims.go): every number the prose marks with <!--claim:NAME-->
		# must be checked by a cell of this run, which prints "claim NAME: ... holds".
		marker = re.compile(r"<!--\s*claim:([A-Za-z0-9_.\-]+)\s*-->")
		held = re.compile(r"^claim ([A-Za-z0-9_.\-]+): .* holds \(computed", re.M)
		marked = {}
		for i, cell in enumerate(fresh.cells):
		    if cell.cell_type == "markdown":
		        for name in marker.findall(cell.source):
		            marked.setdefault(name, i)
		checked = set()
		for cell in fresh.cells:
		    for o in cell.get("outputs", []) if cell.cell_type == "code" else []:
		        if o.get("output_type") == "stream" and o.get("name") == "stdout":
		            checked.update(held.findall(o.get("text", "")))
		for name, i in sorted(marked.items(), key=lambda kv: kv[1]):
		    if name not in checked:
		        problems.append(f"claim {name} (markdown cell {i}) is checked by no cell: call claims.Check(\"{name}\", value) where it is computed")
		print(f"  {len(marked)} claim(s) in the prose, {len(checked & set(marked))} checked by a cell", file=sys.stderr)
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
				"a marked claim that no cell checks needs its claims.Check;" \
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

# --- opening Jupyter -------------------------------------------------------------------------
# front_end prints the Jupyter front end to start (lab, notebook or nbclassic), or fails.
front_end() {
	local f
	for f in lab notebook nbclassic; do
		if jupyter "$f" --version >/dev/null 2>&1; then
			echo "$f"
			return 0
		fi
	done
	return 1
}

ensure_front_end() {
	front_end >/dev/null && return
	if can_apt; then
		apt_install jupyter-notebook
	else
		ensure_venv
	fi
	front_end >/dev/null || die "still no Jupyter front end (jupyter lab or jupyter notebook) after installing one"
}

# has_arg OPT ARGS..: ARGS contain option OPT (alone or as OPT=value).
has_arg() {
	local opt="$1" a
	shift
	for a in "$@"; do
		[[ "$a" == "$opt" || "$a" == "$opt"=* ]] && return 0
	done
	return 1
}

# arg_value NAME ARGS..: the value given to Jupyter's option NAME in ARGS (--NAME=V, --NAME V, or
# a configurable such as --ServerApp.NAME=V or --IdentityProvider.NAME=V); nothing when absent.
arg_value() {
	local name="$1" a take=""
	shift
	for a in "$@"; do
		if [[ -n "$take" ]]; then
			echo "$a"
			return
		fi
		case "$a" in
		--"$name"=* | --*."$name"=*) echo "${a#*=}" && return ;;
		--"$name") take=1 ;;
		esac
	done
}

# free_port N: the first port from N on that nothing listens on (on this machine's loopback).
free_port() {
	"$(jupyter_python)" - "$1" <<-'EOF'
		import socket, sys
		first = int(sys.argv[1])
		for port in range(first, first + 50):
		    with socket.socket() as s:
		        try:
		            s.bind(("127.0.0.1", port))
		        except OSError:
		            continue
		    print(port)
		    sys.exit(0)
		sys.exit(1)
	EOF
}

# kernel_names URL TOKEN: ask the Jupyter server at URL for its kernel specs (REST API,
# /api/kernelspecs); print their names. Exit status 0 when gonb is one, 2 when it is not, 1 when
# the server does not answer (yet).
kernel_names() {
	"$(jupyter_python)" - "$1" "$2" <<-'EOF'
		import json, sys, urllib.request
		url, token = sys.argv[1], sys.argv[2]
		req = urllib.request.Request(url + "/api/kernelspecs", headers={"Authorization": "token " + token})
		try:
		    specs = json.load(urllib.request.urlopen(req, timeout=5))["kernelspecs"]
		except Exception:
		    sys.exit(1)
		print(", ".join(sorted(specs)))
		sys.exit(0 if "gonb" in specs else 2)
	EOF
}

# open_jupyter ARGS..: start Jupyter on notebooks/ with ARGS passed through, wait until it answers
# with the GoNB kernel listed, print where to open it, and run until Ctrl-C (or SIGTERM) stops it.
open_jupyter() {
	ensure_front_end
	local front version args=("$@") port ip token probe host
	front="$(front_end)"
	version="$(jupyter "$front" --version 2>/dev/null | tail -1)"
	if [[ "$(id -u)" == 0 ]] && ! has_arg --allow-root "$@"; then
		args+=(--allow-root) # Jupyter refuses to run as root without it
	fi
	if [[ "$(uname -s)" != Darwin && -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]] &&
		! has_arg --no-browser "$@" && ! has_arg --browser "$@"; then
		args+=(--no-browser) # no display here: open the URL from a browser elsewhere
	fi
	port="$(arg_value port "$@")"
	if [[ -z "$port" ]]; then
		port="$(free_port 8888)" || die "no free port from 8888 to 8937; choose one with --port N"
		args+=(--port="$port")
	fi
	# Stay on that port: the URL printed below names it.
	has_arg --port-retries "$@" || args+=(--port-retries=0)
	token="$(arg_value token "$@")"
	if [[ -z "$token" ]]; then
		# Jupyter Notebook 6 and 7 and JupyterLab all take their token from JUPYTER_TOKEN.
		token="${JUPYTER_TOKEN:-$("$(jupyter_python)" -c 'import secrets; print(secrets.token_hex(24))')}"
		export JUPYTER_TOKEN="$token"
	fi
	ip="$(arg_value ip "$@")"
	local network="" # set when Jupyter listens beyond this machine's loopback
	case "$ip" in
	"" | localhost | 127.0.0.1) probe=127.0.0.1 host=localhost ;;
	0.0.0.0 | "*" | "::" | "[::]") probe=127.0.0.1 host=localhost network="$(hostname)" ;;
	*) probe="$ip" host="$ip" network="$ip" ;;
	esac

	log "starting jupyter $front ($version) on notebooks/ at port $port: ${args[*]}"
	# PYDEVD_DISABLE_FILE_VALIDATION: Debian's ipykernel imports debugpy, which otherwise prints four
	# lines of "Debugger warning: ... frozen modules" into the server's log on the first kernel list.
	PYDEVD_DISABLE_FILE_VALIDATION=1 jupyter "$front" --notebook-dir="$ROOT/notebooks" "${args[@]}" &
	local pid=$! rc=0 names="" t
	# A script's background job ignores Ctrl-C, so Ctrl-C (SIGINT) reaches this shell alone: it stops
	# the server with SIGTERM, which Jupyter takes as "shut down now" (kernels included).
	trap 'kill -TERM "$pid" 2>/dev/null || true' INT TERM
	for ((t = 0; t < 240; t++)); do # up to two minutes
		kill -0 "$pid" 2>/dev/null || break
		names="$(kernel_names "http://$probe:$port" "$token")" && break
		rc=$?
		if ((rc == 2)); then
			log "WARNING: Jupyter answers, but its kernels ($names) do not include gonb;" \
				"see $(jupyter --data-dir)/kernels and run: scripts/notebooks.sh setup"
			break
		fi
		sleep 0.5
	done
	if kill -0 "$pid" 2>/dev/null; then
		local url="http://$host:$port/?token=$token" user
		user="$(id -un)"
		cat <<-EOF

			notebooks.sh: Jupyter is up (kernels: ${names:-unknown}). Open this URL in a browser:

			    $url

			notebooks.sh: start with 00_setup.ipynb; the notebooks' kernel is "Go (gonb)". Stop Jupyter with Ctrl-C.
			notebooks.sh: from another machine, forward the port over ssh and open the same URL there:
			    ssh -N -L $port:localhost:$port $user@$(hostname)
		EOF
		if [[ -n "$network" ]]; then
			cat <<-EOF
				notebooks.sh: --ip $ip: Jupyter also answers from the network, at http://$network:$port/?token=(the same).
				    Anyone who can reach port $port and learns the token runs any code here as $user, and plain
				    http shows the token to the network on its way; the ssh tunnel keeps the server on localhost.
			EOF
		fi
		echo
	fi
	rc=0
	wait "$pid" || rc=$?
	if kill -0 "$pid" 2>/dev/null; then # Ctrl-C interrupted the wait: let Jupyter finish shutting down
		wait "$pid" || true
		log "Jupyter stopped"
		return 0
	fi
	((rc == 0 || rc == 143)) || die "jupyter $front exited with status $rc (its messages are above)"
	log "Jupyter stopped"
}

case "${1:-}" in
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
"" | open | -*) # no command, or Jupyter's options: open Jupyter
	[[ "${1:-}" == open ]] && shift
	setup
	open_jupyter "$@"
	;;
*)
	die "unknown command '$1' (try: setup, run, check, help, or no command to open Jupyter, with any Jupyter options)"
	;;
esac
