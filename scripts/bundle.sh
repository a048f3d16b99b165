#!/usr/bin/env bash
# Where the bundle's bytes go (called by bench.sh; run on its own too): the whole app gzipped,
# the app with no simulation (the floor: Leptos, the kit, the shell), each simulation's
# marginal cost (the app with it minus the app without it, built from a copy of the tree whose
# registry line leaves it out), and the largest functions and crates of the whole app (twiggy).
# Every variant is built exactly as Trunk builds the app: the `web` profile, wasm-bindgen,
# wasm-opt -Oz with the same flags.
set -euo pipefail
shopt -s inherit_errexit
source "$(dirname "$0")/setup.sh"
setup_web
cd "$ROOT"
command -v twiggy >/dev/null || { say "cargo install twiggy (once)"; cargo install twiggy --locked >&2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
opt_params=$(sed -n 's/.*data-wasm-opt-params="\([^"]*\)".*/\1/p' index.html)
modules=$(sed -n 's/.*\$then! { \(.*\) }.*/\1/p' src/scenarios/mod.rs | tr -d ',')
gz() { gzip -9 -c "$1" | wc -c; }

# Builds the tree at $1 with the registry line listing $2 (space-separated module names) and
# prints the gzipped size of its wasm and JS; the optimized wasm, with names, is left in $3.
build_variant() {
  local tree=$1 list=$2 out=$3
  local registry
  registry=$(echo "$list" | xargs | sed 's/ \+/, /g')
  sed -i "s/\\\$then! { .* }/\$then! { $registry }/" "$tree/src/scenarios/mod.rs"
  (cd "$tree" && web_env cargo build --quiet --target wasm32-unknown-unknown --profile web --bin resilience-lab-web) >&2
  local dir="$work/bindgen"
  rm -rf "$dir" && mkdir -p "$dir"
  wasm-bindgen --target web --no-typescript --out-dir "$dir" "$WEB_TARGET_DIR/wasm32-unknown-unknown/web/resilience-lab-web.wasm"
  # shellcheck disable=SC2086 # the parameters are separate words
  "$ROOT/node_modules/.bin/wasm-opt" -Oz -g $opt_params "$dir/resilience-lab-web_bg.wasm" -o "$out"
  # The shipped module has no name section: strip it for the size, keep it for twiggy.
  # shellcheck disable=SC2086
  "$ROOT/node_modules/.bin/wasm-opt" -Oz $opt_params "$dir/resilience-lab-web_bg.wasm" -o "$work/shipped.wasm"
  echo $(($(gz "$work/shipped.wasm") + $(gz "$dir/resilience-lab-web.js")))
}

# A copy of the tree to edit (sources only; the build output goes to the shared target dir).
tree="$work/tree"
mkdir -p "$tree"
tar -C "$ROOT" --exclude=./target --exclude=./dist --exclude=./node_modules --exclude=./.git -cf - . | tar -C "$tree" -xf -

static_gz=0
for f in index.html static/style.css static/favicon.svg; do static_gz=$((static_gz + $(gz "$f"))); done
all=$(build_variant "$tree" "$modules" "$work/all.wasm")
floor=$(build_variant "$tree" "" "$work/floor.wasm")
printf '%-44s %10s\n' "part" "KB gzipped"
printf '%-44s %10.1f\n' "whole app (HTML, CSS, icon, JS, wasm)" "$(echo "($all + $static_gz) / 1024" | bc -l)"
printf '%-44s %10.1f\n' "  floor: no simulation (Leptos, kit, shell)" "$(echo "($floor + $static_gz) / 1024" | bc -l)"
for m in $modules; do
  without=$(build_variant "$tree" "$(echo "$modules" | tr ' ' '\n' | grep -vx "$m" | tr '\n' ' ')" "$work/without.wasm")
  printf '%-44s %10.1f\n' "  marginal: $m" "$(echo "($all - $without) / 1024" | bc -l)"
done
echo
echo "Largest functions of the whole app (bytes, uncompressed):"
twiggy top -n 40 "$work/all.wasm" | grep -v -e 'names" subsection' -e '^ *Shallow' -e '^─' | head -15
echo
echo "By crate (bytes, uncompressed):"
twiggy top -n 100000 -f csv "$work/all.wasm" | awk -F, 'NR > 1 && $1 !~ /section|names/ {
    name = $1; gsub(/^"|"$/, "", name); sub(/^[<&]+/, "", name)
    split(name, parts, "::"); crate = parts[1]
    if (name ~ /^data segment/) crate = "(data)"
    if (name ~ /resilience_lab/) { match(name, /resilience_lab::[a-z_]+::[a-z_]+/); crate = substr(name, RSTART, RLENGTH) }
    size[crate] += $2
  } END { for (c in size) printf "%9d %s\n", size[c], c }' | sort -rn | head -20
