//! `corvid datagen`: self-play games for training, and `corvid label`.
//!
//! Each game starts from a random opening (8 or 9 random plies from the standard position, from
//! a Double Fischer Random start with `dfrc`, or from a random position of a book with `book`, as
//! OpenBench's DATAGEN gives one, kept when a short search finds it balanced:
//! `crate::genfens::Openings`) and is played with a soft node limit a move (no iteration
//! starts past it). Clear wins are adjudicated (six plies in a row at 15 pawns or more), and so
//! are dead draws (twelve plies in a row within 0.1 pawn after the 40th), besides mate,
//! stalemate, repetition, the fifty-move rule and insufficient material. With Syzygy tables
//! (`--syzygy`) a game ends as soon as a capture brings it into the tables, with the tables'
//! result under the fifty-move rule (a win the rule spoils is a draw): the plies that would
//! only play out a known ending are not played, and the result is exact; the positions before
//! keep their search scores.
//!
//! The output is whole games in viriformat ([`Output::Games`], about 4 bytes a position, every
//! move with its score: the trainer filters), or the positions worth training on: the side to
//! move not in check, the best move quiet, the score not a mate: marlinformat boards
//! ([`Output::Boards`], 32 bytes), `FEN | score | result` text ([`Output::Scores`]) or the
//! tuner's `FEN [result]` ([`Output::Tuner`]). Scores and results are from White's view.
//! Game `i` is played from a seed of its own, so games are the same whatever the threads, and
//! a run resumed at game `i` goes on where the first stopped.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::packed::{self, Game, Wdl};
use crate::genfens::{dfrc_start, Openings};
use crate::position::Position;
use crate::rng::Rng;
use crate::search::{is_material_or_fifty_draw, Job, Limits, Searcher};
use crate::syzygy::Tablebases;
use crate::tt::{TranspositionTable, MATE_BOUND};
use crate::types::Color;

/// What datagen writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// `FEN [result]` lines (`corvid tune`).
    Tuner,
    /// `FEN | score | result` lines.
    Scores,
    /// Marlinformat boards.
    Boards,
    /// Viriformat games.
    Games,
}

/// How to generate.
#[derive(Clone, Debug)]
pub struct Options {
    /// The index one past the last game to play.
    pub games: usize,
    /// The first game's index (the games a resumed run already has).
    pub first_game: usize,
    /// Soft node limit a move.
    pub nodes: u64,
    pub threads: usize,
    /// Random plies before the game is recorded (one more half the time).
    pub random_plies: usize,
    pub seed: u64,
    /// Search with the network (else the hand-crafted evaluation).
    pub use_nnue: bool,
    pub output: Output,
    /// Double Fischer Random starts.
    pub dfrc: bool,
    /// Tables that end a game once it reaches them, and the paths they were opened from.
    pub syzygy: Option<Syzygy>,
    /// Start positions to play from instead of the standard one (`random_plies` after them).
    pub book: Option<Book>,
}

/// The start positions datagen plays from (`--book`): a book's playable positions.
#[derive(Clone)]
pub struct Book {
    pub positions: Arc<Vec<Position>>,
    /// As given, for the manifest's `remake`.
    pub path: String,
}

impl Book {
    /// The book's positions in order and its path.
    pub fn new(positions: Vec<Position>, path: &str) -> Book {
        Book { positions: Arc::new(positions), path: path.to_string() }
    }

    /// A fingerprint of the positions in their order (their keys, folded): a resumed run must
    /// draw from the same book, wherever the file now lies.
    pub fn id(&self) -> u64 {
        self.positions
            .iter()
            .fold(0xCBF2_9CE4_8422_2325u64, |h, p| (h ^ p.key()).wrapping_mul(0x0100_0000_01B3).rotate_left(23))
    }

    /// The manifest's `book` setting: how many positions and which.
    fn setting(&self) -> String {
        format!("{} positions, {:016x}", self.positions.len(), self.id())
    }
}

impl std::fmt::Debug for Book {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Book({}, {})", self.path, self.setting())
    }
}

/// The tables datagen adjudicates with.
#[derive(Clone)]
pub struct Syzygy {
    pub tables: Arc<Tablebases>,
    /// As given (`--syzygy`), for the manifest's `remake`.
    pub paths: String,
}

