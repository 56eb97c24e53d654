//! Evaluation weights: every tunable parameter as a `Score` (midgame, endgame), white's view.
//!
//! Written by the Texel tuner (`corvid tune`, see `src/tools/tune.rs`), which prints this whole
//! file back in the same format; the order and flat offsets of the parameters live in
//! `layout.rs`. Tables indexed by square are seen from White's side with a1 first; Black uses the
//! vertical mirror.

use super::score::{s, Score};

#[rustfmt::skip]
pub const MATERIAL: [Score; 6] = [
    s(  42,  122), s( 327,  507), s( 378,  508), s( 378,  838), s( 928, 1437), s(   0,    0),
];

#[rustfmt::skip]
pub const PAWN_PSQT: [Score; 64] = [
    s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0),
    s(   5,    0), s(  -4,   20), s(  -8,   24), s( -11,  -29), s( -13,   12), s(  21,    2), s(  45,  -16), s(  -8,  -13),
    s( -19,   -2), s( -22,   18), s( -39,   17), s( -46,    9), s( -41,    8), s(  -5,   -5), s(   6,  -12), s( -18,  -12),
    s(   6,    8), s(  -4,   18), s( -12,   -4), s( -27,    4), s(   4,  -18), s(  -3,    5), s(  26,  -17), s(   9,   -4),
    s(  16,   17), s(  19,    3), s(   0,    2), s(  15,  -20), s(  25,  -18), s(  11,  -17), s(  25,  -25), s(  20,   -4),
    s( -13,   49), s(  47,   34), s(  34,   29), s(  77,   27), s(  92,    8), s(  76,   39), s( -14,   48), s( -26,   71),
    s(  10,    5), s(  20,   25), s(  33,   75), s(  55,    6), s(  81,   16), s(  56,   56), s( -26,   26), s( -31,   21),
    s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0),
];

#[rustfmt::skip]
pub const KNIGHT_PSQT: [Score; 64] = [
    s( -34,  -44), s( -45,  -21), s( -60,   -4), s( -26,  -22), s( -34,    8), s( -27,  -28), s( -31,    3), s( -41,  -25),
    s( -48,   -3), s( -20,    7), s( -27,  -24), s( -19,   -3), s( -21,   -6), s(  17,  -33), s(   1,  -12), s( -25,  -12),
    s( -42,    4), s( -33,   -2), s( -15,  -18), s(   1,   11), s(  21,    2), s( -10,  -11), s(   5,  -19), s(   8,   12),
    s(   7,   -2), s(  27,   11), s(  21,   21), s(  30,    8), s(  27,   36), s(  48,    4), s(  53,   27), s(  26,    2),
    s( -40,   38), s(   1,   12), s(  35,   22), s(  54,   40), s(  35,   18), s(  41,   23), s(  28,   26), s(  24,   -3),
    s(   5,   13), s(  -5,   42), s(  52,   17), s(  84,   23), s(  86,   42), s(  48,   66), s(  79,   12), s(  92,    7),
    s( -11,   55), s(  18,   35), s(  28,   30), s(  43,   44), s(  63,   51), s(  20,   27), s(  16,   33), s(  74,   19),
    s(-106,   -7), s(   2,   23), s(   3,   40), s(   4,   10), s(  46,   55), s(  12,   17), s(   4,    6), s( -45,   10),
];

#[rustfmt::skip]
pub const BISHOP_PSQT: [Score; 64] = [
    s(   2,  -58), s(  47,  -37), s(   1,   -7), s(  -6,    6), s( -13,   -3), s( -22,   17), s( -20,   19), s( -70,  -35),
    s( -17,   -3), s( -31,  -18), s(  46,  -18), s(  -7,  -16), s(  -6,   -3), s( -14,  -17), s( -31,  -31), s( -14,  -23),
    s(  -1,   35), s(  18,   10), s( -60,    5), s(  10,   -1), s(   9,    7), s( -29,   -6), s(  10,   -1), s(  -1,   24),
    s(   5,   13), s(  19,   -1), s(  14,   35), s(  15,   24), s(  21,    9), s(  22,   11), s(   3,   16), s(  39,  -41),
    s( -16,   26), s(  24,    4), s(  26,   18), s(  34,   28), s(  24,   21), s(  86,   -5), s(  29,    9), s(  18,   -5),
    s(  17,   35), s(  -1,   17), s(   2,   33), s(  27,   20), s(  94,    0), s(   4,   34), s(  89,   14), s(  54,    1),
    s( -19,   58), s(  -4,   41), s(   7,   50), s(  -1,   42), s(  76,   34), s(  93,   34), s(  48,   -1), s(  -6,   23),
    s( -27,   49), s(  17,   45), s(  22,   28), s(  24,   35), s(  28,   29), s(  14,   10), s(   7,   27), s(  19,  -13),
];

