//! The hand-crafted evaluation's weights, below the position that keeps a running sum of some.
//!
//! `score` (the packed midgame/endgame pair), `params` (every weight, written by the Texel tuner,
//! `corvid tune`), `layout` (where each weight sits in the flat vector the evaluation and the
//! tuner share) and `psqt` (material plus piece-square value per piece and square, the one table
//! [`crate::position::Position`] updates incrementally). Nothing here knows a position: the
//! evaluation (`crate::eval`) reads these weights, the position reads only [`psqt`].

pub mod layout;
pub mod params;
mod psqt;
mod score;

pub use layout::{Spec, NUM_PARAMS, SPECS, W};
pub use psqt::psqt;
pub use score::{s, Score};