impl std::fmt::Debug for Syzygy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (wdl, _) = self.tables.counts();
        write!(f, "Syzygy({}, {wdl} WDL tables up to {} pieces)", self.paths, self.tables.max_pieces)
    }
}

/// The result the tables give `pos` where a game can end on it: the position just after a
/// capture (or at the start), whose fifty-move count is zero, so that the tables' verdict under
/// the rule is exact, and in the tables. `None` elsewhere, or where a table is missing.
pub fn tablebase_result(tables: &Tablebases, pos: &Position) -> Option<Wdl> {
    if pos.halfmove_clock() != 0 || pos.castling().0 != 0 || pos.occupied().count() as usize > tables.max_pieces {
        return None;
    }
    let wdl = tables.probe_wdl(pos).ok()?;
    let mover_wins = match wdl {
        2 => true,
        -2 => false,
        // Cursed wins and blessed losses: the fifty-move rule draws them.
        _ => return Some(Wdl::Draw),
    };
    Some(if mover_wins == (pos.side_to_move() == Color::White) { Wdl::WhiteWin } else { Wdl::BlackWin })
}

/// Where a run stands: games finished and positions written this run, and since when.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub games: usize,
    pub positions: u64,
    pub elapsed: Duration,
}

/// A played game and which of its positions are worth training on (quiet, not in check, no
/// mate score).
struct Played {
    game: Game,
    quiet: Vec<bool>,
}

/// One thread's searcher for self-play.
struct Player {
    searcher: Searcher,
    openings: Openings,
}

impl Player {
    fn new(use_nnue: bool) -> Player {
        let mut searcher = Searcher::inline(TranspositionTable::new(8));
        searcher.configure(use_nnue, crate::nnue::embedded());
        Player { searcher, openings: Openings::default() }
    }

    fn play(&mut self, rng: &mut Rng, options: &Options) -> Played {
        let start = loop {
            let base = match &options.book {
                Some(book) => book.positions[rng.below(book.positions.len())],
                None if options.dfrc => dfrc_start(rng),
                None => Position::startpos(),
            };
            let plies = options.random_plies + rng.below(2);
            if let Some(pos) = self.openings.try_one(rng, &base, plies) {
                break pos;
            }
        };
        self.searcher.clear();
        let nodes = options.nodes.max(1);
        let limits = Limits { nodes: Some(nodes.saturating_mul(10)), soft_nodes: Some(nodes), ..Limits::default() };
        let (mut pos, mut keys) = (start, Vec::new());
        let (mut moves, mut quiet) = (Vec::new(), Vec::new());
        let (mut decisive, mut level) = (0, 0);
        let wdl = loop {
            if !pos.has_legal_move() {
                break match (pos.in_check(), pos.side_to_move()) {
                    (false, _) => Wdl::Draw,
                    (true, Color::White) => Wdl::BlackWin,
                    (true, Color::Black) => Wdl::WhiteWin,
                };
            }
            let repeated = keys.iter().filter(|&&k| k == pos.key()).count() >= 2;
            if is_material_or_fifty_draw(&pos) || repeated || moves.len() >= 400 {
                break Wdl::Draw;
            }
            if let Some(result) = options.syzygy.as_ref().and_then(|tb| tablebase_result(&tb.tables, &pos)) {
                break result;
            }
            let job = Job { history: keys.clone(), ..Job::new(pos, limits.clone()) };
            let outcome = self.searcher.search_silently(job);
            let result = outcome.best();
            let Some(best) = result.best else { break Wdl::Draw };
            let white = if pos.side_to_move() == Color::White { result.score } else { -result.score };
            decisive = if result.score.abs() >= 1500 && result.score.abs() < MATE_BOUND { decisive + 1 } else { 0 };
            level = if moves.len() >= 40 && result.score.abs() <= 10 { level + 1 } else { 0 };
            quiet
                .push(!pos.in_check() && !best.is_capture() && !best.is_promotion() && result.score.abs() < MATE_BOUND);
            moves.push((best, white.clamp(i16::MIN as i32 + 1, i16::MAX as i32) as i16));
            keys.push(pos.key());
            pos = pos.make_move(best);
            if decisive >= 6 {
                break if white > 0 { Wdl::WhiteWin } else { Wdl::BlackWin };
            }
            if level >= 12 {
                break Wdl::Draw;
            }
        };
        Played { game: Game { start, wdl, moves }, quiet }
    }
}

