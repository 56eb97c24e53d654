//! Syzygy endgame tablebases: Corvid's own reader of the format (Ronald de Man's WDL and DTZ
//! tables, `.rtbw` and `.rtbz`), written from the format's description; no prober's code is
//! used, and nothing GPL is linked (`shakmaty-syzygy` would make the binary GPL-3).
//!
//! Directories are scanned for file names when `SyzygyPath` is set; a file is mapped into
//! memory and parsed only when a position first needs it, so a large set costs nothing until
//! probed. Probing is safe from several threads at once.
//!
//! Values: WDL from the side to move's point of view, -2 loss, -1 loss saved by the fifty-move
//! rule ("blessed"), 0 draw, 1 win spoiled by it ("cursed"), 2 win; DTZ, the plies to the next
//! capture or pawn move under optimal play (positive winning), rounded as the tables store it.

mod index;
mod table;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::position::Position;
use crate::types::{Color, Move, PieceType};
pub use table::MAX_PIECES;
use table::{Kind, Table};

/// A table's files, opened at first use.
struct Entry {
    /// The normalised name, `KRPvKR`.
    name: String,
    symmetric: bool,
    wdl_path: Option<PathBuf>,
    dtz_path: Option<PathBuf>,
    wdl: OnceLock<Result<Table, String>>,
    dtz: OnceLock<Result<Table, String>>,
}

/// The tables found on `SyzygyPath`.
#[derive(Default)]
pub struct Tablebases {
    /// Both colour orders of each name point at the same entry.
    index: HashMap<String, usize>,
    entries: Vec<Entry>,
    /// The most pieces of a table found with a WDL file.
    pub max_pieces: usize,
}

/// The material of one side, `KRP`.
fn side_key(pos: &Position, color: Color) -> String {
    let mut s = String::new();
    for (pt, ch) in [
        (PieceType::King, 'K'),
        (PieceType::Queen, 'Q'),
        (PieceType::Rook, 'R'),
        (PieceType::Bishop, 'B'),
        (PieceType::Knight, 'N'),
        (PieceType::Pawn, 'P'),
    ] {
        s.extend(std::iter::repeat(ch).take(pos.colored_pieces(color, pt).count() as usize));
    }
    s
}

/// The position's material signature, White's pieces first (`mirror`: Black's).
fn material_key(pos: &Position, mirror: bool) -> String {
    let (a, b) = if mirror { (Color::Black, Color::White) } else { (Color::White, Color::Black) };
    format!("{}v{}", side_key(pos, a), side_key(pos, b))
}

/// `KRvK` with the sides swapped: `KvKR`.
fn swapped(name: &str) -> String {
    match name.split_once('v') {
        Some((a, b)) => format!("{b}v{a}"),
        None => name.to_string(),
    }
}

/// Whether `name` is a table name: two sides of K Q R B N P, one king each, at most seven pieces.
fn is_table_name(name: &str) -> bool {
    let Some((a, b)) = name.split_once('v') else { return false };
    let side_ok =
        |s: &str| s.starts_with('K') && s.matches('K').count() == 1 && s.chars().all(|c| "KQRBNP".contains(c));
    side_ok(a) && side_ok(b) && name.len() - 1 <= MAX_PIECES
}

/// The DTZ a zeroing move gives, by the WDL it keeps.
fn dtz_before_zeroing(wdl: i32) -> i32 {
    wdl.signum() * if wdl.abs() == 2 { 1 } else { 101 }
}

impl Tablebases {
    /// Scans the directories of `paths` (separated by `:`, or `;` on Windows). Returns the
    /// tables and a line for each directory that could not be read.
    pub fn open(paths: &str) -> (Tablebases, Vec<String>) {
        let separator = if cfg!(windows) { ';' } else { ':' };
        let mut tb = Tablebases::default();
        let mut problems = Vec::new();
        for dir in paths.split(separator).map(str::trim).filter(|d| !d.is_empty()) {
            let listing = match std::fs::read_dir(dir) {
                Ok(listing) => listing,
                Err(e) => {
                    problems.push(format!("{dir}: {e}"));
                    continue;
                }
            };
            let mut names: Vec<PathBuf> = listing.filter_map(|e| e.ok().map(|e| e.path())).collect();
            names.sort();
            for path in names {
                if let Err(problem) = tb.add_file(&path) {
                    problems.push(problem);
                }
            }
        }
        (tb, problems)
    }

