#!/usr/bin/env bash
# Benchmarks (never timed tests): the core natively, the CLI sweep's thread scaling, then the
# built app in headless Chromium, then where the bundle's bytes go. Prints tables with each
# figure next to its goal. Run on an otherwise idle machine.
set -euo pipefail
source "$(dirname "$0")/setup.sh"
setup_web
prebuild_web
setup_browser
cd "$ROOT"
cargo build --release --bin resilience-lab >&2
native=$(mktemp)
./target/release/resilience-lab bench --json > "$native"
# The default sweep of slow-server (300 runs), on one thread and on two: best of three each.
best() {
  local best=999
  for _ in 1 2 3; do
    local t0 t1
    t0=$(date +%s.%N)
    ./target/release/resilience-lab sweep slow-server --threads "$1" --json > /dev/null
    t1=$(date +%s.%N)
    best=$(echo "t = $t1 - $t0; if (t < $best) t else $best" | bc -l)
  done
  echo "$best"
}
sweeps="$(best 1),$(best 2)"
build_web >&2
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(chromium --version 2>/dev/null || true)"
node scripts/bench-browser.mjs "$native" "$sweeps"
echo
scripts/bundle.sh