/// The bytes of a played game in `output`'s format, and how many positions they hold.
fn encode(played: &Played, output: Output) -> (Vec<u8>, u64) {
    let game = &played.game;
    let mut bytes = Vec::new();
    if output == Output::Games {
        game.write(&mut bytes).expect("writing to memory");
        return (bytes, game.moves.len() as u64);
    }
    let mut count = 0;
    for ((pos, score), _) in game.positions().zip(&played.quiet).filter(|(_, &q)| q) {
        count += 1;
        match output {
            Output::Boards => bytes.extend_from_slice(&packed::pack(&pos, score, game.wdl)),
            Output::Scores => {
                bytes.extend_from_slice(format!("{}\n", packed::text_line(&pos, score, game.wdl)).as_bytes())
            }
            _ => bytes.extend_from_slice(format!("{} [{:.1}]\n", pos.to_fen(), game.wdl.white_score()).as_bytes()),
        }
    }
    (bytes, count)
}

/// The seed of game `index`.
fn game_seed(seed: u64, index: usize) -> u64 {
    seed ^ (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Plays games `options.first_game..options.games` over `options.threads` threads, writing each
/// to `out` as it ends; after each, `progress` is told where the run stands (under the output's
/// lock: it may write a manifest). When `stop` is set, starts no new game and returns when the
/// games in play have been written.
pub fn run(
    options: &Options,
    out: &mut (impl Write + Send),
    progress: &mut (dyn FnMut(Progress) + Send),
    stop: &AtomicBool,
) -> std::io::Result<Progress> {
    let next = AtomicUsize::new(options.first_game);
    let started = Instant::now();
    let state = Mutex::new((out, progress, Progress { games: 0, positions: 0, elapsed: Duration::ZERO }, Ok(())));
    std::thread::scope(|s| {
        for _ in 0..options.threads.max(1) {
            s.spawn(|| {
                let mut player = Player::new(options.use_nnue);
                loop {
                    // Looked at before an index is taken, so every index taken is played: a run
                    // stopped holds games `first_game..` without a gap, and resumes after them.
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= options.games {
                        break;
                    }
                    let mut rng = Rng::new(game_seed(options.seed, index));
                    let played = player.play(&mut rng, options);
                    let (bytes, positions) = encode(&played, options.output);
                    let mut guard = state.lock().unwrap_or_else(|e| e.into_inner());
                    let (out, progress, done, result) = &mut *guard;
                    if result.is_err() {
                        break;
                    }
                    if let Err(e) = out.write_all(&bytes).and_then(|_| out.flush()) {
                        *result = Err(e);
                        break;
                    }
                    done.games += 1;
                    done.positions += positions;
                    done.elapsed = started.elapsed();
                    progress(*done);
                }
            });
        }
    });
    let (_, _, done, result) = state.into_inner().unwrap_or_else(|e| e.into_inner());
    result.map(|_| done)
}

/// The folder self-play data lives in: `$CORVID_DATA`, else `corvid-data` in the home folder.
pub fn data_dir() -> std::path::PathBuf {
    match std::env::var_os("CORVID_DATA").filter(|d| !d.is_empty()) {
        Some(dir) => dir.into(),
        None => std::path::PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| ".".into())).join("corvid-data"),
    }
}

/// Where a datagen output named `name` goes: a bare file name into [`data_dir`], a path as given.
pub fn data_path(name: &str) -> std::path::PathBuf {
    if name.contains(std::path::MAIN_SEPARATOR) || name.contains('/') {
        name.into()
    } else {
        data_dir().join(name)
    }
}

/// The manifest's `syzygy` setting without tables.
const NO_TABLES: &str = "none";
/// The manifest's `book` setting without a book.
const NO_BOOK: &str = "none";

