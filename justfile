# Developer recipes. The README's two commands need nothing but rustup; these
# are shortcuts on top (install `just` with `cargo install just`).

# List the recipes.
default:
    @just --list

# Build the guest components (wasm32-wasip2) and report their sizes.
build-guest:
    cargo build --locked --target wasm32-wasip2 --profile guest --target-dir target/guest \
        -p hive-mind-logic-component -p hive-mind-engine-component
    @ls -l target/guest/wasm32-wasip2/guest/*.wasm

# The whole test suite (installs the pinned wasmtime CLI when missing).
test:
    cargo xtask test

# rustfmt check and clippy -D warnings, native and wasm32-wasip2.
lint:
    cargo xtask lint

# Benchmarks: the logic functions native vs. through the component.
bench *ARGS:
    cargo bench -p hive-mind-runtime --bench logic -- {{ARGS}}

# The in-process embedder: load time, texts/s single and batched, the
# load-time rewrite's effect, peak RSS (`-- --quick` for a smoke run).
bench-embed *ARGS:
    cargo bench -p hive-mind-lab --bench embed -- {{ARGS}}

# Recall latency on a synthetic corpus (release build; corpus reused).
bench-recall FRAMES="10000" QUERIES="200":
    cargo run --release -p hive-mind-lab -- bench recall --frames {{FRAMES}} --queries {{QUERIES}}

# Retrieval quality on LoCoMo (release build).
eval-locomo PATH="../shared/bench/locomo10.json" *ARGS:
    cargo run --release -p hive-mind-lab -- eval locomo {{PATH}} {{ARGS}}

# Install the pinned wasmtime CLI into .tools/ (when missing).
wasmtime:
    cargo xtask tools

# Call a logic export under the plain wasmtime CLI, e.g.
# just invoke 'parse-date-window("what happened in May 2026?")'
invoke CALL: wasmtime build-guest
    .tools/bin/wasmtime run --invoke '{{CALL}}' target/guest/wasm32-wasip2/guest/hive_mind_logic_component.wasm

# Print the WIT each built component embeds (installs wasm-tools into .tools/ once).
wit: build-guest
    @test -x .tools/bin/wasm-tools || cargo install wasm-tools --locked --root .tools
    .tools/bin/wasm-tools component wit target/guest/wasm32-wasip2/guest/hive_mind_logic_component.wasm
    .tools/bin/wasm-tools component wit target/guest/wasm32-wasip2/guest/hive_mind_engine_component.wasm

# Build and run the demo.
demo:
    cargo xtask demo

# The Python host's tests alone (its venv from PyPI, the engine component
# built by `just build-guest`, the CLI of `cargo build`).
test-python:
    bash hosts/python/setup-venv.sh
    HIVE_MIND_COMPONENT=target/guest/wasm32-wasip2/guest/hive_mind_engine_component.wasm \
        hosts/python/.venv/bin/python -m pytest -q hosts/python/tests
