# hep: the README's two commands are `make demo` (the main job) and `make test` (every test).
CARGO ?= cargo

PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python

.PHONY: demo test test-rust fuzz fuzz-smoke fuzz-env test-python python-env test-node node-env test-swift bench-swift lint bench bench-rust bench-python schema toolchain

## Run the main job: `hep watch` supervises the built-in simulator and mirrors it live.
demo: toolchain
	$(CARGO) run --quiet -p hep-cli -- watch

## Run every test suite of every language that exists.
test: test-rust test-python test-node test-swift test-c test-go bounds-smoke memcheck-smoke release-check

## Rust: lints, formatting, docs, unit + integration + conformance + property + doc tests.
test-rust: toolchain lint
	$(CARGO) test --workspace
	$(MAKE) --no-print-directory fuzz-smoke

lint: toolchain
	$(CARGO) fmt --all --check
	$(CARGO) fmt --manifest-path fuzz/Cargo.toml --check
	$(CARGO) clippy --workspace --all-targets --quiet -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --quiet -p hep-core -p hep-process -p hep-c --no-deps
	scripts/release/set-version --check

## Benchmarks (not part of `make test`): each language against what its users would otherwise pick.
bench: bench-rust bench-python bench-node bench-swift bench-go bench-live

bench-rust: toolchain
	$(CARGO) run --release --quiet -p hep-bench

bench-python: python-env
	cd bindings-python && ../$(VENV)/bin/maturin develop --release --quiet
	$(VPY) bench/python/bench.py

## Node: the npm package built (release) by node-env, then bench/node/bench.mjs; --expose-gc
## lets the bench run a full GC (untimed) before each timed run.
.PHONY: bench-node
bench-node: toolchain node-env
	CARGO=$(CARGO) node --expose-gc bench/node/bench.mjs

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
	$(VPY) scripts/check_docs.py python

## Node: the pinned tools (npm ci, once per package-lock.json), the addon built (release)
## beside package.json, then every check: node:test suites, the TypeScript type test, and
## the packaging test (among the node:test suites).
NODE_MODULES := bindings-node/node_modules/.installed

node-env: toolchain $(NODE_MODULES)
	cd bindings-node && npm run --silent build

$(NODE_MODULES): bindings-node/package-lock.json
	cd bindings-node && npm ci --no-audit --no-fund --loglevel=error
	touch $@

test-node: node-env
	cd bindings-node && node --test test/
	cd bindings-node && npx tsc -p test/types/tsconfig.json
	cd examples/node && npm install --offline --no-audit --no-fund --no-package-lock --silent
	$(CARGO) run --quiet -p hep-cli -- check -- node examples/node/emit.mjs
	node examples/node/supervise.mjs
	node examples/node/check_docs.mjs

## Swift: bindings-swift/test.sh does it all: Swift provisioned when there is none (a Debian
## trixie root, cached), the Rust library, the generated sources (uniffi-bindgen cached),
## swift build + swift test, examples/swift built and run, docs/swift.md snippets checked.
test-swift: toolchain
	CARGO=$(CARGO) bindings-swift/test.sh

## Swift: bench/swift/run.sh (release builds; the corpus dumped by hep-bench).
bench-swift: toolchain
	CARGO=$(CARGO) bench/swift/run.sh

.PHONY: test-c
## C ABI (docs/c.md): scripts/c-test.sh checks hep.h is fresh (cbindgen), builds libhep.a,
## compiles the C tests and docs/c.md's example with the system compiler, and runs them
## under valgrind (any error or leak fails).
test-c: toolchain
	CARGO=$(CARGO) scripts/c-test.sh

.PHONY: test-go
## Go (docs/go.md): scripts/go-test.sh builds libhep.a and hep, then go vet, staticcheck
## (pinned, installed under target/go-tools), gofmt, go test -race (every conformance vector,
## supervision vectors included, and faults with real children) and examples/go against
## `hep simulate`.
test-go: toolchain
	CARGO=$(CARGO) scripts/go-test.sh

## Go: bench/go/run.sh (libhep.a and hep-bench in release, the corpus dumped by hep-bench,
## go vet, then the stream path against bufio.Scanner + encoding/json, goccy/go-json and sonic).
.PHONY: bench-go
bench-go: toolchain
	CARGO=$(CARGO) bench/go/run.sh

## Live latency and many runs: bench/live/run.sh builds what it needs (release), then each
## language's supervisor times every frame from the child's write to its loop, and drives
## 200 `hep simulate` runs at once. LIVE_ARGS="--only rust,go" picks languages (bench/live/run.sh says more).
.PHONY: bench-live
bench-live: toolchain
	CARGO=$(CARGO) bench/live/run.sh $(LIVE_ARGS)

## Resource bounds (docs/reliability.md): scripts/bounds/bounds.py builds a reader in each
## language (release), pipes generated HEP streams into it (nothing is saved) and checks the
## counts, that peak RSS does not grow with the stream, and that lines over the maximum
## cost a bounded buffer. `make bounds` (sessions of 64 MiB and 1 GiB, a 256 MiB line,
## lines over the maximum; about 1.5 minutes plus the builds) prints the table recorded in
## docs/reliability.md; `make bounds-smoke` (8 and 64 MiB; part of `make test`) checks the
## same on small streams. BOUNDS_LANGS=rust,python picks the languages.
.PHONY: bounds bounds-smoke
BOUNDS_LANGS ?= rust,python,node,swift

