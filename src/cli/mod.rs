//! The command line, the top layer: parses the arguments into a typed [`Subcommand`] (one parser,
//! [`args`], for every subcommand) and runs it; with no arguments, the UCI loop.

pub mod args;

use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::files;
use crate::interrupt;
use crate::nnue::Base;
use crate::perft::{self, SuiteOptions};
use crate::position::Position;
use crate::search::strength::{MAX_ELO, MIN_ELO};
use crate::tools::{datagen, epd, packed, train, tune};
use crate::uci::{self, Engine};
use args::{float, int, required, switch, text, word, Default, Flag, Parsed, Spec};

/// The most threads a subcommand takes: as many as the UCI option `Threads`.
const MAX_THREADS: u64 = uci::options::MAX_THREADS as u64;
const THREADS: Flag = int("--threads", "N", "threads", (1, MAX_THREADS), Default::Int(1));
const HASH: Flag = int("--hash", "MB", "hash table size in MiB", (1, 1 << 25), Default::Int(16));
const NNUE: Flag = switch("--nnue", "evaluate with the network (the default)");
const HCE: Flag = switch("--hce", "evaluate with the hand-crafted evaluation alone");
const UNLIMITED: u64 = u64::MAX;

/// Every subcommand, in the order `corvid help` lists them: each flag with its range and
/// default, from which its help, its check and its value come.
pub static SPECS: [Spec; 12] = [
    Spec {
        name: "play",
        operands: "",
        arity: (0, 0),
        about: "Play a game against the engine in the terminal: moves in SAN or coordinates, 'help' \
                for the commands (hint, moves, undo, redo, flip, save, load, resign, draw, new, \
                think, quit). Works with piped input, a move or command a line.",
        flags: &[
            word("--color", "your colour", &["white", "black", "random"], Default::Word("white")),
            text("--tc", "MIN+INC", "minutes a game and seconds a move, or none", Default::Said("10+5")),
            int("--elo", "N", "the engine's level", (MIN_ELO as u64, MAX_ELO as u64), Default::Said("full strength")),
            text("--book", "FILE", "a Polyglot opening book for the engine", Default::Nothing),
            text("--fen", "FEN", "start from this position", Default::Nothing),
            switch("--ascii", "letters instead of Unicode pieces"),
        ],
    },
    Spec {
        name: "perft",
        operands: "<depth> [<fen>]",
        arity: (1, 7),
        about: "Count the leaf nodes of the legal move tree, one line per root move, then the total and the speed.",
        flags: &[
            THREADS,
            int("--hash", "MB", "a perft table of this size, 0 for none", (0, 1 << 20), Default::Int(0)),
            switch("--chess960", "write castling as king takes rook"),
        ],
    },
    Spec {
        name: "perft-bench",
        operands: "",
        arity: (0, 0),
        about: "Count the five standard perft positions (start 7, Kiwipete 6, positions 3 to 5 at 8, 6 \
                and 6 plies), no hash, and print one table: leaves, time and speed, and the \
                geometric mean; a count other than the published one is an error.",
        flags: &[THREADS, switch("--shallow", "one ply less each (about a second)")],
    },
    Spec {
        name: "perft-suite",
        operands: "<file>",
        arity: (1, 1),
        about: "Check every ';Dk n' entry of an EPD perft suite; exit status 1 on any failure.",
        flags: &[
            int("--max-depth", "D", "skip entries deeper than D", (0, 64), Default::Said("none skipped")),
            THREADS,
            int("--hash", "MB", "a perft table of this size per thread, 0 for none", (0, 1 << 20), Default::Int(0)),
            switch("--chess960", "accepted for symmetry with perft: castling is read from each FEN"),
        ],
    },
    Spec {
        name: "bench",
        operands: "[depth]",
        arity: (0, 1),
        about: "Fixed-depth search of 44 positions (depth 1-64, default 13); last line '<N> nodes <M> nps'. \
                With 1 thread and 16 MB, the defaults, N is the search's signature.",
        flags: &[THREADS, HASH, NNUE, HCE],
    },
    Spec {
        name: "epd",
        operands: "<file>",
        arity: (1, 1),
        about: "Solve an EPD test suite (bm/am in SAN), MS milliseconds a position.",
        flags: &[int("--movetime", "MS", "time per position", (1, 86_400_000), Default::Int(1000)), THREADS, HASH],
    },
    Spec {
        name: "tune",
        operands: "<file.epd>",
        arity: (1, 1),
        about: "Fit the hand-crafted evaluation's weights to game results (Texel's method); \
                lines are 'FEN [result]'.",
        flags: &[
            int("--epochs", "N", "Adam steps over the whole data", (0, 100_000_000), Default::Int(2000)),
            int("--limit", "N", "read at most N positions", (1, UNLIMITED), Default::Said("all")),
            THREADS,
            float("--lr", "X", "learning rate", (0.0, 1e6), Default::Float(1.0)),
            float("--reg", "X", "L2 pull toward the starting weights", (0.0, 1e6), Default::Float(0.0)),
            float("--time", "S", "stop after S seconds", (0.0, f64::INFINITY), Default::Said("no limit")),
            text("--out", "FILE", "write the weights as Rust source (src/weights/params.rs)", Default::Nothing),
        ],
    },
    Spec {
        name: "datagen",
        operands: "<out>",
        arity: (1, 1),
        about: "Self-play from random balanced openings at a soft node limit a move. <out>.vf: whole \
                games (viriformat); .bin: quiet positions (marlinformat); else text, 'FEN [result]' \
                or with --scores 'FEN | score | result'. A bare file name goes into $CORVID_DATA \
                (default ~/corvid-data). Ctrl-C stops it once the games in play are written (twice: \
                at once). Appends: a stopped run resumes where it was, with a manifest beside the \
                file (<out>.manifest) that says how to make it again.",
        flags: &[
            int("--games", "N", "the games the file should hold", (1, UNLIMITED), Default::Int(100)),
            int("--nodes", "N", "soft node limit a move", (1, UNLIMITED), Default::Int(5000)),
            int("--threads", "N", "threads", (1, MAX_THREADS), Default::Said("every core")),
            int(
                "--random-plies",
                "N",
                "random plies of the opening, one more half the time",
                (0, 200),
                Default::Said("8, or 2 with --book"),
            ),
            int("--seed", "N", "random seed", (0, UNLIMITED), Default::Int(1)),
            switch("--scores", "text as 'FEN | score | result'"),
            switch("--dfrc", "start from Double Fischer Random back ranks"),
            text(
                "--book",
                "FILE",
                "start each game from a random position of this EPD (as OpenBench's DATAGEN gives one), then --random-plies",
                Default::Nothing,
            ),
            text(
                "--syzygy",
                "PATHS",
                "Syzygy tables (':'-separated folders): a game ends when a capture enters them, with their result",
                Default::Nothing,
            ),
            NNUE,
            HCE,
        ],
    },
    Spec {
        name: "label",
        operands: "<in.epd> <out>",
        arity: (2, 2),
        about: "Search every 'FEN [result]' position for N nodes and write 'FEN | score | result' \
                (positions in check and mate scores skipped).",
        flags: &[int("--nodes", "N", "nodes a position", (1, UNLIMITED), Default::Int(5000)), THREADS, NNUE, HCE],
    },
    Spec {
        name: "convert",
        operands: "<in> <out>",
        arity: (2, 2),
        about: "Convert training data: .vf (viriformat games), .bin (marlinformat positions, 32 bytes \
                each), .pgn (a match runner's games with evaluation comments, read only) and any \
                other name as 'FEN | score | result' text. Games become positions or text; \
                positions and text convert into each other. The input may be packed as .xz, .bz2, \
                .gz or .tar (OpenBench's DATAGEN .pgn.tar of .pgn.bz2 files), unpacked on the way.",
        flags: &[],
    },
    Spec {
        name: "train",
        operands: "<data>...",
        arity: (1, 1024),
        about: "Train the evaluation network on .vf games (the quiet positions out of check), .bin \
                boards, .pgn with evaluation comments, or 'FEN | score | result' text, each also \
                packed as .xz, .bz2, .gz or .tar (OpenBench's .pgn.tar of .pgn.bz2 files; unpacked \
                through the system's xz, bzip2, gzip and tar); a directory stands for all its data \
                files. About one game \
                in 50, chosen by what it is and not where it lies (one block of 256 positions where \
                the data has no games), is held out, at most 200,000 positions; the measure (the \
                held-out loss with the search score weighted 0.5, whatever --lambda) picks the epoch \
                kept and compares runs. The settings and each epoch's losses are written to \
                <net>.json. Data larger than the cache is read from disk every epoch.",
        flags: &[
            required("--out", "<net>", "the network file to write"),
            int("--epochs", "N", "passes over the data", (1, 1_000_000), Default::Int(30)),
            int("--batch", "N", "positions a step", (1, 1 << 24), Default::Int(16384)),
            float("--lr", "X", "learning rate at the start", (0.0, 10.0), Default::Float(0.001)),
            float("--lr-end", "X", "learning rate at the end of the cosine schedule", (0.0, 10.0), Default::Float(0.00001)),
            float("--weight-decay", "X", "decoupled weight decay (AdamW); 0 is plain Adam", (0.0, 1.0), Default::Float(0.01)),
            word(
                "--schedule",
                "the learning rate falls along a cosine to --lr-end, or by 0.3 at 60% and 85% of the epochs",
                &["cosine", "steps"],
                Default::Word("cosine"),
            ),
            int(
                "--min-ply",
                "N",
                "leave out the positions of a game's first N plies, counted from the standard start",
                (0, 10_000),
                Default::Int(0),
            ),
            float("--lambda", "X", "weight of the search score against the result", (0.0, 1.0), Default::Float(0.75)),
            THREADS,
            int("--seed", "N", "random seed", (0, UNLIMITED), Default::Int(1)),
            word("--base", "what the output is added to", &["none", "psqt", "hce"], Default::Word("none")),
            text(
                "--init",
                "<net>",
                "start from this network (of the same base; --hidden may widen it) instead of random weights",
                Default::Nothing,
            ),
            int("--hidden", "N", "neurons per perspective, a multiple of 16", (16, crate::nnue::format::MAX_HIDDEN as u64), Default::Said("this build's")),
            word(
                "--king-buckets",
                "inputs by the square of each side's king (4u: not mirrored)",
                &crate::nnue::Layout::NAMES,
                Default::Word("none"),
            ),
            int(
                "--cache",
                "N",
                "training positions kept in memory between epochs",
                (0, train::MAX_CACHE as u64),
                Default::Int(40_000_000),
            ),
            int("--buffer", "N", "positions shuffled together when reading from disk", (1, 1 << 30), Default::Int(4_000_000)),
            switch("--mirror", "also train on positions without castling rights reflected left to right"),
            word(
                "--keep",
                "the network written: the epoch the measure likes best (the start included), or the last (for data the held-out games do not stand for)",
                &["best", "last"],
                Default::Word("best"),
            ),
        ],
    },
    Spec {
        name: "spsa",
        operands: "",
        arity: (0, 0),
        about: "Print the search and clock constants as OpenBench's SPSA input, one 'name, int, value, \
                min, max, c_end, r_end' line each. Only a tune build (make TUNE=1) has them as UCI \
                options; elsewhere this is an error.",
        flags: &[],
    },
];

