//! Command-line subcommands (`perft`, `perft-suite`, `help`); with none, the UCI loop.

use std::io::{self, IsTerminal, Write};

use crate::perft::{self, SuiteOptions};
use crate::position::Position;
use crate::uci::{self, Engine};

/// The text of `corvid help` and of `help` in the UCI loop.
pub const HELP: &str = "\
Corvid, a UCI chess engine. Run without arguments it speaks UCI on standard input.

Command line:
  corvid                                  start the UCI loop
  corvid perft <depth> [<fen>] [--threads N] [--hash MB] [--chess960]
                                          count leaf nodes, one line per root move
  corvid perft-suite <file> [--max-depth D] [--threads N] [--hash MB] [--chess960]
                                          check every ';Dk n' entry of an EPD perft suite
  corvid bench [depth] [--threads N] [--hash MB] [--nnue|--hce]
                                          fixed-depth search of 44 positions; last line
                                          '<N> nodes <M> nps' (with 1 thread and 16 MB, the
                                          defaults, N is the search's signature; --hce: the
                                          hand-crafted evaluation alone)
  corvid epd <file> [--movetime MS] [--threads N] [--hash MB]
                                          solve an EPD suite (bm/am), MS per position
  corvid tune <file.epd> [--epochs N] [--limit N] [--threads N] [--lr X] [--reg X] [--time S] [--out FILE]
                                          fit the evaluation weights to game results (Texel)
  corvid datagen <out.epd> [--games N] [--nodes N] [--threads N] [--random-plies N] [--seed N] [--scores] [--nnue|--hce]
                                          self-play quiet positions labelled with results
                                          (--scores: 'FEN | score | result', for the network;
                                          --hce: search without the network)
  corvid label <in.epd> <out> [--nodes N] [--threads N] [--nnue|--hce]
                                          search 'FEN [result]' positions, write 'FEN | score | result'
  corvid train <data> --out <net> [--epochs N] [--batch N] [--lr X] [--lambda X] [--threads N] [--seed N] [--base none|psqt|hce] [--init <net>]
                                          train the evaluation network on 'FEN | score | result'
                                          lines (embedded from src/nnue/corvid.nnue at build)
  corvid help                             this text

UCI commands:
  uci, debug [on|off], isready, setoption name <name> [value <v>], register, ucinewgame,
  position startpos|fen <fen> [moves <m>...],
  go [searchmoves <m>...] [ponder] [wtime <ms>] [btime <ms>] [winc <ms>] [binc <ms>]
     [movestogo <n>] [depth <n>] [nodes <n>] [mate <n>] [movetime <ms>] [infinite],
  stop, ponderhit, quit
Extensions:
  go perft <depth>                        perft from the current position
  d                                       show the board, FEN, key and checkers
  eval                                    the static evaluation: hand-crafted terms, network
  bench [depth]                           as 'corvid bench'
  help                                    this text
Options: Hash (MB, 1-33554432), Threads (1-1024), Clear Hash, Ponder, UCI_Chess960,
  Move Overhead (ms, 0-5000), MultiPV (1-256), UCI_ShowWDL, UseNNUE (default on; off: the hand-crafted evaluation alone).
";

/// The synopsis of subcommand `name` as [`HELP`] gives it, as an error message: `usage: corvid
/// <name> ...`. One text, so the help and the errors cannot drift apart.
pub fn usage(name: &str) -> String {
    let prefix = format!("corvid {name} ");
    let synopsis = HELP
        .lines()
        .map(str::trim_start)
        .find(|line| line.starts_with(&prefix))
        .map(|line| line.split("  ").next().unwrap_or(line).trim_end())
        .unwrap_or(prefix.trim_end());
    format!("usage: {synopsis}")
}

/// Runs the command line; returns the process exit status.
pub fn main(args: Vec<String>) -> i32 {
    let result = match args.first().map(String::as_str) {
        None => run_uci(),
        Some("perft") => run_perft(&args[1..]),
        Some("perft-suite") => run_suite(&args[1..]),
        Some("bench") => run_bench(&args[1..]),
        Some("epd") => run_epd(&args[1..]),
        Some("tune") => crate::tune::run(&args[1..]),
        Some("datagen") => run_datagen(&args[1..]),
        Some("train") => crate::nnue::train::run(&args[1..]),
        Some("label") => run_label(&args[1..]),
        Some("help" | "--help" | "-h") => {
            print!("{HELP}");
            Ok(0)
        }
        Some("--version" | "-V") => {
            println!("{}", uci::NAME);
            Ok(0)
        }
        Some(other) => Err(format!("unknown subcommand '{other}' (try 'corvid help')")),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            2
        }
    }
}

