#!/usr/bin/env bash
# Installs everything the build and the tests need on a fresh machine of this kind
# (Debian 12, rustup toolchain, Node 20). Idempotent: each step is skipped when its tool is
# already present at the pinned version. Nothing here downloads a prebuilt binary or a browser:
# tools are built by cargo from crates.io, the browser comes from Debian, npm packages from the
# committed package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

TRUNK_VERSION=0.21.14
# Must equal the `wasm-bindgen = "=…"` pin in Cargo.toml: the CLI and the crate share a schema version.
WASM_BINDGEN_VERSION=0.2.130

log() { echo "setup: $*"; }

# 1. Debian: Chromium and ChromeDriver for the headless-browser tests, and Firefox ESR for the
#    smoke run in a second browser (tests/e2e/firefox-smoke.mjs, over WebDriver BiDi). Never
#    Debian's binaryen (version 108 cannot parse rustc 1.95's reference-types output).
pkgs=()
command -v chromium >/dev/null || pkgs+=(chromium)
command -v chromedriver >/dev/null || pkgs+=(chromium-driver)
command -v firefox-esr >/dev/null || pkgs+=(firefox-esr)
if [ ${#pkgs[@]} -gt 0 ]; then
  log "apt-get install ${pkgs[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${pkgs[@]}"
fi

# 2. The Rust wasm target.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 3. Cargo-built tools at exact versions.
version_is() { command -v "$1" >/dev/null && "$1" --version 2>/dev/null | grep -qF "$2"; }
# wasm-bindgen-cli must NOT be --locked: its lockfile pins webpki-roots 1.0.11, absent from the
# registry index this machine sees; unlocked it resolves 1.0.10 and builds.
if ! version_is wasm-bindgen "wasm-bindgen $WASM_BINDGEN_VERSION" \
   || ! version_is wasm-bindgen-test-runner "$WASM_BINDGEN_VERSION"; then
  log "cargo install wasm-bindgen-cli@$WASM_BINDGEN_VERSION"
  cargo install --force wasm-bindgen-cli@"$WASM_BINDGEN_VERSION"
fi
# trunk MUST be --locked: unlocked, lightningcss fails to build against a newer cssparser.
if ! version_is trunk "trunk $TRUNK_VERSION"; then
  log "cargo install --locked trunk@$TRUNK_VERSION"
  cargo install --locked --force trunk@"$TRUNK_VERSION"
fi

# 4. Node tools from package-lock.json: binaryen 132 (wasm-opt for trunk --release), terser (the
#    glue JavaScript, scripts/post-build.mjs), zopfli (the .gz files, scripts/precompress.mjs),
#    playwright-core and axe-core (e2e), scorm-again (the e2e's test LMS), puppeteer-core
#    (Firefox ESR over WebDriver BiDi).
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/puppeteer-core ] \
   || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "npm ci"
  npm ci --no-audit --no-fund
fi

# 5. Every crate, so that later steps can build with --offline.
cargo fetch --locked
log "ready"
