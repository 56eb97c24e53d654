//! The WebAssembly front (issue 67): plain C-ABI functions for the browser worker
//! (`web/corvid-engine.js`) and the page (`web/app.js`), on the module built with `cargo rustc
//! --lib --crate-type cdylib --target wasm32-unknown-unknown` (`make web`). The engine inside is
//! the library itself, the same position, move generator, search, network and tables, driven by
//! [`InlineEngine`]: one thread, the search on the caller's, no files. The page's rules
//! (`rules`: legal moves, SAN, endings, PGN) come from the same move generator. The exports
//! are compiled for WebAssembly only; `rules` everywhere, for its tests.
//!
//! What the browser lacks comes from the page's script through three imports (module `env`):
//! `corvid_now() -> f64` (`performance.now()`, milliseconds: the search's clock),
//! `corvid_write(ptr, len)` (one line of output, UTF-8) and `corvid_read(ptr, cap) -> i32` (the
//! next line that arrived during a search, without waiting: its length, -1 when none has come,
//! or -2 - its length when it does not fit in `cap` bytes, the line then staying queued).

#[cfg(any(target_family = "wasm", test))]
pub mod rules;

#[cfg(all(target_family = "wasm", target_feature = "atomics"))]
pub mod threads;

#[cfg(target_family = "wasm")]
mod exports {
    use std::cell::RefCell;
    use std::time::Duration;

    use crate::uci::{Flow, InlineEngine};

    mod js {
        #[link(wasm_import_module = "env")]
        extern "C" {
            pub fn corvid_now() -> f64;
            pub fn corvid_write(ptr: *const u8, len: usize);
            pub fn corvid_read(ptr: *mut u8, cap: usize) -> i32;
        }
    }

    thread_local! {
        static ENGINE: RefCell<Option<InlineEngine>> = const { RefCell::new(None) };
        /// Where the page's script writes a line for [`corvid_line`].
        static INPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }

    /// The page's clock as the search's.
    fn now() -> Duration {
        // SAFETY: an import without arguments returning a number.
        let ms = unsafe { js::corvid_now() };
        Duration::from_secs_f64((ms.max(0.0)) / 1000.0)
    }

    /// Writes what the engine says, a message a line (some answers, `go perft`'s and `bench`'s, come
    /// as one text of several lines).
    fn write(text: &str) {
        for line in text.lines() {
            // SAFETY: the script reads `len` bytes at `ptr` during the call, which the line outlives.
            unsafe { js::corvid_write(line.as_ptr(), line.len()) }
        }
    }

    /// The next line that arrived during a search, if one has.
    fn read() -> Option<String> {
        let mut buffer = vec![0u8; 4096];
        loop {
            // SAFETY: the script writes at most `cap` bytes at `ptr`, which is that long.
            let n = unsafe { js::corvid_read(buffer.as_mut_ptr(), buffer.len()) };
            match n {
                -1 => return None,
                n if n >= 0 => {
                    buffer.truncate(n as usize);
                    return Some(String::from_utf8_lossy(&buffer).into_owned());
                }
                n => buffer.resize((-2 - n as i64) as usize, 0),
            }
        }
    }

    /// Starts the engine (once; again does nothing): the page's clock becomes the search's.
    #[no_mangle]
    pub extern "C" fn corvid_start() {
        let _ = crate::search::set_clock_source(now);
        ENGINE.with(|engine| {
            let mut engine = engine.borrow_mut();
            if engine.is_none() {
                *engine = Some(InlineEngine::new(write, read));
            }
        });
    }

    /// A buffer of `len` bytes for the next line: the script writes the line there, then calls
    /// [`corvid_line`] with its length.
    #[no_mangle]
    pub extern "C" fn corvid_input(len: usize) -> *mut u8 {
        INPUT.with(|input| {
            let mut input = input.borrow_mut();
            input.clear();
            input.resize(len, 0);
            input.as_mut_ptr()
        })
    }

    /// Handles the line of `len` bytes in the input buffer, and every line read during it; 1 after
    /// `quit`, else 0.
    #[no_mangle]
    pub extern "C" fn corvid_line(len: usize) -> u32 {
        corvid_start();
        let line = input(len);
        let flow = ENGINE.with(|engine| engine.borrow_mut().as_mut().map_or(Flow::Continue, |e| e.handle(&line)));
        u32::from(flow == Flow::Quit)
    }

    /// The text of the input buffer's first `len` bytes.
    fn input(len: usize) -> String {
        INPUT.with(|input| {
            let input = input.borrow();
            String::from_utf8_lossy(&input[..len.min(input.len())]).into_owned()
        })
    }

    /// The page's rules ([`super::rules::describe`]) for the game in the input buffer, written
    /// line by line. No engine is started: the page's own instance of the module calls these.
    #[no_mangle]
    pub extern "C" fn corvid_describe(len: usize) {
        write(&super::rules::describe(&input(len)));
    }

    /// [`super::rules::pgn`] for the input buffer, written line by line.
    #[no_mangle]
    pub extern "C" fn corvid_pgn(len: usize) {
        write(&super::rules::pgn(&input(len)));
    }

    /// [`super::rules::import`] for the input buffer, written line by line.
    #[no_mangle]
    pub extern "C" fn corvid_import(len: usize) {
        write(&super::rules::import(&input(len)));
    }

    /// `bench` at `depth` (13 is the signature's), one thread, 16 MB: the node count, the same as
    /// the native `corvid bench` gives (0 if the table cannot be allocated). The proof that the
    /// module is the same engine.
    #[no_mangle]
    pub extern "C" fn corvid_bench(depth: u32) -> u64 {
        crate::bench::bench_here(depth, 16, crate::nnue::ON_BY_DEFAULT, crate::nnue::embedded())
            .map_or(0, |(nodes, _)| nodes)
    }
}
