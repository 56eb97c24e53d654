//! Corvid's Syzygy reader against python-chess's on the real tables in
//! `../shared/data/syzygy` (every 3- and 4-piece table and five 5-piece ones): WDL and DTZ of
//! 10,000 positions, 250 a table, en-passant positions among them
//! (`tests/data/syzygy/make_expected.py` made the list).

use corvid::syzygy::Tablebases;
use corvid::Position;

mod common;

const TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/syzygy");
const EXPECTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy/expected.txt");

/// The tables, or `None` (a skip, but a failure under CI) when they are not beside the checkout.
fn tables() -> Option<Tablebases> {
    common::shared_data("syzygy", "the Syzygy tests")?;
    let (tb, problems) = Tablebases::open(TABLES);
    assert!(problems.is_empty(), "{problems:?}");
    Some(tb)
}

#[test]
fn wdl_and_dtz_equal_python_chess_on_ten_thousand_positions() {
    let Some(tb) = tables() else { return };
    assert_eq!(tb.counts(), (40, 40));
    assert_eq!(tb.max_pieces, 5);
    let text = std::fs::read_to_string(EXPECTED).unwrap();
    let (mut checked, mut en_passant, mut wrong) = (0, 0, Vec::new());
    for line in text.lines() {
        let fields: Vec<&str> = line.split(" ; ").collect();
        let pos = Position::from_fen(fields[0]).unwrap();
        let (wdl, dtz): (i32, i32) = (fields[1].parse().unwrap(), fields[2].parse().unwrap());
        let got = (tb.probe_wdl(&pos), tb.probe_dtz(&pos));
        if got != (Ok(wdl), Ok(dtz)) {
            wrong.push(format!("{line}: got {got:?}"));
        }
        checked += 1;
        en_passant += usize::from(fields[0].split(' ').nth(3) != Some("-"));
    }
    assert!(wrong.is_empty(), "{} of {checked} differ, first: {:?}", wrong.len(), &wrong[..wrong.len().min(10)]);
    assert_eq!(checked, 10_000);
    assert!(en_passant >= 40, "{en_passant} en-passant positions");
}

#[test]
fn truncated_and_corrupt_tables_give_errors_never_a_crash() {
    if tables().is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("corvid-syzygy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let real = std::fs::read(format!("{TABLES}/KRPvKR.rtbw")).unwrap();
    let positions: Vec<Position> = std::fs::read_to_string(EXPECTED)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let fen = l.split(" ; ").next().unwrap();
            let pos = Position::from_fen(fen).unwrap();
            (pos.occupied().count() == 5
                && fen.contains('P') ^ fen.contains('p')
                && fen.to_uppercase().matches('R').count() == 2)
                .then_some(pos)
        })
        .collect();
    assert!(positions.len() >= 100, "{}", positions.len());
    // Cut to a size a table could have (64k + 16 bytes): past the header, short of the data.
    let cut = (real.len() / 2) / 64 * 64 + 16;
    std::fs::write(dir.join("KRPvKR.rtbw"), &real[..cut]).unwrap();
    let (tb, _) = Tablebases::open(dir.to_str().unwrap());
    let mut truncated = 0;
    for pos in &positions {
        // Captures lead into tables that are not in this folder.
        let err = tb.probe_wdl(pos).unwrap_err();
        assert!(err.contains("truncated or corrupt") || err.starts_with("no table for"), "{err}");
        truncated += usize::from(err.contains("truncated or corrupt"));
    }
    assert!(truncated >= 50, "{truncated}");
    // Bytes overwritten all over the file: each probe gives an error that says what is wrong
    // or a result that is a WDL value, never a panic, and every round ends within its deadline.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let (mut errors, mut values) = (0, 0);
    for round in 0..20 {
        let mut bad = real.clone();
        for _ in 0..(1 + round * 4) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = 5 + (state % (bad.len() as u64 - 5)) as usize;
            bad[at] = (state >> 32) as u8;
        }
        let file = dir.join("KRPvKR.rtbw");
        std::fs::write(&file, &bad).unwrap();
        let (tb, _) = Tablebases::open(dir.to_str().unwrap());
        let probed: Vec<Position> = positions.iter().take(50).copied().collect();
        let results = common::within(&format!("round {round}"), std::time::Duration::from_secs(20), move || {
            probed.iter().map(|pos| tb.probe_wdl(pos)).collect::<Vec<_>>()
        });
        for result in results {
            match result {
                Ok(wdl) => {
                    assert!((-2..=2).contains(&wdl), "round {round}: WDL {wdl}");
                    values += 1;
                }
                Err(err) => {
                    assert!(err.contains("truncated or corrupt") || err.starts_with("no table for"), "{err}");
                    errors += 1;
                }
            }
        }
    }
    assert_eq!(errors + values, 20 * 50);
    assert!(values > 0 && errors > 0, "{values} values, {errors} errors");
    // The real table again, in a fresh reader: every value as python-chess gives it.
    std::fs::write(dir.join("KRPvKR.rtbw"), &real).unwrap();
    let (tb, _) = Tablebases::open(dir.to_str().unwrap());
    let expected: Vec<(String, i32)> = std::fs::read_to_string(EXPECTED)
        .unwrap()
        .lines()
        .map(|l| l.split(" ; ").collect::<Vec<_>>())
        .map(|f| (f[0].to_string(), f[1].parse().unwrap()))
        .collect();
    let mut same = 0;
    for pos in positions.iter().take(50) {
        // (Positions whose captures lead into tables not in this folder give "no table for".)
        if let Ok(wdl) = tb.probe_wdl(pos) {
            let fen = expected.iter().find(|(fen, _)| Position::from_fen(fen).unwrap().key() == pos.key());
            assert_eq!(Some(wdl), fen.map(|f| f.1));
            same += 1;
        }
    }
    assert!(same >= 10, "{same}");
    // The tables are mapped while open, and Windows deletes no mapped file: close them first.
    drop(tb);
    std::fs::remove_dir_all(&dir).unwrap();
}

