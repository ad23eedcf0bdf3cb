#!/usr/bin/env bash
# Trunk's post_build hook (Trunk.toml): builds "Your host"'s importer (web/importer) as a wasm
# module of its own into the staging dist's importer/ directory. The simulation worker loads
# it the first time a capture is built (web/src/worker.rs), so the default page never
# downloads it. Uses the pinned wasm-bindgen CLI and wasm-opt of scripts/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${TRUNK_STAGING_DIR:?run by trunk (Trunk.toml hooks)}/importer"
target="${CARGO_TARGET_DIR:-target}"
if [ "${TRUNK_PROFILE:-debug}" = release ]; then profile=wasm-release; dir=wasm-release; else profile=dev; dir=debug; fi
cargo build --offline --locked --target wasm32-unknown-unknown --profile "$profile" -p steerlab-importer --features export
mkdir -p "$out"
wasm-bindgen --target web --no-typescript --out-dir "$out" "$target/wasm32-unknown-unknown/$dir/steerlab_importer.wasm"
if [ "$profile" = wasm-release ]; then
  wasm-opt -Oz --strip-producers "$out/steerlab_importer_bg.wasm" -o "$out/steerlab_importer_bg.wasm"
fi
