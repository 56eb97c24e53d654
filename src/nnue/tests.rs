use super::format;
use super::kernels::apply;
use super::*;
use crate::eval::tests::mirror_fen;
use crate::types::{PieceType, Square};

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    // Castling both ways for both sides, en passant, promotions with and without capture.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    // Chess960 castling with the rook next to the king.
    "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
];

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e:?}"))
}

#[test]
fn embedded_network_parses() {
    assert_eq!(EMBEDDED.len(), Network::FILE_SIZE);
    assert!(Network::from_bytes(EMBEDDED).is_ok());
}

#[test]
fn bad_network_files_are_refused() {
    assert!(Network::from_bytes(b"").is_err());
    assert!(Network::from_bytes(&EMBEDDED[..EMBEDDED.len() - 1]).is_err());
    let mut wrong_magic = EMBEDDED.to_vec();
    wrong_magic[0] = b'X';
    assert!(Network::from_bytes(&wrong_magic).is_err());
    let mut wrong_size = EMBEDDED.to_vec();
    wrong_size[8] ^= 1;
    assert!(Network::from_bytes(&wrong_size).err().is_some_and(|e| e.contains("hidden")));
}

#[test]
fn weights_that_could_overflow_are_refused_by_value() {
    let with = |at: usize, value: i16| {
        let mut bytes = EMBEDDED.to_vec();
        bytes[at..at + 2].copy_from_slice(&value.to_le_bytes());
        Network::from_bytes(&bytes)
    };
    let feature = 12 + 2 * (5 * HIDDEN + 3);
    let bias = 12 + 2 * (INPUTS * HIDDEN + 7);
    let output = 12 + 2 * (INPUTS * HIDDEN + HIDDEN + 2 * HIDDEN + 9);
    let max_f = MAX_FEATURE_WEIGHT as i16;
    let max_o = MAX_OUTPUT_WEIGHT as i16;
    // The limits themselves are accepted ...
    for (at, value) in [(feature, max_f), (feature, -max_f), (bias, max_f), (output, max_o), (output, -max_o)] {
        assert!(with(at, value).is_ok(), "{value} at {at}");
    }
    // ... one past them is refused, with the value and where it is.
    let e = with(feature, max_f + 1).err().unwrap();
    assert!(e.contains(&format!("feature weight {}", max_f + 1)) && e.contains("input 5, neuron 3"), "{e}");
    let e = with(bias, -max_f - 1).err().unwrap();
    assert!(e.contains(&format!("feature bias {}", -max_f - 1)) && e.contains("neuron 7"), "{e}");
    let e = with(output, max_o + 1).err().unwrap();
    assert!(e.contains(&format!("output weight {}", max_o + 1)) && e.contains("bucket 1, half 0, neuron 9"), "{e}");
    assert!(with(output, i16::MIN).is_err());
    // The limits keep the sums inside their integers.
    assert!(33 * MAX_FEATURE_WEIGHT <= i16::MAX as i32);
    assert!(QA * MAX_OUTPUT_WEIGHT <= i16::MAX as i32);
}

#[test]
fn features_are_distinct_and_mirror_between_perspectives() {
    let mut seen = vec![false; INPUTS];
    for color in Color::ALL {
        for piece in PieceType::ALL {
            for sq in Square::ALL {
                let f = feature(Color::White, color, piece, sq);
                assert!(!seen[f]);
                seen[f] = true;
                let mirrored = Square::ALL[sq.index() ^ 56];
                assert_eq!(feature(Color::Black, !color, piece, mirrored), f);
            }
        }
    }
}

/// Every move, null move and multi-move walk: the incremental accumulator equals a refresh.
/// Every legal move of `root`: the child's accumulator updated from the root's equals a refresh.
fn moves_update_as_they_refresh(net: &Network, root: &Position, label: &str) {
    let root_acc = net.refresh(root);
    for m in root.legal_moves() {
        let child = root.make_move(m);
        let mut acc = Accumulator::default();
        net.update(&root_acc, root, &child, &mut acc);
        assert!(acc.values == net.refresh(&child).values, "{label} {m:?}");
    }
}

