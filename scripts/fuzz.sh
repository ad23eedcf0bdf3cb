#!/usr/bin/env bash
# Runs every fuzz target in turn (fuzz/fuzz_targets, cargo-fuzz + libFuzzer) for SECONDS each
# (default 180) and prints how many inputs each one ran. Needs the nightly toolchain (rustup);
# installs cargo-fuzz (pinned) if missing. Not part of CI: CI runs the random learner instead
# (web/src/controller/learner.rs). Findings land in fuzz/artifacts/TARGET/; each one becomes a
# regression test before it is fixed.
#
# Built without AddressSanitizer (`-s none`): the crates the targets reach forbid `unsafe`
# (`#![forbid(unsafe_code)]`), so it could only find bugs in the dependencies, at a third of the
# speed. Built with debug assertions (`-a`): an arithmetic overflow is a finding.
#
# TRACE_COMPARES=0 builds without libFuzzer's comparison tracing (`--no-trace-compares`, into
# fuzz/target-fast): for a target whose inputs mostly run the engine (permalink: restores),
# tracing every comparison of the tick loop made each input three times as slow (permalink:
# 660 -> 2,000 inputs/s), while what it guides is the parsers' comparisons. Run with tracing
# first to find the inputs that pass the parsers, then without it, from that run's corpus.
# CORPUS=DIR keeps a working corpus outside the repo: the run starts from it as well as from
# the repo's corpus, and what it found is added to it.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#   RUNS=10000000 scripts/fuzz.sh 36000 scenario     # stop at RUNS inputs or SECONDS, first reached
#   TRACE_COMPARES=0 CORPUS=/tmp/evolved RUNS=5000000 scripts/fuzz.sh 36000 permalink
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-180}"
shift || true
if ! rustup toolchain list | grep -q '^nightly'; then
  echo "fuzz: the nightly toolchain is needed (rustup toolchain install nightly)" >&2
  exit 2
fi
if ! cargo fuzz --version 2>/dev/null | grep -q '0.13.1'; then
  cargo install cargo-fuzz --version 0.13.1 --locked
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cd fuzz && cargo +nightly fuzz list)
fi
cd fuzz
flags=(-O -s none -a)
if [ "${TRACE_COMPARES:-1}" = 0 ]; then
  flags+=(--no-trace-compares --target-dir target-fast)
fi
cargo +nightly fuzz build "${flags[@]}"
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  # A fresh working corpus, seeded from the one kept in the repo, so that a run never rewrites it.
  work="$(mktemp -d)"
  cp -r "corpus/$t/." "$work/"
  if [ -n "${CORPUS:-}" ]; then
    mkdir -p "$CORPUS"
    cp -r "$CORPUS/." "$work/"
  fi
  log="$(mktemp)"
  status=0
  started=$(date +%s)
  cargo +nightly fuzz run "${flags[@]}" "$t" "$work" -- -max_total_time="$seconds" -runs="${RUNS:--1}" -timeout=20 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="artifacts/$t/" >"$log" 2>&1 || status=$?
  runs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $t FAILED after $runs inputs (see fuzz/artifacts/$t/)"
    grep -E 'panicked|ERROR|SUMMARY' "$log" | head -5
  else
    echo "fuzz: $t ran $runs inputs in $(( $(date +%s) - started )) s, no finding"
  fi
  if [ -n "${CORPUS:-}" ]; then
    cp -r "$work/." "$CORPUS/"
  fi
  rm -rf "$work" "$log"
done