#[rustfmt::skip]
pub const ROOK_PSQT: [Score; 64] = [
    s( -34,    8), s( -14,    4), s( -13,    2), s( -10,   -7), s(   2,  -24), s(   2,  -22), s(  13,  -15), s( -11,  -27),
    s( -38,   15), s( -19,   -3), s(  -6,   -7), s(  -6,  -17), s(  13,  -22), s(   6,  -16), s(  29,  -24), s(  -8,   -7),
    s( -36,   20), s( -27,   20), s( -18,   21), s( -14,    7), s(   9,   11), s(  -1,   46), s(  60,   -2), s(  18,    6),
    s(  16,   22), s(   6,   34), s( -15,   40), s(   9,   37), s(  40,   30), s(  29,   26), s(  79,    6), s(   8,   20),
    s(  33,   39), s(  39,   49), s(  46,   51), s(  70,   28), s(  91,   20), s(  51,   39), s( 148,   -1), s(  19,   31),
    s(  34,   40), s(  67,   46), s(  46,   39), s(  88,   17), s(  98,   35), s( 104,   30), s(  89,   40), s(  89,   33),
    s(  34,   28), s(  28,   42), s(  91,   16), s(  96,   -3), s(  98,   -4), s(  38,   45), s(  83,   33), s(  70,   25),
    s(  24,   53), s(  74,   49), s(   3,   67), s(  38,   39), s(  52,   32), s(  79,   27), s(  36,   46), s(  64,   33),
];

#[rustfmt::skip]
pub const QUEEN_PSQT: [Score; 64] = [
    s( -18,    5), s(  -2,  -12), s(   5,  -14), s(  -3,    0), s(  12,  -37), s( -24,  -19), s(  -6,  -51), s(  -6,  -15),
    s( -43,    1), s(  -3,  -17), s(  -2,  -27), s(   9,  -33), s(   9,  -24), s(   4,  -48), s(  -8,  -77), s( -21,  -35),
    s( -38,   -4), s( -28,   37), s(  -4,   -1), s(  -5,    6), s(  -3,    3), s(  17,  -15), s(  22,   -7), s(  14,    7),
    s( -21,    5), s( -10,    5), s( -20,   42), s( -44,   87), s(  11,   23), s(   7,   38), s(  45,   18), s(  35,   28),
    s( -30,   43), s( -33,   77), s( -14,   71), s(   8,   40), s(   9,   91), s(  -8,   98), s(  43,   69), s(  28,   43),
    s(  -8,   23), s( -28,   46), s( -15,   85), s(  38,   43), s(  31,   86), s(  28,   71), s(  65,   77), s(  20,   62),
    s( -44,   55), s( -57,   64), s( -18,   55), s(  22,   59), s(  34,   58), s(  27,   34), s(  17,   49), s(  60,   12),
    s( -21,   13), s(  16,   18), s(  11,    4), s(  16,   35), s(  34,    8), s(  21,   30), s(  38,   31), s(  18,   31),
];

#[rustfmt::skip]
pub const KING_PSQT: [Score; 64] = [
    s( -27,  -37), s(   2,  -43), s(  -3,  -37), s( -81,  -33), s( -37,  -57), s( -94,  -34), s( -38,  -60), s( -22, -102),
    s(  29,  -25), s(   1,  -18), s(  10,  -50), s( -28,  -40), s( -40,  -36), s( -59,  -24), s( -33,  -31), s( -14,  -48),
    s( -52,   -3), s(   3,  -29), s( -19,  -22), s( -71,   -6), s( -51,  -11), s( -43,  -15), s( -15,  -28), s( -20,  -48),
    s( -44,   17), s( -18,    5), s( -70,   21), s( -18,    4), s( -21,    1), s(  21,  -13), s(   0,  -30), s( -68,   -7),
    s( -61,    3), s( -68,   18), s( -28,   40), s( -43,   33), s( -24,   17), s( -63,   20), s(  10,    1), s( -91,  -16),
    s( -47,   32), s( -43,   52), s( -35,   29), s( -32,   30), s( -34,   32), s( -26,   51), s( -35,   42), s(  -3,   12),
    s( -59,  -18), s( -58,   27), s( -47,   28), s( -48,    0), s( -47,   -4), s( -47,   43), s( -63,   30), s( -48,    1),
    s( -74,  -85), s( -52,   14), s( -63,  -26), s( -57,   -2), s( -35,    0), s( -52,   -2), s( -62,    1), s( -67,  -43),
];