#[test]
fn incremental_updates_match_a_refresh() {
    let net = network();
    let mut rng = crate::rng::Rng::new(0x1234_5678_9abc_def1);
    for fen in FENS {
        let root = pos(fen);
        let root_acc = net.refresh(&root);
        moves_update_as_they_refresh(net, &root, fen);
        // (A null move is never made in check: the search does not, and make.rs asserts it.)
        if !root.in_check() {
            let null = root.make_null_move();
            let mut acc = Accumulator::default();
            net.update(&root_acc, &root, &null, &mut acc);
            assert!(acc.values == root_acc.values);
        }
        // Boards further apart than a move (the update's general path).
        for other in FENS {
            let mut acc = Accumulator::default();
            net.update(&root_acc, &root, &pos(other), &mut acc);
            assert!(acc.values == net.refresh(&pos(other)).values, "{fen} -> {other}");
        }
        // Random walks through the stack, evaluating every other ply (lazy updates of two plies).
        for _ in 0..20 {
            let mut stack = AccumulatorStack::new(64);
            stack.reset(&root);
            let mut p = root;
            for ply in 1..40 {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                p = p.make_move(moves[rng.below(moves.len())]);
                stack.push(ply, &p);
                if ply % 2 == 0 {
                    assert_eq!(stack.evaluate(ply), evaluate(&p), "{fen} ply {ply}");
                }
            }
        }
    }
}

#[test]
fn evaluation_is_colour_symmetric() {
    for fen in FENS.iter().filter(|f| !f.contains("GBgb")) {
        assert_eq!(evaluate(&pos(fen)), evaluate(&pos(&mirror_fen(fen))), "{fen}");
        assert_eq!(evaluate_full(&pos(fen)), evaluate_full(&pos(&mirror_fen(fen))), "{fen}");
    }
}

#[test]
fn evaluation_sees_material() {
    // A queen up, either side to move: the network must know which side is winning.
    let white_up = pos("4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 w - - 0 1");
    let black_up = pos("4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 b - - 0 1");
    assert!(evaluate_full(&white_up) > 300, "{}", evaluate_full(&white_up));
    assert!(evaluate_full(&black_up) < -300, "{}", evaluate_full(&black_up));
}

#[test]
fn the_magic_names_the_base() {
    for base in Base::ALL {
        let mut bytes = EMBEDDED.to_vec();
        bytes[..8].copy_from_slice(&base.magic());
        assert_eq!(Network::from_bytes(&bytes).map(|n| n.base).ok(), Some(base));
    }
    // The same weights under each magic: the full evaluation is the network's output plus
    // what the magic names (nothing, the hand-crafted evaluation, or its material and piece
    // squares), read from the evaluation module itself.
    let under = |base: Base| {
        let mut bytes = EMBEDDED.to_vec();
        bytes[..8].copy_from_slice(&base.magic());
        Network::from_bytes(&bytes).unwrap()
    };
    for fen in FENS {
        let p = pos(fen);
        let alone = under(Base::None).evaluate_full(&p);
        assert_eq!(alone, network().evaluate_position(&p), "{fen}");
        assert_eq!(under(Base::Hce).evaluate_full(&p) - alone, crate::eval::evaluate(&p), "{fen}");
        assert_eq!(under(Base::Psqt).evaluate_full(&p) - alone, crate::eval::material_psqt(&p), "{fen}");
    }
    // Kings alone: no base and no network output count.
    assert_eq!(evaluate_full(&pos("8/8/4k3/8/8/3K4/8/8 w - - 0 1")), 0);
}

