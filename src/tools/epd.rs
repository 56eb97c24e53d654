//! `corvid epd <file>`: runs a test suite of EPD positions with best moves (`bm`) or moves to
//! avoid (`am`), searching each for a fixed time, and counts the solved ones. A measurement tool
//! (tactics strength), not a test: its result depends on the machine's speed.

use std::io::Write;
use std::time::Duration;

use crate::position::Position;
use crate::search::{Job, Limits, Searcher};

/// One EPD record: the position and its `bm`/`am` moves in SAN, and its id.
pub struct Record {
    pub fen: String,
    pub best: Vec<String>,
    pub avoid: Vec<String>,
    pub id: String,
}

/// Parses `<4 FEN fields> op args; op args; ...`.
pub fn parse_line(line: &str) -> Option<Record> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let fields: Vec<&str> = line.splitn(5, ' ').collect();
    if fields.len() < 5 {
        return None;
    }
    let fen = format!("{} {} {} {} 0 1", fields[0], fields[1], fields[2], fields[3]);
    let mut record = Record { fen, best: Vec::new(), avoid: Vec::new(), id: String::new() };
    for op in fields[4].split(';') {
        let mut words = op.split_whitespace();
        match words.next() {
            Some("bm") => record.best.extend(words.map(clean)),
            Some("am") => record.avoid.extend(words.map(clean)),
            Some("id") => record.id = words.collect::<Vec<_>>().join(" ").trim_matches('"').to_string(),
            _ => {}
        }
    }
    Some(record)
}

/// SAN without check marks and annotations, for comparison.
fn clean(san: &str) -> String {
    san.trim_end_matches(['+', '#', '!', '?']).to_string()
}

/// Runs the suite; prints one line per position, one per line it cannot use (named by its line
/// number) and the total; returns (solved, total), or an error when the table cannot be
/// allocated or no line of `text` is a position with `bm` or `am` (the wrong file, most likely).
pub fn run(
    text: &str,
    movetime: Duration,
    threads: usize,
    hash_mb: usize,
    out: &mut impl Write,
) -> Result<(usize, usize), String> {
    let mut searcher = Searcher::with_hash(threads, hash_mb)?;
    let (mut solved, mut total) = (0, 0);
    for (number, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some(record) = parse_line(line) else {
            let _ = writeln!(out, "skip line {number}: not an EPD record (four FEN fields, then operations)");
            continue;
        };
        let Ok(pos) = Position::from_fen(&record.fen) else {
            let _ = writeln!(out, "skip line {number} {}: bad FEN", record.id);
            continue;
        };
        if record.best.is_empty() && record.avoid.is_empty() {
            let _ = writeln!(out, "skip line {number} {}: no bm or am", record.id);
            continue;
        }
        total += 1;
        // Every position starts afresh, as a new game would.
        searcher.clear();
        let limits = Limits { movetime: Some(movetime), ..Limits::default() };
        let outcome = searcher.search_silently(Job::new(pos, limits));
        let result = outcome.best();
        let san = result.best.map(|m| clean(&pos.to_san(m))).unwrap_or_default();
        let ok = (record.best.is_empty() || record.best.contains(&san)) && !record.avoid.contains(&san);
        solved += ok as usize;
        let expected = if record.best.is_empty() {
            format!("am {}", record.avoid.join(" "))
        } else {
            format!("bm {}", record.best.join(" "))
        };
        let _ = writeln!(out, "{} {:<10} {expected:<16} got {san}", if ok { "ok  " } else { "FAIL" }, record.id);
    }
    if total == 0 {
        return Err("no line of the suite is an EPD position with bm or am (the wrong file?)".into());
    }
    let _ = writeln!(out, "solved {solved} of {total} at {} ms a position", movetime.as_millis());
    Ok((solved, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_suite_is_scored_move_by_move() {
        // Mate in one (Rh8#): solved as `bm Rh8#`, solved as `bm Rh8` (check marks are not
        // compared), failed as `am Rh8`, failed as `bm Ra1`; a bad FEN, a record without bm or
        // am and a line that is no record at all are each reported by line number, not counted.
        let mate = "1k6/8/1K6/8/8/8/8/7R w - -";
        let suite = format!(
            "{mate} bm Rh8#; id \"a\";\n{mate} bm Rh8; id \"b\";\n{mate} am Rh8; id \"c\";\n\
             {mate} bm Ra1; id \"d\";\nnot/a/fen w - - bm e4; id \"e\";\n{mate} id \"f\";\n\n# a comment\ngarbage\n"
        );
        let mut out = Vec::new();
        let (solved, total) = run(&suite, Duration::from_millis(50), 1, 1, &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!((solved, total), (2, 4), "{out}");
        let verdicts: Vec<&str> = out.lines().map(|l| l.split_whitespace().next().unwrap()).collect();
        assert_eq!(verdicts, ["ok", "ok", "FAIL", "FAIL", "skip", "skip", "skip", "solved"], "{out}");
        let skipped: Vec<&str> = out.lines().filter(|l| l.starts_with("skip")).collect();
        assert!(skipped[0].starts_with("skip line 5 e: bad FEN"), "{out}");
        assert!(skipped[1].starts_with("skip line 6 f: no bm or am"), "{out}");
        assert!(skipped[2].starts_with("skip line 9: not an EPD record"), "{out}");
        assert!(out.lines().all(|l| !l.starts_with("ok") && !l.starts_with("FAIL") || l.ends_with("got Rh8")), "{out}");
    }

    #[test]
    fn a_file_without_a_single_record_is_an_error_not_an_empty_score() {
        // The wrong file (a PGN, a FEN list without best moves): no "solved 0 of 0".
        for text in ["", "[Event \"x\"]\n1. e4 e5 *\n", "8/8/8/8/8/8/8/K6k w - - 0 1\n"] {
            let mut out = Vec::new();
            let e = run(text, Duration::from_millis(10), 1, 1, &mut out).unwrap_err();
            assert!(e.contains("no line of the suite"), "{e}");
        }
    }

    #[test]
    fn records_parse() {
        let r = parse_line("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";").unwrap();
        assert_eq!(r.best, vec!["Qg6"]);
        assert_eq!(r.id, "WAC.001");
        assert!(Position::from_fen(&r.fen).is_ok());
        let r = parse_line("8/8/8/8/8/8/8/K6k w - - am Kb1+ Ka2; id \"x\";").unwrap();
        assert_eq!(r.avoid, vec!["Kb1", "Ka2"]);
        assert!(parse_line("# comment").is_none());
    }
}
