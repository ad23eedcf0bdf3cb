#!/usr/bin/env bash
# Seed 000 at full scale (not in CI: about a minute): the lesson arfs-collision's host, 144 CPUs,
# 16,384 flows, 180 s, run natively.
#  1. Times the lesson's default run (driver ice-hash-match) RUNS times and prints each run's
#     wall and user seconds and the median as times real time (issue 34's bar: >= 100x).
#  2. Checks the full runs of both ice drivers at rps_flow_cnt 512 and 2048 against
#     tests/golden/seed000-full.txt: each run's digest, every scalar of its JSON report, and a
#     SHA-256 of the whole report (per-CPU and per-queue arrays included). The goldens of
#     tests/golden/digests.txt cover short runs only; a speed change must keep these bit for bit.
# Usage: scripts/bench-seed000.sh [--runs N] [--no-build] [--check-only | --time-only] [--update]
#   --update rewrites the golden file from this build (only for a change of results on purpose).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3 build=1 check=1 timing=1 update=0
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift ;;
    --no-build) build=0 ;;
    --check-only) timing=0 ;;
    --time-only) check=0 ;;
    --update) update=1 ;;
    *) echo "usage: $0 [--runs N] [--no-build] [--check-only | --time-only] [--update]" >&2; exit 2 ;;
  esac
  shift
done
target="${CARGO_TARGET_DIR:-target}"
bin="$target/release/steerlab"
golden=tests/golden/seed000-full.txt
if [ "$build" = 1 ]; then
  cargo build --offline --release -p steerlab-cli
fi

if [ "$timing" = 1 ]; then
  walls=()
  for i in $(seq 1 "$runs"); do
    out=$( { /usr/bin/time -f "%e %U" "$bin" run arfs-collision >/dev/null; } 2>&1 )
    read -r wall user <<<"$out"
    walls+=("$wall")
    echo "run $i: wall ${wall} s, user ${user} s"
  done
  median=$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  awk -v m="$median" 'BEGIN {printf "seed 000, 180 s, ice-hash-match: median wall %.2f s = %.0fx real time (bar: 100x = 1.80 s)\n", m, 180 / m}'
fi

if [ "$check" = 1 ]; then
  fresh=$(mktemp)
  trap 'rm -f "$fresh"' EXIT
  {
    echo "# Seed 000's full runs (arfs-collision, 180 s): scripts/bench-seed000.sh checks them."
    echo "# run (rps_flow_cnt driver), key, value; report.sha256 covers the whole JSON report."
    "$bin" run arfs-collision --vary "rfs.flow_cnt=512,2048 rfs.sock_flow_entries=73728,294912" \
      --vary nic.driver=ice-hash-match,ice --json |
      jq -r '.[] | (.label | gsub(" "; "/")) as $l | .report
        | ([paths(scalars) as $p | select(($p[0] != "cpus") and ($p[0] != "queues"))
            | "\($l) \($p | map(tostring) | join(".")) \(getpath($p))"]
           + ["\($l) report.sha256 \(tojson | @base64)"])[]' |
      while read -r label key value; do
        if [ "$key" = report.sha256 ]; then
          value=$(printf '%s' "$value" | base64 -d | sha256sum | cut -d' ' -f1)
        fi
        echo "$label $key $value"
      done
  } >"$fresh"
  if [ "$update" = 1 ]; then
    cp "$fresh" "$golden"
    echo "wrote $golden"
  elif diff -u "$golden" "$fresh"; then
    echo "seed 000 full runs: digests and reports unchanged ($(grep -c ' digest ' "$golden") runs)"
  else
    echo "seed 000 full runs CHANGED (above: - golden, + this build)" >&2
    exit 1
  fi
fi