    /// Adds a table file found in a directory (other files are passed over); a file that is not
    /// a table is reported and left out, so a good copy in a later directory is used.
    fn add_file(&mut self, path: &Path) -> Result<(), String> {
        let (Some(stem), Some(ext)) =
            (path.file_stem().and_then(|s| s.to_str()), path.extension().and_then(|e| e.to_str()))
        else {
            return Ok(());
        };
        let kind = match ext {
            "rtbw" => Kind::Wdl,
            "rtbz" => Kind::Dtz,
            _ => return Ok(()),
        };
        if !is_table_name(stem) {
            return Ok(());
        }
        let known = self.index.get(stem).map(|&i| &self.entries[i]);
        let taken = known.is_some_and(|e| if kind == Kind::Wdl { e.wdl_path.is_some() } else { e.dtz_path.is_some() });
        if taken {
            return Ok(());
        }
        table::check_file(path, kind)?;
        let i = match self.index.get(stem) {
            Some(&i) => i,
            None => {
                self.entries.push(Entry {
                    name: stem.to_string(),
                    symmetric: swapped(stem) == stem,
                    wdl_path: None,
                    dtz_path: None,
                    wdl: OnceLock::new(),
                    dtz: OnceLock::new(),
                });
                let i = self.entries.len() - 1;
                self.index.insert(stem.to_string(), i);
                self.index.insert(swapped(stem), i);
                i
            }
        };
        let entry = &mut self.entries[i];
        match kind {
            // The first directory that has a file wins.
            Kind::Wdl if entry.wdl_path.is_none() => {
                entry.wdl_path = Some(path.to_path_buf());
                self.max_pieces = self.max_pieces.max(stem.len() - 1);
            }
            Kind::Dtz if entry.dtz_path.is_none() => entry.dtz_path = Some(path.to_path_buf()),
            _ => {}
        }
        Ok(())
    }

    /// How many WDL and DTZ files were found.
    pub fn counts(&self) -> (usize, usize) {
        let wdl = self.entries.iter().filter(|e| e.wdl_path.is_some()).count();
        let dtz = self.entries.iter().filter(|e| e.dtz_path.is_some()).count();
        (wdl, dtz)
    }

    pub fn is_empty(&self) -> bool {
        self.max_pieces == 0
    }

    /// The table of `kind` for the position's material, opened if this is its first use.
    fn table(&self, pos: &Position, kind: Kind) -> Result<(&Entry, &Table), String> {
        let key = material_key(pos, false);
        let entry = self.index.get(&key).map(|&i| &self.entries[i]).ok_or_else(|| format!("no table for {key}"))?;
        let (path, cell, what) = match kind {
            Kind::Wdl => (&entry.wdl_path, &entry.wdl, "WDL"),
            Kind::Dtz => (&entry.dtz_path, &entry.dtz, "DTZ"),
        };
        let path = path.as_ref().ok_or_else(|| format!("no {what} table for {}", entry.name))?;
        let table = cell.get_or_init(|| Table::open(path, &entry.name, kind));
        match table {
            Ok(t) => Ok((entry, t)),
            Err(e) => Err(e.clone()),
        }
    }

    /// One table lookup, without resolving captures.
    fn lookup(&self, pos: &Position, kind: Kind, wdl: i32) -> Result<Option<i32>, String> {
        let (entry, table) = self.table(pos, kind)?;
        let white = pos.side_to_move() == Color::White;
        let (colour_mirror, side) = if entry.symmetric {
            (if white { 0 } else { 8 }, 0)
        } else if material_key(pos, false) != table.key {
            (8, usize::from(white))
        } else {
            (0, usize::from(!white))
        };
        let flip = colour_mirror != 0 && table.has_pawns();
        let squares_of = |code: u8| -> u64 {
            let color = if (code ^ colour_mirror) & 8 == 0 { Color::White } else { Color::Black };
            // Codes 1 (pawn) to 6 (king); the parser refuses others.
            pos.colored_pieces(color, PieceType::from_index_wrapping((code & 7).wrapping_sub(1))).0
        };
        table.probe(side, flip, &squares_of, wdl)
    }

