#!/usr/bin/env bash
# The engine alone in WebAssembly against the native CLI (issue 34; not in CI: about a minute).
# Builds crates/wasm-bench with the worker's profile (wasm-release, SIMD) and wasm-opt -O3 as
# Trunk does for the page's worker, then runs a lesson to its end in a headless Chromium worker
# and with the native CLI, alternately, RUNS times each, and prints the medians, their ratio and
# whether the digests agree. The page's own ratios (tests/e2e/worker.e2e.mjs) add the page's
# work to this one: it is their floor on this machine.
# Usage: scripts/bench-wasm-engine.sh [LESSON] [RUNS]   (default arfs-collision, 3)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
lesson="${1:-arfs-collision}" runs="${2:-3}"
target="${CARGO_TARGET_DIR:-target}"
out="$target/wasm-bench"
cargo build --offline --locked --release -p steerlab-cli
cargo build --offline --locked --target wasm32-unknown-unknown --profile wasm-release -p steerlab-wasm-bench
mkdir -p "$out"
wasm-bindgen --target web --no-typescript --out-dir "$out" "$target/wasm32-unknown-unknown/wasm-release/steerlab_wasm_bench.wasm"
wasm-opt -O3 --strip-producers "$out/steerlab_wasm_bench_bg.wasm" -o "$out/steerlab_wasm_bench_bg.wasm"
node scripts/bench-wasm-engine.mjs "$out" "$target/release/steerlab" "$lesson" "$runs"
