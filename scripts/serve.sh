#!/usr/bin/env bash
# README command 1: install what is missing, build the release bundle, serve it on
# http://127.0.0.1:8080 (the default page opens the rss-basics scenario). Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh
build_dist
echo "serve: http://127.0.0.1:8080/"
exec trunk serve --release --no-autoreload --address 127.0.0.1 --port 8080
