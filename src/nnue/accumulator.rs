//! The hidden layer: accumulators, their incremental updates, the refresh cache of king
//! buckets and the stack along the search path.

use std::sync::Arc;

use super::kernels::{add, apply, sub};
use super::layout::{bucket, View};
use super::{embedded, Base, Network, HIDDEN, INPUTS};
use crate::position::Position;
use crate::types::{Color, PieceType, Square};

/// One accumulator per perspective (`[Color::index()]`): the hidden layer before activation.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub struct Accumulator {
    pub values: [[i16; HIDDEN]; 2],
}

impl Default for Accumulator {
    fn default() -> Accumulator {
        Accumulator { values: [[0; HIDDEN]; 2] }
    }
}

impl Network {
    /// The view of `perspective` in `pos`.
    #[inline(always)]
    pub fn view(&self, pos: &Position, perspective: Color) -> View {
        if self.plain {
            return View::plain(perspective);
        }
        self.layout.view(perspective, pos.king(perspective))
    }

    /// The accumulator of `pos` computed from scratch.
    pub fn refresh(&self, pos: &Position) -> Accumulator {
        let mut acc = Accumulator::default();
        for perspective in Color::ALL {
            self.refresh_one(pos, perspective, &mut acc.values[perspective.index()]);
        }
        acc
    }

    /// One perspective's half of [`Network::refresh`].
    fn refresh_one(&self, pos: &Position, perspective: Color, out: &mut [i16; HIDDEN]) {
        let view = self.view(pos, perspective);
        *out = self.feature_bias;
        for color in Color::ALL {
            for piece in PieceType::ALL {
                for sq in pos.colored_pieces(color, piece) {
                    add(out, &self.feature_weights[view.index(color, piece, sq)]);
                }
            }
        }
    }

    /// The accumulator of `after` from `parent`, the accumulator of `before`: only the pieces
    /// that differ between the two boards are applied (two to four for a move, none for a null
    /// move), in one pass over each perspective's values for the usual shapes of a move. A
    /// perspective whose king moved into another bucket or across the mirror is computed
    /// again: from `cache` where there is one, else from scratch.
    pub fn update(&self, parent: &Accumulator, before: &Position, after: &Position, out: &mut Accumulator) {
        self.update_cached(parent, before, after, out, None)
    }

    /// [`Network::update`] with a refresh cache.
    #[inline]
    pub fn update_cached(
        &self,
        parent: &Accumulator,
        before: &Position,
        after: &Position,
        out: &mut Accumulator,
        mut cache: Option<&mut RefreshCache>,
    ) {
        let views = [self.view(after, Color::White), self.view(after, Color::Black)];
        let mut stale = [false; 2];
        if !self.plain {
            for perspective in Color::ALL {
                let p = perspective.index();
                if self.view(before, perspective) != views[p] {
                    stale[p] = true;
                    match cache.as_deref_mut() {
                        Some(cache) => cache.refresh(self, after, perspective, views[p], &mut out.values[p]),
                        None => self.refresh_one(after, perspective, &mut out.values[p]),
                    }
                }
            }
            if stale == [true, true] {
                return;
            }
        }
        // (colour, piece, square) of what left and what arrived: at most two each for a move.
        let mut removed = [(Color::White, PieceType::Pawn, Square::A1); 2];
        let mut added = removed;
        let (mut n_removed, mut n_added) = (0, 0);
        for color in Color::ALL {
            for piece in PieceType::ALL {
                let (old, new) = (before.colored_pieces(color, piece), after.colored_pieces(color, piece));
                let changed = old.0 ^ new.0;
                if changed == 0 {
                    continue;
                }
                for sq in crate::types::Bitboard(old.0 & changed) {
                    if n_removed == 2 {
                        return self.update_slow(parent, before, after, out, stale);
                    }
                    removed[n_removed] = (color, piece, sq);
                    n_removed += 1;
                }
                for sq in crate::types::Bitboard(new.0 & changed) {
                    if n_added == 2 {
                        return self.update_slow(parent, before, after, out, stale);
                    }
                    added[n_added] = (color, piece, sq);
                    n_added += 1;
                }
            }
        }
        for perspective in Color::ALL {
            let p = perspective.index();
            if stale[p] {
                continue;
            }
            let view = views[p];
            let row = |&(c, pt, sq): &(Color, PieceType, Square)| &self.feature_weights[view.index(c, pt, sq)];
            let (parent, out) = (&parent.values[p], &mut out.values[p]);
            match (n_added, n_removed) {
                (1, 1) => apply::<1, 1>(parent, [row(&added[0])], [row(&removed[0])], out),
                (1, 2) => apply::<1, 2>(parent, [row(&added[0])], [row(&removed[0]), row(&removed[1])], out),
                (2, 2) => {
                    apply::<2, 2>(parent, [row(&added[0]), row(&added[1])], [row(&removed[0]), row(&removed[1])], out)
                }
                _ => {
                    *out = *parent;
                    added[..n_added].iter().for_each(|f| add(out, row(f)));
                    removed[..n_removed].iter().for_each(|f| sub(out, row(f)));
                }
            }
        }
    }

    /// [`Network::update`] for boards that differ by more than a move: every change applied in
    /// place, one at a time, to the perspectives not `stale` (already computed).
    #[cold]
    fn update_slow(
        &self,
        parent: &Accumulator,
        before: &Position,
        after: &Position,
        out: &mut Accumulator,
        stale: [bool; 2],
    ) {
        for perspective in Color::ALL {
            let p = perspective.index();
            if stale[p] {
                continue;
            }
            let view = self.view(after, perspective);
            let values = &mut out.values[p];
            *values = parent.values[p];
            for color in Color::ALL {
                for piece in PieceType::ALL {
                    let (old, new) = (before.colored_pieces(color, piece), after.colored_pieces(color, piece));
                    let changed = old.0 ^ new.0;
                    for sq in crate::types::Bitboard(old.0 & changed) {
                        sub(values, &self.feature_weights[view.index(color, piece, sq)]);
                    }
                    for sq in crate::types::Bitboard(new.0 & changed) {
                        add(values, &self.feature_weights[view.index(color, piece, sq)]);
                    }
                }
            }
        }
    }
}

