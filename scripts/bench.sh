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
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(chromium --version 2>/dev/null || true)"
node scripts/bench-browser.mjs "$native"
