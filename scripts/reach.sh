#!/usr/bin/env bash
# Reach benchmark (issue 32, not in CI: about two minutes): time from navigation to the
# lesson's text, to the page's controls and to the console's answer to `ethtool -l eth0`,
# unthrottled and under Lighthouse's mobile profile (562.5 ms, 1,474.56/675 kbit/s, page CPU
# 4×), in a fresh profile, dist/ served gzipped with a static host's cache headers; with the
# bytes each thread downloads (tests/e2e/reach.mjs). REACH_ENCODING=br serves brotli,
# REACH_RUNS=N loads each case N times (median), REACH_PROFILE=mobile runs one profile.
# Usage: scripts/reach.sh [LESSON ...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh
build_dist
node tests/e2e/reach.mjs dist "$@"
