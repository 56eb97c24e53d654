//! The trainer's tests.

use std::path::{Path, PathBuf};

use super::data::*;
use super::model::*;
use super::*;
use crate::nnue::{bucket, QA, QB, SCALE};
use crate::position::Position;
use crate::tools::packed::{self, Game};
use crate::types::{Color, PieceType};

/// Everything a file holds, without a split: the data, each unit's size, the lines skipped.
fn load_all(path: &Path) -> (Data, Vec<usize>, usize) {
    let stream = Stream { valid_every: 0, ..Stream::new(vec![path.to_path_buf()], Base::None).unwrap() };
    let (mut data, mut units) = (Data::default(), Vec::new());
    let bad = stream
        .run(|part, unit| {
            assert_eq!(part, Part::Train);
            units.push(unit.len());
            data.append(unit);
            Ok(())
        })
        .unwrap();
    (data, units, bad)
}

/// Writes `games` to `path` as viriformat; returns the bytes.
fn write_games<'a>(path: &Path, games: impl IntoIterator<Item = &'a Game>) -> Vec<u8> {
    let mut bytes = Vec::new();
    games.into_iter().for_each(|g| g.write(&mut bytes).unwrap());
    std::fs::write(path, &bytes).unwrap();
    bytes
}

/// What the stream without a split reads of `game` alone (a file of its own in `dir`).
fn game_data(dir: &Path, game: &Game) -> Data {
    let path = dir.join("one.vf");
    write_games(&path, [game]);
    load_all(&path).0
}

fn features(pos: &Position) -> Vec<u16> {
    let mut out = Vec::new();
    push_features(pos, &mut out);
    out
}

/// Positions from random walks, labelled with a material score (White's view).
fn labelled_lines(count: usize) -> Vec<String> {
    let values = [100, 300, 300, 500, 900, 0];
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let mut lines = Vec::new();
    while lines.len() < count {
        let mut pos = Position::startpos();
        for _ in 0..30 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos = pos.make_move(moves[rng.below(moves.len())]);
            let material = |c: Color| -> i32 {
                PieceType::ALL.iter().map(|&pt| values[pt.index()] * pos.colored_pieces(c, pt).count() as i32).sum()
            };
            let score = material(Color::White) - material(Color::Black);
            let result = if score > 0 {
                "1.0"
            } else if score < 0 {
                "0.0"
            } else {
                "0.5"
            };
            lines.push(format!("{} | {score} | {result}", pos.to_fen()));
        }
    }
    lines
}

#[test]
fn quantised_network_matches_the_float_network() {
    // Weights on the quantisation grid (as the trainer's would be after rounding), large enough
    // for outputs of hundreds of centipawns: the integer network must then agree with the
    // float one up to the truncations of its divisions. For every layout: the trainer's
    // inputs are the engine's.
    for name in Layout::NAMES {
        let layout = Layout::named(name).unwrap();
        let mut p = Params::random(11, HIDDEN, layout);
        // Every row random (the buckets' own rows start at zero), the factoriser's small
        // enough that no sum is clipped.
        let own = INPUTS * layout.count() * HIDDEN;
        let mut rng = Rng::new(99);
        p.fw[..own].iter_mut().for_each(|w| *w = rng.signed_unit() / (INPUTS as f32).sqrt());
        p.fw[own..].iter_mut().for_each(|w| *w *= 0.25);
        let on_grid = |w: &mut f32, scale: f32, q: i32| *w = (*w * scale * q as f32).round() / q as f32;
        p.fw.iter_mut().for_each(|w| on_grid(w, 8.0, QA));
        p.fb.iter_mut().for_each(|w| *w = 77.0 / QA as f32);
        p.ow.iter_mut().for_each(|w| on_grid(w, 10.0, QB));
        p.ob.iter_mut().enumerate().for_each(|(i, b)| *b = (1000.0 + 300.0 * i as f32) / (QA * QB) as f32);
        let bytes = quantise(&p, Base::None);
        assert_eq!(bytes.len(), Network::file_size(&layout), "{name}");
        let net = Network::from_bytes(&bytes).expect("the trainer writes a valid file");
        assert_eq!(net.layout, layout);
        let mut hidden = vec![0.0; 2 * HIDDEN];
        let mut sum_size = 0.0;
        for line in labelled_lines(200) {
            let fen = line.split('|').next().unwrap().trim();
            let pos = Position::from_fen(fen).unwrap();
            let kings = [pos.king(Color::White).index() as u8, pos.king(Color::Black).index() as u8];
            let float =
                forward(&p, &features(&pos), pos.side_to_move(), kings, bucket(&pos), &mut hidden) * SCALE as f32;
            let quantised = net.evaluate(&net.refresh(&pos), pos.side_to_move(), bucket(&pos)) as f32;
            assert!((float - quantised).abs() <= 1.5, "{name} {fen}: float {float}, quantised {quantised}");
            sum_size += float.abs();
        }
        assert!(sum_size / 200.0 > 100.0, "the test network's outputs are too small to compare");
    }
}

