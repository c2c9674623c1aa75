# hep: the README's two commands are `make demo` (the main job) and `make test` (every test).
CARGO ?= cargo

PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python

.PHONY: demo test test-rust test-python python-env lint bench bench-rust bench-python schema toolchain

## Run the main job: `hep watch` supervises the built-in simulator and mirrors it live.
demo: toolchain
	$(CARGO) run --quiet -p hep-cli -- watch

## Run every test suite of every language that exists.
test: test-rust test-python

## Rust: lints, formatting, docs, unit + integration + conformance + property + doc tests.
test-rust: toolchain lint
	$(CARGO) test --workspace

lint: toolchain
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --quiet -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --quiet -p hep-core --no-deps

## Benchmarks (not part of `make test`): each language against what its users would otherwise pick.
bench: bench-rust bench-python

bench-rust: toolchain
	$(CARGO) run --release --quiet -p hep-bench

bench-python: python-env
	cd bindings-python && ../$(VENV)/bin/maturin develop --release --quiet
	$(VPY) bench/python/bench.py

## Python: a venv with the pinned tools, the extension built in place, then every check.
python-env: $(VENV)/.installed

$(VENV)/.installed: bindings-python/requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --disable-pip-version-check -r bindings-python/requirements-dev.txt
	touch $@

test-python: toolchain python-env
	cd bindings-python && ../$(VENV)/bin/maturin develop --quiet
	$(VPY) -m pytest -q bindings-python/tests
	cd bindings-python && ../$(VENV)/bin/python -m mypy.stubtest hep --allowlist stubtest-allowlist.txt
	$(VPY) -m mypy --strict bindings-python/tests/typing
	$(CARGO) run --quiet -p hep-cli -- check -- $(VPY) examples/python/emit.py
	$(VPY) examples/python/supervise.py
	$(VPY) examples/python/check_docs.py

## Regenerate schema/hep-v1.schema.json from the Rust types.
schema: toolchain
	HEP_UPDATE_SCHEMA=1 $(CARGO) test --quiet -p hep-core --test schema

toolchain:
	@command -v $(CARGO) >/dev/null 2>&1 || { echo "make: cargo not found; install Rust stable (https://rustup.rs) and retry" >&2; exit 1; }
	@$(CARGO) fmt --version >/dev/null 2>&1 || rustup component add rustfmt
	@$(CARGO) clippy --version >/dev/null 2>&1 || rustup component add clippy