    fn wdl_table(&self, pos: &Position) -> Result<i32, String> {
        if pos.occupied() == pos.pieces(PieceType::King) {
            return Ok(0);
        }
        self.lookup(pos, Kind::Wdl, 0)?.ok_or_else(|| "no value".to_string())
    }

    /// WDL by the table, with captures resolved first (the tables assume the side to move does
    /// not capture at once when a capture is best): the value and whether a capture gave it
    /// (2) or the table (1).
    fn probe_ab(&self, pos: &Position, mut alpha: i32, beta: i32) -> Result<(i32, u8), String> {
        if pos.castling().0 != 0 {
            return Err("castling rights".into());
        }
        if pos.occupied().count() as usize > MAX_PIECES + 1 {
            return Err("too many pieces".into());
        }
        for m in pos.legal_moves() {
            if !m.is_capture() || m.is_en_passant() {
                continue;
            }
            let v = -self.probe_ab(&pos.make_move(m), -beta, -alpha)?.0;
            if v > alpha {
                if v >= beta {
                    return Ok((v, 2));
                }
                alpha = v;
            }
        }
        let v = self.wdl_table(pos)?;
        Ok(if alpha >= v { (alpha, 1 + u8::from(alpha > 0)) } else { (v, 1) })
    }

    /// The best WDL value of the legal en-passant captures, if there are any.
    fn en_passant(&self, pos: &Position) -> Result<Option<i32>, String> {
        if pos.ep_square().is_none() {
            return Ok(None);
        }
        let mut best = None;
        for m in pos.legal_moves() {
            if m.is_en_passant() {
                let v = -self.probe_ab(&pos.make_move(m), -2, 2)?.0;
                best = Some(best.map_or(v, |b: i32| b.max(v)));
            }
        }
        Ok(best)
    }

    fn only_en_passant(pos: &Position) -> bool {
        pos.legal_moves().iter().all(|m| m.is_en_passant())
    }

    /// The position's WDL value, assuming it was reached by a capture or pawn move (the
    /// halfmove clock is not taken into account). An error names a missing or bad table.
    pub fn probe_wdl(&self, pos: &Position) -> Result<i32, String> {
        let mut v = self.probe_ab(pos, -2, 2)?.0;
        if let Some(ep) = self.en_passant(pos)? {
            if ep >= v || (v == 0 && Self::only_en_passant(pos)) {
                v = ep;
            }
        }
        Ok(v)
    }

    fn dtz_without_en_passant(&self, pos: &Position) -> Result<i32, String> {
        let (wdl, how) = self.probe_ab(pos, -2, 2)?;
        if wdl == 0 {
            return Ok(0);
        }
        if how == 2 {
            return Ok(dtz_before_zeroing(wdl));
        }
        let legal = pos.legal_moves();
        let is_pawn = |m: &Move| pos.piece_type_on(m.from()) == PieceType::Pawn;
        if wdl > 0 {
            // A pawn move that keeps the win zeroes at once.
            for m in legal.iter().filter(|m| is_pawn(m) && !m.is_capture()) {
                if -self.probe_wdl(&pos.make_move(*m))? == wdl {
                    return Ok(if wdl == 2 { 1 } else { 101 });
                }
            }
        }
        if let Some(dtz) = self.lookup(pos, Kind::Dtz, wdl)? {
            return Ok(dtz_before_zeroing(wdl) + if wdl > 0 { dtz } else { -dtz });
        }
        // The table stores the other side to move: one ply of search over it.
        if wdl > 0 {
            let mut best = i32::MAX;
            for m in legal.iter().filter(|m| !is_pawn(m) && !m.is_capture()) {
                let child = pos.make_move(*m);
                let v = -self.probe_dtz(&child)?;
                if v == 1 && child.in_check() && !child.has_legal_move() {
                    best = 1;
                } else if v > 0 && v + 1 < best {
                    best = v + 1;
                }
            }
            Ok(best)
        } else {
            let mut best = -1;
            for m in legal.iter() {
                let child = pos.make_move(*m);
                let v = if child.halfmove_clock() == 0 {
                    if wdl == -2 {
                        -1
                    } else if self.probe_ab(&child, 1, 2)?.0 == 2 {
                        0
                    } else {
                        -101
                    }
                } else {
                    -self.probe_dtz(&child)? - 1
                };
                best = best.min(v);
            }
            Ok(best)
        }
    }