/// A parsed command line.
#[derive(Debug)]
pub enum Subcommand {
    Uci,
    /// Arguments that are UCI commands (`corvid "genfens 8 seed 5 book None" quit`, as OpenBench
    /// runs engines): each is handled as a line of input, then the program ends.
    UciCommands(Vec<String>),
    Perft {
        depth: u32,
        fen: Option<String>,
        threads: usize,
        hash_mb: usize,
        chess960: bool,
    },
    PerftBench {
        threads: usize,
        shallow: bool,
    },
    PerftSuite {
        file: String,
        options: SuiteOptions,
    },
    Bench {
        depth: u32,
        threads: usize,
        hash_mb: usize,
        use_nnue: bool,
    },
    Epd {
        file: String,
        movetime: Duration,
        threads: usize,
        hash_mb: usize,
    },
    Tune(tune::Options),
    Datagen {
        out: String,
        options: datagen::Options,
    },
    Label {
        input: String,
        output: String,
        nodes: u64,
        threads: usize,
        use_nnue: bool,
    },
    Train(train::Options),
    Convert {
        input: String,
        output: String,
    },
    Play(crate::play::Options),
    /// `corvid spsa`: the tunables as OpenBench's SPSA input.
    Spsa,
    /// `corvid help`, or `corvid <subcommand> --help`.
    Help(Option<&'static Spec>),
    Version,
}

/// The spec of subcommand `name`.
pub fn spec(name: &str) -> Option<&'static Spec> {
    SPECS.iter().find(|s| s.name == name)
}

