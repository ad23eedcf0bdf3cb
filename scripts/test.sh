#!/usr/bin/env bash
# README command 2 (and CI's, via .ci/run): every test.
#   0. house:  cargo fmt --check and clippy with warnings as errors, native and wasm32 (the
#              toolchain is pinned in rust-toolchain.toml, so the lints do not move under us)
#   1. native: cargo test for the whole workspace (engine, CLI, integration tests in tests/it)
#   2. wasm:   wasm-bindgen-test in headless Chromium (engine vectors in wasm, components in the DOM)
#   3. bundle: trunk release build, gzipped size checked against the budget
#   4. e2e:    playwright-core drives Debian's Chromium against dist/ served on 127.0.0.1,
#              with the benchmarks that time the page against the native CLI (built here);
#              then the smoke run in Firefox ESR (each lesson, an embed)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh
step() { echo; echo "=== test: $* ==="; }

step "house (cargo fmt --check, cargo clippy -D warnings, native and wasm32)"
cargo fmt --all --check
# --all-features: the random learner as a fuzz target (web, `learner`) and the importer's wasm
# export (`export`) are linted too. fuzz/ is its own nightly workspace, outside the gate.
cargo clippy --offline --locked --workspace --all-targets --all-features -- -D warnings
cargo clippy --offline --locked --target wasm32-unknown-unknown -p steerlab-web -p steerlab-importer \
  --all-targets --all-features -- -D warnings

step "native (cargo test --workspace)"
cargo test --offline --locked --workspace

step "wasm in headless Chromium (wasm-bindgen-test)"
# The runner has no overall deadline of its own: bound it so that a hung driver fails the run.
timeout 900 cargo test --offline --locked --target wasm32-unknown-unknown \
  -p steerlab-web --test browser -- --nocapture   # --nocapture: the wasm benchmark prints

step "release bundle and size budget"
build_dist

step "native CLI (release: the e2e benchmarks time the page against it)"
cargo build --offline --locked --release -p steerlab-cli

step "end-to-end in headless Chromium (playwright-core)"
STEERLAB_CLI="$PWD/target/release/steerlab" timeout 1200 node tests/e2e/run.mjs dist

step "smoke in Firefox ESR (puppeteer-core, WebDriver BiDi)"
timeout 300 node tests/e2e/firefox-smoke.mjs dist
echo; echo "test: all passed"
