//! Starting a search thread: a system thread natively; in WebAssembly whatever the platform's
//! front gave as a starter (a Web Worker of the page's engine, in the module built with atomics
//! on a cross-origin isolated page: `src/web/threads.rs`), and nothing without one.

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

/// What starts a thread where the standard library cannot (a browser's WebAssembly, where the
/// page starts a worker for it): given the thread's body, an error when it cannot.
pub type ThreadStarter = fn(Box<dyn FnOnce() + Send>) -> Result<(), String>;

/// The platform's thread starter and its cores, set once by its front (`src/web/threads.rs`).
static STARTER: std::sync::OnceLock<(ThreadStarter, usize)> = std::sync::OnceLock::new();

/// Gives this process a way to start threads on a platform whose standard library has none, and
/// the cores it has (the first call counts); false if one was already given.
pub fn set_thread_starter(start: ThreadStarter, cores: usize) -> bool {
    STARTER.set((start, cores.max(1))).is_ok()
}

/// Whether this build can start a thread: always natively; in WebAssembly once the page has
/// given a starter.
pub(super) fn can_spawn() -> bool {
    cfg!(not(target_family = "wasm")) || STARTER.get().is_some()
}

/// The cores this process may run on: the machine's, or those the platform's front said.
pub(super) fn cores() -> usize {
    match STARTER.get() {
        Some(&(_, cores)) => cores,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// Starts `f` on a new thread named `name` with a 16 MiB stack natively (a page's worker sets
/// its own).
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
    #[cfg(target_family = "wasm")]
    {
        let _ = name;
        let &(start, _) = STARTER.get().ok_or("this build searches on one thread only")?;
        start(Box::new(body))?;
        Ok(Spawned { finished })
    }
}
