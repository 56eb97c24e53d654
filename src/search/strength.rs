//! Playing strength below the full one (`UCI_LimitStrength` with `UCI_Elo`, `corvid play --elo`).
//!
//! A level is a weaker *search*, not a strong search spoiled by random blunders: it looks at few
//! positions (a node budget, from 50 a move at the bottom of the scale to 150,000 at 2,500) and it
//! misjudges them (every static evaluation is off by a pseudo-random error, the same for the
//! same position all game long, larger the lower the level). A low level therefore sees one or
//! two moves ahead and values positions roughly, and misses what lies deeper, as a beginner
//! does; it still takes a queen left hanging in front of it. The error comes from the position's
//! key and a seed chosen for each game, so the engine does not play the same game twice.
//!
//! The scale is Stockfish's own `UCI_Elo` at 8+0.08: the levels below were fitted by matches
//! against Stockfish 15.1 at the same `UCI_Elo` (see `docs/strength.md`). Node budgets make a
//! level the same at every time control (a clock only ever shortens the search).

/// The lowest level.
pub const MIN_ELO: u32 = 1000;
/// The top of the scale: full strength, nothing held back. On the scale's own terms (Stockfish
/// 15.1's `UCI_Elo` at 8+0.08) the full engine measured about 2,520 to 2,545 there.
pub const MAX_ELO: u32 = 2600;

/// Levels between which the others are interpolated: Elo, node budget (interpolated on a log
/// scale), evaluation error's amplitude in centipawns. 1,500, 2,000 and 2,500 were fitted by
/// matches against Stockfish 15.1 at the same `UCI_Elo` (`docs/strength.md`, refitted on
/// 2026-11-27 for the search of issues 34 and 45); 1,000 lies below Stockfish's lowest level
/// (1,320) and is extrapolated.
const ANCHORS: [(u32, f64, f64); 5] = [
    (MIN_ELO, 50.0, 180.0),
    (1500, 600.0, 110.0),
    (2000, 8_000.0, 40.0),
    (2500, 150_000.0, 8.0),
    (MAX_ELO, 2_400_000.0, 0.0),
];

/// What a level takes away from the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Weakness {
    /// The most nodes a move may search (`None`: no node limit).
    pub nodes: Option<u64>,
    /// The largest error added to a static evaluation (centipawns, 0: none).
    pub noise: i32,
    /// Chooses the errors: the same seed gives the same error to the same position.
    pub seed: u64,
}

impl Weakness {
    /// The weakness of level `elo` (clamped to the scale), its errors drawn from `seed`.
    /// [`MAX_ELO`] and above: none.
    pub fn at(elo: u32, seed: u64) -> Weakness {
        let elo = elo.clamp(MIN_ELO, MAX_ELO);
        if elo >= MAX_ELO {
            return Weakness::default();
        }
        let i = ANCHORS.windows(2).position(|w| elo < w[1].0).unwrap_or(ANCHORS.len() - 2);
        let ((lo, lo_nodes, lo_noise), (hi, hi_nodes, hi_noise)) = (ANCHORS[i], ANCHORS[i + 1]);
        let t = (elo - lo) as f64 / (hi - lo) as f64;
        let nodes = (lo_nodes.ln() + t * (hi_nodes.ln() - lo_nodes.ln())).exp();
        let noise = lo_noise + t * (hi_noise - lo_noise);
        Weakness { nodes: Some(nodes.round() as u64), noise: noise.round() as i32, seed }
    }

    /// The error this weakness adds to the evaluation of the position with `key`: from
    /// `-noise` to `noise`, more often small than large (the sum of two uniform draws).
    #[inline]
    pub fn error(&self, key: u64) -> i32 {
        if self.noise == 0 {
            return 0;
        }
        let h = mix(key ^ self.seed);
        let span = self.noise as u64 + 1;
        ((h & 0xffff_ffff) % span + (h >> 32) % span) as i32 - self.noise
    }
}

/// A 64-bit finaliser (SplitMix64's): every bit of the key moves every bit of the result.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_grow_with_elo_and_the_top_is_full_strength() {
        let mut last = Weakness::at(MIN_ELO, 1);
        assert!(last.nodes.is_some() && last.noise > 0);
        for elo in (MIN_ELO + 50..MAX_ELO).step_by(50) {
            let w = Weakness::at(elo, 1);
            assert!(w.nodes > last.nodes && w.noise <= last.noise, "{elo}: {w:?} after {last:?}");
            last = w;
        }
        // The fitted levels are what the table says.
        assert_eq!(Weakness::at(1500, 1), Weakness { nodes: Some(600), noise: 110, seed: 1 });
        assert_eq!(Weakness::at(2000, 1), Weakness { nodes: Some(8_000), noise: 40, seed: 1 });
        assert_eq!(Weakness::at(2500, 1), Weakness { nodes: Some(150_000), noise: 8, seed: 1 });
        assert_eq!(Weakness::at(1750, 1).nodes, Some(2191), "halfway, on a log scale");
        assert_eq!(Weakness::at(MAX_ELO, 1), Weakness::default());
        assert_eq!(Weakness::at(5000, 1), Weakness::default());
        assert_eq!(Weakness::at(0, 1), Weakness::at(MIN_ELO, 1));
    }

    #[test]
    fn errors_are_bounded_fixed_per_position_and_vary_with_the_seed() {
        let w = Weakness::at(1500, 7);
        let mut sum = 0i64;
        let mut seen_high = false;
        for key in 0..20_000u64 {
            let key = mix(key);
            let e = w.error(key);
            assert!(e.abs() <= w.noise);
            assert_eq!(e, w.error(key), "the same position, the same error");
            seen_high |= e.abs() > w.noise / 2;
            sum += e as i64;
        }
        assert!(seen_high);
        assert!((sum / 20_000).abs() < 5, "centred on zero: mean {}", sum / 20_000);
        let other = Weakness { seed: 8, ..w };
        assert!((0..100u64).filter(|&k| w.error(k) != other.error(k)).count() > 90);
        assert_eq!(Weakness::default().error(12345), 0);
    }
}
