//! The board as `corvid play` draws it: from the player's side, Unicode pieces or ASCII letters,
//! the last move's squares in brackets, and a line of text beside the top and bottom ranks
//! (the clocks).

use crate::position::Position;
use crate::types::{Color, File, Move, PieceType, Rank, Square};

/// How pieces are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Glyphs {
    /// ♔♕♖♗♘♙ for White, ♚♛♜♝♞♟ for Black, `·` for an empty square.
    Unicode,
    /// FEN's letters (upper case White), `.` for an empty square.
    Ascii,
}

fn glyph(pos: &Position, sq: Square, glyphs: Glyphs) -> char {
    match (pos.piece_on(sq), glyphs) {
        (None, Glyphs::Unicode) => '·',
        (None, Glyphs::Ascii) => '.',
        (Some(p), Glyphs::Ascii) => p.to_char(),
        (Some(p), Glyphs::Unicode) => {
            let index = match p.piece_type() {
                PieceType::King => 0,
                PieceType::Queen => 1,
                PieceType::Rook => 2,
                PieceType::Bishop => 3,
                PieceType::Knight => 4,
                PieceType::Pawn => 5,
            };
            let white = ['♔', '♕', '♖', '♗', '♘', '♙'];
            let black = ['♚', '♛', '♜', '♝', '♞', '♟'];
            if p.color() == Color::White {
                white[index]
            } else {
                black[index]
            }
        }
    }
}

/// The board with `bottom`'s pieces at the bottom, `last`'s squares in brackets, `top_note`
/// beside the top rank and `bottom_note` beside the bottom one.
pub fn render(
    pos: &Position,
    last: Option<Move>,
    bottom: Color,
    glyphs: Glyphs,
    top_note: &str,
    bottom_note: &str,
) -> String {
    let files: Vec<File> =
        if bottom == Color::White { File::ALL.to_vec() } else { File::ALL.iter().rev().copied().collect() };
    let ranks: Vec<Rank> =
        if bottom == Color::White { Rank::ALL.iter().rev().copied().collect() } else { Rank::ALL.to_vec() };
    let letters: String = files.iter().map(|f| format!(" {} ", f.to_char())).collect();
    let marked = |sq: Square| last.is_some_and(|m| m.from() == sq || m.to() == sq);
    let letters = letters.trim_end();
    let mut out = format!("    {letters}\n");
    for (row, &rank) in ranks.iter().enumerate() {
        out.push_str(&format!(" {}  ", rank.to_char()));
        for &file in &files {
            let sq = Square::from_file_rank(file, rank);
            let g = glyph(pos, sq, glyphs);
            if marked(sq) {
                out.push_str(&format!("[{g}]"));
            } else {
                out.push_str(&format!(" {g} "));
            }
        }
        out.push_str(&format!("  {}", rank.to_char()));
        let note = match row {
            0 => top_note,
            7 => bottom_note,
            _ => "",
        };
        if !note.is_empty() {
            out.push_str("    ");
            out.push_str(note);
        }
        out.push('\n');
    }
    out.push_str(&format!("    {letters}\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_both_glyph_sets_and_the_last_move() {
        let start = Position::startpos();
        let m = start.parse_uci_move("e2e4").unwrap();
        let pos = start.make_move(m);
        let white = render(&pos, Some(m), Color::White, Glyphs::Ascii, "Corvid 5:00", "You 4:58");
        let lines: Vec<&str> = white.lines().collect();
        assert_eq!(lines[0], "     a  b  c  d  e  f  g  h");
        assert_eq!(lines[1], " 8   r  n  b  q  k  b  n  r   8    Corvid 5:00");
        assert_eq!(lines[4], " 5   .  .  .  .  .  .  .  .   5");
        assert_eq!(lines[5], " 4   .  .  .  . [P] .  .  .   4");
        assert_eq!(lines[7], " 2   P  P  P  P [.] P  P  P   2");
        assert_eq!(lines[8], " 1   R  N  B  Q  K  B  N  R   1    You 4:58");
        let black = render(&pos, Some(m), Color::Black, Glyphs::Unicode, "", "");
        let lines: Vec<&str> = black.lines().collect();
        assert_eq!(lines[0], "     h  g  f  e  d  c  b  a");
        assert_eq!(lines[1], " 1   ♖  ♘  ♗  ♔  ♕  ♗  ♘  ♖   1");
        assert_eq!(lines[4], " 4   ·  ·  · [♙] ·  ·  ·  ·   4");
        assert_eq!(lines[8], " 8   ♜  ♞  ♝  ♚  ♛  ♝  ♞  ♜   8");
    }
}
