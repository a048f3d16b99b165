#!/usr/bin/env bash
# Builds the app and serves it on http://127.0.0.1:${PORT:-8080}/ (installs what is missing first).
# It serves dist/ as a static host would (also under /lab/); Ctrl-C stops it. To see a change,
# run it again: it rebuilds what changed.
set -euo pipefail
source "$(dirname "$0")/setup.sh"
setup_web
prebuild_web
build_web >&2
cd "$ROOT"
# Prints "Resilience Lab: http://127.0.0.1:PORT/" once it listens (PORT=0: any free port).
exec node scripts/static-server.mjs dist "${PORT:-8080}"