/// The text of `corvid help`: every subcommand's synopsis and what it does, then the UCI part.
pub fn help() -> String {
    let mut text = String::from(
        "Corvid, a UCI chess engine. Run without arguments it speaks UCI on standard input.\n\nCommand line:\n  \
         corvid                                  start the UCI loop\n",
    );
    for spec in &SPECS {
        text.push_str(&format!("  {}\n{}", spec.synopsis(), args::wrap(spec.about, "      ", 90)));
    }
    text.push_str("  corvid help [<subcommand>]              this text, or one subcommand's flags\n");
    text.push_str("  corvid \"<uci command>\" ...             run UCI commands, then exit (OpenBench's genfens)\n");
    text.push_str("  corvid <subcommand> --help              the same\n\n");
    text.push_str(&uci::help());
    text
}

fn threads(p: &Parsed) -> usize {
    p.int("--threads")
}

/// The network switches: the last of `--nnue` and `--hce` wins; neither, the engine's default.
fn use_nnue(p: &Parsed) -> bool {
    match p.last_of(&["--nnue", "--hce"]) {
        Some("--hce") => false,
        Some(_) => true,
        None => crate::nnue::ON_BY_DEFAULT,
    }
}

/// Parses the arguments (without the program name).
pub fn parse(args: &[String]) -> Result<Subcommand, String> {
    let Some((name, rest)) = args.split_first() else {
        return Ok(Subcommand::Uci);
    };
    match name.as_str() {
        "help" | "--help" | "-h" => {
            return match rest {
                [] => Ok(Subcommand::Help(None)),
                [sub] => spec(sub).map(|s| Subcommand::Help(Some(s))).ok_or_else(|| unknown(sub)),
                _ => Err("usage: corvid help [<subcommand>]".into()),
            }
        }
        "--version" | "-V" => return Ok(Subcommand::Version),
        _ if spec(name).is_none() && name.contains(char::is_whitespace) => {
            return Ok(Subcommand::UciCommands(args.to_vec()))
        }
        _ => {}
    }
    let spec = spec(name).ok_or_else(|| unknown(name))?;
    let Some(p) = spec.parse(rest)? else {
        return Ok(Subcommand::Help(Some(spec)));
    };
    let ops = &p.operands;
    Ok(match spec.name {
        "perft" => Subcommand::Perft {
            depth: p.operand_int(0, "perft depth", 0, 64)?.unwrap_or(0),
            fen: (ops.len() > 1).then(|| ops[1..].join(" ")),
            threads: threads(&p),
            hash_mb: p.int("--hash"),
            chess960: p.switch("--chess960"),
        },
        "perft-bench" => Subcommand::PerftBench { threads: threads(&p), shallow: p.switch("--shallow") },
        "perft-suite" => Subcommand::PerftSuite {
            file: ops[0].clone(),
            options: SuiteOptions {
                max_depth: p.int_or("--max-depth", u32::MAX),
                threads: threads(&p),
                hash_mb: p.int("--hash"),
            },
        },
        "bench" => Subcommand::Bench {
            depth: p.operand_int(0, "bench depth", 1, 64)?.unwrap_or(crate::bench::DEFAULT_DEPTH),
            threads: threads(&p),
            hash_mb: p.int("--hash"),
            use_nnue: use_nnue(&p),
        },
        "epd" => Subcommand::Epd {
            file: ops[0].clone(),
            movetime: Duration::from_millis(p.int("--movetime")),
            threads: threads(&p),
            hash_mb: p.int("--hash"),
        },
        "tune" => Subcommand::Tune(tune::Options {
            file: ops[0].clone(),
            epochs: p.int("--epochs"),
            limit: p.int_or("--limit", usize::MAX),
            threads: threads(&p),
            lr: p.float("--lr"),
            reg: p.float("--reg"),
            time_limit: p.float_or("--time", f64::INFINITY),
            out: p.text("--out"),
        }),
        "datagen" => Subcommand::Datagen {
            out: ops[0].clone(),
            options: datagen::Options {
                games: p.int("--games"),
                first_game: 0,
                nodes: p.int("--nodes"),
                threads: p.int_or("--threads", std::thread::available_parallelism().map_or(1, |n| n.get())),
                random_plies: p.int_or("--random-plies", if p.text("--book").is_some() { 2 } else { 8 }),
                seed: p.int("--seed"),
                use_nnue: use_nnue(&p),
                output: match packed::Format::of(&ops[0]) {
                    packed::Format::Games => datagen::Output::Games,
                    packed::Format::Boards => datagen::Output::Boards,
                    packed::Format::Pgn => return Err("datagen writes .vf, .bin or text, not PGN".into()),
                    packed::Format::Text if p.switch("--scores") => datagen::Output::Scores,
                    packed::Format::Text => datagen::Output::Tuner,
                },
                dfrc: p.switch("--dfrc"),
                syzygy: match p.text("--syzygy") {
                    None => None,
                    Some(paths) => Some(datagen_tables(&paths)?),
                },
                book: match p.text("--book") {
                    None => None,
                    Some(_) if p.switch("--dfrc") => return Err("datagen: --book and --dfrc: give one".into()),
                    Some(path) => Some(datagen::Book::new(crate::genfens::read_book(&path)?, &path)),
                },
            },
        },
        "label" => Subcommand::Label {
            input: ops[0].clone(),
            output: ops[1].clone(),
            nodes: p.int("--nodes"),
            threads: threads(&p),
            use_nnue: use_nnue(&p),
        },
        "convert" => Subcommand::Convert { input: ops[0].clone(), output: ops[1].clone() },
        "spsa" => Subcommand::Spsa,
        "train" => {
            let defaults = train::Options::new(ops.to_vec(), p.text("--out").unwrap_or_default());
            Subcommand::Train(train::Options {
                epochs: p.int("--epochs"),
                batch: p.int("--batch"),
                lr: p.float("--lr") as f32,
                lr_end: p.float("--lr-end") as f32,
                weight_decay: p.float("--weight-decay") as f32,
                schedule: match p.word("--schedule") {
                    "steps" => train::Schedule::Steps,
                    _ => train::Schedule::Cosine,
                },
                min_ply: p.int("--min-ply"),
                lambda: p.float("--lambda") as f32,
                threads: threads(&p),
                seed: p.int("--seed"),
                base: match p.word("--base") {
                    "psqt" => Base::Psqt,
                    "hce" => Base::Hce,
                    _ => Base::None,
                },
                init: p.text("--init"),
                hidden: p.int_or("--hidden", defaults.hidden),
                layout: match p.word_given("--king-buckets") {
                    None => defaults.layout,
                    Some(name) => crate::nnue::Layout::named(name).expect("the table offers the layouts' names"),
                },
                cache: p.int("--cache"),
                buffer: p.int("--buffer"),
                mirror: p.switch("--mirror"),
                keep_last: p.word("--keep") == "last",
                ..defaults
            })
        }
        "play" => Subcommand::Play(crate::play::Options {
            side: match p.word("--color") {
                "black" => crate::play::Side::Black,
                "random" => crate::play::Side::Random,
                _ => crate::play::Side::White,
            },
            tc: match p.text("--tc") {
                None => crate::play::Options::default().tc,
                Some(text) => crate::play::TimeControl::parse(&text)?,
            },
            elo: p.int_given("--elo"),
            book: p.text("--book"),
            fen: p.text("--fen"),
            ascii: p.switch("--ascii"),
        }),
        other => unreachable!("subcommand '{other}' has a spec but no parser"),
    })
}

