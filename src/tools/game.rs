//! A game as the training data keeps it, and its result: what viriformat files (`packed`) and
//! match runners' PGN (`pgn`) are read into and self-play (`datagen`) writes. A leaf: it uses no
//! other file of the tools.

use crate::position::Position;
use crate::types::Move;

/// A game's result as the formats store it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wdl {
    BlackWin = 0,
    Draw = 1,
    WhiteWin = 2,
}

impl Wdl {
    /// From a result in White's view: 1, 0.5 or 0.
    pub fn from_white_score(result: f32) -> Wdl {
        if result > 0.75 {
            Wdl::WhiteWin
        } else if result < 0.25 {
            Wdl::BlackWin
        } else {
            Wdl::Draw
        }
    }

    /// The result in White's view: 1, 0.5 or 0.
    pub fn white_score(self) -> f32 {
        self as u8 as f32 / 2.0
    }

    /// From the result byte of a packed board.
    pub fn from_byte(b: u8) -> Result<Wdl, String> {
        match b {
            0 => Ok(Wdl::BlackWin),
            1 => Ok(Wdl::Draw),
            2 => Ok(Wdl::WhiteWin),
            _ => Err(format!("result byte {b} is not 0, 1 or 2")),
        }
    }
}

/// A self-play game: its start, its result and every move with the score of the position it
/// was played in (centipawns, White's view).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    pub start: Position,
    pub wdl: Wdl,
    pub moves: Vec<(Move, i16)>,
}

impl Game {
    /// Every position of the game with the score it was played with, in order.
    pub fn positions(&self) -> impl Iterator<Item = (Position, i16)> + '_ {
        self.moves.iter().scan(self.start, |pos, &(m, score)| {
            let here = *pos;
            *pos = pos.make_move(m);
            Some((here, score))
        })
    }
}
