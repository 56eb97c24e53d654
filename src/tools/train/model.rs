//! The float network the trainer fits: its forward and backward passes, the optimiser, the loss,
//! and quantisation into the engine's file.

use super::data::{sigmoid, Data, Sample, WDL_SCALE};
use crate::nnue::{Base, Layout, Network, HIDDEN, INPUTS, OUTPUT_BUCKETS, QA, QB, SCALE, WEIGHT_CLIP};
use crate::rng::Rng;
use crate::types::Color;

/// The float network.
#[derive(Clone)]
pub(super) struct Params {
    pub(super) hidden: usize,
    pub(super) layout: Layout,
    /// `INPUTS x buckets x hidden`, row per input; with king buckets, `INPUTS` more rows after
    /// them, the factoriser: a piece on a square has the same weights in every bucket, plus the
    /// bucket's own. What all buckets share is learnt from all positions, so bucketed networks
    /// train as fast as plain ones at first; the file holds the sums.
    pub(super) fw: Vec<f32>,
    pub(super) fb: Vec<f32>,
    /// `OUTPUT_BUCKETS x 2 x hidden`: per bucket, side to move, then the other side.
    pub(super) ow: Vec<f32>,
    pub(super) ob: Vec<f32>,
}

impl Params {
    pub(super) fn zeros(hidden: usize, layout: Layout) -> Params {
        Params {
            hidden,
            layout,
            fw: vec![0.0; Params::rows(&layout) * hidden],
            fb: vec![0.0; hidden],
            ow: vec![0.0; OUTPUT_BUCKETS * 2 * hidden],
            ob: vec![0.0; OUTPUT_BUCKETS],
        }
    }

    /// Feature rows: `INPUTS` a bucket, and the factoriser's where there are buckets.
    pub(super) fn rows(layout: &Layout) -> usize {
        INPUTS * (layout.count() + usize::from(layout.count() > 1))
    }

    /// The factoriser's row of input `index` (in bucket terms), where there is one.
    #[inline(always)]
    pub(super) fn factor(&self, index: usize) -> Option<usize> {
        let count = self.layout.count();
        (count > 1).then(|| count * INPUTS + index % INPUTS)
    }

    /// Random weights; with a factoriser, the buckets' own rows start at zero (the network
    /// starts as a plain one and the buckets learn what differs).
    pub(super) fn random(seed: u64, hidden: usize, layout: Layout) -> Params {
        let mut rng = Rng::new(seed | 1);
        let mut next = move |scale: f32| rng.signed_unit() * scale;
        let mut p = Params::zeros(hidden, layout);
        let fs = 1.0 / (INPUTS as f32).sqrt();
        let own = if layout.count() > 1 { layout.count() * INPUTS * hidden } else { 0 };
        p.fw[own..].iter_mut().for_each(|w| *w = next(fs));
        let os = 1.0 / ((2 * hidden) as f32).sqrt();
        p.ow.iter_mut().for_each(|w| *w = next(os));
        p
    }

    /// The float weights a quantised network stands for: training goes on from where the run
    /// that wrote it stopped, up to the rounding of its quantisation.
    pub(super) fn dequantised(net: &Network) -> Params {
        let mut p = Params::zeros(HIDDEN, net.layout);
        let (qa, qb) = (QA as f32, QB as f32);
        for (row, out) in net.feature_weights.iter().zip(p.fw.chunks_exact_mut(HIDDEN)) {
            out.iter_mut().zip(row).for_each(|(w, &q)| *w = f32::from(q) / qa);
        }
        p.fb.iter_mut().zip(&net.feature_bias).for_each(|(w, &q)| *w = f32::from(q) / qa);
        let output = net.output_weights.iter().flatten().flatten();
        p.ow.iter_mut().zip(output).for_each(|(w, &q)| *w = f32::from(q) / qb);
        p.ob.iter_mut().zip(&net.output_bias).for_each(|(b, &q)| *b = q as f32 / (qa * qb));
        p
    }

    /// `self` with `hidden` neurons, the new ones with small random feature weights and zero
    /// output weights: the same function, and room to learn more (a 128-wide network grown to
    /// 256 starts where it was).
    pub(super) fn widened(&self, hidden: usize, seed: u64) -> Params {
        let old = self.hidden;
        let fresh = Params::random(seed, hidden, self.layout);
        let mut p = Params::zeros(hidden, self.layout);
        for (input, row) in p.fw.chunks_exact_mut(hidden).enumerate() {
            row[..old].copy_from_slice(&self.fw[input * old..(input + 1) * old]);
            row[old..].copy_from_slice(&fresh.fw[input * hidden + old..(input + 1) * hidden]);
        }
        p.fb[..old].copy_from_slice(&self.fb);
        for (halves, old_halves) in p.ow.chunks_exact_mut(hidden).zip(self.ow.chunks_exact(old)) {
            halves[..old].copy_from_slice(old_halves);
        }
        p.ob.copy_from_slice(&self.ob);
        p
    }

