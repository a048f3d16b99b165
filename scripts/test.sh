#!/usr/bin/env bash
# Runs every test: formatting and lints, the core's native unit, property and CLI tests, then
# the browser tests against the app built as a user builds it. Installs what is missing first.
#
#   scripts/test.sh           everything (what CI runs)
#   scripts/test.sh --quick   the inner loop: formatting, native clippy and the core's native
#                             tests; no web build, no browser (README, "Testing")
#
# Tests build with the `fast` profile (Cargo.toml): release's optimisation without fat LTO.
set -euo pipefail
quick=
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac
source "$(dirname "$0")/setup.sh"

cd "$ROOT"
# Every scenario at the corners of its parameters for four hours: a minute or more on 2 cores.
SOAK=no_corner_of_any_scenario_needs_more_than_256_mb_in_four_hours
if [ -n "$quick" ]; then
  echo "== format and lints (rustfmt, clippy -D warnings, native)"
  cargo fmt --check
  cargo clippy --profile fast --all-targets -- -D warnings 2>&1
  echo "== native tests (cargo test; the four-hour memory corners only in the full run)"
  cargo test --profile fast --all-targets 2>&1 -- --skip "$SOAK"
  # The documentation's examples, among them the misspelt metric that must not compile.
  cargo test --profile fast --doc 2>&1
  exit 0
fi

# The quick loop first, exactly as the README gives it: it needs nothing the web build installs.
scripts/test.sh --quick
echo "== the four-hour memory corners (tests/memory.rs)"
cargo test --profile fast --test memory 2>&1 -- "$SOAK"
setup_web
prebuild_web
setup_browser

echo "== lints (clippy -D warnings, wasm32: the app, then each simulation's module)"
web_env cargo clippy --target wasm32-unknown-unknown --profile web --bin resilience-lab-web -- -D warnings 2>&1
# Each simulation's module as build_web builds it: that simulation's feature alone.
for id in $(simulation_ids); do
  web_env cargo clippy --target wasm32-unknown-unknown --profile web --bin resilience-lab-web \
    --no-default-features --features "$id" -- -D warnings 2>&1
done

echo "== web build (one trunk build per simulation, then the home page: build_web)"
build_web 2>&1

echo "== browser tests (headless Chromium)"
# The CLI the browser tests compare the pages with (tests/browser/harness.mjs runs it directly).
cargo build --quiet --profile fast --bin resilience-lab 2>&1
node --test --test-concurrency=1 tests/browser/ 2>&1
