//! Chess960 (Fischer Random) and Double Fischer Random starts by the standard numbering.

use super::Position;

/// Chess960 arrangement `n` (below 960) of the back rank by the standard numbering, as letters
/// from the a-file: the two bishops from the lowest digits, then the queen, then the knights,
/// then R K R on the squares left.
pub(crate) fn back_rank(n: u16) -> [u8; 8] {
    let mut rank = [0u8; 8];
    let mut n = usize::from(n) % 960;
    rank[(n % 4) * 2 + 1] = b'B';
    n /= 4;
    rank[(n % 4) * 2] = b'B';
    n /= 4;
    let place = |rank: &mut [u8; 8], index: usize, piece: u8| {
        let square = rank.iter().enumerate().filter(|(_, &c)| c == 0).nth(index).map(|(i, _)| i);
        rank[square.expect("a free square")] = piece;
    };
    place(&mut rank, n % 6, b'Q');
    n /= 6;
    const KNIGHTS: [(usize, usize); 10] =
        [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];
    let (first, second) = KNIGHTS[n];
    place(&mut rank, second, b'N');
    place(&mut rank, first, b'N');
    for piece in [b'R', b'K', b'R'] {
        place(&mut rank, 0, piece);
    }
    rank
}

impl Position {
    /// The start of Chess960 game number `n` (0-959, the standard numbering: 518 is the classical
    /// start), every castling right held; `None` for a number above 959. As with any FEN, the
    /// position counts as Chess960 ([`Position::is_chess960`]: castling written as the king
    /// taking its rook) where the king stands off the e-file or a rook off the a- and h-files;
    /// [`Position::set_chess960`] sets it for the others (whose castling is the classical one).
    ///
    /// ```
    /// use corvid::Position;
    ///
    /// assert_eq!(Position::chess960(518), Some(Position::startpos()));
    /// let pos = Position::chess960(0).unwrap();
    /// assert_eq!(pos.to_fen(), "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1");
    /// assert!(pos.is_chess960());
    /// assert_eq!(Position::chess960(960), None);
    /// ```
    pub fn chess960(n: u16) -> Option<Position> {
        Position::double_chess960(n, n)
    }

    /// A Double Fischer Random start: White's back rank is Chess960 arrangement `white`,
    /// Black's is `black` (each 0-959), pawns in front, every castling right; `None` for a
    /// number above 959.
    ///
    /// ```
    /// use corvid::Position;
    ///
    /// let pos = Position::double_chess960(0, 959).unwrap();
    /// assert_eq!(pos.to_fen(), "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1");
    /// ```
    pub fn double_chess960(white: u16, black: u16) -> Option<Position> {
        if white >= 960 || black >= 960 {
            return None;
        }
        let (white, black) = (back_rank(white), back_rank(black));
        let rooks = |rank: [u8; 8]| -> String {
            rank.iter().enumerate().filter(|(_, &c)| c == b'R').map(|(f, _)| (b'a' + f as u8) as char).rev().collect()
        };
        let fen = format!(
            "{}/pppppppp/8/8/8/8/PPPPPPPP/{} w {}{} - 0 1",
            String::from_utf8_lossy(&black).to_ascii_lowercase(),
            String::from_utf8_lossy(&white),
            rooks(white).to_ascii_uppercase(),
            rooks(black)
        );
        Some(Position::from_fen(&fen).expect("a Chess960 arrangement is a legal start"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn the_standard_numbering_gives_960_distinct_legal_arrangements() {
        // 518 is the classical arrangement, 0 is BBQNNRKR (the numbering's published anchors).
        assert_eq!(&back_rank(518), b"RNBQKBNR");
        assert_eq!(&back_rank(0), b"BBQNNRKR");
        assert_eq!(&back_rank(959), b"RKRNNQBB");
        let mut distinct = HashSet::new();
        for n in 0..960 {
            let rank = back_rank(n);
            let at = |c: u8| rank.iter().enumerate().filter(|(_, &p)| p == c).map(|(i, _)| i).collect::<Vec<_>>();
            let (b, r, k) = (at(b'B'), at(b'R'), at(b'K'));
            assert_eq!(b[0] % 2 + b[1] % 2, 1, "bishops on both colours: {rank:?}");
            assert!(r[0] < k[0] && k[0] < r[1], "king between the rooks: {rank:?}");
            assert!(distinct.insert(rank));
            let pos = Position::chess960(n).unwrap();
            assert_eq!(pos.castling().0, 15, "{}", pos.to_fen());
            let classical_squares = k[0] == 4 && r == [0, 7];
            assert_eq!(pos.is_chess960(), !classical_squares, "{}", pos.to_fen());
        }
    }
}
