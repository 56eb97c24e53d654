//! The perft suites in `../shared/data/perft/` (present in CI), each to the depth the issue asks.
//! Without the data folder, each test prints a loud SKIPPED line to stderr and passes, except
//! under CI (`CI=true`), where missing data is a failure.

use std::path::PathBuf;

use corvid::perft::{parse_suite, run_suite, SuiteOptions};

mod common;

fn data_dir() -> PathBuf {
    match std::env::var_os("CORVID_PERFT_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/perft"),
    }
}

/// Runs `file` up to `max_depth`; returns the FENs rejected by the parser (with reasons), or
/// `None` when the file is missing outside CI.
fn check_suite(file: &str, max_depth: u32) -> Option<Vec<(String, String)>> {
    let path = data_dir().join(file);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            common::skip(&format!("perft suite {file}"), &format!("{}: {e} (set CORVID_PERFT_DATA)", path.display()));
            return None;
        }
    };
    let lines = parse_suite(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(!lines.is_empty(), "{file} is empty");
    let checks = run_suite(&lines, &SuiteOptions { max_depth, threads: 1, hash_mb: 0 }).unwrap();
    let failures: Vec<String> = checks
        .iter()
        .filter_map(|c| match &c.got {
            Ok(n) if *n != c.expected => {
                Some(format!("line {}: {} depth {} expected {} got {n}", c.line, c.fen, c.depth, c.expected))
            }
            _ => None,
        })
        .collect();
    assert!(failures.is_empty(), "{file}: {} failures:\n{}", failures.len(), failures.join("\n"));
    let mut rejected: Vec<(String, String)> =
        checks.iter().filter_map(|c| c.got.as_ref().err().map(|e| (c.fen.clone(), e.clone()))).collect();
    rejected.dedup();
    let passed = checks.iter().filter(|c| c.passed()).count();
    assert!(passed > 0, "{file}: nothing checked");
    Some(rejected)
}

/// A suite in which every line parses and passes.
fn suite_passes(file: &str, max_depth: u32) {
    if let Some(rejected) = check_suite(file, max_depth) {
        assert_eq!(rejected, vec![], "{file}: lines rejected");
    }
}

#[test]
fn standard_suite_to_its_deepest_depth() {
    suite_passes("standard.epd", u32::MAX);
}

#[test]
fn fischer960_to_depth_5() {
    suite_passes("fischer960.epd", 5);
}

#[test]
fn marcel_random_to_depth_4() {
    suite_passes("marcel_random.epd", 4);
}

#[test]
fn ferdy_en_passant() {
    suite_passes("ferdy_enpassant.epd", u32::MAX);
}

#[test]
fn ferdy_double_check() {
    suite_passes("ferdy_double_check.epd", u32::MAX);
}

#[test]
fn special_cw() {
    suite_passes("special_cw.epd", u32::MAX);
}

#[test]
fn tricky_as_given() {
    // Every line passes, the 270-move position with 28 white pieces among them (D1 270, D2 0):
    // positions beyond a game's material are accepted as board editors make them (issue 80).
    suite_passes("tricky.epd", u32::MAX);
}
