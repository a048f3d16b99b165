#!/usr/bin/env bash
# Builds the app and serves it on http://127.0.0.1:${PORT:-8080}/ (installs what is missing first).
set -euo pipefail
source "$(dirname "$0")/setup.sh"
setup_web
prebuild_web
cd "$ROOT"
PORT=${PORT:-8080}
echo "Resilience Lab: http://127.0.0.1:$PORT/"
exec web_env trunk serve --release --offline --address 127.0.0.1 --port "$PORT"
