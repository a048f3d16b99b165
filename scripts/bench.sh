#!/usr/bin/env bash
# Benchmarks (never timed tests): the core natively, then the built app in headless Chromium.
# Prints one table with each figure next to its goal. Run on an otherwise idle machine.
set -euo pipefail
source "$(dirname "$0")/setup.sh"
setup_web
prebuild_web
setup_browser
cd "$ROOT"
cargo build --release --bin resilience-lab >&2
native=$(mktemp)
./target/release/resilience-lab bench --json > "$native"
web_env trunk build --release --offline >&2
# The floor under the bundle goal: Leptos and every model with one trivial page
# (examples/bundle_floor.rs), through the same wasm-bindgen and wasm-opt steps as Trunk's.
floor=$(mktemp -d)
web_env cargo build --target wasm32-unknown-unknown --profile web --example bundle_floor >&2
wasm-bindgen --target web --no-typescript --out-dir "$floor" "$WEB_TARGET_DIR/wasm32-unknown-unknown/web/examples/bundle_floor.wasm"
opt_params=$(sed -n 's/.*data-wasm-opt-params="\([^"]*\)".*/\1/p' index.html)
# shellcheck disable=SC2086 # the parameters are separate words
"$ROOT/node_modules/.bin/wasm-opt" -Oz $opt_params "$floor/bundle_floor_bg.wasm" -o "$floor/bundle_floor_bg.wasm"
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(chromium --version 2>/dev/null || true)"
node scripts/bench-browser.mjs "$native" "$floor"
