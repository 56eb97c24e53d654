//! WebAssembly threads (a module built with atomics: `make web` builds `corvid-threads.wasm`
//! beside `corvid.wasm`). The module's memory is shared; a search thread is a Web Worker that
//! `web/corvid-engine.js` starts on request, instantiating this module on the same memory with a
//! stack and a thread-local block of its own, then calling [`corvid_thread_main`]. The page says
//! how many cores it has with [`corvid_threads`]; without that call no thread is started.

mod js {
    #[link(wasm_import_module = "env")]
    extern "C" {
        /// Starts a worker that runs [`super::corvid_thread_main`] with `task`: 0 when the
        /// worker was created (it starts on its own), -1 when it could not be.
        pub fn corvid_spawn(task: u32) -> i32;
    }
}

/// The page can start workers for search threads; it has `cores` cores (the search's thread
/// starter is this module's [`spawn`]).
#[no_mangle]
pub extern "C" fn corvid_threads(cores: u32) {
    crate::search::set_thread_starter(spawn, cores as usize);
}

type Task = Box<dyn FnOnce() + Send>;

/// Runs `f` on a new worker.
fn spawn(f: Task) -> Result<(), String> {
    let task = Box::into_raw(Box::new(f));
    // SAFETY: an import taking a number; the pointer is only passed through to the new thread.
    if unsafe { js::corvid_spawn(task as usize as u32) } != 0 {
        // SAFETY: the worker was not created, so nothing else will take the task: it is ours
        // again, from the `Box::into_raw` above.
        drop(unsafe { Box::from_raw(task) });
        return Err("the page could not start a worker".to_string());
    }
    Ok(())
}

/// A search thread's body, called once by the worker the page started for `task` (after it set
/// its stack and thread-local block). Returns when the thread's function does; the worker then
/// ends. Its stack and thread-local block are not given back (threads are started when the
/// `Threads` option grows, seldom).
#[no_mangle]
pub extern "C" fn corvid_thread_main(task: u32) {
    // SAFETY: `task` came from `Box::into_raw` in `spawn`, and the page calls this once for it.
    let f = unsafe { Box::from_raw(task as usize as *mut Task) };
    f();
}

/// `size` bytes aligned to `align` for the page's script (a new thread's stack and
/// thread-local block); 0 when they cannot be had.
#[no_mangle]
pub extern "C" fn corvid_alloc(size: u32, align: u32) -> u32 {
    match std::alloc::Layout::from_size_align(size.max(1) as usize, align.max(1) as usize) {
        // SAFETY: the layout has a non-zero size.
        Ok(layout) => unsafe { std::alloc::alloc(layout) as usize as u32 },
        Err(_) => 0,
    }
}