bounds bounds-smoke: toolchain python-env $(NODE_MODULES)
	CARGO=$(CARGO) $(VPY) scripts/bounds/bounds.py --lang $(BOUNDS_LANGS) $(if $(filter bounds-smoke,$@),--smoke)

## Fuzzing hep-core (docs/reliability.md): cargo-fuzz + libFuzzer. It runs on the nightly
## toolchain where rustup has one, else on stable with RUSTC_BOOTSTRAP=1 (libFuzzer's
## instrumentation with `-s none` needs unstable flags but no sanitizer runtime);
## FUZZ_TOOLCHAIN (default: RUSTUP_TOOLCHAIN when set) names another, e.g. stable.
## `make fuzz TARGET=stream_split RUNS=10000000` (or FUZZ_TIME=<seconds>) runs one target, its corpus in fuzz/corpus/TARGET (seeded from
## conformance/), crashes in fuzz/artifacts/. `make fuzz-smoke` runs every target for
## FUZZ_SMOKE_TIME seconds (part of `make test`); when neither toolchain can build the
## targets it says so in one line and `make test` goes on.
## Release build with debug assertions and overflow checks, no sanitizer (hep-core forbids
## unsafe code). The build is cached in FUZZ_TARGET_DIR (target/fuzz; cold, the smoke costs
## about 2.5 minutes, warm under one: point it at a lasting folder to keep it warm in CI).
CARGO_FUZZ_VERSION := 0.13.2
FUZZ_TARGETS := decode_line stream_split writer_session
FUZZ_TARGET_DIR ?= $(CURDIR)/target/fuzz
FUZZ_TOOLCHAIN ?= $(or $(RUSTUP_TOOLCHAIN),$(shell rustup run nightly rustc --version >/dev/null 2>&1 && echo nightly || echo stable))
FUZZ_CARGO = $(if $(findstring nightly,$(FUZZ_TOOLCHAIN)),,RUSTC_BOOTSTRAP=1 )$(CARGO) +$(FUZZ_TOOLCHAIN) fuzz
FUZZ_FLAGS = -O -a -s none --target-dir $(FUZZ_TARGET_DIR)
FUZZ_RUN = $(FUZZ_CARGO) run $(FUZZ_FLAGS)
TARGET ?= decode_line
RUNS ?= 10000000
FUZZ_TIME ?= 0
FUZZ_SMOKE_TIME ?= 15

fuzz-env: toolchain
	@cargo-fuzz --version 2>/dev/null | grep -qx "cargo-fuzz $(CARGO_FUZZ_VERSION)" || $(CARGO) install cargo-fuzz --locked --version $(CARGO_FUZZ_VERSION)
	@$(PYTHON) fuzz/seeds.py >/dev/null

fuzz: fuzz-env
	mkdir -p fuzz/corpus/$(TARGET)
	nice -n 15 $(FUZZ_RUN) $(TARGET) fuzz/corpus/$(TARGET) fuzz/regressions/$(TARGET) -- \
		-runs=$(RUNS) -max_total_time=$(FUZZ_TIME) -print_final_stats=1

fuzz-smoke:
	@mkdir -p $(FUZZ_TARGET_DIR)
	@if ! $(MAKE) --no-print-directory fuzz-env >$(FUZZ_TARGET_DIR)/smoke-build.log 2>&1 || \
		! $(FUZZ_CARGO) build $(FUZZ_FLAGS) >>$(FUZZ_TARGET_DIR)/smoke-build.log 2>&1; then \
		echo "fuzz-smoke: skipped: the fuzz targets do not build with the $(FUZZ_TOOLCHAIN) toolchain here (log: $(FUZZ_TARGET_DIR)/smoke-build.log)"; \
		exit 0; \
	fi; \
	for t in $(FUZZ_TARGETS); do \
		mkdir -p fuzz/corpus/$$t; \
		$(FUZZ_RUN) $$t fuzz/corpus/$$t fuzz/regressions/$$t -- -max_total_time=$(FUZZ_SMOKE_TIME) \
			-print_final_stats=1 >$(FUZZ_TARGET_DIR)/smoke-$$t.log 2>&1 || { tail -n 60 $(FUZZ_TARGET_DIR)/smoke-$$t.log; exit 1; }; \
		echo "fuzz-smoke: $$t ($(FUZZ_TOOLCHAIN)): $$(grep -h '^stat::number_of_executed_units' $(FUZZ_TARGET_DIR)/smoke-$$t.log) in $(FUZZ_SMOKE_TIME)s"; \
	done

