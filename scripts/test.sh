#!/usr/bin/env bash
# Runs every test: the core's native unit, property and CLI tests, then the browser tests
# against the app built as a user builds it. Installs what is missing first.
set -euo pipefail
source "$(dirname "$0")/setup.sh"
setup_web
prebuild_web
setup_browser
cd "$ROOT"

echo "== native tests (cargo test)"
cargo test --release --all-targets 2>&1

echo "== web build (trunk build --release)"
web_env trunk build --release --offline 2>&1

echo "== browser tests (headless Chromium)"
node --test --test-concurrency=1 tests/browser/ 2>&1
