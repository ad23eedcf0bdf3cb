#!/usr/bin/env bash
# A long class in headless Chromium (not in CI): a lesson at the fastest speed for MINUTES
# real minutes with commands and steps back, printing simulated time, the browser's resident
# memory and its frame rate; fails if memory grows (tests/e2e/long-class.mjs).
# Usage: scripts/long-class.sh [LESSON] [MINUTES]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh
build_dist
node tests/e2e/long-class.mjs dist "${1:-rss-basics}" "${2:-10}"
