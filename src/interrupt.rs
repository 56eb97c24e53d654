//! Ctrl-C (SIGINT) and SIGTERM for what should end cleanly (`datagen`, `play`): the first asks
//! the program to stop at its next clean point (datagen writes its summary, play offers to save
//! the game); a second ends the process at once. On Windows Ctrl-C, Ctrl-Break and closing the
//! console window do the same through a console control handler.

use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

/// Set by the first SIGINT or SIGTERM (Windows: console event) after [`install`]; whoever
/// handles it may clear it.
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
    #[cfg(windows)]
    windows::install();
}

/// The notice, if one is set (read by the signal handlers; a system without them, such as
/// WebAssembly, never reads it).
#[cfg_attr(not(any(unix, windows)), allow(dead_code))]
fn notice() -> Option<&'static [u8]> {
    let (text, len) = (NOTICE.load(Ordering::SeqCst), NOTICE_LEN.load(Ordering::SeqCst));
    // SAFETY: `text` and `len` describe a `&'static str` (set by `install`, the length stored last
    // and cleared first).
    (!text.is_null() && len > 0).then(|| unsafe { std::slice::from_raw_parts(text, len) })
}

#[cfg(windows)]
mod windows {
    use super::{notice, Ordering, STOP};
    use windows_sys::core::BOOL;
    use windows_sys::Win32::System::Console::SetConsoleCtrlHandler;

    /// Runs on a thread of its own that the system starts for each event (Ctrl-C, Ctrl-Break,
    /// the console closing): the first asks for a clean stop, a second ends the process with
    /// 130, as the second SIGINT does on Unix.
    unsafe extern "system" fn on_event(_event: u32) -> BOOL {
        if !STOP.swap(true, Ordering::SeqCst) {
            if let Some(text) = notice() {
                use std::io::Write;
                let _ = std::io::stderr().write_all(text);
            }
            1
        } else {
            std::process::exit(130)
        }
    }

    pub(super) fn install() {
        // SAFETY: `on_event` has the handler's signature and stays valid for the whole process;
        // adding it again only adds the same handler once more, harmless (the first call sets
        // STOP, the others see it set).
        unsafe { SetConsoleCtrlHandler(Some(on_event), 1) };
    }
}

#[cfg(unix)]
mod unix {
    use super::{Ordering, STOP};
    use libc::{c_int, SIGINT, SIGTERM};

    extern "C" fn on_signal(signum: c_int) {
        if !STOP.swap(true, Ordering::SeqCst) {
            if let Some(text) = super::notice() {
                // SAFETY: `write` is async-signal-safe; `text` is a live `&'static` slice, and a
                // failed or short write only loses the notice.
                unsafe { libc::write(2, text.as_ptr() as *const libc::c_void, text.len()) };
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