/// The manifest's `syzygy` setting: what the tables cover (not where they were: another machine
/// keeps them elsewhere).
fn syzygy_setting(tables: &Tablebases) -> String {
    let (wdl, _) = tables.counts();
    format!("{wdl} WDL tables, up to {} pieces", tables.max_pieces)
}

/// What a data file's manifest records: the settings that made it (a resumed run must use the
/// same) and how far it got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    pub settings: Vec<(String, String)>,
    pub games: usize,
    pub positions: u64,
}

impl Manifest {
    /// The settings of `options` as the manifest keeps them, and the command that makes the file.
    pub fn settings(options: &Options, file: &str) -> Vec<(String, String)> {
        let format = match options.output {
            Output::Games => "viriformat games",
            Output::Boards => "marlinformat boards",
            Output::Scores => "FEN | score | result text",
            Output::Tuner => "FEN [result] text",
        };
        let mut remake = format!(
            "corvid datagen {file} --games {} --nodes {} --seed {} --random-plies {}",
            options.games, options.nodes, options.seed, options.random_plies
        );
        if options.dfrc {
            remake.push_str(" --dfrc");
        }
        if let Some(tb) = &options.syzygy {
            remake.push_str(&format!(" --syzygy {}", tb.paths));
        }
        if let Some(book) = &options.book {
            remake.push_str(&format!(" --book {}", book.path));
        }
        if !options.use_nnue {
            remake.push_str(" --hce");
        }
        if options.output == Output::Scores {
            remake.push_str(" --scores");
        }
        let evaluation = if options.use_nnue {
            format!("network {:016x}", crate::nnue::embedded_id())
        } else {
            "hand-crafted".into()
        };
        [
            ("format", format.to_string()),
            ("nodes", options.nodes.to_string()),
            ("seed", options.seed.to_string()),
            ("random_plies", options.random_plies.to_string()),
            ("dfrc", options.dfrc.to_string()),
            ("syzygy", options.syzygy.as_ref().map_or(NO_TABLES.to_string(), |tb| syzygy_setting(&tb.tables))),
            ("book", options.book.as_ref().map_or(NO_BOOK.to_string(), Book::setting)),
            ("evaluation", evaluation),
            ("engine", format!("Corvid {} ({})", env!("CARGO_PKG_VERSION"), crate::nnue::BUILD_COMMIT)),
            ("remake", remake),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    /// The text of the manifest file.
    pub fn to_text(&self) -> String {
        let mut text = String::from("# How this self-play data was made (corvid datagen); `remake` makes it again.\n");
        for (k, v) in &self.settings {
            text.push_str(&format!("{k}: {v}\n"));
        }
        text.push_str(&format!("games: {}\npositions: {}\n", self.games, self.positions));
        text
    }

    /// Parses a manifest file.
    pub fn parse(text: &str) -> Result<Manifest, String> {
        let mut manifest = Manifest { settings: Vec::new(), games: 0, positions: 0 };
        for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let (k, v) = line.split_once(": ").ok_or(format!("manifest line '{line}'"))?;
            match k {
                "games" => manifest.games = v.parse().map_err(|_| format!("manifest games '{v}'"))?,
                "positions" => manifest.positions = v.parse().map_err(|_| format!("manifest positions '{v}'"))?,
                _ => manifest.settings.push((k.to_string(), v.to_string())),
            }
        }
        Ok(manifest)
    }

    /// Writes the manifest beside the data (`<file>.manifest`), through a temporary file.
    pub fn save(&self, data: &std::path::Path) -> std::io::Result<()> {
        let path = manifest_path(data);
        let tmp = path.with_extension("manifest.tmp");
        std::fs::write(&tmp, self.to_text())?;
        std::fs::rename(tmp, path)
    }
}

/// The manifest of data file `data`.
pub fn manifest_path(data: &std::path::Path) -> std::path::PathBuf {
    let mut name = data.as_os_str().to_owned();
    name.push(".manifest");
    name.into()
}

/// Gets a data file ready to be appended to: cuts a record left half-written by a run that was
/// killed, and returns the games it holds (counted from the file for games, else from the
/// manifest) and the positions. An error when the manifest's settings differ from `settings`.
pub fn prepare_resume(
    data: &std::path::Path,
    output: Output,
    settings: &[(String, String)],
) -> Result<(usize, u64), String> {
    let shown = data.display();
    let manifest = match std::fs::read_to_string(manifest_path(data)) {
        Ok(text) => Some(Manifest::parse(&text)?),
        Err(_) => None,
    };
    let Ok(file) = std::fs::File::open(data) else {
        return Ok((0, 0));
    };
    let len = file.metadata().map_err(|e| format!("{shown}: {e}"))?.len();
    let Some(manifest) = manifest else {
        if len == 0 {
            return Ok((0, 0));
        }
        return Err(format!("{shown} exists without a manifest: give another file"));
    };
    // A manifest from before a setting existed made its file with the setting's default.
    let recorded = |k: &str| {
        manifest
            .settings
            .iter()
            .find(|(mk, _)| mk == k)
            .map(|(_, v)| v.as_str())
            .or((k == "syzygy").then_some(NO_TABLES))
            .or((k == "book").then_some(NO_BOOK))
    };
    let differ: Vec<String> = settings
        .iter()
        .filter(|(k, _)| k != "remake" && k != "engine")
        .filter(|(k, v)| recorded(k).is_some_and(|mv| mv != v))
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    if !differ.is_empty() {
        return Err(format!("{shown} was made with other settings (now {}): give another file", differ.join(", ")));
    }
    // Read as a stream (a data file may be larger than memory): how much of it is whole records.
    let mut reader = Counting { inner: std::io::BufReader::new(file), read: 0 };
    let (keep, games, positions) = match output {
        Output::Games => {
            let (mut keep, mut games, mut positions) = (0, 0, 0);
            while let Ok(Some(game)) = Game::read(&mut reader) {
                keep = reader.read;
                games += 1;
                positions += game.moves.len() as u64;
            }
            (keep, games, positions)
        }
        // Positions carry no game boundaries: the manifest, saved after each game was written
        // whole, says how many positions belong to whole games; anything after them (a game
        // cut by a write error or a kill) is cut, or it would be played and written again.
        Output::Boards => {
            let whole = (len / packed::BOARD_BYTES as u64).min(manifest.positions);
            (whole * packed::BOARD_BYTES as u64, manifest.games, whole)
        }
        Output::Scores | Output::Tuner => {
            let (mut keep, mut lines, mut buf) = (0, 0, [0u8; 1 << 16]);
            'read: while lines < manifest.positions {
                let n = std::io::Read::read(&mut reader, &mut buf).map_err(|e| format!("{shown}: {e}"))?;
                if n == 0 {
                    break;
                }
                for (i, _) in buf[..n].iter().enumerate().filter(|(_, &b)| b == b'\n') {
                    lines += 1;
                    keep = reader.read - n as u64 + i as u64 + 1;
                    if lines == manifest.positions {
                        break 'read;
                    }
                }
            }
            (keep, manifest.games, lines)
        }
    };
    if keep < len {
        let file = std::fs::OpenOptions::new().write(true).open(data).map_err(|e| format!("{shown}: {e}"))?;
        file.set_len(keep).map_err(|e| format!("{shown}: {e}"))?;
    }
    Ok((games, positions))
}

