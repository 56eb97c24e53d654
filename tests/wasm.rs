//! The WebAssembly build is the same engine: the library built for `wasm32-unknown-unknown`
//! (the browser front's module, `src/web/`, with SIMD as `make web` builds it) and run in Node
//! counts the native `bench` signature. A WebAssembly `usize` is 32 bits wide, so a table index
//! or a size computed in `usize` could differ there without this check. Skipped (loudly; a failure under CI) where
//! Node or the wasm target is missing: `rustup target add wasm32-unknown-unknown`, Debian's
//! `nodejs`.

use std::path::Path;
use std::process::Command;

mod common;

#[test]
fn the_webassembly_module_counts_the_native_bench_signature() {
    let installed = Command::new("rustup").args(["target", "list", "--installed"]).output();
    if !installed.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).lines().any(|l| l == "wasm32-unknown-unknown")) {
        common::skip("the WebAssembly bench", "the wasm32-unknown-unknown target is not installed");
        return;
    }
    if Command::new("node").arg("--version").output().is_err() {
        common::skip("the WebAssembly bench", "node not found");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Built as web/build.sh builds the page's module (SIMD on, the same target folder), so the
    // browser tests find it built.
    let target_dir = root.join("target/web");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let built = Command::new(cargo)
        .current_dir(root)
        .env("RUSTFLAGS", "-C target-feature=+simd128")
        .args(["rustc", "--lib", "--release", "--quiet", "--target", "wasm32-unknown-unknown"])
        .args(["--crate-type", "cdylib", "--target-dir"])
        .arg(&target_dir)
        .output()
        .expect("cargo runs");
    assert!(built.status.success(), "the wasm build failed:\n{}", String::from_utf8_lossy(&built.stderr));
    let module = target_dir.join("wasm32-unknown-unknown/release/corvid.wasm");
    let script = "const fs = require('fs');\
        const env = { corvid_now: () => 0, corvid_write: () => {}, corvid_read: () => -1 };\
        WebAssembly.instantiate(fs.readFileSync(process.argv[1]), { env }).then(({ instance }) => {\
          console.log(String(instance.exports.corvid_bench(13)));\
        });";
    let out = Command::new("node").arg("-e").arg(script).arg(&module).output().expect("node runs");
    assert!(out.status.success(), "node: {}", String::from_utf8_lossy(&out.stderr));
    let wasm: u64 = String::from_utf8_lossy(&out.stdout).trim().parse().expect("a node count");
    let native = corvid::bench::bench(13).0;
    assert_eq!(wasm, native, "the WebAssembly module's bench against the native one");
}