    /// A plain network's weights as the shared weights (the factoriser) of a network of
    /// `layout`, the buckets' own rows zero: without mirroring the same function, with it the
    /// same knowledge seen from the mirrored side where the king is on files e-h.
    pub(super) fn bucketed(&self, layout: Layout) -> Params {
        let mut p = Params::zeros(self.hidden, layout);
        let own = INPUTS * layout.count() * self.hidden;
        p.fw[own..].copy_from_slice(&self.fw);
        p.fb.copy_from_slice(&self.fb);
        p.ow.copy_from_slice(&self.ow);
        p.ob.copy_from_slice(&self.ob);
        p
    }

    pub(super) fn add(&mut self, other: &Params) {
        let pairs = [
            (&mut self.fw, &other.fw),
            (&mut self.fb, &other.fb),
            (&mut self.ow, &other.ow),
            (&mut self.ob, &other.ob),
        ];
        for (a, b) in pairs {
            a.iter_mut().zip(b.iter()).for_each(|(x, y)| *x += y);
        }
    }

    pub(super) fn clear(&mut self) {
        for v in [&mut self.fw, &mut self.fb, &mut self.ow, &mut self.ob] {
            v.iter_mut().for_each(|x| *x = 0.0);
        }
    }
}

/// The float network's output for the pieces `feats` (see [`push_features`]) with `stm` to
/// move and the kings on `kings`; leaves both accumulators (side to move first) in `hidden`.
pub(super) fn forward(p: &Params, feats: &[u16], stm: Color, kings: [u8; 2], bucket: usize, hidden: &mut [f32]) -> f32 {
    let h = p.hidden;
    let (us, them) = hidden.split_at_mut(h);
    us.copy_from_slice(&p.fb);
    them.copy_from_slice(&p.fb);
    let (vu, vt) = views(p, stm, kings);
    for &f in feats {
        let (a, b) = (vu.index_of_code(f as usize), vt.index_of_code(f as usize));
        let (ra, rb) = (&p.fw[a * h..(a + 1) * h], &p.fw[b * h..(b + 1) * h]);
        us.iter_mut().zip(ra).for_each(|(x, w)| *x += w);
        them.iter_mut().zip(rb).for_each(|(x, w)| *x += w);
        if let (Some(fa), Some(fb)) = (p.factor(a), p.factor(b)) {
            let (ra, rb) = (&p.fw[fa * h..(fa + 1) * h], &p.fw[fb * h..(fb + 1) * h]);
            us.iter_mut().zip(ra).for_each(|(x, w)| *x += w);
            them.iter_mut().zip(rb).for_each(|(x, w)| *x += w);
        }
    }
    let mut out = p.ob[bucket];
    for (x, w) in hidden.iter().zip(&p.ow[bucket * 2 * h..(bucket + 1) * 2 * h]) {
        let c = x.clamp(0.0, 1.0);
        out += c * c * w;
    }
    out
}

/// The views of the side to move and of the other side.
pub(super) fn views(p: &Params, stm: Color, kings: [u8; 2]) -> (crate::nnue::View, crate::nnue::View) {
    (p.layout.view_at(stm, kings[stm.index()] as usize), p.layout.view_at(!stm, kings[(!stm).index()] as usize))
}

/// The network's output for `s` as a win probability (the base's value added); leaves the
/// accumulators in `hidden` as [`forward`] does.
fn prediction(p: &Params, data: &Data, s: &Sample, hidden: &mut [f32]) -> f32 {
    let out = forward(p, data.features_of(s), s.stm, s.kings, s.bucket as usize, hidden) + s.base;
    sigmoid(out * SCALE as f32 / WDL_SCALE)
}