fn run_uci() -> Result<i32, String> {
    let stdin = io::stdin();
    if stdin.is_terminal() {
        println!(
            "{} by the Corvid developers, {} sliders (type 'help' for commands)",
            uci::NAME,
            crate::tables::SLIDER_LOOKUP
        );
    }
    Engine::default().run(stdin.lock());
    Ok(0)
}

fn run_epd(args: &[String]) -> Result<i32, String> {
    let mut movetime = 1000u64;
    let mut rest = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--movetime" {
            let v = it.next().ok_or("--movetime needs a value")?;
            movetime = v.parse().map_err(|_| format!("--movetime: '{v}' is not a number of milliseconds"))?;
        } else {
            rest.push(a.clone());
        }
    }
    let flags = parse_flags(&rest)?;
    let [file] = flags.words.as_slice() else {
        return Err(usage("epd"));
    };
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let hash = if flags.hash_mb == 0 { 16 } else { flags.hash_mb };
    crate::epd::run(&text, std::time::Duration::from_millis(movetime), flags.threads, hash, &mut io::stdout().lock())?;
    Ok(0)
}

fn run_datagen(args: &[String]) -> Result<i32, String> {
    let mut options = crate::datagen::Options {
        games: 100,
        nodes: 5000,
        threads: 1,
        random_plies: 8,
        seed: 1,
        scores: false,
        use_nnue: crate::nnue::ON_BY_DEFAULT,
    };
    let mut file = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| numeric_value(&mut it, name);
        match arg.as_str() {
            "--games" => options.games = value("--games")? as usize,
            "--nodes" => options.nodes = value("--nodes")?.max(1),
            "--threads" => options.threads = (value("--threads")? as usize).clamp(1, 1024),
            "--random-plies" => options.random_plies = value("--random-plies")? as usize,
            "--seed" => options.seed = value("--seed")?,
            "--scores" => options.scores = true,
            "--nnue" => options.use_nnue = true,
            "--hce" => options.use_nnue = false,
            _ if arg.starts_with("--") => return Err(format!("unknown option '{arg}'")),
            _ if file.is_none() => file = Some(arg.clone()),
            _ => return Err(format!("unexpected argument '{arg}'")),
        }
    }
    let Some(file) = file else {
        return Err(usage("datagen"));
    };
    let mut out = std::io::BufWriter::new(std::fs::File::create(&file).map_err(|e| format!("{file}: {e}"))?);
    let (games, positions) = crate::datagen::run(&options, &mut out);
    out.flush().map_err(|e| format!("{file}: {e}"))?;
    println!("{games} games, {positions} positions written to {file}");
    Ok(0)
}

fn run_bench(args: &[String]) -> Result<i32, String> {
    // The last of --nnue and --hce wins; neither: the engine's default.
    let use_nnue = args.iter().rev().find_map(|a| match a.as_str() {
        "--nnue" => Some(true),
        "--hce" => Some(false),
        _ => None,
    });
    let use_nnue = use_nnue.unwrap_or(crate::nnue::ON_BY_DEFAULT);
    let args: Vec<String> = args.iter().filter(|a| *a != "--nnue" && *a != "--hce").cloned().collect();
    let flags = parse_flags(&args)?;
    let depth = match flags.words.as_slice() {
        [] => crate::bench::DEFAULT_DEPTH,
        [d] => match d.parse::<u32>() {
            Ok(d) if (1..=64).contains(&d) => d,
            _ => return Err(format!("bench depth must be a number from 1 to 64, not '{d}'")),
        },
        _ => return Err(usage("bench")),
    };
    let hash_mb = if flags.hash_mb == 0 { 16 } else { flags.hash_mb };
    let never = std::sync::atomic::AtomicBool::new(false);
    crate::bench::run_with(depth, flags.threads, hash_mb, use_nnue, &never, &mut io::stdout().lock())?;
    Ok(0)
}

/// Flags shared by the perft subcommands, and the words that are not flags.
struct Flags {
    threads: usize,
    hash_mb: usize,
    max_depth: Option<u32>,
    chess960: bool,
    words: Vec<String>,
}

fn parse_flags(args: &[String]) -> Result<Flags, String> {
    let mut flags = Flags { threads: 1, hash_mb: 0, max_depth: None, chess960: false, words: Vec::new() };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str, max: usize| -> Result<usize, String> {
            let v = it.next().ok_or(format!("{name} needs a value"))?;
            match v.parse::<usize>() {
                Ok(n) if n <= max => Ok(n),
                _ => Err(format!("{name}: '{v}' is not a number from 0 to {max}")),
            }
        };
        match arg.as_str() {
            "--threads" => flags.threads = value("--threads", 1024)?.max(1),
            "--hash" => flags.hash_mb = value("--hash", 1 << 20)?,
            "--max-depth" => flags.max_depth = Some(value("--max-depth", 64)? as u32),
            "--chess960" => flags.chess960 = true,
            _ if arg.starts_with("--") => return Err(format!("unknown option '{arg}'")),
            _ => flags.words.push(arg.clone()),
        }
    }
    Ok(flags)
}

