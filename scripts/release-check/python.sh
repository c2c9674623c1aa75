#!/usr/bin/env bash
# The Python release, installed the way users install it, from a package index on loopback.
#
#   1. the pinned release tools (bindings-python/requirements-release.txt) in a venv;
#   2. the abi3 wheel, linked by zig against glibc 2.17 (`maturin build --zig
#      --compatibility manylinux2014`), and the sdist; `auditwheel show` must find the
#      wheel manylinux_2_17 (manylinux2014) x86_64 or older, and its name cp39-abi3;
#   3. pypiserver on 127.0.0.1 (a free port) serving both, and the maturin wheel the sdist
#      builds with (no fallback to PyPI), stopped by its pid on exit;
#   4. fresh venvs: `pip install hep-protocol --index-url http://127.0.0.1:PORT/simple/`,
#      once with --only-binary (the wheel) and once with --no-binary (pip builds the
#      unpacked sdist outside the repository, with Rust); in each, from outside the
#      repository, scripts/release-check/python_installed.py checks what was installed,
#      runs the README's examples and supervises `hep simulate` to an ok verdict.
#
# Run from anywhere: scripts/release-check/python.sh. Everything it makes is under
# target/release-check/python/ (the cargo target dir there is kept between runs). Cargo
# runs offline after one `cargo fetch`. Environment: PYTHON (default python3), CARGO
# (default cargo).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$repo/target/release-check/python
python=${PYTHON:-python3}
cargo=${CARGO:-cargo}
requirements=$repo/bindings-python/requirements-release.txt
tools=$work/tools
started=$SECONDS

say() { echo "release-check python: $*"; }
die() { echo "release-check python: FAILED: $*" >&2; exit 1; }
logged() { # logged <name> <command...>: its output goes to $work/<name>.log, shown if it fails
  local log=$work/$1.log
  shift
  "$@" >"$log" 2>&1 || { cat "$log" >&2; die "$* (log: $log)"; }
}

server_pid=
scratch=$(mktemp -d)
cleanup() {
  if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$scratch"
}
trap cleanup EXIT

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$repo/Cargo.toml" | head -n1)
[[ -n $version ]] || die "no workspace version in $repo/Cargo.toml"

# ---- 1. the pinned tools ----
stamp=$tools/.installed-$(sha256sum "$requirements" | cut -c1-16)
if [[ ! -e $stamp ]]; then
  say "installing the pinned release tools into $tools"
  rm -rf "$tools"
  mkdir -p "$work"
  "$python" -m venv "$tools"
  "$tools/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  touch "$stamp"
fi
export PATH=$tools/bin:$PATH # maturin finds zig (the ziglang package) through its python