fn unknown(name: &str) -> String {
    format!("unknown subcommand '{name}' (try 'corvid help')")
}

/// Runs the command line; returns the process exit status (2 for a usage or input error).
pub fn main(args: Vec<String>) -> i32 {
    match parse(&args).and_then(run) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            2
        }
    }
}

/// Runs a parsed command line; returns the exit status.
pub fn run(command: Subcommand) -> Result<i32, String> {
    let never = AtomicBool::new(false);
    let mut out = io::stdout().lock();
    match command {
        Subcommand::Uci => {
            drop(out);
            let stdin = io::stdin();
            if stdin.is_terminal() {
                println!(
                    "{} by the Corvid developers, {} sliders (type 'help' for commands)",
                    uci::id_name(),
                    crate::tables::SLIDER_LOOKUP
                );
            }
            Engine::default().run(uci::Input::from_reader(io::BufReader::new(stdin)));
        }
        Subcommand::UciCommands(lines) => {
            drop(out);
            Engine::default().run_script(&lines);
            // A script sees its errors in the exit status.
            if uci::errors_reported() > 0 {
                return Ok(2);
            }
        }
        Subcommand::Play(options) => {
            drop(out);
            crate::play::run_on_terminal(options)?;
        }
        Subcommand::Help(None) => print!("{}", help()),
        Subcommand::Help(Some(spec)) => print!("{}", spec.help()),
        Subcommand::Version => println!("{}", uci::version()),
        Subcommand::Spsa => {
            use crate::search::params;
            if !params::TUNE_BUILD {
                return Err("spsa: this build has no tunable options; build one with 'make TUNE=1'".into());
            }
            // No newline after the last line where the output goes to a file or a clipboard tool:
            // OpenBench rejects SPSA input that ends in an empty line. A terminal gets one, so
            // that the prompt starts on a line of its own.
            use std::io::IsTerminal;
            write!(out, "{}", params::openbench_input()).map_err(|e| e.to_string())?;
            if std::io::stdout().is_terminal() {
                writeln!(out).map_err(|e| e.to_string())?;
            }
        }
        Subcommand::Perft { depth, fen, threads, hash_mb, chess960 } => {
            let mut pos = match fen {
                None => Position::startpos(),
                Some(fen) => Position::from_fen(&fen).map_err(|e| format!("bad FEN: {e}"))?,
            };
            if chess960 {
                pos.set_chess960(true);
            }
            let hash = match hash_mb {
                0 => None,
                mb => Some(perft::PerftHash::try_new(mb).ok_or(format!("--hash: cannot allocate {mb} MB"))?),
            };
            perft::print_divide(&pos, depth, threads, hash.as_ref(), &never, &mut out).map_err(|e| e.to_string())?;
        }
        Subcommand::PerftBench { threads, shallow } => perft::bench_table(threads, shallow, &mut out)?,
        Subcommand::PerftSuite { file, options } => return run_suite(&file, &options, &mut out),
        Subcommand::Bench { depth, threads, hash_mb, use_nnue } => {
            crate::bench::run_with(depth, threads, hash_mb, use_nnue, crate::nnue::embedded(), &never, &mut out)?;
        }
        Subcommand::Epd { file, movetime, threads, hash_mb } => {
            let text = files::read_to_string(&file, files::MAX_INPUT)?;
            epd::run(&text, movetime, threads, hash_mb, &mut out)?;
        }
        Subcommand::Tune(options) => {
            tune::run(&options)?;
        }
        Subcommand::Datagen { out: name, options } => run_datagen(&name, options, &mut out)?,
        Subcommand::Label { input, output, nodes, threads, use_nnue } => {
            let text = files::read_to_string(&input, files::MAX_INPUT)?;
            let mut writer = files::Output::create(Path::new(&output), &[Path::new(&input)])?;
            let done = datagen::label(&text, nodes, threads, use_nnue, &mut writer);
            // Nothing readable: the wrong file; the output is not made (dropped uncommitted).
            if done.unreadable == done.lines {
                return Err(format!("{input}: no line is a position as 'FEN [result]' (the tuner's format)"));
            }
            writer.flush().map_err(|e| format!("{output}: {e}"))?;
            writer.commit()?;
            let skipped = done.lines - done.unreadable - done.written;
            writeln!(
                out,
                "{} lines read, {} positions written to {output}; {} unreadable (not 'FEN [result]'), {skipped} \
                 skipped (in check or a mate score)",
                done.lines, done.written, done.unreadable
            )
            .map_err(|e| e.to_string())?;
        }
        Subcommand::Train(options) => train::train(&options, &mut out)?,
        Subcommand::Convert { input, output } => {
            let from = packed::Format::of(files::Packing::of(&input).1);
            let to = packed::Format::of(&output);
            packed::Format::check(from, to)?;
            if files::Packing::of(&output).0 != files::Packing::Plain {
                return Err(format!("{output}: written plain only; name it without the .xz, .bz2, .gz or .tar"));
            }
            let mut unpacked = files::Unpacked::open(Path::new(&input))?;
            let mut reader = io::BufReader::new(&mut unpacked);
            // Written beside the output and renamed over it when whole: an error leaves the
            // file that was there.
            let mut writer = files::Output::create(Path::new(&output), &[Path::new(&input)])?;
            let converted = packed::convert(&mut reader, from, &mut writer, to)
                .and_then(|n| writer.flush().map(|()| n).map_err(|e| e.to_string()));
            let (games, positions) = converted.map_err(|e| match writer.failed() {
                true => format!("{output}: {e}"),
                false => format!("{input}: {e}"),
            })?;
            drop(reader);
            // A tool that failed while unpacking leaves the output as it was.
            unpacked.finish()?;
            writer.commit()?;
            writeln!(out, "{games} games, {positions} positions: {input} ({from:?}) -> {output} ({to:?})")
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(0)
}

/// The tables `datagen --syzygy` adjudicates with: an error where none can be read.
fn datagen_tables(paths: &str) -> Result<datagen::Syzygy, String> {
    let (tables, problems) = crate::syzygy::Tablebases::open(paths);
    for problem in &problems {
        eprintln!("datagen: --syzygy: {problem}");
    }
    if tables.is_empty() {
        return Err(format!("--syzygy {paths}: no Syzygy WDL table found there"));
    }
    Ok(datagen::Syzygy { tables: std::sync::Arc::new(tables), paths: paths.to_string() })
}

/// `corvid datagen`: into the data folder, resuming a file that is there, with its manifest kept
/// up to date after every game and a progress line on standard error.
fn run_datagen(name: &str, options: datagen::Options, out: &mut impl Write) -> Result<(), String> {
    let path = datagen::data_path(name);
    let shown = path.display().to_string();
    // Appended to: it must be a regular file (or none yet), never a device or a FIFO, and never
    // the book the games start from.
    let book = options.book.as_ref().map(|b| Path::new(&b.path));
    files::check_output(&path, book.as_slice())?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    // One writer a file: a second run on it would cut the first's half-written game as a killed
    // run's and append beside it. The lock (advisory, the whole file) is held until the run ends.
    let file =
        std::fs::OpenOptions::new().create(true).append(true).open(&path).map_err(|e| format!("{shown}: {e}"))?;
    if files::held_by_another(&file) {
        return Err(format!("{shown}: another process is writing it (a datagen still running?): give another file"));
    }
    let settings = datagen::Manifest::settings(&options, name);
    let (had_games, had_positions) = datagen::prepare_resume(&path, options.output, &settings)?;
    if had_games >= options.games {
        writeln!(out, "{shown} already holds {had_games} games").map_err(|e| e.to_string())?;
        return Ok(());
    }
    let options = datagen::Options { first_game: had_games, ..options };
    let mut writer = io::BufWriter::new(file);
    let mut manifest = datagen::Manifest { settings, games: had_games, positions: had_positions };
    manifest.save(&path).map_err(|e| format!("{shown}.manifest: {e}"))?;
    let (target, threads) = (options.games - had_games, options.threads);
    eprintln!("datagen: {target} games into {shown} ({had_games} there), {threads} threads");
    let mut last_line = std::time::Instant::now();
    let mut manifest_error = None;
    let mut progress = |p: datagen::Progress| {
        manifest.games = had_games + p.games;
        manifest.positions = had_positions + p.positions;
        if let Err(e) = manifest.save(&path) {
            manifest_error = Some(e.to_string());
        }
        if last_line.elapsed() >= std::time::Duration::from_secs(2) || p.games == target {
            last_line = std::time::Instant::now();
            let secs = p.elapsed.as_secs_f64().max(1e-3);
            let rate = p.positions as f64 / secs;
            let left = secs / p.games as f64 * (target - p.games) as f64;
            eprintln!(
                "games {}/{target}, positions {}, {rate:.0}/s ({:.0} a thread), {left:.0} s left",
                p.games,
                p.positions,
                rate / threads as f64
            );
        }
    };
    interrupt::install("\nstopping: the games in play are finished and written (again to quit at once)\n");
    let done =
        datagen::run(&options, &mut writer, &mut progress, &interrupt::STOP).map_err(|e| format!("{shown}: {e}"))?;
    if let Some(e) = manifest_error {
        return Err(format!("{shown}.manifest: {e}"));
    }
    let secs = done.elapsed.as_secs_f64().max(1e-3);
    let stopped = interrupt::STOP.load(Ordering::SeqCst) && had_games + done.games < options.games;
    writeln!(
        out,
        "{}{} games, {} positions in {secs:.1} s ({:.0} positions/s, {:.0} a thread) written to {shown}; \
         it holds {} games, {} positions{}",
        if stopped { "stopped: " } else { "" },
        done.games,
        done.positions,
        done.positions as f64 / secs,
        done.positions as f64 / secs / threads as f64,
        had_games + done.games,
        had_positions + done.positions,
        if stopped { "; the same command goes on from there" } else { "" }
    )
    .map_err(|e| e.to_string())
}

fn run_suite(file: &str, options: &SuiteOptions, out: &mut impl Write) -> Result<i32, String> {
    let text = files::read_to_string(file, files::MAX_INPUT)?;
    let lines = perft::parse_suite(&text)?;
    let start = std::time::Instant::now();
    let checks = perft::run_suite(&lines, options)?;
    let (mut passed, mut failed, mut skipped, mut nodes) = (0, 0, 0, 0u64);
    let mut reported_rejects = std::collections::HashSet::new();
    for c in &checks {
        match &c.got {
            Ok(n) if *n == c.expected => passed += 1,
            Ok(n) => {
                failed += 1;
                let _ =
                    writeln!(out, "FAIL line {}: {} depth {} expected {} got {n}", c.line, c.fen, c.depth, c.expected);
            }
            Err(why) => {
                skipped += 1;
                if reported_rejects.insert(c.line) {
                    let _ = writeln!(out, "SKIP line {}: {} rejected: {why}", c.line, c.fen);
                }
            }
        }
        nodes += c.got.as_ref().copied().unwrap_or(0);
    }
    let secs = start.elapsed().as_secs_f64();
    let _ = writeln!(out, "{nodes} nodes in {secs:.2} s, {:.0} nps", nodes as f64 / secs.max(1e-9));
    if skipped > 0 {
        let _ = writeln!(out, "{passed} passed, {failed} failed, {skipped} skipped");
    } else {
        let _ = writeln!(out, "{passed} passed, {failed} failed");
    }
    Ok(if failed > 0 { 1 } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_line(line: &str) -> Result<Subcommand, String> {
        parse(&line.split_whitespace().map(str::to_string).collect::<Vec<_>>())
    }

    #[test]
    fn every_subcommand_has_a_synopsis_in_the_help() {
        let help = help();
        for spec in &SPECS {
            assert!(help.contains(&spec.synopsis()), "{} missing from the help", spec.name);
            assert!(spec.usage().starts_with(&format!("usage: corvid {}", spec.name)));
        }
        assert_eq!(
            spec("perft").unwrap().usage(),
            "usage: corvid perft <depth> [<fen>] [--threads N] [--hash MB] [--chess960]"
        );
        assert!(spec("train").unwrap().usage().ends_with("[--buffer N] [--mirror] [--keep best|last]"));
        assert!(help.contains("UCI commands:"), "the UCI part follows");
        // The level's range is the one the parser takes.
        assert!(spec("play").unwrap().help().contains(&format!("level ({MIN_ELO}-{MAX_ELO}; ")));
        assert!(parse_line(&format!("play --elo {MAX_ELO}")).is_ok());
        assert!(parse_line(&format!("play --elo {}", MAX_ELO + 1)).is_err());
    }

    /// Each subcommand with the operands and flags it cannot go without.
    fn minimal(name: &str) -> &'static str {
        match name {
            "perft" => "perft 3",
            "perft-suite" => "perft-suite f",
            "epd" => "epd f",
            "tune" => "tune f",
            "datagen" => "datagen o.vf",
            "label" => "label a b",
            "convert" => "convert a b",
            "train" => "train d --out n",
            "play" => "play",
            "perft-bench" => "perft-bench",
            "bench" => "bench",
            "spsa" => "spsa",
            other => panic!("no minimal command line for {other}"),
        }
    }

    #[test]
    fn every_flag_takes_its_range_and_words_and_nothing_else() {
        // From the one table: each number flag takes both ends of its range (read as the type
        // the subcommand uses, without overflow) and refuses what lies beyond, with its name;
        // each word flag takes its words and no other; the help line says the range.
        for spec in &SPECS {
            let base = minimal(spec.name);
            for flag in spec.flags {
                let line = |v: &str| format!("{base} {} {v}", flag.name);
                match flag.takes {
                    args::Takes::Int { min, max } => {
                        for v in [min, max] {
                            assert!(parse_line(&line(&v.to_string())).is_ok(), "{}", line(&v.to_string()));
                        }
                        let mut beyond = vec![format!("{}1", max)];
                        if min > 0 {
                            beyond.push((min - 1).to_string());
                        }
                        for v in beyond {
                            let e = parse_line(&line(&v)).unwrap_err();
                            assert!(e.starts_with(&format!("{}: '{v}'", flag.name)), "{}: {e}", line(&v));
                        }
                        let range = if max >= 1 << 53 { format!("{min} or more") } else { format!("{min}-{max}") };
                        assert!(flag.describe().contains(&range), "{}: {}", flag.name, flag.describe());
                    }
                    args::Takes::Float { min, max } => {
                        assert!(parse_line(&line(&min.to_string())).is_ok(), "{}", line(&min.to_string()));
                        assert!(parse_line(&line("-1")).is_err() || min < -1.0, "{}", line("-1"));
                        assert!(parse_line(&line("nan")).is_err(), "{}", line("nan"));
                        if max.is_finite() {
                            assert!(parse_line(&line(&max.to_string())).is_ok(), "{}", line(&max.to_string()));
                            assert!(parse_line(&line(&(max * 2.0 + 1.0).to_string())).is_err());
                        }
                    }
                    args::Takes::Word(words) => {
                        for w in words {
                            assert!(parse_line(&line(w)).is_ok(), "{}", line(w));
                        }
                        let e = parse_line(&line("frobnicate")).unwrap_err();
                        assert!(words.iter().all(|w| e.contains(w)), "{e}");
                    }
                    args::Takes::Nothing | args::Takes::Text => {}
                }
                if let args::Default::Word(w) = flag.default {
                    assert!(matches!(flag.takes, args::Takes::Word(words) if words.contains(&w)), "{}", flag.name);
                }
            }
        }
    }

    #[test]
    fn the_tables_defaults_are_the_trainers() {
        // `train` with no flag but --out gives the options the trainer itself starts from: the
        // table's defaults (which its help prints) are not a second copy that can drift.
        match parse_line("train d --out n").unwrap() {
            Subcommand::Train(options) => {
                let own = train::Options::new(vec!["d".to_string()], "n".to_string());
                assert_eq!(format!("{options:?}"), format!("{own:?}"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn king_bucket_layouts_are_offered_as_the_trainer_knows_them() {
        // The help lists every name `Layout::named` takes, and the error for an unknown one
        // names them all, so neither can fall behind a new layout.
        let help = spec("train").unwrap().help();
        assert!(help.contains(&format!("--king-buckets {}", crate::nnue::Layout::NAMES.join("|"))), "{help}");
        for name in crate::nnue::Layout::NAMES {
            let line = format!("train d --out n --king-buckets {name}");
            match parse_line(&line) {
                Ok(Subcommand::Train(options)) => {
                    assert_eq!(options.layout, crate::nnue::Layout::named(name).unwrap(), "{line}")
                }
                other => panic!("{line}: {other:?}"),
            }
        }
        let e = parse_line("train d --out n --king-buckets 5").unwrap_err();
        assert!(e.contains("'5'") && crate::nnue::Layout::NAMES.iter().all(|n| e.contains(n)), "{e}");
    }

    #[test]
    fn missing_arguments_are_answered_with_the_usage() {
        for name in ["perft", "perft-suite", "epd", "tune", "datagen", "label", "train", "convert"] {
            let e = parse_line(name).unwrap_err();
            assert_eq!(e, spec(name).unwrap().usage(), "{name}");
        }
        assert_eq!(parse_line("bench 3 4").unwrap_err(), spec("bench").unwrap().usage());
        assert_eq!(parse_line("train data.txt").unwrap_err(), spec("train").unwrap().usage(), "--out is required");
    }

    #[test]
    fn values_are_typed_and_checked() {
        match parse_line("perft 5 8/8/8/8/8/8/8/K6k w - - 0 1 --threads 2 --hash 4").unwrap() {
            Subcommand::Perft { depth: 5, fen: Some(fen), threads: 2, hash_mb: 4, chess960: false } => {
                assert_eq!(fen, "8/8/8/8/8/8/8/K6k w - - 0 1")
            }
            other => panic!("{other:?}"),
        }
        match parse_line("bench --hce 9 --nnue").unwrap() {
            Subcommand::Bench { depth: 9, threads: 1, hash_mb: 16, use_nnue: true } => {}
            other => panic!("{other:?}"),
        }
        for bad in [
            "perft 65",
            "perft x",
            "bench 0",
            "bench 3 --threads 0",
            "datagen out --nodes lots",
            "datagen out.vf --book /nonexistent/book.epd",
            "datagen out.vf --book Cargo.toml --dfrc",
            "train d --out n --lambda 2",
            "train d --out n --base nnue",
            "epd f --movetime -5",
        ] {
            let e = parse_line(bad).unwrap_err();
            assert!(!e.starts_with("usage"), "{bad}: a value error names the value: {e}");
        }
        assert!(matches!(parse_line("datagen --help"), Ok(Subcommand::Help(Some(s))) if s.name == "datagen"));
        // Every subcommand with threads takes the range the help gives.
        assert!(THREADS.describe().contains(&format!("1-{MAX_THREADS}")), "{}", THREADS.describe());
        for name in
            ["perft 3", "perft-bench", "bench", "epd f", "label a b", "tune f", "train d --out n", "datagen o.vf"]
        {
            let cmd = |n: u64| parse_line(&format!("{name} --threads {n}"));
            assert!(cmd(MAX_THREADS).is_ok(), "{name}: {:?}", cmd(MAX_THREADS).err());
            assert!(cmd(MAX_THREADS + 1).is_err(), "{name}");
        }
        assert!(matches!(parse_line("help label"), Ok(Subcommand::Help(Some(s))) if s.name == "label"));
        assert!(parse_line("help frobnicate").is_err());
        assert!(matches!(parse_line(""), Ok(Subcommand::Uci)));
        let uci = parse(&["genfens 8 seed 5 book None".to_string(), "quit".to_string()]).unwrap();
        assert!(matches!(uci, Subcommand::UciCommands(lines) if lines.len() == 2));
        assert!(parse(&["frobnicate".to_string()]).is_err(), "one word that is no subcommand is an error");
    }
}
