//! Seeded fuzzing of the readers of data files: PGN, `.vf` games, `.bin` boards, `FEN | score |
//! result` text and network files. Valid input made here is mutated (bytes flipped, cut,
//! repeated, spliced) and random input generated; every reader must end in bounded time and
//! memory, returning data or an error, never panicking or looping. Each case runs on a thread
//! watched by a deadline, so a hang fails the test instead of stalling it; inputs are at most a
//! few kilobytes (a network file is its own size), so memory stays bounded by construction.
//! `CORVID_FUZZ_SEED` changes the seed.

use std::time::Duration;

use corvid::rng::Rng;
use corvid::tools::packed::{self, Format, Game, Wdl};
use corvid::tools::pgn;
use corvid::Position;

/// Cases for each reader.
const CASES: usize = 3_000;
/// A reader that has not answered in this time is taken to hang.
const DEADLINE: Duration = Duration::from_secs(120);

fn seed() -> u64 {
    std::env::var("CORVID_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed_f00d)
}

/// Runs `work` on its own thread; fails if it panics or does not finish by the deadline.
fn bounded(name: &str, work: impl FnOnce() + Send + 'static) {
    common::within(&format!("{name} (seed {})", seed()), DEADLINE, work)
}

mod common;

/// A random game of up to `plies` legal moves from the start, with random scores.
fn random_game(rng: &mut Rng, plies: usize) -> Game {
    let start = Position::startpos();
    let moves = common::random_moves(rng, &start, plies)
        .into_iter()
        .map(|m| (m, (rng.next_u64() % 2000) as i16 - 1000))
        .collect();
    let wdl = [Wdl::WhiteWin, Wdl::Draw, Wdl::BlackWin][rng.below(3)];
    Game { start, wdl, moves }
}

/// `bytes` changed at random: flips, cuts, repeats, insertions, splices.
fn mutate(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for _ in 0..1 + rng.below(6) {
        let len = out.len().max(1);
        match rng.below(6) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] = rng.next_u64() as u8;
            }
            2 => out.truncate(rng.below(len)),
            3 if !out.is_empty() => {
                let (a, b) = (rng.below(out.len()), rng.below(out.len()));
                let (a, b) = (a.min(b), a.max(b));
                let piece = out[a..b].to_vec();
                let at = rng.below(out.len());
                out.splice(at..at, piece);
            }
            4 => {
                let at = rng.below(len.min(out.len() + 1));
                let junk: Vec<u8> = (0..rng.below(16)).map(|_| rng.next_u64() as u8).collect();
                out.splice(at..at, junk);
            }
            _ if !out.is_empty() => {
                let i = rng.below(out.len());
                out.remove(i);
            }
            _ => {}
        }
    }
    out.truncate(8 << 10);
    out
}

/// Random bytes from `alphabet`.
fn soup(rng: &mut Rng, alphabet: &[u8], len: usize) -> Vec<u8> {
    (0..len).map(|_| alphabet[rng.below(alphabet.len())]).collect()
}

/// Converts `bytes` read as `from` into `to`: the result is data or an error; what came out is
/// whole records of what came in.
fn convert(bytes: &[u8], from: Format, to: Format) -> Result<(u64, u64), String> {
    let mut out = Vec::new();
    let result = packed::convert(&mut &bytes[..], from, &mut out, to);
    if let (Ok((_, positions)), Format::Boards) = (&result, to) {
        assert_eq!(out.len() as u64, positions * packed::BOARD_BYTES as u64);
    }
    result
}

#[test]
fn pgn_reader_ends_on_any_input() {
    bounded("pgn", || {
        let mut rng = Rng::new(seed());
        let mut valid = Vec::new();
        for g in 0..20 {
            let plies = 10 + rng.below(60);
            let game = random_game(&mut rng, plies);
            let mut pos = game.start;
            let mut text = format!("[Event \"fuzz {g}\"]\n[Result \"1-0\"]\n\n");
            for (i, &(m, score)) in game.moves.iter().enumerate() {
                if i % 2 == 0 {
                    text += &format!("{}. ", i / 2 + 1);
                }
                text += &format!("{} {{{:+.2}/{} 0.1s}} ", pos.to_san(m), score as f64 / 100.0, i % 20);
                if rng.below(9) == 0 {
                    text += "( 1. e4 e5 { a variation } ) $1 ; comment\n";
                }
                pos = pos.make_move(m);
            }
            valid.push(text + "1-0\n\n");
        }
        let alphabet = b"[]{}();$.*-+/ 0123456789abcdefghNBRQKOx=#!?\"\n\t\\%";
        for case in 0..CASES {
            let bytes = match case % 3 {
                0 => {
                    let i = rng.below(valid.len());
                    mutate(&mut rng, valid[i].as_bytes())
                }
                1 => {
                    let len = rng.below(600);
                    soup(&mut rng, alphabet, len)
                }
                _ => {
                    let a = valid[rng.below(valid.len())].as_bytes();
                    let b = soup(&mut rng, alphabet, 40);
                    mutate(&mut rng, &[a, &b[..], a].concat())
                }
            };
            let text = String::from_utf8_lossy(&bytes);
            for game in pgn::read_games(&text) {
                let _ = pgn::to_game(&game);
            }
            let _ = convert(&bytes, Format::Pgn, Format::Text);
        }
    });
}