#[test]
fn the_vector_output_kernels_equal_the_scalar_one() {
    let mut rng = crate::rng::Rng::new(0xA5A5_5A5A);
    let lim = MAX_OUTPUT_WEIGHT as usize;
    let mut cases: Vec<([i16; HIDDEN], [i16; HIDDEN])> = Vec::new();
    // Extremes: every accumulator value below, inside and above the clamp; every weight limit.
    cases.push(([i16::MAX; HIDDEN], [MAX_OUTPUT_WEIGHT as i16; HIDDEN]));
    cases.push(([QA as i16; HIDDEN], [-(MAX_OUTPUT_WEIGHT as i16); HIDDEN]));
    cases.push(([i16::MIN; HIDDEN], [MAX_OUTPUT_WEIGHT as i16; HIDDEN]));
    for _ in 0..2_000 {
        let mut acc = [0i16; HIDDEN];
        let mut w = [0i16; HIDDEN];
        for i in 0..HIDDEN {
            acc[i] = (rng.next_u64() % 1200) as i16 - 400;
            w[i] = (rng.below(2 * lim + 1) as i32 - lim as i32) as i16;
        }
        cases.push((acc, w));
    }
    // The largest sum there is, exactly (no lane wraps): every neuron at the clamp's top with
    // the largest weight.
    let top = i64::from(QA) * i64::from(QA) * i64::from(MAX_OUTPUT_WEIGHT) * HIDDEN as i64;
    assert_eq!(screlu_dot(&[QA as i16; HIDDEN], &[MAX_OUTPUT_WEIGHT as i16; HIDDEN]), top);
    assert_eq!(screlu_dot(&[QA as i16; HIDDEN], &[-(MAX_OUTPUT_WEIGHT as i16); HIDDEN]), -top);
    for (acc, w) in &cases {
        let expected = screlu_dot_scalar(acc, w);
        assert_eq!(screlu_dot(acc, w), expected);
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: SSE2 is part of every x86-64 CPU.
            assert_eq!(unsafe { simd::screlu_dot_sse2(acc, w) }, expected);
            if simd::has_avx2() {
                // SAFETY: checked just above.
                assert_eq!(unsafe { simd::screlu_dot_avx2(acc, w) }, expected);
            }
        }
    }
}

#[test]
fn the_vector_update_kernel_equals_the_scalar_one() {
    let mut rng = crate::rng::Rng::new(0x5EED_0ACC);
    let mut row = || -> [i16; HIDDEN] {
        let mut r = [0i16; HIDDEN];
        // Whole i16 range: the sums wrap, and must wrap alike.
        r.iter_mut().for_each(|v| *v = rng.next_u64() as i16);
        r
    };
    for _ in 0..500 {
        let (parent, a0, a1, s0, s1) = (row(), row(), row(), row(), row());
        let mut expected = [[0i16; HIDDEN]; 3];
        apply_scalar(&parent, [&a0], [&s0], &mut expected[0]);
        apply_scalar(&parent, [&a0], [&s0, &s1], &mut expected[1]);
        apply_scalar(&parent, [&a0, &a1], [&s0, &s1], &mut expected[2]);
        // The scalar reference is the sum it says it is.
        for i in 0..HIDDEN {
            let sum = parent[i].wrapping_add(a0[i]).wrapping_add(a1[i]).wrapping_sub(s0[i]).wrapping_sub(s1[i]);
            assert_eq!(expected[2][i], sum);
        }
        let mut got = [[0i16; HIDDEN]; 3];
        apply(&parent, [&a0], [&s0], &mut got[0]);
        apply(&parent, [&a0], [&s0, &s1], &mut got[1]);
        apply(&parent, [&a0, &a1], [&s0, &s1], &mut got[2]);
        assert_eq!(got, expected);
        #[cfg(target_arch = "x86_64")]
        if simd::has_avx2() {
            let mut got = [[0i16; HIDDEN]; 3];
            // SAFETY: the CPU has AVX2 (checked just above).
            unsafe {
                simd::apply_avx2(&parent, [&a0], [&s0], &mut got[0]);
                simd::apply_avx2(&parent, [&a0], [&s0, &s1], &mut got[1]);
                simd::apply_avx2(&parent, [&a0, &a1], [&s0, &s1], &mut got[2]);
            }
            assert_eq!(got, expected);
        }
    }
}

/// A network of `layout` with random weights inside the limits, as its file.
fn random_network_bytes(layout: &Layout, seed: u64) -> Vec<u8> {
    let mut rng = crate::rng::Rng::new(seed);
    let mut bytes = Network::header(Base::None, HIDDEN, layout).to_bytes();
    let mut push = |max: i32| {
        let v = (rng.below(2 * max as usize + 1) as i32 - max) as i16;
        bytes.extend_from_slice(&v.to_le_bytes());
    };
    for _ in 0..(layout.count() * INPUTS + 1) * HIDDEN {
        push(MAX_FEATURE_WEIGHT / 3);
    }
    for _ in 0..OUTPUT_BUCKETS * 2 * HIDDEN {
        push(MAX_OUTPUT_WEIGHT);
    }
    for b in 0..OUTPUT_BUCKETS as i32 {
        bytes.extend_from_slice(&(b * 1000).to_le_bytes());
    }
    bytes
}