fn run_perft(args: &[String]) -> Result<i32, String> {
    let flags = parse_flags(args)?;
    let Some((depth, fen)) = flags.words.split_first() else {
        return Err(usage("perft"));
    };
    let depth: u32 = match depth.parse() {
        Ok(d) if d <= 64 => d,
        _ => return Err(format!("perft depth must be a number from 0 to 64, not '{depth}'")),
    };
    let mut pos = if fen.is_empty() {
        Position::startpos()
    } else {
        Position::from_fen(&fen.join(" ")).map_err(|e| format!("bad FEN: {e}"))?
    };
    if flags.chess960 {
        pos.set_chess960(true);
    }
    let hash = match flags.hash_mb {
        0 => None,
        mb => Some(perft::PerftHash::try_new(mb).ok_or(format!("--hash: cannot allocate {mb} MB"))?),
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    perft::print_divide(&pos, depth, flags.threads, hash.as_ref(), &never, &mut io::stdout().lock())
        .map_err(|e| e.to_string())?;
    Ok(0)
}

fn run_suite(args: &[String]) -> Result<i32, String> {
    let flags = parse_flags(args)?;
    let [file] = flags.words.as_slice() else {
        return Err(usage("perft-suite"));
    };
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let lines = perft::parse_suite(&text)?;
    let options =
        SuiteOptions { max_depth: flags.max_depth.unwrap_or(u32::MAX), threads: flags.threads, hash_mb: flags.hash_mb };
    if !options.hash_fits() {
        return Err(format!("--hash: cannot allocate {} MB for each of {} threads", flags.hash_mb, flags.threads));
    }
    let start = std::time::Instant::now();
    let checks = perft::run_suite(&lines, &options);
    let mut out = io::stdout().lock();
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

fn run_label(args: &[String]) -> Result<i32, String> {
    let (mut nodes, mut threads, mut use_nnue) = (5000u64, 1usize, crate::nnue::ON_BY_DEFAULT);
    let mut files = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| numeric_value(&mut it, name);
        match arg.as_str() {
            "--nodes" => nodes = value("--nodes")?.max(1),
            "--threads" => threads = (value("--threads")? as usize).clamp(1, 1024),
            "--nnue" => use_nnue = true,
            "--hce" => use_nnue = false,
            _ if arg.starts_with("--") => return Err(format!("unknown option '{arg}'")),
            _ => files.push(arg.clone()),
        }
    }
    let [input, output] = files.as_slice() else {
        return Err(usage("label"));
    };
    let text = std::fs::read_to_string(input).map_err(|e| format!("{input}: {e}"))?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(output).map_err(|e| format!("{output}: {e}"))?);
    let (read, written) = crate::datagen::label(&text, nodes, threads, use_nnue, &mut out);
    out.flush().map_err(|e| format!("{output}: {e}"))?;
    println!("{read} lines read, {written} positions written to {output}");
    Ok(0)
}

/// The number after the flag `name`, taken from `it`.
fn numeric_value<'a>(it: &mut impl Iterator<Item = &'a String>, name: &str) -> Result<u64, String> {
    let v = it.next().ok_or(format!("{name} needs a value"))?;
    v.parse().map_err(|_| format!("{name}: '{v}' is not a number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_subcommand_has_a_synopsis_in_the_help() {
        for name in ["perft", "perft-suite", "bench", "epd", "tune", "datagen", "label", "train", "help"] {
            let u = usage(name);
            assert!(u.starts_with(&format!("usage: corvid {name}")), "{u}");
            assert!(!u.contains("  "), "description leaked into the synopsis: {u}");
        }
        assert_eq!(usage("perft"), "usage: corvid perft <depth> [<fen>] [--threads N] [--hash MB] [--chess960]");
        assert!(usage("train").ends_with("[--init <net>]"), "{}", usage("train"));
    }

    #[test]
    fn missing_arguments_are_answered_with_the_help_synopsis() {
        let none: [String; 0] = [];
        assert_eq!(run_perft(&none), Err(usage("perft")));
        assert_eq!(run_suite(&none), Err(usage("perft-suite")));
        assert_eq!(run_epd(&none), Err(usage("epd")));
        assert_eq!(run_datagen(&none), Err(usage("datagen")));
        assert_eq!(run_label(&none), Err(usage("label")));
        assert_eq!(run_bench(&["3".to_string(), "4".to_string()]), Err(usage("bench")));
        assert_eq!(crate::tune::run(&none), Err(usage("tune")));
        assert_eq!(crate::nnue::train::run(&none), Err(usage("train")));
    }
}