#[test]
fn game_and_board_readers_end_on_any_input() {
    bounded("vf and bin", || {
        let mut rng = Rng::new(seed() ^ 1);
        let mut games = Vec::new();
        let mut boards = Vec::new();
        for _ in 0..20 {
            let plies = rng.below(80);
            let game = random_game(&mut rng, plies);
            let mut bytes = Vec::new();
            game.write(&mut bytes).unwrap();
            let mut as_boards = Vec::new();
            let n = convert(&bytes, Format::Games, Format::Boards).unwrap();
            packed::convert(&mut &bytes[..], Format::Games, &mut as_boards, Format::Boards).unwrap();
            assert_eq!(n.1 as usize, game.moves.len(), "the game reads back");
            games.push(bytes);
            boards.push(as_boards);
        }
        for case in 0..CASES {
            let (source, format) = if case % 2 == 0 { (&games, Format::Games) } else { (&boards, Format::Boards) };
            let bytes = match rng.below(4) {
                0 => {
                    let len = rng.below(300);
                    soup(&mut rng, &(0..=255).collect::<Vec<u8>>(), len)
                }
                1 => {
                    let a = &source[rng.below(source.len())];
                    let b = &source[rng.below(source.len())];
                    mutate(&mut rng, &[&a[..], &b[..]].concat())
                }
                _ => {
                    let i = rng.below(source.len());
                    mutate(&mut rng, &source[i])
                }
            };
            let _ = convert(&bytes, format, Format::Text);
            if format == Format::Games {
                let mut reader = &bytes[..];
                // Each read takes at least one 32-byte board: the loop ends.
                while let Ok(Some(_)) = Game::read(&mut reader) {}
            }
        }
    });
}

#[test]
fn text_reader_ends_on_any_input() {
    bounded("text", || {
        let mut rng = Rng::new(seed() ^ 2);
        let mut lines = Vec::new();
        for _ in 0..20 {
            let plies = rng.below(60);
            let game = random_game(&mut rng, plies);
            let mut text = Vec::new();
            let mut bytes = Vec::new();
            game.write(&mut bytes).unwrap();
            packed::convert(&mut &bytes[..], Format::Games, &mut text, Format::Text).unwrap();
            lines.push(text);
        }
        let alphabet = b"rnbqkpRNBQKP12345678/ w-|.0123456789 KQkqabcdefgh\n";
        for case in 0..CASES {
            let bytes = match case % 3 {
                0 => {
                    let i = rng.below(lines.len());
                    mutate(&mut rng, &lines[i])
                }
                1 => {
                    let len = rng.below(400);
                    soup(&mut rng, alphabet, len)
                }
                _ => {
                    let text = String::from_utf8_lossy(&lines[rng.below(lines.len())]).into_owned();
                    let line = text.lines().next().unwrap_or("").to_string();
                    mutate(&mut rng, line.as_bytes())
                }
            };
            for line in String::from_utf8_lossy(&bytes).lines() {
                let _ = packed::parse_text(line);
            }
            let _ = convert(&bytes, Format::Text, Format::Boards);
        }
    });
}

#[test]
fn network_reader_refuses_or_accepts_any_file() {
    bounded("network", || {
        let mut rng = Rng::new(seed() ^ 3);
        let valid = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/src/nnue/corvid.nnue")).unwrap();
        assert!(corvid::nnue::Network::from_bytes(&valid).is_ok());
        for case in 0..300 {
            let bytes = match case % 3 {
                0 => mutate(&mut rng, &valid[..valid.len().min(4096)]),
                1 => {
                    // The whole file with a few bytes changed: header fields and weights.
                    let mut bytes = valid.clone();
                    for _ in 0..1 + rng.below(4) {
                        let i = if rng.below(2) == 0 { rng.below(64.min(bytes.len())) } else { rng.below(bytes.len()) };
                        bytes[i] = rng.next_u64() as u8;
                    }
                    if rng.below(4) == 0 {
                        bytes.truncate(rng.below(bytes.len()));
                    }
                    bytes
                }
                _ => {
                    let len = rng.below(2048);
                    soup(&mut rng, &(0..=255).collect::<Vec<u8>>(), len)
                }
            };
            if let Ok(net) = corvid::nnue::Network::from_bytes(&bytes) {
                // A network that loads evaluates without overflowing or panicking.
                let _ = net.evaluate_position(&Position::startpos());
            }
        }
    });
}
