//! Ctrl-C (SIGINT) and SIGTERM for the long offline runs (`datagen`): the first asks the run to
//! stop at its next clean point, where it writes its summary; a second ends the process at once.
//! Elsewhere than Unix nothing is installed and the signals keep their default action.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the first SIGINT or SIGTERM after [`install`].
pub static STOP: AtomicBool = AtomicBool::new(false);

/// Installs the handlers (once per process is enough; again does no harm).
pub fn install() {
    #[cfg(unix)]
    unix::install();
}

#[cfg(unix)]
mod unix {
    use super::{Ordering, STOP};
    use std::ffi::c_int;

    // The same numbers on Linux, the BSDs and macOS.
    const SIGINT: c_int = 2;
    const SIGTERM: c_int = 15;

    extern "C" {
        fn signal(signum: c_int, handler: usize) -> usize;
        fn _exit(status: c_int) -> !;
        fn write(fd: c_int, buf: *const u8, count: usize) -> isize;
    }

    const NOTICE: &[u8] = b"\nstopping: the games in play are finished and written (again to quit at once)\n";

    extern "C" fn on_signal(signum: c_int) {
        if !STOP.swap(true, Ordering::SeqCst) {
            // SAFETY: `write` is async-signal-safe; the buffer is a static of `NOTICE.len()`
            // bytes, and a failed or short write only loses the notice.
            unsafe { write(2, NOTICE.as_ptr(), NOTICE.len()) };
        } else {
            // SAFETY: `_exit` is async-signal-safe: it ends the process without running
            // destructors or touching locks another thread may hold.
            unsafe { _exit(128 + signum) }
        }
    }

    pub(super) fn install() {
        let handler: extern "C" fn(c_int) = on_signal;
        for signum in [SIGINT, SIGTERM] {
            // SAFETY: `on_signal` is an `extern "C"` function of the type a handler has, and all it
            // does is async-signal-safe (an atomic swap, `write`, `_exit`); replacing the default action
            // of these two signals touches no memory of ours.
            unsafe { signal(signum, handler as usize) };
        }
    }
}
