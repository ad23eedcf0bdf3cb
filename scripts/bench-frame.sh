#!/usr/bin/env bash
# What one frame costs at 144 CPUs (issue 33): bytes from the worker to the page and the
# worker's time to build and encode them, natively in release
# (web/src/controller/session/tests.rs, frame_bytes_and_worker_time_at_144_cpus).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --offline --locked --release -p steerlab-web --lib frame_bytes_and_worker_time_at_144_cpus -- --ignored --nocapture 2>&1 \
  | grep -E "^frame at|test result"