## Memory safety (docs/reliability.md, "FFI safety"): every Rust test binary of the
## workspace under valgrind memcheck (scripts/memcheck/rust.sh; property tests at
## PROPTEST_CASES=16), and the Swift binding's tests under AddressSanitizer and
## LeakSanitizer (scripts/memcheck/swift.sh): any memory error or definite leak fails.
## About 9 + 1.5 minutes with warm builds. `make memcheck-smoke`, about 1.5 minutes: the
## binding crates' and hep-core's unit tests and the conformance runner under valgrind.
.PHONY: memcheck memcheck-smoke
memcheck: toolchain
	CARGO=$(CARGO) scripts/memcheck/rust.sh
	CARGO=$(CARGO) scripts/memcheck/swift.sh

memcheck-smoke: toolchain
	CARGO=$(CARGO) scripts/memcheck/rust.sh -p hep-core -p hep-python -p hep-node -p hep-swift --lib
	CARGO=$(CARGO) scripts/memcheck/rust.sh -p hep-core --test conformance

## Mutation testing of hep-core (docs/reliability.md, "Mutation testing"): cargo-mutants
## (pinned; installed from crates.io when missing) mutates one behaviour file per shard and
## runs the fast, deterministic tests against each mutant (hep-core/mutants.toml says which,
## and lists the mutants left out as equivalent). `make mutants` runs the shards one after
## another, niced (about 50 minutes on 2 shared cores), then fails listing every mutant no
## test caught (a mutant that makes the tests hang is caught by cargo-mutants' timeout, exit
## code 3); `make mutants FILE=hep-core/src/verdict.rs` runs one (verdict.rs about 6
## minutes, validate.rs, the largest, about 12). Each shard's report is in
## target/mutants/<file>/mutants.out (missed.txt, caught.txt, timeout.txt, unviable.txt).
.PHONY: mutants
CARGO_MUTANTS_VERSION := 27.1.0
MUTANTS_FILES := $(addprefix hep-core/src/,verdict.rs writer.rs validate.rs run.rs encode.rs decode.rs fast_decode.rs)
MUTANTS_DIR := $(CURDIR)/target/mutants
FILE ?= $(MUTANTS_FILES)

mutants: toolchain
	@cargo-mutants --version 2>/dev/null | grep -qx "cargo-mutants $(CARGO_MUTANTS_VERSION)" || $(CARGO) install cargo-mutants --locked --version $(CARGO_MUTANTS_VERSION)
	@failed=""; for f in $(FILE); do \
		out=$(MUTANTS_DIR)/$$(basename $$f .rs); \
		echo "mutants: $$f"; \
		CARGO_TARGET_DIR=$(MUTANTS_DIR)/build nice -n 15 $(CARGO) mutants --config hep-core/mutants.toml \
			--package hep-core --file $$f --jobs 1 --output $$out || [ $$? -eq 3 ] || failed="$$failed $$f"; \
	done; \
	if [ -n "$$failed" ]; then \
		echo "mutants: not every mutant was caught in:$$failed"; \
		for f in $$failed; do cat $(MUTANTS_DIR)/$$(basename $$f .rs)/mutants.out/missed.txt 2>/dev/null; done; \
		exit 1; \
	fi

## Release (docs/release.md): each install route proven on loopback, after the language
## tests (whose builds it reuses): the crates (publish dry run, cargo install, the non-Unix
## builds), the release workflow (actionlint, set-version), the Python wheel and sdist from
## pypiserver, the npm packages from verdaccio, the Swift package by git URL and tag, the
## Go module by go get from a file:// proxy. Each script installs what it needs under
## target/release-check/ and stops its server by pid.
.PHONY: release-check install-swift
RELEASE_CHECKS := crates workflow python node swift go

release-check: toolchain
	@for c in $(RELEASE_CHECKS); do \
		CARGO=$(CARGO) PYTHON=$(PYTHON) scripts/release-check/$$c.sh || exit 1; \
	done

## Swift: the library of the Swift package taken by URL on Linux, and its hep-swift.pc
## (docs/swift.md, "Installation"): make install-swift PREFIX=DIR.
PREFIX ?= $(HOME)/.local
install-swift: toolchain
	CARGO=$(CARGO) scripts/install-swift-lib.sh --prefix $(PREFIX)

## Regenerate schema/hep-v1.schema.json from the Rust types.
schema: toolchain
	HEP_UPDATE_SCHEMA=1 $(CARGO) test --quiet -p hep-core --test schema

## Regenerate what the bindings restate of the frame model (docs/api.md): the schema, and
## hep-codegen's files (Python stubs, TypeScript union and wire table, Swift declarations,
## uniffi mirrors). `cargo test -p hep-codegen` (in `make test`) fails when one is stale.
.PHONY: codegen
codegen: schema
	$(CARGO) run --quiet -p hep-codegen -- write
	$(CARGO) run --quiet -p hep-c --features header --bin hep-c-header -- write

toolchain:
	@command -v $(CARGO) >/dev/null 2>&1 || { echo "make: cargo not found; install Rust stable (https://rustup.rs) and retry" >&2; exit 1; }
	@$(CARGO) fmt --version >/dev/null 2>&1 || rustup component add rustfmt
	@$(CARGO) clippy --version >/dev/null 2>&1 || rustup component add clippy