# ---- 2. the wheel and the sdist ----
hep_bin=${CARGO_TARGET_DIR:-$repo/target}/debug # where `cargo build -p hep-cli` puts `hep`
export CARGO_TARGET_DIR=$work/cargo
"$cargo" fetch --quiet --manifest-path "$repo/Cargo.toml"
export CARGO_NET_OFFLINE=true
dist=$work/dist
rm -rf "$dist"
say "building the wheel (maturin --zig --compatibility manylinux2014) and the sdist"
t=$SECONDS
logged wheel nice -n 10 maturin build --release --zig --compatibility manylinux2014 -m "$repo/bindings-python/Cargo.toml" -o "$dist"
wheel_time=$((SECONDS - t))
logged sdist maturin sdist -m "$repo/bindings-python/Cargo.toml" -o "$dist"
wheels=("$dist"/hep_protocol-"$version"-*.whl)
sdist=$dist/hep_protocol-$version.tar.gz
[[ ${#wheels[@]} -eq 1 && -f ${wheels[0]} ]] || die "expected one hep_protocol-$version wheel in $dist: $(ls "$dist")"
[[ -f $sdist ]] || die "no sdist $sdist: $(ls "$dist")"
wheel=${wheels[0]}
[[ $(basename "$wheel") == hep_protocol-"$version"-cp39-abi3-* ]] || die "the wheel is not cp39-abi3: $(basename "$wheel")"

# ---- the platform tag, read back by auditwheel ----
show=$(auditwheel show "$wheel" | tr '\n' ' ')
tag=$(sed -n 's/.*is consistent with the following platform tag: *"\([^"]*\)".*/\1/p' <<<"$show")
if [[ $tag =~ ^manylinux_2_([0-9]+)_x86_64$ ]]; then
  ((BASH_REMATCH[1] <= 17)) || die "auditwheel says $tag: the wheel needs glibc 2.${BASH_REMATCH[1]}, newer than manylinux2014 (2.17): $show"
elif [[ ! $tag =~ ^manylinux(1|2010|2014)_x86_64$ ]]; then
  die "auditwheel found no manylinux x86_64 tag (got '$tag'): $show"
fi
[[ $(basename "$wheel") == *"$tag"* ]] || die "the wheel's name does not carry its tag $tag: $(basename "$wheel")"
say "$(basename "$wheel"): auditwheel: $tag, abi3"

# ---- 3. the index, on loopback ----
index=$work/index
rm -rf "$index"
mkdir -p "$index"
cp "$wheel" "$sdist" "$index/"
maturin_pin=$(grep -E '^maturin==' "$requirements")
pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: -d "$index" "$maturin_pin"
port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
pypi-server run -i 127.0.0.1 -p "$port" --disable-fallback --log-stream none "$index" >"$work/pypiserver.log" 2>&1 &
server_pid=$!
url=http://127.0.0.1:$port/simple/
for _ in $(seq 100); do
  "$python" -c "import urllib.request; urllib.request.urlopen('${url}hep-protocol/', timeout=1)" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || die "pypiserver exited: $(cat "$work/pypiserver.log")"
  sleep 0.2
done
"$python" -c "import urllib.request; urllib.request.urlopen('${url}hep-protocol/', timeout=1)" ||
  die "pypiserver does not answer on $url"
say "pypiserver (pid $server_pid) serves $(cd "$index" && echo *) on $url"

# ---- 4. installs from the index, used from outside the repository ----
CARGO_TARGET_DIR=$(dirname "$hep_bin") "$cargo" build --quiet --manifest-path "$repo/Cargo.toml" -p hep-cli
check=$scratch/python_installed.py
cp "$repo/scripts/release-check/python_installed.py" "$check"

install() { # install <venv> <pip options...>
  local venv=$1
  shift
  "$python" -m venv "$venv"
  (cd "$scratch" && env -u PYTHONPATH -u VIRTUAL_ENV nice -n 10 "$venv/bin/pip" --isolated install --quiet \
    --disable-pip-version-check --index-url "$url" "$@" hep-protocol)
}
used() { # used <venv> <check options...>
  local venv=$1
  shift
  (cd "$scratch" && env -u PYTHONPATH PATH="$hep_bin:$PATH" "$venv/bin/python" -I "$check" --version "$version" "$@")
}

install "$scratch/wheel-venv" --only-binary hep-protocol
used "$scratch/wheel-venv" --wheel-tag "cp39-abi3-$tag"

say "pip builds the sdist from the index (Rust, release)"
# The crates of the repository are compiled again, from the unpacked sdist (their files'
# mtimes are the sdist's, older than any build: cargo would take the last build as fresh);
# their dependencies come from the kept target dir.
"$cargo" clean --quiet --manifest-path "$repo/Cargo.toml" --release -p hep-core -p hep-python
touch "$scratch/before-sdist"
t=$SECONDS
logged sdist-install install "$scratch/sdist-venv" --no-binary hep-protocol --no-cache-dir
sdist_time=$((SECONDS - t))
[[ -n $(find "$CARGO_TARGET_DIR/release/deps" -name 'libhep_core-*.rlib' -newer "$scratch/before-sdist") ]] ||
  die "pip installed hep-protocol from the sdist without compiling hep-core"
used "$scratch/sdist-venv" --built-here

say "times: wheel build ${wheel_time}s, sdist install ${sdist_time}s, all $((SECONDS - started))s"
echo "release-check python: ok"
