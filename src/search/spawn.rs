//! Starting a search thread: a system thread natively, a Web Worker of the page's engine where
//! WebAssembly has threads (a module built with atomics, on a cross-origin isolated page: the
//! page's script starts the worker, `src/web/threads.rs`), and nothing where neither is there.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A started thread: whether it has ended, and a wait for its end.
pub(super) struct Spawned {
    finished: Arc<AtomicBool>,
    #[cfg(not(target_family = "wasm"))]
    handle: std::thread::JoinHandle<()>,
}

impl Spawned {
    /// Whether the thread's function has returned (or, natively, panicked).
    pub(super) fn is_finished(&self) -> bool {
        #[cfg(not(target_family = "wasm"))]
        if self.handle.is_finished() {
            return true;
        }
        self.finished.load(Ordering::Acquire)
    }

    /// The system thread's id, for tests that check the pool keeps its threads.
    #[cfg(all(test, not(target_family = "wasm")))]
    pub(super) fn id(&self) -> std::thread::ThreadId {
        self.handle.thread().id()
    }

    /// Waits for the thread's end.
    pub(super) fn join(self) {
        #[cfg(not(target_family = "wasm"))]
        {
            let _ = self.handle.join();
        }
        #[cfg(target_family = "wasm")]
        while !self.finished.load(Ordering::Acquire) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}

/// Whether this build can start a thread: always natively; in WebAssembly only a module built
/// with atomics whose page has said it can start workers.
pub(super) fn can_spawn() -> bool {
    #[cfg(not(target_family = "wasm"))]
    {
        true
    }
    #[cfg(all(target_family = "wasm", target_feature = "atomics"))]
    {
        crate::web::threads::available()
    }
    #[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
    {
        false
    }
}

/// Starts `f` on a new thread named `name` with a 16 MiB stack (8 MiB in WebAssembly).
pub(super) fn spawn(name: String, f: impl FnOnce() + Send + 'static) -> Result<Spawned, String> {
    let finished = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&finished);
    let body = move || {
        f();
        flag.store(true, Ordering::Release);
    };
    #[cfg(not(target_family = "wasm"))]
    {
        let handle =
            std::thread::Builder::new().name(name).stack_size(16 << 20).spawn(body).map_err(|e| e.to_string())?;
        Ok(Spawned { finished, handle })
    }
    #[cfg(all(target_family = "wasm", target_feature = "atomics"))]
    {
        let _ = name;
        crate::web::threads::spawn(Box::new(body))?;
        Ok(Spawned { finished })
    }
    #[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
    {
        let _ = (name, body);
        Err("this build searches on one thread only".to_string())
    }
}