#[test]
fn king_bucketed_networks_update_as_they_refresh() {
    let mut rng = crate::rng::Rng::new(0x0B0C_4E75);
    for name in Layout::NAMES.into_iter().filter(|&name| name != "none") {
        let layout = Layout::named(name).unwrap();
        let bytes = random_network_bytes(&layout, 7);
        assert_eq!(bytes.len(), Network::file_size(&layout));
        assert_eq!(&bytes[..8], b"CRVDNET2");
        let net = Arc::new(Network::from_bytes(&bytes).unwrap());
        assert_eq!(net.layout, layout);
        let mut view_changes = 0;
        for fen in FENS {
            let root = pos(fen);
            moves_update_as_they_refresh(&net, &root, &format!("{name} {fen}"));
            // Walks through the stack and its refresh cache, evaluating at most plies.
            for _ in 0..30 {
                let mut stack = AccumulatorStack::new(128);
                stack.set_network(&net);
                stack.reset(&root);
                let mut p = root;
                for ply in 1..100 {
                    let moves = p.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let before = p;
                    p = p.make_move(moves[rng.below(moves.len())]);
                    for c in Color::ALL {
                        view_changes += usize::from(net.view(&before, c) != net.view(&p, c));
                    }
                    stack.push(ply, &p);
                    if ply % 3 != 0 {
                        assert_eq!(stack.evaluate(ply), net.evaluate_position(&p), "{name} {fen} ply {ply}");
                    }
                }
            }
        }
        assert!(view_changes > 100, "{name}: only {view_changes} kings changed view");
    }
}

#[test]
fn bad_king_bucket_headers_are_refused() {
    let layout = Layout::named("4").unwrap();
    let good = random_network_bytes(&layout, 3);
    assert!(Network::from_bytes(&good).is_ok());
    let with = |at: usize, value: u8| {
        let mut bytes = good.clone();
        bytes[at] = value;
        Network::from_bytes(&bytes).err().unwrap_or_default()
    };
    assert!(with(12 + 5, 40).contains("king buckets"), "more than 32 buckets");
    assert!(with(12 + 5, 9).contains("no square uses"), "a gap");
    assert!(with(12 + 64, 2).contains("mirror"), "mirror byte");
    assert!(with(12 + 66, 1).contains("padding"), "padding");
    // A bucket more than the weights: the size no longer fits.
    let mut more = layout;
    more.buckets[63] = 4;
    let mut bytes = good.clone();
    bytes[12..12 + 68].copy_from_slice(&Network::header(Base::None, HIDDEN, &more).to_bytes()[12..]);
    assert!(Network::from_bytes(&bytes).err().unwrap_or_default().contains("bytes"));
    // Version 2 without buckets is written as version 1.
    let mut plain = random_network_bytes(&Layout::PLAIN, 3);
    assert_eq!(&plain[..8], b"CRVDNET1");
    plain[7] = b'2';
    assert!(Network::from_bytes(&plain).is_err());
}

#[test]
fn every_listed_layout_name_is_a_different_layout() {
    // Help and errors list NAMES: each must name a layout of its own, `1` is `none`, and a name
    // that is not listed names none.
    let layouts: Vec<Layout> = Layout::NAMES.iter().map(|n| Layout::named(n).expect(n)).collect();
    for (i, a) in layouts.iter().enumerate() {
        for b in &layouts[i + 1..] {
            assert_ne!(a, b, "two names share a layout");
        }
    }
    assert_eq!(Layout::named("1"), Some(Layout::PLAIN));
    assert_eq!(Layout::named("none"), Some(Layout::PLAIN));
    for unknown in ["", "2", "5", "16", "4U", " 4", "mirrored", "None"] {
        assert_eq!(Layout::named(unknown), None, "'{unknown}'");
    }
}