mod search {
    use super::*;
    use corvid::search::{Job, Limits, Shared, Silent, Syzygy, Worker};
    use corvid::tt::TranspositionTable;
    use std::sync::Arc;

    /// Searches `pos` (after the game `history`) for `nodes` nodes with the tables.
    /// Searches `pos` (after the game `history`) within `limits`, the tables probed from
    /// `probe_depth` on and for at most `probe_limit` pieces: the result and the probes counted.
    fn search_with(
        tb: &Arc<Tablebases>,
        pos: &Position,
        history: &[u64],
        limits: &Limits,
        probe_depth: i32,
        probe_limit: usize,
    ) -> (corvid::search::SearchResult, u64) {
        let tt = Arc::new(TranspositionTable::new(4));
        let syzygy = Syzygy { tables: Arc::clone(tb), probe_depth, probe_limit, rule50: true };
        let shared = Arc::new(Shared::new(tt, 1).with_syzygy(Some(syzygy)));
        let job = Job { history: history.to_vec(), ..Job::new(*pos, limits.clone()) };
        let result = Worker::new(0).search(&job, Arc::clone(&shared), Box::new(Silent));
        (result, shared.tbhits())
    }

    /// Searches `pos` (after the game `history`) for `nodes` nodes with the tables.
    fn best_move(tb: &Arc<Tablebases>, pos: &Position, history: &[u64], nodes: u64) -> (corvid::Move, i32) {
        let limits = Limits { nodes: Some(nodes), ..Limits::default() };
        let (result, hits) = search_with(tb, pos, history, &limits, 1, 7);
        assert!(hits > 0);
        (result.best.unwrap(), result.score)
    }

    /// Searches `fen` to `depth` with the tables probed from `probe_depth` on and for at most
    /// `probe_limit` pieces: the move, the score and the probes counted.
    fn probed(tb: &Arc<Tablebases>, fen: &str, depth: i32, probe_depth: i32, probe_limit: usize) -> (String, i32, u64) {
        let pos = Position::from_fen(fen).unwrap();
        let limits = Limits { depth: Some(depth), ..Limits::default() };
        let (result, hits) = search_with(tb, &pos, &[], &limits, probe_depth, probe_limit);
        (result.best.unwrap().to_uci(false).to_string(), result.score, hits)
    }

    #[test]
    fn a_tablebase_win_found_in_the_tree_counts_from_its_ply() {
        let Some(tb) = tables().map(Arc::new) else { return };
        // KRR against KN has no table here; taking the knight enters KRRvK, a table win one ply
        // from the root: the root's score is that win less one ply (no mate is that close),
        // however wide the window that reached the capture.
        for depth in [2, 4, 6] {
            let (best, score, hits) = probed(&tb, "6k1/8/8/8/8/8/1n6/KR2R3 w - - 0 1", depth, 1, 7);
            assert!(hits > 0);
            assert!(best == "b1b2" || best == "a1b2", "depth {depth}: {best}");
            assert_eq!(score, corvid::tt::TB_WIN - 1, "depth {depth}");
        }
        // And for the side that loses: KRP against KN (no table) where the knight is attacked
        // and every square it could go to covered (a4 and c4 by the king, d3 and d1 by the
        // rook): the table loss after the capture is the most Black can score.
        let (_, score, _) = probed(&tb, "3R4/8/6k1/8/8/1K6/Pn6/8 b - - 0 1", 6, 1, 7);
        assert!(score <= -corvid::tt::TB_BOUND, "{score}");
    }

