//! The tracer the evaluation is generic over: it reports every weight it applies to one.
//!
//! The engine uses [`NoTrace`], whose `add` is empty and whose `ACTIVE` is `false`, so the calls
//! compile away; [`Coefficients`] records, per parameter, how many times it was applied for White
//! and for Black (the tuner, and the `eval` breakdown in `trace`). A leaf: it uses no other file
//! of the evaluation.

use crate::types::Color;
use crate::weights::layout::NUM_PARAMS;

/// Receives every application of a weight: parameter `index` (see `layout.rs`), applied `count`
/// times in favour of `color`.
pub trait Tracer {
    /// Whether anything is recorded (a cached pawn entry would skip recording, so tracing
    /// evaluations bypass the pawn table).
    const ACTIVE: bool;
    fn add(&mut self, index: usize, color: Color, count: i32);
}

/// The engine's tracer: records nothing.
pub struct NoTrace;

impl Tracer for NoTrace {
    const ACTIVE: bool = false;
    #[inline(always)]
    fn add(&mut self, _index: usize, _color: Color, _count: i32) {}
}

/// Per parameter, the number of times it was applied for White (`[0]`) and for Black (`[1]`).
#[derive(Clone, Debug)]
pub struct Coefficients {
    pub counts: Vec<[i32; 2]>,
}

impl Default for Coefficients {
    fn default() -> Coefficients {
        Coefficients { counts: vec![[0; 2]; NUM_PARAMS] }
    }
}

impl Coefficients {
    /// Zeroes every count.
    pub fn clear(&mut self) {
        self.counts.iter_mut().for_each(|c| *c = [0; 2]);
    }
}

impl Tracer for Coefficients {
    const ACTIVE: bool = true;
    #[inline]
    fn add(&mut self, index: usize, color: Color, count: i32) {
        self.counts[index][color.index()] += count;
    }
}