    /// The position's DTZ, assuming it was reached by a capture or pawn move: positive when the
    /// side to move wins (over 100: only beyond the fifty-move rule), negative when it loses, 0
    /// drawn. It may be one ply more than the truth where the table rounds.
    pub fn probe_dtz(&self, pos: &Position) -> Result<i32, String> {
        let mut v = self.dtz_without_en_passant(pos)?;
        let Some(ep) = self.en_passant(pos)? else { return Ok(v) };
        let ep = [-1, -101, 0, 101, 1][(ep + 2) as usize];
        let take = if v < -100 {
            ep >= 0
        } else if v < 0 {
            !(-100..0).contains(&ep)
        } else if v > 100 {
            ep > 0
        } else if v > 0 {
            ep == 1
        } else if ep >= 0 {
            true
        } else {
            Self::only_en_passant(pos)
        };
        if take {
            v = ep;
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_keys() {
        assert!(is_table_name("KRPvKR") && is_table_name("KvK") && is_table_name("KQQQvKRR"));
        assert!(
            !is_table_name("KRPKR") && !is_table_name("KRvR") && !is_table_name("KKvK") && !is_table_name("KQQQQvKRR")
        );
        assert_eq!(swapped("KRPvKR"), "KRvKRP");
        let pos = Position::from_fen("8/8/4k3/8/2R5/8/3PK3/7r w - - 0 1").unwrap();
        assert_eq!(material_key(&pos, false), "KRPvKR");
        assert_eq!(material_key(&pos, true), "KRvKRP");
        assert_eq!(dtz_before_zeroing(2), 1);
        assert_eq!(dtz_before_zeroing(-1), -101);
    }

    #[test]
    fn bad_directories_and_files_are_reported_not_fatal() {
        // The list separator is ';' on Windows (where ':' follows a drive letter), ':' elsewhere.
        let sep = if cfg!(windows) { ';' } else { ':' };
        let (tb, problems) = Tablebases::open(&format!("/no/such/dir{sep}"));
        assert!(tb.is_empty());
        assert_eq!(problems.len(), 1);
        assert!(problems[0].starts_with("/no/such/dir: "), "{problems:?}");
        // A file with a table's name but not a table's content.
        let dir = std::env::temp_dir().join(format!("corvid-syzygy-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("KQvK.rtbw"), vec![0u8; 80]).unwrap();
        std::fs::write(dir.join("KRvK.rtbw"), b"short").unwrap();
        std::fs::write(dir.join("notatable.rtbw"), b"x").unwrap();
        let (tb, mut problems) = Tablebases::open(dir.to_str().unwrap());
        // Each bad file is reported when found, and left out.
        problems.sort();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("KQvK.rtbw") && problems[0].contains("wrong magic"), "{problems:?}");
        assert!(problems[1].contains("KRvK.rtbw") && problems[1].contains("truncated"), "{problems:?}");
        assert_eq!(tb.counts(), (0, 0));
        let kqk = Position::from_fen("8/8/4k3/8/8/8/3QK3/8 w - - 0 1").unwrap();
        assert_eq!(tb.probe_wdl(&kqk).unwrap_err(), "no table for KQvK");
        // A bad copy in an earlier directory does not hide a good one in a later directory.
        let good = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/syzygy");
        if Path::new(good).join("KQvK.rtbw").exists() {
            let (tb, problems) = Tablebases::open(&format!("{}{sep}{good}", dir.display()));
            assert_eq!(problems.len(), 2, "{problems:?}");
            assert_eq!(tb.probe_wdl(&kqk), Ok(2), "the good copy is used");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