    #[test]
    fn probe_depth_and_limit_decide_where_the_tree_probes() {
        let Some(tb) = tables().map(Arc::new) else { return };
        // Six pieces (no table), captures lead into five- and four-piece tables.
        let fen = "3rk3/3n4/8/8/8/8/3R4/3RK3 w - - 0 1";
        let (_, _, everywhere) = probed(&tb, fen, 8, 1, 5);
        let (_, _, deep_only) = probed(&tb, fen, 8, 100, 5);
        let (_, _, four) = probed(&tb, fen, 8, 1, 4);
        let (_, _, none) = probed(&tb, fen, 8, 1, 0);
        assert!(everywhere > 0, "{everywhere}");
        // At the limit's piece count only nodes at SyzygyProbeDepth or deeper probe; fewer
        // pieces are probed at any depth. So a probe depth the search never reaches takes the
        // five-piece positions out, exactly as a limit of four does: the same probes, hence the
        // same tree and the same count (a comparison of counts between different trees would
        // hold only for the tree's present shape).
        assert_eq!(deep_only, four, "probe depth 100 at limit 5 against limit 4");
        // Where they can be probed, the five-piece tables are: the count is another.
        assert_ne!(everywhere, four, "the five-piece positions were probed");
        assert_eq!(none, 0);
    }

    fn positions(wdl: i32) -> Vec<Position> {
        std::fs::read_to_string(EXPECTED)
            .unwrap()
            .lines()
            .filter(|l| l.split(" ; ").nth(1) == Some(&wdl.to_string()))
            .map(|l| Position::from_fen(l.split(" ; ").next().unwrap()).unwrap())
            .step_by(25)
            .collect()
    }

    #[test]
    fn from_won_positions_the_move_keeps_the_win_and_drawn_ones_do_not_lose() {
        let Some(tb) = tables().map(Arc::new) else { return };
        let won = positions(2);
        assert!(won.len() >= 100);
        for pos in &won {
            let (m, score) = best_move(&tb, pos, &[], 2_000);
            let child = pos.make_move(m);
            let mate = child.in_check() && !child.has_legal_move();
            let keeps = mate
                || if child.halfmove_clock() == 0 {
                    tb.probe_wdl(&child) == Ok(-2)
                } else {
                    tb.probe_dtz(&child).is_ok_and(|d| d < 0 && -d + 1 + pos.halfmove_clock() as i32 <= 100)
                };
            assert!(keeps, "{} {m:?}", pos.to_fen());
            assert!(score >= corvid::tt::TB_BOUND, "a win is reported as one: {score} in {}", pos.to_fen());
        }
        let drawn = positions(0);
        assert!(drawn.len() >= 100);
        for pos in &drawn {
            let (m, score) = best_move(&tb, pos, &[], 2_000);
            let child = pos.make_move(m);
            assert!(tb.probe_wdl(&child).is_ok_and(|v| v <= 0), "{} {m:?}", pos.to_fen());
            assert!(score.abs() < corvid::tt::TB_BOUND, "{score}");
        }
    }

    #[test]
    fn a_won_position_is_converted_against_the_best_defence() {
        let Some(tb) = tables().map(Arc::new) else { return };
        // Long wins from the list: the search plays the winning side, the tables the defence
        // (the reply that keeps the loss longest); the game must end in mate, never in a draw by
        // the fifty-move rule or repetition.
        let mut long: Vec<(Position, i32)> = std::fs::read_to_string(EXPECTED)
            .unwrap()
            .lines()
            .filter(|l| l.split(" ; ").nth(1) == Some("2"))
            .map(|l| {
                let f: Vec<&str> = l.split(" ; ").collect();
                (Position::from_fen(f[0]).unwrap(), f[2].parse().unwrap())
            })
            .collect();
        long.sort_by_key(|(_, dtz)| -dtz);
        for (start, dtz) in long.into_iter().take(4) {
            let mut pos = start;
            let mut keys: Vec<u64> = Vec::new();
            let winner = pos.side_to_move();
            let mut mated = false;
            for _ in 0..400 {
                if !pos.has_legal_move() {
                    mated = pos.in_check() && pos.side_to_move() != winner;
                    break;
                }
                assert!(pos.halfmove_clock() < 100, "fifty moves from {} (dtz {dtz})", start.to_fen());
                let seen = keys.iter().filter(|&&k| k == pos.key()).count();
                assert!(seen < 2, "threefold from {}", start.to_fen());
                let m = if pos.side_to_move() == winner {
                    best_move(&tb, &pos, &keys, 3_000).0
                } else {
                    // The defence: the move whose resulting position's DTZ (for the winner) is
                    // the longest.
                    *pos.legal_moves()
                        .iter()
                        .max_by_key(|&&m| {
                            let child = pos.make_move(m);
                            if child.halfmove_clock() == 0 {
                                // A capture or pawn move that still loses starts the count
                                // afresh: short. One that saves the game: the best.
                                if tb.probe_wdl(&child).unwrap() == 2 {
                                    0
                                } else {
                                    10_000
                                }
                            } else {
                                tb.probe_dtz(&child).unwrap()
                            }
                        })
                        .unwrap()
                };
                keys.push(pos.key());
                pos = pos.make_move(m);
            }
            assert!(mated, "no mate from {} (dtz {dtz}): ended at {}", start.to_fen(), pos.to_fen());
        }
    }
}