#[rustfmt::skip]
pub const KNIGHT_MOBILITY: [Score; 9] = [
    s( -36, -126), s( -30,  -72), s( -15,  -21), s(  -6,   -9), s(   1,   11), s(   7,   19), s(  16,   24), s(  27,   13),
    s(  24,   10),
];

#[rustfmt::skip]
pub const BISHOP_MOBILITY: [Score; 14] = [
    s( -44,  -66), s( -25,  -54), s( -13,  -23), s(  -8,   -5), s(   0,    5), s(   3,   19), s(  10,   24), s(  21,   22),
    s(  20,   32), s(  25,   30), s(  49,   20), s(  63,   15), s(  43,   26), s(  56,    1),
];

#[rustfmt::skip]
pub const ROOK_MOBILITY: [Score; 15] = [
    s( -20,  -84), s( -15,  -46), s( -11,  -24), s(  -4,  -23), s(  -8,    1), s(  -4,    6), s(   6,    3), s(   4,   14),
    s(   8,   20), s(   9,   31), s(  12,   35), s(  13,   40), s(  24,   42), s(  21,   41), s(  44,   17),
];

#[rustfmt::skip]
pub const QUEEN_MOBILITY: [Score; 28] = [
    s(  -1,  -47), s(   8,  -69), s( -15,  -60), s(  -9,  -64), s(  -6,  -36), s(  -9,    4), s(  -5,  -12), s(  -1,  -12),
    s(  -1,   -6), s(   7,   -3), s(   0,   12), s(   4,   17), s(   0,   36), s(   0,   33), s(   0,   51), s(   5,   56),
    s(  14,   38), s(  21,   35), s(  26,   28), s(  36,   15), s(  13,    1), s(  20,    3), s(  47,    5), s(  32,  -12),
    s(  14,   -9), s(  15,    2), s(  18,    1), s(  18,    2),
];

#[rustfmt::skip]
pub const DOUBLED: Score = s( -11,  -13);

#[rustfmt::skip]
pub const ISOLATED: Score = s(   7,  -14);

#[rustfmt::skip]
pub const BACKWARD: Score = s( -12,   -7);

#[rustfmt::skip]
pub const PASSED: [Score; 8] = [
    s(   0,    0), s(  15,   61), s( -55,   56), s( -14,   69), s(  17,   79), s(  92,   20), s( 138,  161), s(   0,    0),
];

#[rustfmt::skip]
pub const PASSED_FREE: [Score; 8] = [
    s(   0,    0), s(  11,    2), s(  -7,   -4), s( -30,    6), s(  -5,   10), s(   0,    9), s(  73,   40), s(   0,    0),
];

#[rustfmt::skip]
pub const PASSED_OWN_KING: [Score; 8] = [
    s(   0,    0), s(  -3,   -3), s(   3,  -11), s(   1,  -18), s(  -4,  -18), s( -23,  -10), s( -15,  -15), s(   0,    0),
];

#[rustfmt::skip]
pub const PASSED_THEIR_KING: [Score; 8] = [
    s(   0,    0), s(  -6,   -3), s(   2,    1), s(   2,   11), s(   3,   22), s(  22,   29), s(  12,   23), s(   0,    0),
];

#[rustfmt::skip]
pub const PASSED_SAFE_STOP: [Score; 8] = [
    s(   0,    0), s(  12,   -1), s(  17,   11), s(  -1,   13), s(   2,   23), s(  10,   37), s(   7,   27), s(   0,    0),
];

#[rustfmt::skip]
pub const PHALANX: [Score; 8] = [
    s(   0,    0), s(  -5,   -4), s(  17,   -5), s(  20,   13), s(  33,   51), s( 108,   99), s(  62,   75), s(   0,    0),
];