/// The refresh cache of king-bucketed networks (a "Finny table"): for each perspective and
/// each view of it (bucket and mirror), the accumulator of the board last computed there and
/// that board's pieces. A king that moves into another view costs the pieces that differ from
/// the last board seen in that view, usually a few, instead of all of them.
pub struct RefreshCache {
    /// `[perspective][bucket * 2 + mirrored]`.
    entries: [Vec<CacheEntry>; 2],
}

#[derive(Clone, Copy)]
pub(super) struct CacheEntry {
    values: [i16; HIDDEN],
    /// `[colour][piece type]`: the board `values` stand for.
    pieces: [[u64; 6]; 2],
}

impl RefreshCache {
    /// An empty cache for `net`: every entry the empty board (the bias alone).
    pub fn new(net: &Network) -> RefreshCache {
        let entry = CacheEntry { values: net.feature_bias, pieces: [[0; 6]; 2] };
        let n = if net.plain { 0 } else { 2 * net.layout.count() };
        RefreshCache { entries: [vec![entry; n], vec![entry; n]] }
    }

    /// Writes `perspective`'s half of the accumulator of `pos` (whose view is `view`) to `out`,
    /// from the entry of that view, and brings the entry up to `pos`.
    fn refresh(&mut self, net: &Network, pos: &Position, perspective: Color, view: View, out: &mut [i16; HIDDEN]) {
        let slot = view.offset as usize / INPUTS * 2 + usize::from(view.flip & 7 != 0);
        let entry = &mut self.entries[perspective.index()][slot];
        for color in Color::ALL {
            for piece in PieceType::ALL {
                let (old, new) = (entry.pieces[color.index()][piece.index()], pos.colored_pieces(color, piece).0);
                for sq in crate::types::Bitboard(old & !new) {
                    sub(&mut entry.values, &net.feature_weights[view.index(color, piece, sq)]);
                }
                for sq in crate::types::Bitboard(new & !old) {
                    add(&mut entry.values, &net.feature_weights[view.index(color, piece, sq)]);
                }
                entry.pieces[color.index()][piece.index()] = new;
            }
        }
        *out = entry.values;
    }
}

/// The accumulators along the search path, one entry per ply, computed lazily: [`push`] records
/// the position entered at a ply, and [`evaluate`] brings the accumulators up to date from the
/// nearest computed ply below (nodes cut before their evaluation never pay for an update).
///
/// Invariant: an entry marked computed holds the accumulator of its position; every push clears
/// the mark of its ply, so a computed entry below the current ply is one of the current path.
///
/// [`push`]: AccumulatorStack::push
/// [`evaluate`]: AccumulatorStack::evaluate
pub struct AccumulatorStack {
    net: Arc<Network>,
    entries: Vec<StackEntry>,
    /// For king-bucketed networks (empty otherwise).
    cache: RefreshCache,
}

#[derive(Clone, Copy)]
struct StackEntry {
    acc: Accumulator,
    pos: Position,
    computed: bool,
}

impl AccumulatorStack {
    /// A stack for `plies` plies over the embedded network.
    pub fn new(plies: usize) -> AccumulatorStack {
        let entry = StackEntry { acc: Accumulator::default(), pos: Position::startpos(), computed: false };
        let net = Arc::clone(embedded());
        AccumulatorStack { cache: RefreshCache::new(&net), net, entries: vec![entry; plies.max(1)] }
    }

    /// Evaluates with `net` from the next [`AccumulatorStack::reset`] on.
    pub fn set_network(&mut self, net: &Arc<Network>) {
        if !Arc::ptr_eq(&self.net, net) {
            self.net = Arc::clone(net);
            self.cache = RefreshCache::new(net);
        }
    }

    /// Starts a search at `root` (ply 0), computing its accumulator from scratch.
    pub fn reset(&mut self, root: &Position) {
        let acc = self.net.refresh(root);
        self.entries[0] = StackEntry { acc, pos: *root, computed: true };
    }

    /// Records `pos` as the position at `ply` (at least 1).
    #[inline(always)]
    pub fn push(&mut self, ply: usize, pos: &Position) {
        let entry = &mut self.entries[ply];
        entry.pos = pos.duplicate();
        entry.computed = false;
    }

    /// The network's evaluation of the position at `ply`, for its side to move.
    #[inline]
    pub fn evaluate(&mut self, ply: usize) -> i32 {
        let mut base = ply;
        while !self.entries[base].computed {
            base -= 1;
        }
        for k in base + 1..=ply {
            let (below, above) = self.entries.split_at_mut(k);
            let (parent, entry) = (&below[k - 1], &mut above[0]);
            self.net.update_cached(&parent.acc, &parent.pos, &entry.pos, &mut entry.acc, Some(&mut self.cache));
            entry.computed = true;
        }
        let entry = &self.entries[ply];
        self.net.evaluate(&entry.acc, entry.pos.side_to_move(), bucket(&entry.pos))
    }

    /// What the network's output is added to.
    #[inline(always)]
    pub fn base(&self) -> Base {
        self.net.base
    }

    /// The network it evaluates with.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// The position recorded at `ply`.
    pub fn position(&self, ply: usize) -> &Position {
        &self.entries[ply].pos
    }
}