/// A reader that counts the bytes read through it.
struct Counting<R> {
    inner: R,
    read: u64,
}

impl<R: std::io::Read> std::io::Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

/// `corvid label`: searches each `FEN [result]` line of `input` (the tuner's format) for `nodes`
/// nodes and writes `FEN | score | result` for the network trainer (score and result from
/// White's view). Positions in check or with a mate score are skipped. `use_nnue` picks the
/// search's evaluation.
pub fn label(input: &str, nodes: u64, threads: usize, use_nnue: bool, out: &mut (impl Write + Send)) -> Labelled {
    let lines: Vec<&str> = input.lines().collect();
    let next = AtomicUsize::new(0);
    let written = AtomicUsize::new(0);
    let unreadable = AtomicUsize::new(0);
    let out = Mutex::new(out);
    const CHUNK: usize = 256;
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                let mut searcher = Searcher::inline(TranspositionTable::new(4));
                searcher.configure(use_nnue, crate::nnue::embedded());
                let limits = Limits { nodes: Some(nodes), ..Limits::default() };
                loop {
                    let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                    if start >= lines.len() {
                        break;
                    }
                    let mut text = String::new();
                    let mut count = 0;
                    for line in &lines[start..(start + CHUNK).min(lines.len())] {
                        let fields: Vec<&str> = line.split_whitespace().collect();
                        if fields.is_empty() {
                            continue;
                        }
                        let readable = (fields.len() >= 7).then(|| fields[..6].join(" ")).and_then(|fen| {
                            let result = crate::tools::tune::parse_result(&fields[6..].join(" "))?;
                            Some((Position::from_fen(&fen).ok()?, fen, result))
                        });
                        let Some((pos, fen, result)) = readable else {
                            unreadable.fetch_add(1, Ordering::Relaxed);
                            continue;
                        };
                        if pos.in_check() {
                            continue;
                        }
                        let outcome = searcher.search_silently(Job::new(pos, limits.clone()));
                        let found = outcome.best();
                        if found.best.is_none() || found.score.abs() >= MATE_BOUND {
                            continue;
                        }
                        let score = if pos.side_to_move() == Color::White { found.score } else { -found.score };
                        text.push_str(&format!("{fen} | {score} | {result:.1}\n"));
                        count += 1;
                    }
                    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
                    let _ = out.write_all(text.as_bytes());
                    written.fetch_add(count, Ordering::Relaxed);
                }
            });
        }
    });
    let blank = lines.iter().filter(|l| l.trim().is_empty()).count();
    Labelled {
        lines: lines.len() - blank,
        unreadable: unreadable.load(Ordering::Relaxed),
        written: written.load(Ordering::Relaxed),
    }
}

