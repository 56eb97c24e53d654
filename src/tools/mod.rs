//! The offline tools, apart from the engine: nothing below this folder imports it.
//!
//! `datagen` (self-play positions, and `label`: searching given positions), `tune` (the Texel
//! tuner of the hand-crafted weights), `train` (the network trainer) and `epd` (test suites with
//! best moves). Each takes typed options; the command line (`crate::cli`) parses them.

pub mod datagen;
pub mod epd;
pub mod game;
pub mod packed;
pub mod pgn;
pub mod train;
pub mod tune;
