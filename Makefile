# hep: the README's two commands are `make demo` (the main job) and `make test` (every test).
CARGO ?= cargo

.PHONY: demo test test-rust lint bench schema toolchain

## Run the main job: `hep watch` supervises the built-in simulator and mirrors it live.
demo: toolchain
	$(CARGO) run --quiet -p hep-cli -- watch

## Run every test suite of every language that exists.
test: test-rust

## Rust: lints, formatting, docs, unit + integration + conformance + property + doc tests.
test-rust: toolchain lint
	$(CARGO) test --workspace

lint: toolchain
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --quiet -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --quiet -p hep-core --no-deps

## Benchmarks (not part of `make test`): the core against serde_json, side by side.
bench: toolchain
	$(CARGO) run --release --quiet -p hep-bench

## Regenerate schema/hep-v1.schema.json from the Rust types.
schema: toolchain
	HEP_UPDATE_SCHEMA=1 $(CARGO) test --quiet -p hep-core --test schema

toolchain:
	@command -v $(CARGO) >/dev/null 2>&1 || { echo "make: cargo not found; install Rust stable (https://rustup.rs) and retry" >&2; exit 1; }
	@$(CARGO) fmt --version >/dev/null 2>&1 || rustup component add rustfmt
	@$(CARGO) clippy --version >/dev/null 2>&1 || rustup component add clippy
