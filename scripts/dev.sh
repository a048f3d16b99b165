#!/usr/bin/env bash
# The development loop (README, "Developing"): `trunk serve` (Trunk.toml) with the web build's
# toolchain and flags, every simulation in one module, on http://127.0.0.1:${PORT:-8080}/?sim=<id>.
# Trunk rebuilds and reloads the page when a source is saved; it writes into target/dev, never
# into dist/. Ctrl-C stops it.
set -euo pipefail
source "$(dirname "$0")/setup.sh"
setup_web
cd "$ROOT"
web_env trunk serve --offline --skip-version-check --port "${PORT:-8080}"
