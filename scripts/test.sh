#!/usr/bin/env bash
# Runs every test: formatting and lints, the core's native unit, property and CLI tests, then
# the browser tests against the app built as a user builds it. Installs what is missing first.
set -euo pipefail
source "$(dirname "$0")/setup.sh"
setup_web
prebuild_web
setup_browser
cd "$ROOT"

echo "== format and lints (rustfmt, clippy -D warnings, native and wasm32)"
cargo fmt --check
cargo clippy --release --all-targets -- -D warnings 2>&1
web_env cargo clippy --target wasm32-unknown-unknown --profile web --bin resilience-lab-web -- -D warnings 2>&1
# Each simulation's module as build_web builds it: that simulation's feature alone.
for id in $(simulation_ids); do
  web_env cargo clippy --target wasm32-unknown-unknown --profile web --bin resilience-lab-web \
    --no-default-features --features "$id" -- -D warnings 2>&1
done

echo "== native tests (cargo test)"
cargo test --release --all-targets 2>&1
# The documentation's examples, among them the misspelt metric that must not compile.
cargo test --release --doc 2>&1

echo "== web build (one trunk build per simulation, then the home page: build_web)"
build_web 2>&1

echo "== browser tests (headless Chromium)"
node --test --test-concurrency=1 tests/browser/ 2>&1
