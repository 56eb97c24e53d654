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
# The threaded module (corvid-threads.wasm, for cross-origin isolated pages: `Threads` up to the
# page's cores) needs the standard library rebuilt with atomics: a nightly compiler and its
# rust-src, installed here where rustup can. Its memory is imported and shared (64 MiB to start,
# at most 2 GiB), and the globals a new thread sets (its stack pointer, its thread-local block)
# are exported. Without nightly the page keeps to one thread (CORVID_WEB_THREADS=0 skips it).
threads=${CORVID_WEB_THREADS:-1}
if [[ $threads == 1 ]]; then
  if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal >/dev/null 2>&1 || threads=0
  fi
  # -Z build-std builds the standard library from rust-src: no WebAssembly target to install.
  if [[ $threads == 1 ]]; then
    rustup +nightly component list --installed | grep -q '^rust-src' ||
      rustup +nightly component add rust-src >/dev/null 2>&1 || threads=0
  fi
  if [[ $threads == 1 ]]; then
    RUSTFLAGS="-C target-feature=+simd128,+atomics,+bulk-memory,+mutable-globals -C link-arg=--shared-memory \
-C link-arg=--import-memory -C link-arg=--initial-memory=67108864 -C link-arg=--max-memory=2147483648 \
-C link-arg=--export=__wasm_init_tls -C link-arg=--export=__tls_size -C link-arg=--export=__tls_align \
-C link-arg=--export=__tls_base -C link-arg=--export=__stack_pointer" \
      cargo +nightly rustc --lib --release --target wasm32-unknown-unknown --crate-type cdylib \
      --target-dir target/web-threads -Z build-std=std,panic_abort 2> >(grep -v "atomics\|stably supported\|^ *|\?$\|^ *= note\|generated 1 warning" >&2)
  else
    echo "warning: no nightly compiler with rust-src: the page is built without threads" >&2
  fi
fi
rm -rf "$out"
mkdir -p "$out"
# wasm-opt where it is there; the threaded module needs threads enabled in it too.
optimise() {
  if command -v wasm-opt >/dev/null; then
    wasm-opt -O3 --enable-simd --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int \
      --enable-mutable-globals --enable-threads --strip-debug "$1" -o "$2"
  else
    cp "$1" "$2"
  fi
}
optimise target/web/wasm32-unknown-unknown/release/corvid.wasm "$out/corvid.wasm"
if [[ $threads == 1 ]]; then
  optimise target/web-threads/wasm32-unknown-unknown/release/corvid.wasm "$out/corvid-threads.wasm"
fi
for file in web/*.html web/*.js web/*.css web/*.svg web/*.png web/*.webmanifest; do
  [[ -e "$file" ]] && cp "$file" "$out/"
done
# The service worker's cache is named after the build: the fingerprint of every other file, so a
# changed file is a new worker script, which the browser installs (web/sw.js).
build=$(cd "$out" && find . -type f ! -name sw.js -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
sed -i "s/@BUILD@/$build/" "$out/sw.js"
if [[ -e $out/corvid-threads.wasm ]]; then
  sed -i 's| // @THREADS@.*||' "$out/sw.js"
else
  sed -i '/@THREADS@/d' "$out/sw.js"
fi
for wasm in "$out"/*.wasm; do
  echo "$wasm: $(du -b "$wasm" | cut -f1) bytes of WebAssembly, $(gzip -9c "$wasm" | wc -c) gzipped"
done
