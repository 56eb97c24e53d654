//! A bare king against mating material (issue 69, item 4): a known win, evaluated as one. The
//! network almost never sees these endings (self-play is adjudicated long before them) and
//! values KQ v K at 400-550 cp wherever the defending king stands, a cornered king worse than a
//! central one, the wrong way round for the mate. Here the value is large and points the way:
//! the defending king toward the edge (toward a corner its bishop can cover, with bishop and
//! knight), the attacking king toward it, material kept.

use crate::position::Position;
use crate::types::{Bitboard, Color, PieceType, Square};

/// What a won ending against a bare king is worth before its gradient: above any evaluation of
/// a normal position, far below tablebase wins and mates.
pub const KNOWN_WIN: i32 = 2_500;

/// The light squares (a1 is dark).
const LIGHT: Bitboard = Bitboard(0x55AA_55AA_55AA_55AA);

/// The evaluation, for the side to move, of a position where one side has only its king and the
/// other can force mate (a queen or a rook, a bishop and a knight, bishops on both colours, or
/// three minor pieces); `None` for every other position (pawns with minor pieces alone are no
/// sure win: a bishop of the wrong colour draws with a rook's pawn).
pub fn bare_king(pos: &Position) -> Option<i32> {
    use PieceType::*;
    let strong = if pos.colored(Color::Black).count() == 1 {
        Color::White
    } else if pos.colored(Color::White).count() == 1 {
        Color::Black
    } else {
        return None;
    };
    let mine = |pt| pos.colored_pieces(strong, pt);
    let (bishops, knights) = (mine(Bishop), mine(Knight));
    let heavy = (mine(Queen) | mine(Rook)).is_nonempty();
    let both_colours = (bishops & LIGHT).is_nonempty() && (bishops & !LIGHT).is_nonempty();
    let minors = bishops.count() + knights.count();
    let bishop_and_knight = bishops.is_nonempty() && knights.is_nonempty() && !heavy;
    if !(heavy || both_colours || bishop_and_knight || minors >= 3) {
        return None;
    }
    let material = 900 * mine(Queen).count() as i32
        + 500 * mine(Rook).count() as i32
        + 300 * minors as i32
        + 100 * mine(Pawn).count() as i32;
    let (king, theirs) = (pos.king(strong), pos.king(!strong));
    let mut value = KNOWN_WIN + material + 10 * (14 - distance(king, theirs));
    if bishop_and_knight && !both_colours && minors == 2 {
        // Mate comes only in a corner of the bishop's colour: toward it, and only it.
        let corners: [Square; 2] =
            if (bishops & LIGHT).is_nonempty() { [square(7, 0), square(0, 7)] } else { [square(0, 0), square(7, 7)] };
        value += 100 * (14 - corners.iter().map(|&c| distance(theirs, c)).min().unwrap_or(14));
    } else {
        value += 40 * from_centre(theirs);
    }
    Some(if pos.side_to_move() == strong { value } else { -value })
}

fn square(file: u8, rank: u8) -> Square {
    Square::new(rank * 8 + file).expect("on the board")
}

/// Files plus ranks away from the four centre squares (0 to 6).
fn from_centre(sq: Square) -> i32 {
    let (f, r) = (sq.file().index() as i32, sq.rank().index() as i32);
    (3 - f).max(f - 4) + (3 - r).max(r - 4)
}

/// Files plus ranks between two squares (0 to 14).
fn distance(a: Square, b: Square) -> i32 {
    let d = |x: usize, y: usize| (x as i32 - y as i32).abs();
    d(a.file().index(), b.file().index()) + d(a.rank().index(), b.rank().index())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(fen: &str) -> Option<i32> {
        bare_king(&Position::from_fen(fen).unwrap())
    }

    #[test]
    fn a_bare_king_against_mating_material_is_a_known_win_pointing_to_the_mate() {
        // KQ v K: won, for whichever side is to move.
        let centre = value("8/8/8/3k4/8/8/8/KQ6 w - - 0 1").unwrap();
        assert!(centre > KNOWN_WIN, "{centre}");
        assert_eq!(value("8/8/8/3k4/8/8/8/KQ6 b - - 0 1"), Some(-centre));
        // The defending king at the edge, in the corner, and the kings close: better for the
        // attacker each time.
        let edge = value("3k4/8/8/8/8/8/8/KQ6 w - - 0 1").unwrap();
        let corner = value("k7/8/8/8/8/8/8/KQ6 w - - 0 1").unwrap();
        let close = value("k7/8/1K6/8/8/8/8/1Q6 w - - 0 1").unwrap();
        assert!(centre < edge && edge < corner && corner < close, "{centre} {edge} {corner} {close}");
        // Black's queen: the same, from Black's side.
        assert_eq!(value("kq6/8/8/8/8/8/8/7K b - - 0 1"), value("7k/8/8/8/8/8/8/KQ6 w - - 0 1"));
        // Bishop and knight: the corner of the bishop's colour (a dark-squared bishop: a1, h8).
        let right = value("7k/8/8/8/8/8/8/KNB5 w - - 0 1").unwrap();
        let wrong = value("k7/8/8/8/8/8/8/KNB5 w - - 0 1").unwrap();
        assert!(right > wrong, "{right} {wrong}");
        // More material is worth more: a rook does not fall to the queen's level.
        assert!(value("8/8/8/3k4/8/8/8/KR6 w - - 0 1").unwrap() < centre);
    }

    #[test]
    fn what_cannot_force_mate_is_left_to_the_evaluation() {
        for fen in [
            "8/8/8/3k4/8/8/8/KNN5 w - - 0 1",  // two knights
            "8/8/8/3k4/8/8/8/KB1B4 w - - 0 1", // bishops on one colour (b1 and d1 are light)
            "8/8/8/3k4/8/8/P7/KB6 w - - 0 1",  // a bishop and a rook's pawn: can be a draw
            "8/8/8/3k4/8/8/3P4/K7 w - - 0 1",  // a pawn
            "8/8/8/3k4/8/8/3p4/KQ6 w - - 0 1", // the defender has a pawn
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ] {
            assert_eq!(value(fen), None, "{fen}");
        }
        // A queen with pawns, bishops on both colours, three knights: forced mates.
        for fen in
            ["8/8/8/3k4/8/8/PPP5/KQ6 w - - 0 1", "8/8/8/3k4/8/8/8/KBB5 w - - 0 1", "8/8/8/3k4/8/8/8/KNNN4 w - - 0 1"]
        {
            assert!(value(fen).is_some(), "{fen}");
        }
    }
}