#[test]
fn the_writer_writes_what_the_reader_reads() {
    let mut rng = crate::rng::Rng::new(0xF0F0_1234);
    let mut float = |spread: f32| (rng.next_u64() % 20_001) as f32 / 10_000.0 * spread - spread;
    for name in Layout::NAMES {
        let layout = Layout::named(name).unwrap();
        let header = Network::header(Base::Hce, HIDDEN, &layout);
        // Some values beyond what the format holds: the writer keeps them inside it.
        let fw: Vec<f32> = (0..layout.count() * INPUTS * HIDDEN).map(|_| float(5.0)).collect();
        let fb: Vec<f32> = (0..HIDDEN).map(|_| float(1.0)).collect();
        let ow: Vec<f32> = (0..OUTPUT_BUCKETS * 2 * HIDDEN).map(|_| float(3.0)).collect();
        let ob: Vec<f32> = (0..OUTPUT_BUCKETS).map(|_| float(1.0)).collect();
        let bytes = Network::quantised(&header, fw.iter().copied(), &fb, &ow, &ob);
        assert_eq!(bytes.len(), Network::file_size(&layout), "{name}");
        assert_eq!(format::check(&bytes), Ok(header), "{name}");
        let net = Network::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!((net.base, net.layout), (Base::Hce, layout));
        let q = |x: f32, scale: i32, max: i32| ((x * scale as f32).round() as i32).clamp(-max, max) as i16;
        for (row, weights) in net.feature_weights.iter().enumerate() {
            for (i, &w) in weights.iter().enumerate() {
                assert_eq!(w, q(fw[row * HIDDEN + i], QA, MAX_FEATURE_WEIGHT), "{name} row {row}");
            }
        }
        assert!(net.feature_bias.iter().zip(&fb).all(|(&b, &f)| b == q(f, QA, MAX_FEATURE_WEIGHT)));
        let outputs = net.output_weights.iter().flatten().flatten();
        assert!(outputs.zip(&ow).all(|(&w, &f)| w == q(f, QB, MAX_OUTPUT_WEIGHT)));
        assert!(net.output_bias.iter().zip(&ob).all(|(&b, &f)| b == (f * (QA * QB) as f32).round() as i32));
    }
}

#[test]
fn the_build_s_check_and_the_reader_agree() {
    // build.rs checks the embedded network with format::check; the engine reads with
    // Network::from_bytes. Files broken every way are refused by both, and good ones read by both.
    let good = EMBEDDED.to_vec();
    let weight_at = |i: usize| format::PLAIN_HEADER + 2 * i;
    let outputs = (INPUTS + 1) * HIDDEN;
    let mut broken: Vec<(&str, Vec<u8>)> = Vec::new();
    let mut with = |what, at: usize, value: &[u8]| {
        let mut bytes = good.clone();
        bytes[at..at + value.len()].copy_from_slice(value);
        broken.push((what, bytes));
    };
    with("magic", 0, b"CRVDXXX1");
    with("version", 7, b"3");
    with("hidden size", 8, &(HIDDEN as u32 + 16).to_le_bytes());
    with("no hidden neurons", 8, &0u32.to_le_bytes());
    with("feature weight", weight_at(5), &(MAX_FEATURE_WEIGHT as i16 + 1).to_le_bytes());
    with("feature bias", weight_at(INPUTS * HIDDEN + 3), &(-(MAX_FEATURE_WEIGHT as i16) - 1).to_le_bytes());
    with("output weight", weight_at(outputs + 7), &(MAX_OUTPUT_WEIGHT as i16 + 1).to_le_bytes());
    broken.push(("short", good[..good.len() - 1].to_vec()));
    broken.push(("long", [good.as_slice(), &[0]].concat()));
    broken.push(("empty", Vec::new()));
    broken.push(("header only", good[..12].to_vec()));
    for (what, bytes) in &broken {
        let (checked, read) = (format::check(bytes), Network::from_bytes(bytes));
        assert!(checked.is_err() && read.is_err(), "{what}: check {checked:?}, read {:?}", read.err());
    }
    assert!(format::check(&good).is_ok() && Network::from_bytes(&good).is_ok());
    // The limits themselves are allowed.
    let mut edge = good.clone();
    edge[weight_at(5)..weight_at(6)].copy_from_slice(&(MAX_FEATURE_WEIGHT as i16).to_le_bytes());
    edge[weight_at(outputs)..weight_at(outputs + 1)].copy_from_slice(&(-(MAX_OUTPUT_WEIGHT as i16)).to_le_bytes());
    assert!(format::check(&edge).is_ok() && Network::from_bytes(&edge).is_ok());
}