/// Forward and (with `grad`) backward pass of one sample, its target blended by `lambda`;
/// returns its squared error.
pub(super) fn step_sample(
    p: &Params,
    data: &Data,
    s: &Sample,
    lambda: f32,
    grad: Option<&mut Params>,
    hidden: &mut [f32],
) -> f32 {
    let h = p.hidden;
    let feats = data.features_of(s);
    let b = s.bucket as usize;
    let stretch = SCALE as f32 / WDL_SCALE;
    let pred = prediction(p, data, s, hidden);
    let err = pred - s.target(lambda);
    let Some(g) = grad else { return err * err };
    let d_out = 2.0 * err * pred * (1.0 - pred) * stretch;
    g.ob[b] += d_out;
    // d hidden, reusing `hidden` after the output gradient is taken.
    let bucket_weights = b * 2 * h..(b + 1) * 2 * h;
    for ((x, w), gw) in hidden.iter_mut().zip(&p.ow[bucket_weights.clone()]).zip(g.ow[bucket_weights].iter_mut()) {
        let c = x.clamp(0.0, 1.0);
        *gw += d_out * c * c;
        *x = if *x > 0.0 && *x < 1.0 { d_out * w * 2.0 * c } else { 0.0 };
    }
    let (dus, dthem) = hidden.split_at(h);
    g.fb.iter_mut().zip(dus.iter().zip(dthem)).for_each(|(gb, (x, y))| *gb += x + y);
    let (vu, vt) = views(p, s.stm, s.kings);
    for &f in feats {
        let (a, b) = (vu.index_of_code(f as usize), vt.index_of_code(f as usize));
        g.fw[a * h..(a + 1) * h].iter_mut().zip(dus).for_each(|(gw, d)| *gw += d);
        g.fw[b * h..(b + 1) * h].iter_mut().zip(dthem).for_each(|(gw, d)| *gw += d);
        if let (Some(fa), Some(fb)) = (p.factor(a), p.factor(b)) {
            g.fw[fa * h..(fa + 1) * h].iter_mut().zip(dus).for_each(|(gw, d)| *gw += d);
            g.fw[fb * h..(fb + 1) * h].iter_mut().zip(dthem).for_each(|(gw, d)| *gw += d);
        }
    }
    err * err
}

pub(super) struct Adam {
    pub(super) m: Params,
    pub(super) v: Params,
    pub(super) t: i32,
}

impl Adam {
    /// One step of Adam on the gradient `g` (scaled by `scale`), with decoupled weight decay
    /// (AdamW) when `decay` is above 0: every weight and bias first shrinks by `lr * decay` of
    /// itself, apart from the gradient's moments, then takes Adam's step.
    pub(super) fn step(&mut self, p: &mut Params, g: &Params, lr: f32, scale: f32, decay: f32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        self.t += 1;
        let c1 = 1.0 - B1.powi(self.t);
        let c2 = 1.0 - B2.powi(self.t);
        let shrink = 1.0 - lr * decay;
        let update = |w: &mut f32, g: f32, m: &mut f32, v: &mut f32| {
            let g = g * scale;
            *m = B1 * *m + (1.0 - B1) * g;
            *v = B2 * *v + (1.0 - B2) * g * g;
            *w = *w * shrink - lr * (*m / c1) / ((*v / c2).sqrt() + 1e-8);
            *w = w.clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
        };
        let groups = [
            (&mut p.fw, &g.fw, &mut self.m.fw, &mut self.v.fw),
            (&mut p.fb, &g.fb, &mut self.m.fb, &mut self.v.fb),
            (&mut p.ow, &g.ow, &mut self.m.ow, &mut self.v.ow),
            (&mut p.ob, &g.ob, &mut self.m.ob, &mut self.v.ob),
        ];
        for (w, g, m, v) in groups {
            for i in 0..w.len() {
                update(&mut w[i], g[i], &mut m[i], &mut v[i]);
            }
        }
    }
}

/// The mean loss over every sample of `data` with the targets of each of `lambdas` (the search
/// score's weight), over `threads` threads, from one forward pass a sample.
pub(super) fn mean_losses<const N: usize>(p: &Params, data: &Data, lambdas: [f32; N], threads: usize) -> [f64; N] {
    let chunk = data.len().div_ceil(threads.max(1)).max(1);
    let totals: [f64; N] = std::thread::scope(|s| {
        let handles: Vec<_> = data
            .samples
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut hidden = vec![0.0; 2 * p.hidden];
                    let mut sums = [0.0f64; N];
                    for sample in part {
                        let pred = prediction(p, data, sample, &mut hidden);
                        for (sum, &lambda) in sums.iter_mut().zip(&lambdas) {
                            let err = pred - sample.target(lambda);
                            *sum += f64::from(err * err);
                        }
                    }
                    sums
                })
            })
            .collect();
        handles.into_iter().fold([0.0; N], |mut all, h| {
            let part = h.join().unwrap_or([0.0; N]);
            all.iter_mut().zip(part).for_each(|(a, b)| *a += b);
            all
        })
    });
    totals.map(|t| t / data.len().max(1) as f64)
}

/// The quantised network file of `p`: each bucket's row plus the factoriser's, kept inside
/// the clip each is trained within, written by the engine's own writer.
pub(super) fn quantise(p: &Params, base: Base) -> Vec<u8> {
    let h = p.hidden;
    let header = Network::header(base, h, &p.layout);
    let features = p.fw.chunks_exact(h).take(INPUTS * p.layout.count()).enumerate().flat_map(|(row, weights)| {
        let shared = p.factor(row).map(|f| &p.fw[f * h..(f + 1) * h]);
        weights
            .iter()
            .enumerate()
            .map(move |(i, &w)| (w + shared.map_or(0.0, |s| s[i])).clamp(-WEIGHT_CLIP, WEIGHT_CLIP))
    });
    Network::quantised(&header, features, &p.fb, &p.ow, &p.ob)
}