#[test]
fn games_boards_and_text_load_alike() {
    let dir = std::env::temp_dir().join(format!("corvid-train-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Two games: the quiet moves out of check are the positions kept.
    let mut games = Vec::new();
    let mut kept = Vec::new();
    for line in [
        ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5c6", "d7c6"],
        ["d2d4", "d7d5", "c2c4", "d5c4", "e2e3", "b7b5", "a2a4", "c7c6"],
    ] {
        let start = Position::startpos();
        let (mut pos, mut moves) = (start, Vec::new());
        for (i, text) in line.iter().enumerate() {
            let m = pos.parse_uci_move(text).unwrap();
            if !pos.in_check() && !m.is_capture() {
                kept.push(packed::text_line(&pos, i as i16 * 10, packed::Wdl::Draw));
            }
            moves.push((m, i as i16 * 10));
            pos = pos.make_move(m);
        }
        games.push(Game { start, wdl: packed::Wdl::Draw, moves });
    }
    let vf = dir.join("d.vf");
    write_games(&vf, &games);
    let text = dir.join("d.txt");
    std::fs::write(&text, kept.join("\n") + "\n").unwrap();
    let (from_games, units, bad) = load_all(&vf);
    assert_eq!(bad, 0);
    assert_eq!(from_games.len(), kept.len());
    assert_eq!(units, vec![6, kept.len() - 6], "a unit a game: six quiet positions in the first");
    let (from_text, units, _) = load_all(&text);
    assert_eq!(units, vec![kept.len()], "text: one block");
    assert_eq!(from_text.features, from_games.features);
    let targets = |d: &Data| d.samples.iter().map(|s| s.target(0.75)).collect::<Vec<_>>();
    assert_eq!(targets(&from_text), targets(&from_games));
    std::fs::remove_dir_all(&dir).ok();
}

/// What `stream` trains on and what it holds out.
fn split_of(stream: &Stream) -> (Data, Data) {
    let (mut train, mut valid) = (Data::default(), Data::default());
    stream
        .run(|part, unit| {
            match part {
                Part::Train => train.append(unit),
                Part::Valid => valid.append(unit),
            }
            Ok(())
        })
        .unwrap();
    (train, valid)
}

/// Random games of `plies` plies each (fewer where one ends), scored by their ply.
fn random_games(count: usize, plies: usize, seed: u64) -> Vec<Game> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|g| {
            let start = Position::startpos();
            let (mut pos, mut moves) = (start, Vec::new());
            for ply in 0..plies + g % 7 {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let m = legal[rng.below(legal.len())];
                moves.push((m, ply as i16));
                pos = pos.make_move(m);
            }
            Game { start, wdl: packed::Wdl::from_white_score([0.0, 0.5, 1.0][g % 3]), moves }
        })
        .collect()
}

#[test]
fn reflections_are_the_same_positions_for_the_rules() {
    assert!(mirrored(&Position::startpos()).is_none(), "castling rights tell the wings apart");
    let pos = Position::from_fen("4k3/8/8/2pP4/8/8/1N6/4K2R w - c6 0 2").unwrap();
    let m = mirrored(&pos).unwrap();
    assert_eq!(m.to_fen(), "3k4/8/8/4Pp2/8/8/6N1/R2K4 w - f6 0 2");
    assert_eq!(mirrored(&m).unwrap().to_fen(), pos.to_fen());
    assert_eq!(crate::perft::perft(&m, 3), crate::perft::perft(&pos, 3));
    // Every position of random games without castling rights: the reflection has as many
    // moves a ply and two plies on, and its inputs are the original's with the files swapped.
    let mut seen = 0;
    for game in random_games(40, 80, 9) {
        for (pos, _) in game.positions() {
            let Some(m) = mirrored(&pos) else { continue };
            seen += 1;
            assert_eq!(crate::perft::perft(&m, 2), crate::perft::perft(&pos, 2), "{}", pos.to_fen());
            let swap = |f: u16| f & !7 | (7 - (f & 7));
            let mut ours: Vec<u16> = features(&pos).into_iter().map(swap).collect();
            let mut theirs = features(&m);
            ours.sort_unstable();
            theirs.sort_unstable();
            assert_eq!(ours, theirs, "{}", pos.to_fen());
        }
    }
    assert!(seen > 500, "{seen}");
}