/// What [`label`] did with its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Labelled {
    /// Lines that are not blank.
    pub lines: usize,
    /// Of those, the lines that are not `FEN [result]` with a legal FEN.
    pub unreadable: usize,
    /// Positions searched and written (the others were in check or scored a mate).
    pub written: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(output: Output, games: usize, threads: usize) -> Options {
        Options {
            games,
            first_game: 0,
            nodes: 300,
            threads,
            random_plies: 8,
            seed: 7,
            use_nnue: false,
            output,
            dfrc: false,
            syzygy: None,
            book: None,
        }
    }

    fn generate(options: &Options) -> (Vec<u8>, Progress) {
        let mut buffer = Vec::new();
        let never = AtomicBool::new(false);
        let mut ticks = 0;
        let done = run(options, &mut buffer, &mut |_| ticks += 1, &never).unwrap();
        assert_eq!(ticks, options.games - options.first_game, "progress after every game");
        (buffer, done)
    }

    #[test]
    fn games_produce_labelled_quiet_positions() {
        let (buffer, done) = generate(&options(Output::Tuner, 2, 2));
        assert_eq!(done.games, 2);
        let text = String::from_utf8(buffer).unwrap();
        assert_eq!(text.lines().count() as u64, done.positions);
        assert!(done.positions > 10);
        for line in text.lines() {
            let (fen, label) = line.rsplit_once(' ').unwrap();
            assert!(["[1.0]", "[0.5]", "[0.0]"].contains(&label), "{line}");
            let pos = Position::from_fen(fen).unwrap();
            assert!(!pos.in_check());
        }
    }

    #[test]
    fn games_are_whole_legal_and_the_same_whatever_the_threads() {
        let (one, done) = generate(&options(Output::Games, 3, 1));
        let mut reader = &one[..];
        let mut games = Vec::new();
        while let Some(game) = Game::read(&mut reader).unwrap() {
            // Every position of the game replays; the opening is 8 or 9 plies from the start.
            assert!(game.start.fullmove_number() == 5, "{}", game.start.to_fen());
            assert_eq!(game.positions().count(), game.moves.len());
            games.push(game);
        }
        assert_eq!(games.len(), 3);
        assert_eq!(done.positions, games.iter().map(|g| g.moves.len() as u64).sum::<u64>());
        // Two threads write the same games (in the order they end).
        let (two, _) = generate(&options(Output::Games, 3, 2));
        let mut reader = &two[..];
        let mut again = Vec::new();
        while let Some(game) = Game::read(&mut reader).unwrap() {
            again.push(game);
        }
        for game in &games {
            assert!(again.contains(game));
        }
        // Resuming at game 2 plays game 2 again, the same.
        let (rest, _) = generate(&Options { first_game: 2, ..options(Output::Games, 3, 1) });
        assert_eq!(Game::read(&mut &rest[..]).unwrap().as_ref(), games.last());
    }

    #[test]
    fn positions_are_written_as_boards_and_text_alike() {
        let (boards, done) = generate(&options(Output::Boards, 1, 1));
        assert_eq!(boards.len() as u64, done.positions * packed::BOARD_BYTES as u64);
        let (text, _) = generate(&options(Output::Scores, 1, 1));
        let mut converted = Vec::new();
        packed::convert(&mut &boards[..], packed::Format::Boards, &mut converted, packed::Format::Text).unwrap();
        assert_eq!(converted, text);
        for line in String::from_utf8(text).unwrap().lines() {
            let (pos, score, _) = packed::parse_text(line).unwrap();
            assert!(!pos.in_check() && i32::from(score).abs() < MATE_BOUND, "{line}");
        }
    }

    #[test]
    fn dfrc_games_start_from_shuffled_back_ranks() {
        let (bytes, _) = generate(&Options { dfrc: true, ..options(Output::Games, 2, 1) });
        let game = Game::read(&mut &bytes[..]).unwrap().unwrap();
        assert!(game.start.is_chess960(), "{}", game.start.to_fen());
    }

    #[test]
    fn book_games_start_from_its_positions_and_the_manifest_names_the_book() {
        // Two middlegame positions; with no random plies (one half the time), every game starts
        // at one of them or one legal move after it, with the book's move counters.
        let fens = [
            "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 2 9",
            "r2q1rk1/1b1nbppp/p2ppn2/1p6/3NP3/1BN1BP2/PPPQ2PP/2KR3R b - - 4 12",
        ];
        let positions: Vec<Position> = fens.iter().map(|f| Position::from_fen(f).unwrap()).collect();
        let book = Book::new(positions.clone(), "two.epd");
        let opts = Options { random_plies: 0, book: Some(book.clone()), ..options(Output::Games, 6, 2) };
        let (bytes, _) = generate(&opts);
        let (mut reader, mut from) = (&bytes[..], [0, 0]);
        while let Some(game) = Game::read(&mut reader).unwrap() {
            let start = game.start;
            let which = positions.iter().position(|p| {
                p.key() == start.key() || p.legal_moves().iter().any(|&m| p.make_move(m).key() == start.key())
            });
            let which = which.unwrap_or_else(|| panic!("{} is not from the book", start.to_fen()));
            from[which] += 1;
            assert!(start.fullmove_number() >= 9, "{}", start.to_fen());
        }
        assert_eq!(from.iter().sum::<usize>(), 6);
        // The manifest keeps which book (by its positions, not its path) and how to make it again.
        let settings = Manifest::settings(&opts, "b.vf");
        let get = |k: &str| get_setting(&settings, k);
        assert_eq!(get("book"), format!("2 positions, {:016x}", book.id()));
        assert!(get("remake").contains(" --book two.epd"), "{}", get("remake"));
        let moved = Book::new(positions.clone(), "elsewhere/two.epd");
        assert_eq!(moved.id(), book.id());
        let reversed = Book::new(positions.iter().rev().copied().collect(), "two.epd");
        assert_ne!(reversed.id(), book.id());
        assert_eq!(get_setting(&Manifest::settings(&options(Output::Games, 1, 1), "s.vf"), "book"), "none");
    }

    fn get_setting(settings: &[(String, String)], key: &str) -> String {
        settings.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()).unwrap()
    }

    #[test]
    fn a_run_resumes_after_a_cut_where_it_stopped() {
        let dir = std::env::temp_dir().join(format!("corvid-datagen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data = dir.join("games.vf");
        let opts = options(Output::Games, 2, 1);
        let settings = Manifest::settings(&opts, "games.vf");
        let (bytes, done) = generate(&opts);
        // A killed run: two whole games and half a third.
        let mut cut = bytes.clone();
        cut.extend_from_slice(&bytes[..40]);
        std::fs::write(&data, &cut).unwrap();
        assert!(prepare_resume(&data, Output::Games, &settings).unwrap_err().contains("without a manifest"));
        let manifest = Manifest { settings: settings.clone(), games: 1, positions: 0 };
        manifest.save(&data).unwrap();
        assert_eq!(Manifest::parse(&std::fs::read_to_string(manifest_path(&data)).unwrap()), Ok(manifest.clone()));
        // The half game is cut; the games are counted from the file.
        assert_eq!(prepare_resume(&data, Output::Games, &settings), Ok((2, done.positions)));
        assert_eq!(std::fs::read(&data).unwrap(), bytes);
        // Other settings are refused.
        let other = Manifest::settings(&Options { nodes: 301, ..opts.clone() }, "games.vf");
        assert!(prepare_resume(&data, Output::Games, &other).unwrap_err().contains("nodes 301"));
        // A file made without a book (its manifest from before the setting, too) is not resumed
        // with one.
        let book = Book::new(vec![Position::startpos()], "start.epd");
        let with_book = Manifest::settings(&Options { book: Some(book), ..opts.clone() }, "games.vf");
        assert!(prepare_resume(&data, Output::Games, &with_book).unwrap_err().contains("book 1 positions"));
        let older: Vec<(String, String)> = settings.iter().filter(|(k, _)| k != "book").cloned().collect();
        Manifest { settings: older, games: 1, positions: 0 }.save(&data).unwrap();
        assert!(prepare_resume(&data, Output::Games, &with_book).unwrap_err().contains("book 1 positions"));
        assert_eq!(prepare_resume(&data, Output::Games, &settings), Ok((2, done.positions)));
        manifest.save(&data).unwrap();
        // Positions: the whole boards and lines of the games the manifest counts are kept; the
        // rest of a game cut by a write error (whole records among them) goes, or it would be
        // played and written twice.
        for (name, output, bytes, counted, kept, positions) in [
            ("b.bin", Output::Boards, vec![7u8; 70], 2, 64, 2),
            ("b2.bin", Output::Boards, vec![7u8; 100], 2, 64, 2),
            ("t.txt", Output::Scores, b"one\ntwo\nhalf a li".to_vec(), 2, 8, 2),
            ("t2.txt", Output::Scores, b"one\ntwo\nthree\nfour\nhalf".to_vec(), 2, 8, 2),
            ("t3.txt", Output::Scores, b"one\ntwo\nthree\n".to_vec(), 3, 14, 3),
        ] {
            let path = dir.join(name);
            std::fs::write(&path, bytes).unwrap();
            let opts = Options { output, ..opts.clone() };
            let settings = Manifest::settings(&opts, name);
            Manifest { settings: settings.clone(), games: 5, positions: counted }.save(&path).unwrap();
            assert_eq!(prepare_resume(&path, output, &settings), Ok((5, positions)), "{name}");
            assert_eq!(std::fs::metadata(&path).unwrap().len(), kept, "{name}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn labelling_searches_each_position_and_keeps_its_result() {
        let input = "\
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 [0.5]
4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 w - - 0 1 [1.0]
3qk3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1 1-0
not a position [1.0]
4k3/8/8/8/8/8/4q3/4K3 w - - 0 1 [0.0]
";
        let mut buffer = Vec::new();
        let done = label(input, 500, 2, false, &mut buffer);
        let text = String::from_utf8(buffer).unwrap();
        // The bad line is counted as unreadable, the position in check skipped.
        assert_eq!(done, Labelled { lines: 5, unreadable: 1, written: 3 });
        let mut lines: Vec<&str> = text.lines().collect();
        lines.sort_unstable();
        let fields: Vec<Vec<&str>> = lines.iter().map(|l| l.split(" | ").collect()).collect();
        assert_eq!(fields[1][0], "4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 w - - 0 1");
        assert!(fields[1][1].parse::<i32>().unwrap() > 500, "{text}");
        assert_eq!(fields[1][2], "1.0");
        assert_eq!(fields[0][0], "3qk3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1");
        assert!(fields[0][1].parse::<i32>().unwrap() < -500, "{text}");
        assert_eq!(fields[0][2], "1.0");
        assert_eq!(fields[2][2], "0.5");
    }
}
