#!/usr/bin/env bash
# Builds Corvid's web page into web/dist/ (`make web`): the engine as WebAssembly (the library
# itself, built for wasm32-unknown-unknown with SIMD, optimised by binaryen's wasm-opt when it is
# there) beside the page's files. Installs the WebAssembly target where it is missing, and
# binaryen where apt-get can; without wasm-opt the module is copied as rustc made it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=web/dist
rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
if ! command -v wasm-opt >/dev/null; then
  { apt-get install -y -qq binaryen >/dev/null 2>&1 || sudo -n apt-get install -y -qq binaryen >/dev/null 2>&1; } ||
    echo "warning: binaryen (wasm-opt) not installed: the module is left unoptimised" >&2
fi
# Every browser in use runs WebAssembly SIMD (simd128); the native CPU flags of
# .cargo/config.toml are replaced, not added to.
RUSTFLAGS="-C target-feature=+simd128" \
  cargo rustc --lib --release --target wasm32-unknown-unknown --crate-type cdylib --target-dir target/web
rm -rf "$out"
mkdir -p "$out"
module=target/web/wasm32-unknown-unknown/release/corvid.wasm
if command -v wasm-opt >/dev/null; then
  wasm-opt -O3 --enable-simd --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int \
    --enable-mutable-globals --strip-debug "$module" -o "$out/corvid.wasm"
else
  cp "$module" "$out/corvid.wasm"
fi
for file in web/*.html web/*.js web/*.css web/*.svg web/*.png web/*.webmanifest; do
  [[ -e "$file" ]] && cp "$file" "$out/"
done
# The service worker's cache is named after the build: the fingerprint of every other file, so a
# changed file is a new worker script, which the browser installs (web/sw.js).
build=$(cd "$out" && find . -type f ! -name sw.js -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
sed -i "s/@BUILD@/$build/" "$out/sw.js"
echo "web/dist: $(du -b "$out/corvid.wasm" | cut -f1) bytes of WebAssembly, $(gzip -9c "$out/corvid.wasm" | wc -c) gzipped"