#[test]
fn reflections_are_trained_on_and_never_held_out() {
    let dir = std::env::temp_dir().join(format!("corvid-train-mirror-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let games = random_games(100, 60, 31);
    let vf = dir.join("g.vf");
    write_games(&vf, &games);
    let split = |mirror: bool, valid_every: u64| {
        split_of(&Stream { mirror, valid_every, ..Stream::new(vec![vf.clone()], Base::Hce).unwrap() })
    };
    // Without a split: one reflection for each kept position without castling rights.
    let kept_without_castling: usize = games
        .iter()
        .map(|g| {
            g.positions()
                .zip(&g.moves)
                .filter(|((p, _), (m, _))| !p.in_check() && !m.is_capture() && !m.is_promotion())
                .filter(|((p, _), _)| p.castling().0 == 0)
                .count()
        })
        .sum();
    assert!(kept_without_castling > 100, "{kept_without_castling}");
    let (all, _) = split(false, 0);
    let (all_m, _) = split(true, 0);
    assert_eq!(all_m.len(), all.len() + kept_without_castling);
    // With one game in four held out: those stay as they are, reflections only train.
    let (train, valid) = split(false, 4);
    let (train_m, valid_m) = split(true, 4);
    let key = |d: &Data| {
        d.samples.iter().map(|s| (s.target(0.75).to_bits(), s.stm, s.len, s.base.to_bits())).collect::<Vec<_>>()
    };
    assert_eq!(key(&valid_m), key(&valid), "the held-out games stay as they are");
    assert!(train_m.len() > train.len());
    // Each reflection keeps its position's target, side to move and piece count.
    let originals = key(&train);
    let (mut i, mut j) = (0, 0);
    let reflections = key(&train_m);
    while j < reflections.len() {
        if i < originals.len() && reflections[j] == originals[i] {
            i += 1;
        } else {
            let (t, stm, len, _) = reflections[j];
            assert!(originals.iter().any(|o| o.0 == t && o.1 == stm && o.2 == len));
        }
        j += 1;
    }
    assert_eq!(i, originals.len(), "the training positions come first and in order");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn held_out_games_are_whole_and_chosen_by_what_they_are() {
    let dir = std::env::temp_dir().join(format!("corvid-train-units-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let games = random_games(120, 20, 77);
    let vf = dir.join("g.vf");
    let bytes = write_games(&vf, &games);
    // Each game alone, as the stream without a split reads it.
    let per_game: Vec<Data> = games.iter().map(|g| game_data(&dir, g)).collect();
    // About one game in ten held out (one in 50 in use: too few among 120 games), chosen by
    // what each game is: those and no others, whole.
    let split = |files: Vec<PathBuf>, valid_max: usize, min_ply: u32| {
        split_of(&Stream { valid_max, valid_every: 10, min_ply, ..Stream::new(files, Base::None).unwrap() })
    };
    let chosen: Vec<usize> = (0..games.len()).filter(|&g| mix(game_key(&games[g])) % 10 == 0).collect();
    assert!((4..=30).contains(&chosen.len()), "{chosen:?}");
    let (train, valid) = split(vec![vf.clone()], VALID_MAX, 0);
    let mut expected = Data::default();
    chosen.iter().for_each(|&g| expected.append(&per_game[g]));
    assert_eq!(valid.features, expected.features);
    assert_eq!(train.len() + valid.len(), per_game.iter().map(Data::len).sum::<usize>());
    // The same games wherever they lie: the file's games in reverse order, after another
    // file of other games, hold out the same positions (in their new order).
    let reversed = dir.join("reversed.vf");
    write_games(&reversed, games.iter().rev());
    let others = dir.join("others.vf");
    let other_games = random_games(60, 20, 78);
    write_games(&others, &other_games);
    let (_, valid_elsewhere) = split(vec![others.clone(), reversed.clone()], VALID_MAX, 0);
    let mut expected_elsewhere = Data::default();
    for g in other_games.iter().filter(|g| mix(game_key(g)) % 10 == 0) {
        expected_elsewhere.append(&game_data(&dir, g));
    }
    chosen.iter().rev().for_each(|&g| expected_elsewhere.append(&per_game[g]));
    assert_eq!(valid_elsewhere.features, expected_elsewhere.features);
    // `--min-ply` leaves out early positions, not games: the held-out games are the same,
    // each without its first plies.
    let (train_late, valid_late) = split(vec![vf.clone()], VALID_MAX, 12);
    let late = |d: &Data| d.len();
    assert!(late(&valid_late) < valid.len() && late(&valid_late) > 0);
    let later_than_12: usize = chosen
        .iter()
        .map(|&g| {
            games[g]
                .positions()
                .zip(&games[g].moves)
                .filter(|((p, _), (m, _))| game_ply(p) >= 12 && !p.in_check() && !m.is_capture() && !m.is_promotion())
                .count()
        })
        .sum();
    assert_eq!(valid_late.len(), later_than_12);
    assert!(train_late.len() < train.len());
    // The cap on held-out positions ends the split after the first game that reaches it.
    let (train, valid) = split(vec![vf.clone()], 1, 0);
    assert_eq!(valid.features, per_game[chosen[0]].features);
    assert_eq!(train.len() + valid.len(), per_game.iter().map(Data::len).sum::<usize>());
    // A file that datagen is still writing: the half-written game at its end is left out,
    // and what is appended after the training started is not read.
    let whole = load_all(&vf).0;
    let stream = Stream { valid_every: 0, ..Stream::new(vec![vf.clone()], Base::None).unwrap() };
    let mut growing = bytes.clone();
    growing.extend_from_slice(&bytes[..70]);
    std::fs::write(&vf, &growing).unwrap();
    assert_eq!(load_all(&vf).0.features, whole.features);
    growing.extend_from_slice(&bytes);
    std::fs::write(&vf, &growing).unwrap();
    let mut read = Data::default();
    stream
        .run(|_, unit| {
            read.append(unit);
            Ok(())
        })
        .unwrap();
    assert_eq!(read.features, whole.features);
    // A game that is wrong inside the file is an error that names the file.
    let mut broken = bytes.clone();
    broken[40] ^= 0x3f;
    std::fs::write(&vf, &broken).unwrap();
    let err = Stream::new(vec![vf.clone()], Base::None).unwrap().run(|_, _| Ok(())).unwrap_err();
    assert!(err.contains("g.vf"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn compressed_files_read_as_the_plain_ones() {
    let dir = std::env::temp_dir().join(format!("corvid-train-xz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let games = random_games(30, 40, 5);
    let vf = dir.join("g.vf");
    write_games(&vf, &games);
    let status = std::process::Command::new("xz").args(["-k", "-z"]).arg(&vf).status();
    assert!(status.is_ok_and(|s| s.success()), "xz is needed to make the test's file");
    let xz = dir.join("g.vf.xz");
    let (plain, plain_units, _) = load_all(&vf);
    let (unpacked, units, _) = load_all(&xz);
    assert!(plain.len() > 100);
    assert_eq!(units, plain_units);
    assert_eq!(unpacked.features, plain.features);
    // A directory lists the compressed file as data.
    std::fs::remove_file(&vf).unwrap();
    let files = data_files(&[dir.to_string_lossy().into_owned()]).unwrap();
    assert_eq!(files, vec![xz.clone()]);
    // A damaged one is an error that names it, not a short read taken for the whole.
    let mut damaged = std::fs::read(&xz).unwrap();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 0x55;
    std::fs::write(&xz, &damaged).unwrap();
    let stream = Stream { valid_every: 0, ..Stream::new(vec![xz.clone()], Base::None).unwrap() };
    let err = stream.run(|_, _| Ok(())).unwrap_err();
    assert!(err.contains("g.vf.xz"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn data_files_expand_directories_and_refuse_what_is_not_data() {
    let dir = std::env::temp_dir().join(format!("corvid-train-files-{}", std::process::id()));
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    for name in ["b.vf", "a.bin", "c.txt", "b.vf.manifest", "notes.md"] {
        std::fs::write(dir.join(name), b"").unwrap();
    }
    let d = dir.to_string_lossy().into_owned();
    let files = data_files(&[d.clone(), format!("{d}/notes.md")]).unwrap();
    let names: Vec<String> = files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["a.bin", "b.vf", "c.txt", "notes.md"], "a named file is read whatever its name");
    let err = data_files(&[empty.to_string_lossy().into_owned()]).unwrap_err();
    assert!(err.contains("no training data"), "{err}");
    assert!(data_files(&[format!("{d}/missing.vf")]).is_err());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_embedded_network_survives_dequantising() {
    let net = crate::nnue::network();
    assert_eq!(quantise(&Params::dequantised(net), net.base), crate::nnue::EMBEDDED);
}

/// Trains with `options`, which must succeed; returns the log.
fn run(options: &Options) -> String {
    let mut log = Vec::new();
    train(options, &mut log).unwrap();
    String::from_utf8(log).unwrap()
}

/// The values after `what` on each epoch line of a training log, epoch 0 first.
fn epoch_values(log: &str, what: &str) -> Vec<f64> {
    log.lines()
        .filter(|l| l.starts_with("epoch "))
        .filter_map(|l| l.split(what).nth(1))
        .map(|v| v.split_whitespace().next().unwrap().parse().unwrap())
        .collect()
}

/// The validation losses of a training log, epoch 0 first.
fn validation_losses(log: &str) -> Vec<f64> {
    epoch_values(log, "validation loss ")
}

#[test]
fn streaming_from_disk_trains_a_wider_network() {
    let path = std::env::temp_dir().join(format!("corvid-stream-{}.txt", std::process::id()));
    let out = std::env::temp_dir().join(format!("corvid-stream-{}.nnue", std::process::id()));
    std::fs::write(&path, labelled_lines(24_000).join("\n")).unwrap();
    let options = Options {
        epochs: 8,
        batch: 64,
        lr: 0.002,
        lambda: 1.0,
        threads: 2,
        seed: 5,
        hidden: 256,
        cache: 0,
        buffer: 3_000,
        ..Options::new(vec![path.to_string_lossy().into_owned()], out.to_string_lossy().into_owned())
    };
    let log = run(&options);
    assert!(log.contains("read from disk every epoch, 3000 at a time"), "{log}");
    let losses = validation_losses(&log);
    assert_eq!(losses.len(), 9, "{log}");
    assert!(losses[8] < losses[0] * 0.3, "{log}");
    // The same data kept in memory: the same held-out positions, so the same starting loss.
    let mut cached_log = Vec::new();
    train(&Options { epochs: 1, cache: 1 << 20, ..options.clone() }, &mut cached_log).unwrap();
    let cached_log = String::from_utf8(cached_log).unwrap();
    assert!(cached_log.contains("kept in memory"), "{cached_log}");
    assert_eq!(validation_losses(&cached_log)[0], losses[0], "{cached_log}");
    // A 256-wide file: its header and size say so, and a build of another width refuses it
    // with a reason.
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 256);
    assert_eq!(bytes.len(), 12 + 2 * (INPUTS * 256 + 256 + OUTPUT_BUCKETS * 2 * 256) + 4 * OUTPUT_BUCKETS);
    if HIDDEN != 256 {
        let err = Network::from_bytes(&bytes).err().expect("another width");
        assert!(err.contains("256"), "{err}");
    }
    // King buckets (4, mirrored, with the factoriser) learn the same signal.
    let bucketed = Options { hidden: 32, epochs: 4, layout: Layout::named("4").unwrap(), ..options.clone() };
    let log = run(&bucketed);
    assert!(log.contains("network: 4 x 768 inputs (mirrored) -> 32 x 2"), "{log}");
    let losses = validation_losses(&log);
    assert!(losses[4] < losses[0] * 0.5, "{log}");
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(&bytes[..8], b"CRVDNET2");
    assert_eq!(bytes.len(), 80 + 2 * (4 * INPUTS * 32 + 32 + OUTPUT_BUCKETS * 2 * 32) + 4 * OUTPUT_BUCKETS);
    assert_eq!(bytes[12..76], Layout::named("4").unwrap().buckets);
    for hidden in [0, 100, MAX_HIDDEN + 16] {
        let err = train(&Options { hidden, ..options.clone() }, &mut Vec::new()).unwrap_err();
        assert!(err.contains("--hidden"), "{err}");
    }
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&out);
}

#[test]
fn the_measure_is_one_scale_and_the_learning_rate_falls_to_its_end() {
    let path = std::env::temp_dir().join(format!("corvid-measure-{}.txt", std::process::id()));
    let out = std::env::temp_dir().join(format!("corvid-measure-{}.nnue", std::process::id()));
    std::fs::write(&path, labelled_lines(14_000).join("\n")).unwrap();
    let options = Options {
        epochs: 4,
        batch: 64,
        lr: 0.002,
        lr_end: 2e-5,
        threads: 2,
        seed: 8,
        hidden: 32,
        ..Options::new(vec![path.to_string_lossy().into_owned()], out.to_string_lossy().into_owned())
    };
    // The same network on the same held-out positions: the same measure whatever the run's
    // lambda, where the loss on the run's own targets differs.
    let (high, low) =
        (run(&Options { lambda: 0.9, ..options.clone() }), run(&Options { lambda: 0.1, ..options.clone() }));
    let measure = |log: &str| epoch_values(log, "measure ")[0];
    assert_eq!(measure(&high), measure(&low), "{high}\n{low}");
    assert_ne!(validation_losses(&high)[0], validation_losses(&low)[0]);
    // Cosine: the rate falls every epoch and ends at --lr-end; steps: cut by 0.3 twice.
    let rates = epoch_values(&low, " lr ");
    assert_eq!(rates.len(), 4, "{low}");
    assert!(rates.windows(2).all(|w| w[1] < w[0]), "{low}");
    assert!((rates[3] - 2e-5).abs() < 1e-6, "{low}");
    let steps = run(&Options { schedule: Schedule::Steps, epochs: 8, ..options.clone() });
    let rates = epoch_values(&steps, " lr ");
    let cuts: Vec<f64> = rates.windows(2).map(|w| w[1] / w[0]).filter(|r| (r - 1.0).abs() > 1e-3).collect();
    assert_eq!(cuts.len(), 2, "{steps}");
    assert!(cuts.iter().all(|r| (r - 0.3).abs() < 1e-3), "{steps}");
    // The record beside the network: the settings and every epoch, as JSON.
    let record = std::fs::read_to_string(format!("{}.json", options.out)).unwrap();
    for wanted in ["\"schedule\": \"steps\"", "\"measure_lambda\": 0.5", "\"min_ply\": 0", "\"kept\": {\"epoch\": "] {
        assert!(record.contains(wanted), "{wanted} in {record}");
    }
    assert_eq!(record.matches("\"measure\": ").count(), 9 + 1, "epochs 0-8 and the kept one: {record}");
    // Data named by file and where it is kept, never by the training machine's own paths.
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(record.contains(&format!("{{\"file\": \"{name}\", \"kept\": \"local self-play, not kept\"")), "{record}");
    let folder = path.parent().unwrap().to_string_lossy().into_owned();
    assert!(!record.contains(&folder), "{folder} in {record}");
    let depth = record.chars().try_fold(0i32, |d, c| {
        let d = d + i32::from(c == '{' || c == '[') - i32::from(c == '}' || c == ']');
        (d >= 0).then_some(d)
    });
    assert_eq!(depth, Some(0), "balanced: {record}");
    // The record may not overwrite an input either.
    let onto_data = Options { out: path.to_string_lossy().trim_end_matches(".txt").to_string(), ..options.clone() };
    let renamed = format!("{}.json", onto_data.out);
    std::fs::copy(&path, &renamed).unwrap();
    let err = train(&Options { inputs: vec![renamed.clone()], ..onto_data }, &mut Vec::new()).unwrap_err();
    assert!(err.contains("both an input"), "{err}");
    for f in [path.to_string_lossy().into_owned(), renamed, options.out.clone(), format!("{}.json", options.out)] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn the_last_epoch_is_kept_when_asked_whatever_the_measure() {
    let path = std::env::temp_dir().join(format!("corvid-keep-{}.txt", std::process::id()));
    let out = std::env::temp_dir().join(format!("corvid-keep-{}.nnue", std::process::id()));
    std::fs::write(&path, labelled_lines(6_000).join("\n")).unwrap();
    let options = Options {
        epochs: 2,
        batch: 64,
        lr: 0.01,
        seed: 5,
        ..Options::new(vec![path.to_string_lossy().into_owned()], out.to_string_lossy().into_owned())
    };
    let kept = |log: &str| -> (usize, f64) {
        let line = log.lines().find(|l| l.starts_with("network of epoch ")).unwrap();
        let epoch = line["network of epoch ".len()..].split_whitespace().next().unwrap().parse().unwrap();
        let measure = line.split("(measure ").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
        (epoch, measure)
    };
    // By default the epoch with the lowest measure, the start included.
    let best = run(&options);
    let measures = epoch_values(&best, "measure ");
    assert_eq!(measures.len(), 3, "{best}");
    let lowest = (0..3).fold(0, |b, e| if measures[e] < measures[b] { e } else { b });
    assert_eq!(kept(&best), (lowest, measures[lowest]), "{best}");
    assert_ne!(lowest, 2, "this run's last epoch is not its best, or the test shows nothing: {best}");
    let record = std::fs::read_to_string(format!("{}.json", options.out)).unwrap();
    assert!(record.contains("\"keep\": \"best\""), "{record}");
    // Asked for the last: epoch 2 and its measure, in the log and in the record.
    let last = run(&Options { keep_last: true, ..options.clone() });
    let measures = epoch_values(&last, "measure ");
    assert_eq!(kept(&last), (2, measures[2]), "{last}");
    let record = std::fs::read_to_string(format!("{}.json", options.out)).unwrap();
    assert!(record.contains("\"keep\": \"last\""), "{record}");
    assert!(record.contains(&format!("\"kept\": {{\"epoch\": 2, \"measure\": {:.6}", measures[2])), "{record}");
    for f in [path.to_string_lossy().into_owned(), options.out.clone(), format!("{}.json", options.out)] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn training_fits_a_material_signal() {
    let path = std::env::temp_dir().join(format!("corvid-train-{}.txt", std::process::id()));
    let out = std::env::temp_dir().join(format!("corvid-train-{}.nnue", std::process::id()));
    let mut text = labelled_lines(24_000).join("\n");
    text.push_str("\nnot a line\n");
    std::fs::write(&path, text).unwrap();
    let options = Options {
        epochs: 12,
        batch: 64,
        lr: 0.002,
        lambda: 1.0,
        threads: 2,
        seed: 3,
        ..Options::new(vec![path.to_string_lossy().into_owned()], out.to_string_lossy().into_owned())
    };
    let log = run(&options);
    let losses = validation_losses(&log);
    assert!(log.contains("(1 lines skipped)"), "{log}");
    assert_eq!(losses.len(), 13, "{log}");
    assert!(losses[12] < losses[0] * 0.25, "{log}");
    // The file holds the epoch with the lowest measure.
    let measures = epoch_values(&log, "measure ");
    assert_eq!(measures.len(), 13, "{log}");
    let best = measures.iter().copied().fold(f64::MAX, f64::min);
    assert!(log.contains(&format!("(measure {best:.6}, validation")), "{log}");
    // Fresh positions (the walks go on past the training ones): a side a minor piece or more
    // ahead must be seen ahead.
    let net = Network::from_bytes(&std::fs::read(&out).unwrap()).unwrap();
    let (mut agree, mut total) = (0, 0);
    for line in labelled_lines(28_000).iter().skip(24_000) {
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        let score: i32 = fields[1].parse().unwrap();
        if score.abs() < 300 {
            continue;
        }
        let pos = Position::from_fen(fields[0]).unwrap();
        let white_view = net.evaluate(&net.refresh(&pos), pos.side_to_move(), bucket(&pos))
            * if pos.side_to_move() == Color::White { 1 } else { -1 };
        total += 1;
        agree += usize::from((white_view > 0) == (score > 0));
    }
    assert!(total > 100 && agree * 10 >= total * 9, "{agree} of {total} agree\n{log}");

    // Fine-tuning starts where the first run ended: the same held-out positions score as
    // they did after its best epoch (up to quantisation), not as random weights do.
    let tuned = std::env::temp_dir().join(format!("corvid-train-{}-tuned.nnue", std::process::id()));
    let again = Options {
        init: Some(options.out.clone()),
        out: tuned.to_string_lossy().into_owned(),
        epochs: 1,
        lr: 1e-6,
        ..options.clone()
    };
    let log = run(&again);
    let start = *epoch_values(&log, "measure ").first().unwrap_or_else(|| panic!("{log}"));
    assert!((start - best).abs() <= best * 0.1, "started at {start}, the best epoch had {best}\n{log}");
    // A step so large that every epoch is worse than the start: the starting network is
    // what comes out, byte for byte.
    let ruined = Options { lr: 5.0, epochs: 2, ..again.clone() };
    let log = run(&ruined);
    assert!(log.contains("network of epoch 0 "), "{log}");
    assert_eq!(std::fs::read(&tuned).unwrap(), std::fs::read(&out).unwrap(), "{log}");
    // Grown to twice the width, the network starts as the same function: the same loss.
    if HIDDEN <= 128 {
        let log = run(&Options { hidden: 2 * HIDDEN, epochs: 1, ..again.clone() });
        assert!(log.contains("widened from"), "{log}");
        assert_eq!(epoch_values(&log, "measure ")[0], start, "{log}");
    }
    // Bucketed without mirroring (four buckets by pairs of ranks), the plain network's
    // weights shared by every bucket: the same function, the same loss.
    let mut by_ranks = Layout::PLAIN;
    by_ranks.buckets.iter_mut().enumerate().for_each(|(sq, b)| *b = (sq / 16) as u8);
    let log = run(&Options { layout: by_ranks, epochs: 1, ..again.clone() });
    assert!(log.contains("the factoriser"), "{log}");
    assert!((epoch_values(&log, "measure ")[0] - start).abs() < 1e-6, "{log}");
    // So does the named unmirrored layout, which the trainer offers for warm starts.
    let log = run(&Options { layout: Layout::named("4u").unwrap(), epochs: 1, ..again.clone() });
    assert!((epoch_values(&log, "measure ")[0] - start).abs() < 1e-6, "{log}");
    // A bucketed network does not start a network of other buckets.
    let four = Options { layout: Layout::named("4").unwrap(), init: Some(options.out.clone()), ..again.clone() };
    train(&four, &mut Vec::new()).unwrap();
    let elsewhere = format!("{}.eight", again.out);
    let eight =
        Options { layout: Layout::named("8").unwrap(), init: Some(again.out.clone()), out: elsewhere, ..again.clone() };
    assert!(train(&eight, &mut Vec::new()).unwrap_err().contains("king buckets"));
    // Nor is the network it starts from its output.
    let onto_itself = Options { init: Some(again.out.clone()), ..again.clone() };
    assert!(train(&onto_itself, &mut Vec::new()).unwrap_err().contains("both an input"));
    let wrong_base = Options { base: Base::Psqt, ..again.clone() };
    let err = train(&wrong_base, &mut Vec::new()).unwrap_err();
    assert!(err.contains("base"), "{err}");
    let missing = Options { init: Some("/nonexistent/net.nnue".into()), ..again };
    assert!(train(&missing, &mut Vec::new()).is_err());
    let _ = std::fs::remove_file(&tuned);
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&out);
}

#[test]
fn the_record_names_the_store_by_its_folder_and_anything_else_as_local() {
    use super::record::{file_name, kept_at, STORE};
    for store in ["/work/shared/data/selfplay/t5-8aa23f6-s5001.vf.xz", "/mnt/x/shared/data/selfplay/a.vf"] {
        assert_eq!(kept_at(Path::new(store)), STORE, "{store}");
    }
    for local in ["/root/corvid-data/t8-8aa23f6-s8001.vf", "/data/selfplay/a.vf", "/shared/selfplay/a.vf", "a.vf"] {
        assert_eq!(kept_at(Path::new(local)), "local self-play, not kept", "{local}");
    }
    assert_eq!(file_name(Path::new("/root/corvid-data/dev/dev-8794ece-s6101.vf.xz")), "dev-8794ece-s6101.vf.xz");
    // The store as a checkout sees it, when it is there.
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join(STORE);
    if let Some(file) = std::fs::read_dir(&beside).ok().and_then(|mut d| d.find_map(|e| e.ok())) {
        assert_eq!(kept_at(&file.path()), STORE, "{}", file.path().display());
        // A copy of a store file elsewhere, decompressed (`xz -dc`, as the store's SOURCES.md
        // says): still the store's, when the trainer runs from the checkout as the tests do.
        let name = file.file_name().to_string_lossy().trim_end_matches(".xz").to_string();
        assert_eq!(kept_at(&Path::new("/root/corvid-data/store").join(&name)), STORE, "{name}");
    }
}

#[test]
fn weight_decay_shrinks_every_parameter_apart_from_the_gradients_step() {
    // AdamW's decay is decoupled: the weights shrink by lr * decay of themselves, and Adam's own
    // step (from the gradient's moments) is the same as without decay. Plain Adam (decay 0)
    // leaves a weight with no gradient where it is.
    let layout = Layout::PLAIN;
    let mut start = Params::zeros(16, layout);
    let mut grad = Params::zeros(16, layout);
    for (i, w) in
        start.fw.iter_mut().chain(start.fb.iter_mut()).chain(start.ow.iter_mut()).chain(start.ob.iter_mut()).enumerate()
    {
        *w = ((i % 13) as f32 - 6.0) * 0.05;
    }
    // A gradient on some weights only, as a batch touches only the inputs it holds.
    for (i, g) in grad.fw.iter_mut().enumerate().filter(|(i, _)| i % 7 == 0) {
        *g = ((i % 5) as f32 - 2.0) * 0.3;
    }
    grad.ob[3] = 0.7;
    let (lr, decay) = (0.01, 0.1);
    let fresh = || Adam { m: Params::zeros(16, layout), v: Params::zeros(16, layout), t: 0 };
    let (mut plain, mut decayed) = (start.clone(), start.clone());
    fresh().step(&mut plain, &grad, lr, 1.0, 0.0);
    fresh().step(&mut decayed, &grad, lr, 1.0, decay);
    let all = |p: &Params| [p.fw.clone(), p.fb.clone(), p.ow.clone(), p.ob.clone()].concat();
    let (w0, wp, wd, g) = (all(&start), all(&plain), all(&decayed), all(&grad));
    let mut moved = 0;
    for i in 0..w0.len() {
        let adam_step = wp[i] - w0[i];
        if g[i] == 0.0 {
            assert_eq!(adam_step, 0.0, "plain Adam moved parameter {i} with no gradient");
        } else {
            moved += 1;
            assert!(adam_step.abs() > 1e-3, "parameter {i} with a gradient did not move");
        }
        let expected = w0[i] * (1.0 - lr * decay) + adam_step;
        assert!((wd[i] - expected).abs() < 1e-6, "parameter {i}: {} against {expected}", wd[i]);
    }
    assert!(moved > 100);
}

#[test]
fn data_too_small_for_the_split_still_holds_out_one_game() {
    // A short run (OpenBench's DATAGEN of a hundred games, say) can have no game among one in
    // 50: then the game with the lowest tag is held out, by what it is, and the rest train.
    let dir = std::env::temp_dir().join(format!("corvid-small-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("small.vf");
    let games = random_games(6, 60, 31);
    write_games(&path, &games);
    let plain = Stream::new(vec![path.clone()], Base::None).unwrap();
    let mut rule_held = 0;
    let pass = plain.pass(|part, _| {
        rule_held += usize::from(part == Part::Valid);
        Ok(())
    });
    let pass = pass.unwrap();
    assert_eq!((rule_held, pass.units), (0, 6), "these games are the case: none falls out by the rule");
    // Held by its tag: one whole game, the same on every pass.
    let held = |stream: &Stream| {
        let mut valid = Vec::new();
        stream
            .run(|part, unit| {
                if part == Part::Valid {
                    valid.push(unit.len());
                }
                Ok(())
            })
            .unwrap();
        valid
    };
    let stream = Stream { hold: pass.lowest_tag, ..Stream::new(vec![path.clone()], Base::None).unwrap() };
    let one = held(&stream);
    assert_eq!(one.len(), 1);
    assert_eq!(held(&stream), one);
    assert!(games.iter().any(|g| game_data(&dir, g).len() == one[0]), "a whole game: {one:?}");
    // The trainer does that by itself, and says how many positions it held out.
    let out = dir.join("small.nnue");
    let options = Options {
        epochs: 1,
        batch: 32,
        ..Options::new(vec![path.to_string_lossy().into_owned()], out.to_string_lossy().into_owned())
    };
    let log = run(&options);
    assert!(log.contains(&format!("and {} held out", one[0])), "{log}");
    // One game cannot be both.
    let single = dir.join("single.vf");
    write_games(&single, &games[..1]);
    let err = train(&Options { inputs: vec![single.to_string_lossy().into_owned()], ..options }, &mut Vec::new())
        .unwrap_err();
    assert!(err.contains("must be held out and another trained on"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
