//! Which input a piece on a square is: king buckets, mirroring and the views of each
//! perspective; and the output bucket of a position.

use super::{INPUTS, OUTPUT_BUCKETS};
use crate::position::Position;
use crate::types::{Color, PieceType, Square};

/// How the inputs depend on the perspective's own king: a bucket for each square it may stand
/// on (seen from its side: rank 1 is its back rank), each bucket a set of 768 inputs, and
/// whether the board is mirrored left to right when that king is on files e-h (so that the
/// buckets need cover only files a-d). Without buckets or mirroring (the plain layout) the
/// inputs are the 768 of version-1 networks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub buckets: [u8; 64],
    pub mirror: bool,
}

impl Layout {
    /// One bucket, no mirroring.
    pub const PLAIN: Layout = Layout { buckets: [0; 64], mirror: false };

    /// The names [`Layout::named`] knows, in the order help and errors list them.
    pub const NAMES: [&'static str; 5] = ["none", "mirror", "4", "8", "4u"];

    /// The layouts the trainer offers by name: `none`; `mirror` (one bucket, mirrored); `4`
    /// (mirrored; the king on its back rank on files a-b, on c-d, on its second rank, further
    /// up); `8` (mirrored; back rank a, b, c, d; second rank a-b, c-d; third and fourth ranks;
    /// further up); `4u` (not mirrored; the king on its back rank on files a-c, on d-e, on
    /// f-h, further up). `1` is another name for `none`.
    pub fn named(name: &str) -> Option<Layout> {
        let by_rank_and_file = |f: &dyn Fn(usize, usize) -> u8| {
            let mut buckets = [0u8; 64];
            for (sq, b) in buckets.iter_mut().enumerate() {
                // Files e-h are never looked up with mirroring: they take their mirror's bucket.
                let file = if sq % 8 >= 4 { 7 - sq % 8 } else { sq % 8 };
                *b = f(sq / 8, file);
            }
            Layout { buckets, mirror: true }
        };
        // The arms follow NAMES by position, so a layout cannot be offered under a name that
        // help and errors do not list.
        let name = if name == "1" { "none" } else { name };
        match Layout::NAMES.iter().position(|&n| n == name)? {
            0 => Some(Layout::PLAIN),
            1 => Some(Layout { buckets: [0; 64], mirror: true }),
            2 => Some(by_rank_and_file(&|rank, file| match rank {
                0 => (file / 2) as u8,
                1 => 2,
                _ => 3,
            })),
            3 => Some(by_rank_and_file(&|rank, file| match rank {
                0 => file as u8,
                1 => 4 + (file / 2) as u8,
                2 | 3 => 6,
                _ => 7,
            })),
            4 => {
                let mut buckets = [3u8; 64];
                for (file, b) in buckets.iter_mut().take(8).enumerate() {
                    *b = match file {
                        0..=2 => 0,
                        3 | 4 => 1,
                        _ => 2,
                    };
                }
                Some(Layout { buckets, mirror: false })
            }
            _ => None,
        }
    }

    /// The number of buckets.
    pub const fn count(&self) -> usize {
        let (mut i, mut max) = (0, 0);
        while i < 64 {
            if self.buckets[i] > max {
                max = self.buckets[i];
            }
            i += 1;
        }
        max as usize + 1
    }

    /// Whether this is the version-1 layout.
    pub const fn is_plain(&self) -> bool {
        !self.mirror && self.count() == 1
    }

    /// The inputs as seen by `perspective`, whose king stands on `king`.
    #[inline(always)]
    pub fn view(&self, perspective: Color, king: Square) -> View {
        self.view_at(perspective, king.index())
    }

    /// [`Layout::view`] with the king's square as its index (0 = a1).
    #[inline(always)]
    pub fn view_at(&self, perspective: Color, king: usize) -> View {
        let vertical = if perspective == Color::White { 0 } else { 56 };
        let own = king ^ vertical;
        let horizontal = if self.mirror && own % 8 >= 4 { 7 } else { 0 };
        View {
            perspective,
            offset: self.buckets[own ^ horizontal] as u16 * INPUTS as u16,
            flip: (vertical ^ horizontal) as u8,
        }
    }
}

/// One perspective's inputs for one placement of its king (see [`Layout::view`]): two views
/// that are equal index every piece alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct View {
    pub(super) perspective: Color,
    /// The first input of the king's bucket.
    pub(super) offset: u16,
    /// What the squares are XORed with: 56 for Black's view, 7 when mirrored.
    pub(super) flip: u8,
}

impl View {
    /// The view of `perspective` in the plain layout (the inputs of version-1 networks).
    #[inline(always)]
    pub const fn plain(perspective: Color) -> View {
        View { perspective, offset: 0, flip: if matches!(perspective, Color::White) { 0 } else { 56 } }
    }

    /// The input index of a `color` `piece` on `sq`.
    #[inline(always)]
    pub fn index(self, color: Color, piece: PieceType, sq: Square) -> usize {
        let relative = usize::from(color != self.perspective);
        self.offset as usize + (relative * 6 + piece.index()) * 64 + (sq.index() ^ self.flip as usize)
    }

    /// [`View::index`] of a piece given as `(colour x 6 + piece type) x 64 + square`, the input
    /// index of White's plain view.
    #[inline(always)]
    pub fn index_of_code(self, code: usize) -> usize {
        let relative = usize::from(code / 384 != self.perspective.index());
        self.offset as usize + (relative * 6 + code / 64 % 6) * 64 + ((code % 64) ^ self.flip as usize)
    }
}

/// The input index of a `color` `piece` on `sq`, seen from `perspective`.
#[inline(always)]
pub fn feature(perspective: Color, color: Color, piece: PieceType, sq: Square) -> usize {
    View::plain(perspective).index(color, piece, sq)
}

/// The output bucket of `pos`: its piece count (kings and pawns included), 2-32, in eight
/// groups of four.
#[inline(always)]
pub fn bucket(pos: &Position) -> usize {
    ((pos.occupied().count() as usize).saturating_sub(1) / 4).min(OUTPUT_BUCKETS - 1)
}
