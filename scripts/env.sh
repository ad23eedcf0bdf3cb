# Sourced by the scripts: the tool PATH (pinned npm tools first, then cargo-installed ones) and
# trunk's offline/locked flags, so that a build never fetches a tool or an unlocked crate.
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export TRUNK_OFFLINE=true TRUNK_BUILD_LOCKED=true
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
# The release bundle: trunk -> dist/, precompressed (.gz, .br) for static hosts, then what
# the default page downloads against the budget.
build_dist() {
  trunk build --release
  node scripts/precompress.mjs dist
  node scripts/bundle-size.mjs dist
}
