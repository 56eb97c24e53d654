//! Ctrl-C (SIGINT) and SIGTERM for what should end cleanly (`datagen`, `play`): the first asks
//! the program to stop at its next clean point (datagen writes its summary, play offers to save
//! the game); a second ends the process at once. Elsewhere than Unix nothing is installed and
//! the signals keep their default action.

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

/// Set by the first SIGINT or SIGTERM after [`install`]; whoever handles it may clear it.
pub static STOP: AtomicBool = AtomicBool::new(false);

/// The notice written on the first signal.
static NOTICE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static NOTICE_LEN: AtomicUsize = AtomicUsize::new(0);

/// Installs the handlers (once per process is enough; again does no harm); `notice` is written
/// to standard error on the first signal.
pub fn install(notice: &'static str) {
    NOTICE_LEN.store(0, Ordering::SeqCst);
    NOTICE.store(notice.as_ptr() as *mut u8, Ordering::SeqCst);
    NOTICE_LEN.store(notice.len(), Ordering::SeqCst);
    #[cfg(unix)]
    unix::install();
}

#[cfg(unix)]
mod unix {
    use super::{Ordering, NOTICE, NOTICE_LEN, STOP};
    use libc::{c_int, SIGINT, SIGTERM};

    extern "C" fn on_signal(signum: c_int) {
        if !STOP.swap(true, Ordering::SeqCst) {
            let (text, len) = (NOTICE.load(Ordering::SeqCst), NOTICE_LEN.load(Ordering::SeqCst));
            if !text.is_null() && len > 0 {
                // SAFETY: `write` is async-signal-safe; `text` and `len` describe a `&'static str`
                // (set by `install`, the length stored last and cleared first), and a failed or
                // short write only loses the notice.
                unsafe { libc::write(2, text as *const libc::c_void, len) };
            }
        } else {
            // SAFETY: `_exit` is async-signal-safe: it ends the process without running
            // destructors or touching locks another thread may hold.
            unsafe { libc::_exit(128 + signum) }
        }
    }

    pub(super) fn install() {
        let handler: extern "C" fn(c_int) = on_signal;
        for signum in [SIGINT, SIGTERM] {
            // SAFETY: `on_signal` is an `extern "C"` function of the type a handler has, and all it
            // does is async-signal-safe (an atomic swap, `write`, `_exit`); replacing the default action
            // of these two signals touches no memory of ours.
            unsafe { libc::signal(signum, handler as libc::sighandler_t) };
        }
    }
}