mod datagen_adjudication {
    use super::*;
    use corvid::tools::datagen::{self, tablebase_result, Options, Output};
    use corvid::tools::game::{Game, Wdl};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap()
    }

    #[test]
    fn the_tables_judge_a_position_just_after_a_capture() {
        let Some(tb) = tables() else { return };
        // KQ v K: White wins whoever is to move; KN v K and KR v KR here: draws.
        assert_eq!(tablebase_result(&tb, &pos("8/8/8/4k3/8/8/8/KQ6 w - - 0 60")), Some(Wdl::WhiteWin));
        assert_eq!(tablebase_result(&tb, &pos("8/8/8/4k3/8/8/8/KQ6 b - - 0 60")), Some(Wdl::WhiteWin));
        assert_eq!(tablebase_result(&tb, &pos("8/8/8/4K3/8/8/8/kq6 w - - 0 60")), Some(Wdl::BlackWin));
        assert_eq!(tablebase_result(&tb, &pos("8/8/4k3/8/8/3K4/8/6N1 w - - 0 1")), Some(Wdl::Draw));
        assert_eq!(tablebase_result(&tb, &pos("8/8/4k3/8/8/3K4/r7/7R b - - 0 1")), Some(Wdl::Draw));
        // Not just after a capture (the tables' verdict ignores the moves already played
        // towards the fifty-move rule), with more pieces than the tables hold: no verdict.
        assert_eq!(tablebase_result(&tb, &pos("8/8/8/4k3/8/8/8/KQ6 w - - 1 60")), None);
        assert_eq!(tablebase_result(&tb, &pos("4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 30")), None);
    }

    /// `games` self-play games of seed 11 at 300 nodes a move, hand-crafted evaluation, with the
    /// tables or without.
    fn play(games: usize, syzygy: Option<datagen::Syzygy>) -> Vec<Game> {
        let options = Options {
            games,
            first_game: 0,
            nodes: 300,
            threads: 2,
            random_plies: 8,
            seed: 11,
            use_nnue: false,
            output: Output::Games,
            dfrc: false,
            syzygy,
            book: None,
        };
        let mut bytes = Vec::new();
        datagen::run(&options, &mut bytes, &mut |_| {}, &AtomicBool::new(false)).unwrap();
        let mut reader = &bytes[..];
        let mut games = Vec::new();
        while let Some(game) = Game::read(&mut reader).unwrap() {
            games.push(game);
        }
        games
    }

    #[test]
    fn self_play_ends_a_game_where_it_enters_the_tables_and_plays_the_same_until_then() {
        let Some(tb) = tables() else { return };
        let tb = Arc::new(tb);
        let syzygy = datagen::Syzygy { tables: Arc::clone(&tb), paths: TABLES.to_string() };
        let (without, with) = (play(24, None), play(24, Some(syzygy)));
        assert_eq!(without.len(), with.len());
        let mut shortened = 0;
        for cut in &with {
            // The same game (same start), the same moves up to where the tables took over.
            let whole = without.iter().find(|g| g.start == cut.start).expect("the same openings");
            assert!(cut.moves.len() <= whole.moves.len());
            assert_eq!(cut.moves[..], whole.moves[..cut.moves.len()], "a prefix of the game played out");
            if cut.moves.len() < whole.moves.len() {
                shortened += 1;
                // It ended on a position the tables judge, with their result.
                let last = cut.moves.iter().fold(cut.start, |p, &(m, _)| p.make_move(m));
                assert_eq!(tablebase_result(&tb, &last), Some(cut.wdl), "{}", last.to_fen());
            }
        }
        assert!(shortened > 0, "no game reached the tables: the test shows nothing");
    }
}
