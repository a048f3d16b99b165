# Sourced by serve.sh, test.sh and bench.sh: installs whatever is missing, idempotently,
# and exports what the wasm build needs. Quick (a few checks) when everything is there.
#
# Where `rustup target add wasm32-unknown-unknown` works, that is used. Where it cannot
# download (as on the course's build machines), Debian's rustc-web with its std source
# builds the wasm32 std on the fly (see docs in README, "How the build works").

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# rustup's cargo and the tools cargo installs, even when the caller's PATH lacks them.
case ":$PATH:" in *":$HOME/.cargo/bin:"*) ;; *) [ -d "$HOME/.cargo/bin" ] && PATH="$HOME/.cargo/bin:$PATH" ;; esac
export PATH
TRUNK_VERSION=0.21.14
# shellcheck disable=SC2034
WEB_TARGET_DIR="$ROOT/target/web"

say() { echo "[setup] $*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    say "need root to run: $*"; return 1; fi
}

_apt_updated=
apt_install() {
  if [ -z "$_apt_updated" ]; then
    as_root apt-get update -qq >&2
    _apt_updated=1
  fi
  say "apt-get install $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

# rustup's toolchain has what the web build uses: std's source and the wasm32 target (whose
# prebuilt std goes unused; it is the set-up the builds here were checked with).
rustup_has_web() {
  rustup component list --installed 2>/dev/null | grep -qx rust-src \
    && rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown
}

# The wasm32 build compiles its own standard library with the size flags of web_env, so it needs
# std's source: rustup's rust-src where rustup can download it, else Debian's rustc-web with its
# source (WASM_MODE=debian).
setup_wasm_target() {
  # RESILIENCE_WASM_MODE=debian forces the fallback (to check it on a machine where rustup works).
  if [ "${RESILIENCE_WASM_MODE:-}" != debian ] && rustup_has_web; then
    WASM_MODE=rustup
    return
  fi
  local debian_ready=
  if [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library ] && command -v rust-lld >/dev/null \
     && [ -x /usr/bin/cargo-clippy ]; then
    debian_ready=1
  fi
  if [ -z "$debian_ready" ] && [ -z "${RESILIENCE_WASM_MODE:-}" ] && [ ! -e "$ROOT/target/.rustup-rust-src-failed" ]; then
    say "trying: rustup component add rust-src, rustup target add wasm32-unknown-unknown"
    if timeout 90 rustup component add rust-src >&2 2>&1 && timeout 90 rustup target add wasm32-unknown-unknown >&2 2>&1; then
      WASM_MODE=rustup
      return
    fi
    mkdir -p "$ROOT/target" && touch "$ROOT/target/.rustup-rust-src-failed"
  fi
  if [ -z "$debian_ready" ]; then
    apt_install rustc-web cargo-web rust-web-src rust-web-llvm rust-web-clippy lld-22
  fi
  WASM_MODE=debian
}

setup_trunk() {
  if trunk --version 2>/dev/null | grep -q "$TRUNK_VERSION"; then return; fi
  say "cargo install trunk $TRUNK_VERSION (about 10 minutes on 2 cores)"
  cargo install trunk --version "$TRUNK_VERSION" --locked >&2
}

# wasm-bindgen's CLI must be exactly the version of the crate in Cargo.lock.
setup_wasm_bindgen() {
  local want
  want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock")
  if wasm-bindgen --version 2>/dev/null | grep -q " $want\$"; then return; fi
  say "cargo install wasm-bindgen-cli $want"
  # Not --locked: one of its locked dependencies was yanked.
  cargo install wasm-bindgen-cli --version "$want" --force >&2
}

# wasm-opt (Debian's binaryen is too old) and playwright-core, from npm.
setup_node_tools() {
  if ! command -v npm >/dev/null; then apt_install nodejs npm; fi
  if [ ! -x "$ROOT/node_modules/.bin/wasm-opt" ] || [ ! -d "$ROOT/node_modules/playwright-core" ] \
     || [ "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ]; then
    say "npm ci"
    (cd "$ROOT" && npm ci --no-audit --no-fund >&2)
  fi
}

setup_browser() {
  if [ -x /usr/bin/chromium ]; then return; fi
  apt_install chromium
}

# Everything the web build needs; then `web_env CMD...` runs CMD with the right toolchain.
setup_web() {
  setup_wasm_target
  setup_node_tools
  setup_trunk
  setup_wasm_bindgen
}

# The simulations' ids (Cargo features), in registry order: Cargo.toml's `all-simulations`
# (tests/registry.rs checks that it lists exactly the registry).
simulation_ids() {
  sed -n 's/^all-simulations = \[\(.*\)\]$/\1/p' "$ROOT/Cargo.toml" | tr -d '",'
}

# Compiles the first simulation's module once online, exactly as build_web's first Trunk build
# asks for it, so that `trunk --offline` finds everything built (with build-std, cargo must first
# download the std library's own dependencies).
prebuild_web() {
  local first
  first=$(simulation_ids | awk '{ print $1 }')
  web_env cargo build --manifest-path "$ROOT/Cargo.toml" --target wasm32-unknown-unknown --profile web \
    --bin resilience-lab-web --no-default-features --features "$first" >&2
}

# Builds the site into dist/ exactly as it ships: one Trunk build per simulation (its feature
# alone: a page downloads its own simulation and nothing else), then scripts/site.mjs makes
# dist/index.html, the home page and the loader, from the registry (`resilience-lab list --json`),
# and the style sheet from static/style.css, src/ui/kit's and each page's style.css.
# `trunk build`, never `trunk serve`, so dist/ never holds a development reload script.
build_web() {
  local site="$ROOT/target/site" id
  mkdir -p "$site"
  (cd "$ROOT" && cargo run --quiet --profile fast --bin resilience-lab -- list --json) >"$site/list.json"
  for id in $(simulation_ids); do
    build_module "$id" "$site/stage/$id"
  done
  node "$ROOT/scripts/site.mjs" "$site/stage" "$ROOT/dist" "$site/list.json"
}

# One simulation's module into $2. Trunk's wasm-bindgen and wasm-opt take most of a build even
# when nothing changed, so they are skipped when cargo's module and Trunk's inputs are the
# same as for the module already in $2.
build_module() {
  local id=$1 out=$2 inputs
  web_env cargo build --quiet --manifest-path "$ROOT/Cargo.toml" --target wasm32-unknown-unknown --profile web \
    --bin resilience-lab-web --no-default-features --features "$id" >&2
  inputs=$(cd "$ROOT" && cat "$WEB_TARGET_DIR/wasm32-unknown-unknown/web/resilience-lab-web.wasm" module.html Trunk.module.toml \
    static/favicon.svg static/embed.js | sha256sum)
  if [ -f "$out/.inputs" ] && [ "$(cat "$out/.inputs")" = "$inputs" ]; then
    say "module $id: unchanged"
    return
  fi
  say "trunk build: $id"
  (cd "$ROOT" && web_env trunk build --config Trunk.module.toml --release --offline --no-default-features --features "$id" --dist "$out")
  echo "$inputs" >"$out/.inputs"
}

# Runs CMD for the wasm build. The module's std is compiled from source (once; cached in
# target/web) with three size flags, which need RUSTC_BOOTSTRAP on a stable toolchain: a panic
# aborts at once (no message formatting: the loader shows the error banner on the trap), `{:?}`
# prints nothing (no code uses it), and panics carry no file and line. Together they take about
# a tenth off every module (README, "What each page downloads"). std's `optimize_for_size`
# feature picks its smaller code paths (sorting, formatting): 2.4 KB less per page, gzipped.
WEB_RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Zfmt-debug=none -Zlocation-detail=none"
web_env() {
  local path="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
  # Debian's toolchain is the one in /usr/bin; rustup's comes first on PATH otherwise.
  [ "$WASM_MODE" = debian ] && path="/usr/bin:$path"
  env PATH="$path" RUSTC_BOOTSTRAP=1 CARGO_UNSTABLE_BUILD_STD=std,panic_abort \
    CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size \
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$WEB_RUSTFLAGS" CARGO_TARGET_DIR="$WEB_TARGET_DIR" "$@"
}
