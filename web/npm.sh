#!/usr/bin/env bash
# Builds the npm package corvid-chess (issue 81, item 10) from the web build: web/build.sh's
# engine files under dist/, the ES module and its types (web/npm/), the version from Cargo.toml.
# Writes target/npm/package/ and packs it into target/npm/corvid-chess-VERSION.tgz (`npm pack`),
# whose path is the last line printed. `npm publish target/npm/corvid-chess-VERSION.tgz`
# publishes it.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -e web/dist/corvid.wasm && ${NPM_SKIP_WEB_BUILD:-0} == 1 ]] || bash web/build.sh >&2
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
out=target/npm
rm -rf "$out/package"
mkdir -p "$out/package/dist"
cp web/dist/corvid-worker.js web/dist/corvid-engine.js web/dist/corvid.wasm "$out/package/dist/"
# The threaded module (Threads above 1 on cross-origin isolated pages), where the build made it.
if [[ -e web/dist/corvid-threads.wasm ]]; then
  cp web/dist/corvid-threads.wasm "$out/package/dist/"
else
  echo "warning: web/dist has no corvid-threads.wasm: the package searches on one thread" >&2
fi
cp web/npm/index.js web/npm/index.d.ts web/npm/README.md LICENSE "$out/package/"
sed "s/@VERSION@/$version/" web/npm/package.json > "$out/package/package.json"
(cd "$out" && npm pack ./package --silent >/dev/null)
echo "$out/corvid-chess-$version.tgz"
