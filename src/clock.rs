//! The program's one clock for everything timed that must also run in a browser (the search,
//! the time manager, the thread pool, perft): [`Moment`]. On native builds it reads std's
//! monotonic `Instant`; a front without it installs its own source ([`set_clock_source`]).

use std::ops::Add;
use std::sync::OnceLock;
use std::time::Duration;

/// A moment on the one clock: the search, the time manager, the thread pool and perft read
/// time through it and nothing else, so that a front without std's clock can give its own
/// ([`set_clock_source`]): a browser's WebAssembly has no `std::time::Instant` (`now()` panics
/// there) but has `performance.now()`. On native builds the source is std's monotonic `Instant`.
/// `Moment::default()` is the clock's origin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Moment(Duration);

/// The clock a front installed (the time since an origin of its own choosing, never falling).
static SOURCE: OnceLock<fn() -> Duration> = OnceLock::new();

/// Makes `source` the search's clock: the time since an origin of the front's choosing, which
/// must never go back. Once only, and before the first search; `Err` if a source is installed
/// already (the first one stays).
pub fn set_clock_source(source: fn() -> Duration) -> Result<(), &'static str> {
    SOURCE.set(source).map_err(|_| "a clock source is installed already")
}

/// std's monotonic clock, counted from its first reading.
#[cfg(not(all(target_family = "wasm", target_os = "unknown")))]
fn std_clock() -> Duration {
    static ORIGIN: OnceLock<std::time::Instant> = OnceLock::new();
    ORIGIN.get_or_init(std::time::Instant::now).elapsed()
}

/// Without an installed source a bare WebAssembly build has no clock at all: time stands still,
/// so depth and node limits work and time limits never fall.
#[cfg(all(target_family = "wasm", target_os = "unknown"))]
fn std_clock() -> Duration {
    Duration::ZERO
}

impl Moment {
    /// Now.
    #[inline]
    pub fn now() -> Moment {
        Moment(SOURCE.get().map_or_else(std_clock, |source| source()))
    }

    /// The time from this moment to now (zero if this moment is later).
    #[inline]
    pub fn elapsed(self) -> Duration {
        Moment::now().duration_since(self)
    }

    /// The time from `earlier` to this moment (zero if `earlier` is later).
    pub fn duration_since(self, earlier: Moment) -> Duration {
        self.0.saturating_sub(earlier.0)
    }

    /// The moment `d` before this one (the clock's origin at the earliest).
    pub fn earlier_by(self, d: Duration) -> Moment {
        Moment(self.0.saturating_sub(d))
    }
}

impl Add<Duration> for Moment {
    type Output = Moment;
    fn add(self, d: Duration) -> Moment {
        Moment(self.0 + d)
    }
}
