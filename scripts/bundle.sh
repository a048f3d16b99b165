#!/usr/bin/env bash
# Where each page's bytes go (called by bench.sh; run on its own too, after build_web): what each
# page downloads, gzipped -9 (HTML, its own style sheet, JS glue, wasm; the home page: HTML, its
# style sheet and its list of simulations, home-<hash>.html), the floor
# (a module with no simulation: Leptos, the shell, the kit's start), and each module's largest
# functions and crates (twiggy). Each module is measured as build_web ships it (dist/); twiggy
# reads the same build with its names kept (the web profile, wasm-bindgen, wasm-opt at module.html's level, -g).
set -euo pipefail
shopt -s inherit_errexit
source "$(dirname "$0")/setup.sh"
setup_web
cd "$ROOT"
command -v twiggy >/dev/null || { say "cargo install twiggy (once)"; cargo install twiggy --locked >&2; }
[ -f dist/index.html ] || { say "no dist/: building it"; build_web >&2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
opt_params=$(sed -n 's/.*data-wasm-opt-params="\([^"]*\)".*/\1/p' module.html)
opt_level=$(sed -n 's/.*data-wasm-opt="\([^"]*\)".*/\1/p' module.html)
gz() { gzip -9 -c "$1" | wc -c; }
kb() { echo "$1 / 1024" | bc -l | xargs printf '%.1f'; }

# Builds the module with cargo features "$@" and leaves it, optimized with its names, in
# $work/named.wasm; prints the gzipped size of the module as shipped (no names) and its glue.
build_named() {
  web_env cargo build --quiet --manifest-path "$ROOT/Cargo.toml" --target wasm32-unknown-unknown --profile web \
    --bin resilience-lab-web --no-default-features "$@" >&2
  rm -rf "$work/bindgen" && mkdir -p "$work/bindgen"
  wasm-bindgen --target web --no-typescript --out-dir "$work/bindgen" "$WEB_TARGET_DIR/wasm32-unknown-unknown/web/resilience-lab-web.wasm"
  # shellcheck disable=SC2086 # the parameters are separate words
  "$ROOT/node_modules/.bin/wasm-opt" "-O$opt_level" -g $opt_params "$work/bindgen/resilience-lab-web_bg.wasm" -o "$work/named.wasm"
  "$ROOT/node_modules/.bin/wasm-opt" --strip-debug "$work/named.wasm" -o "$work/shipped.wasm"
  echo $(($(gz "$work/shipped.wasm") + $(gz "$work/bindgen/resilience-lab-web.js")))
}

html=$(gz dist/index.html)
css=$(gz dist/style-*.css)
cards=$(gz dist/home-*.html)
printf '%-34s %8s %8s %8s %8s\n' "page (KB gzipped -9)" "total" "wasm" "JS" "HTML+CSS"
printf '%-34s %8s %8s %8s %8s\n' "home" "$(kb $((html + css + cards)))" "-" "-" "$(kb $((html + css + cards)))"
for id in $(simulation_ids); do
  wasm=$(gz dist/"$id"/*_bg.wasm)
  js=$(gz dist/"$id"/*.js)
  own_css=$(gz dist/"$id"/style-*.css)
  printf '%-34s %8s %8s %8s %8s\n' "?sim=$id" "$(kb $((wasm + js + html + own_css)))" "$(kb "$wasm")" "$(kb "$js")" "$(kb $((html + own_css)))"
done
floor=$(build_named)
printf '%-34s %8s\n' "floor: a module with no simulation" "$(kb "$floor")"

# By crate, with Rust's crate hashes (`core[1b80…]`) left out of the names, and this crate by
# module (resilience_lab::ui::kit). The lists are cut with `sed -n 1,12p`, not `head`: head
# stops reading, and under pipefail the writer's SIGPIPE ended the whole script (exit 141) once
# twiggy's names outgrew a pipe's buffer.
for id in $(simulation_ids); do
  build_named --features "$id" >/dev/null
  echo
  echo "$id: largest functions (bytes, uncompressed)"
  twiggy top -n 40 "$work/named.wasm" | grep -v -e 'names" subsection' -e '^ *Shallow' -e '^─' | sed -n 1,12p
  echo "$id: by crate (bytes, uncompressed)"
  twiggy top -n 100000 -f csv "$work/named.wasm" | awk -F, 'NR > 1 && $1 !~ /section|names/ {
      name = $1; gsub(/^"|"$/, "", name); sub(/^[<&]+/, "", name); gsub(/\[[0-9a-f]+\]/, "", name)
      split(name, parts, "::"); crate = parts[1]
      if (name ~ /^data segment/) crate = "(data)"
      if (match(name, /resilience_lab::[a-z_]+::[a-z_]+/)) crate = substr(name, RSTART, RLENGTH)
      size[crate] += $2
    } END { for (c in size) printf "%9d %s\n", size[c], c }' | sort -rn | sed -n 1,12p
done