#[rustfmt::skip]
pub const SUPPORTED: [Score; 8] = [
    s(   0,    0), s(   0,    0), s(  21,   10), s(  24,    3), s(  15,   16), s(  -3,   64), s(  61,   58), s(   0,    0),
];

#[rustfmt::skip]
pub const BISHOP_PAIR: Score = s(  27,   56);

#[rustfmt::skip]
pub const ROOK_OPEN_FILE: Score = s(  35,    2);

#[rustfmt::skip]
pub const ROOK_SEMI_OPEN_FILE: Score = s(  25,    8);

#[rustfmt::skip]
pub const ROOK_ON_SEVENTH: Score = s( -26,   36);

#[rustfmt::skip]
pub const KING_ATTACK: [Score; 40] = [
    s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(  41,   37), s(  72,  -14), s(  59,  -27),
    s(  41,   -9), s(  28,   -5), s(  47,   -4), s(  50,   -9), s(  74,    6), s(  85,   37), s( 138,   21), s( 148,   22),
    s( 125,   35), s( 151,   34), s( 127,   26), s( 127,   26), s( 127,   26), s( 127,   26), s( 127,   26), s( 127,   26),
    s( 127,   26), s( 127,   26), s( 127,   26), s( 127,   26), s( 127,   26), s( 127,   26), s( 127,   26), s( 127,   26),
    s( 127,   26), s( 127,   26), s( 127,   26), s( 127,   26), s( 127,   26), s( 127,   26), s( 127,   26), s( 127,   26),
];

#[rustfmt::skip]
pub const KING_SHIELD: [Score; 8] = [
    s( -44,    8), s(   9,   -5), s(  -3,   -1), s( -13,   -2), s( -29,    7), s( -11,   13), s(  83,  -25), s(   0,    0),
];

#[rustfmt::skip]
pub const KING_STORM: [Score; 8] = [
    s(   0,    0), s(  26,   89), s( -61,   10), s( -23,    6), s(   1,    1), s(  16,   -2), s(  16,   -8), s(   0,    0),
];

#[rustfmt::skip]
pub const THREAT_BY_PAWN: [Score; 6] = [
    s(   0,    0), s(  57,   33), s(  38,   34), s(  72,   30), s(  50,   -8), s(   0,    0),
];

#[rustfmt::skip]
pub const THREAT_BY_MINOR: [Score; 6] = [
    s( -16,   16), s(  26,   28), s(  34,    4), s(  65,    7), s(  31,   35), s(   0,    0),
];

#[rustfmt::skip]
pub const THREAT_BY_ROOK: [Score; 6] = [
    s( -27,   13), s(  -1,   28), s(   8,    5), s( -30,  -17), s(  42,   20), s(   0,    0),
];

#[rustfmt::skip]
pub const HANGING: [Score; 6] = [
    s(   1,   39), s(  15,   15), s(  12,   18), s(  -4,   26), s(   2,  -16), s(   0,    0),
];

#[rustfmt::skip]
pub const SAFE_CHECK: [Score; 6] = [
    s(   0,    0), s(  45,  -11), s(  24,   15), s(  39,    1), s(  34,   16), s(   0,    0),
];

#[rustfmt::skip]
pub const KING_ZONE_WEAK: Score = s(  12,   -2);

#[rustfmt::skip]
pub const KING_OPEN_FILE: [Score; 2] = [
    s( -10,    8), s( -48,   -6),
];

#[rustfmt::skip]
pub const OUTPOST: [Score; 2] = [
    s(  22,   14), s(  28,   19),
];

#[rustfmt::skip]
pub const BISHOP_PAWNS: Score = s( -10,   -8);

#[rustfmt::skip]
pub const MINOR_BEHIND_PAWN: Score = s(  15,   27);

#[rustfmt::skip]
pub const THREAT_PAWN_PUSH: Score = s(  20,   21);

#[rustfmt::skip]
pub const KING_PROTECTOR: [Score; 2] = [
    s(  -3,   -6), s(  -6,   -2),
];

#[rustfmt::skip]
pub const LONG_DIAGONAL: Score = s(  47,   10);

#[rustfmt::skip]
pub const PAWNLESS_FLANK: Score = s(   1,  -52);

#[rustfmt::skip]
pub const SPACE: Score = s(   6,   -1);

#[rustfmt::skip]
pub const TEMPO: Score = s(  12,    4);
