//! The WebAssembly front's exports (issue 67, begun): plain C-ABI functions a page's script or
//! worker calls on the module built with `cargo rustc --lib --crate-type cdylib --target
//! wasm32-unknown-unknown`. Compiled for WebAssembly only. The engine inside is the library
//! itself: the same position, move generator, search, network and tables, with the search run
//! on the caller's thread (no threads there yet) and no files.

/// `bench` at `depth` (13 is the signature's), one thread, 16 MB: the node count, the same as
/// the native `corvid bench` gives (0 if the table cannot be allocated). The proof that the
/// module is the same engine.
#[no_mangle]
pub extern "C" fn corvid_bench(depth: u32) -> u64 {
    crate::bench::bench_here(depth, 16, crate::nnue::ON_BY_DEFAULT).map_or(0, |(nodes, _)| nodes)
}
