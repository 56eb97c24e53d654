//! The inner loops: the accumulator update and the output layer's dot product, with the
//! scalar references and the x86-64 vector kernels.

use super::{HIDDEN, QA};

/// The kernel the network's inner loops run on this CPU: `avx2` (compiled in, or found at run
/// time), `sse2`, `simd128` (WebAssembly built with SIMD, as `make web` does), or `scalar`.
pub fn kernel() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if cfg!(target_feature = "avx2") || simd::has_avx2() {
            "avx2"
        } else {
            "sse2"
        }
    }
    #[cfg(all(target_family = "wasm", target_feature = "simd128"))]
    {
        "simd128"
    }
    #[cfg(not(any(target_arch = "x86_64", all(target_family = "wasm", target_feature = "simd128"))))]
    {
        "scalar"
    }
}

/// `out = parent + adds - subs`, lane by lane, in one pass that reads the parent once and
/// writes `out` once (wrapping: the final values fit, see [`MAX_FEATURE_WEIGHT`]). A build for
/// the CPU (`make`) lets the compiler vectorise the loop as widely as the CPU allows; a portable
/// build (SSE2 only) takes the AVX2 kernel where the CPU has it (found at run time, once).
#[inline(always)]
pub(super) fn apply<const A: usize, const S: usize>(
    parent: &[i16; HIDDEN],
    adds: [&[i16; HIDDEN]; A],
    subs: [&[i16; HIDDEN]; S],
    out: &mut [i16; HIDDEN],
) {
    #[cfg(all(target_arch = "x86_64", not(target_feature = "avx2")))]
    if simd::has_avx2() {
        // SAFETY: `has_avx2` found AVX2 on this CPU.
        return unsafe { simd::apply_avx2(parent, adds, subs, out) };
    }
    apply_scalar(parent, adds, subs, out)
}

/// `apply` lane by lane: the reference the AVX2 kernel is tested against (and, vectorised by
/// the compiler, the kernel of builds for the CPU).
#[inline(always)]
pub fn apply_scalar<const A: usize, const S: usize>(
    parent: &[i16; HIDDEN],
    adds: [&[i16; HIDDEN]; A],
    subs: [&[i16; HIDDEN]; S],
    out: &mut [i16; HIDDEN],
) {
    for i in 0..HIDDEN {
        let mut v = parent[i];
        for row in adds {
            v = v.wrapping_add(row[i]);
        }
        for row in subs {
            v = v.wrapping_sub(row[i]);
        }
        out[i] = v;
    }
}

#[inline(always)]
pub(super) fn add(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (a, w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_add(*w);
    }
}

#[inline(always)]
pub(super) fn sub(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (a, w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_sub(*w);
    }
}

/// `sum(clamp(a, 0, QA)^2 * w)`: `clamp(a) * w` fits `i16` (weights are at most
/// [`MAX_OUTPUT_WEIGHT`], checked on load), each vector lane's sum fits `i32` (a lane adds up
/// at most a quarter of the neurons: [`super::format::MAX_LANE_SUM`]) and the lanes are added
/// in `i64`, where a whole perspective of up to [`super::format::MAX_HIDDEN`] neurons fits.
/// With AVX2 (found at run time, once) 16 lanes at a time, else 8 with SSE2 (every x86-64), else
/// the scalar loop; all three give the same sum.
#[inline(always)]
pub(super) fn screlu_dot(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i64 {
    #[cfg(target_arch = "x86_64")]
    {
        // A build for AVX2 knows it; a portable one asks the CPU.
        if cfg!(target_feature = "avx2") || simd::has_avx2() {
            // SAFETY: the CPU has AVX2 (the build targets it, or `has_avx2` found it).
            return unsafe { simd::screlu_dot_avx2(acc, weights) };
        }
        // SAFETY: SSE2 is part of every x86-64 CPU.
        unsafe { simd::screlu_dot_sse2(acc, weights) }
    }
    #[cfg(all(target_family = "wasm", target_feature = "simd128"))]
    return wasm_simd::screlu_dot_simd128(acc, weights);
    #[cfg(not(any(target_arch = "x86_64", all(target_family = "wasm", target_feature = "simd128"))))]
    screlu_dot_scalar(acc, weights)
}

/// `screlu_dot` one lane at a time: the reference the vector versions are tested against.
#[inline(always)]
pub fn screlu_dot_scalar(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i64 {
    let mut sum = 0i64;
    for (&a, &w) in acc.iter().zip(weights) {
        let v = a.clamp(0, QA as i16);
        sum += i64::from(i32::from(v.wrapping_mul(w)) * i32::from(v));
    }
    sum
}

/// The output layer's vector kernels (x86-64): clamp to `0..=QA`, multiply by the weight in
/// 16 bits, multiply by the clamped value again and add pairs into 32 bits (`madd`), as the
/// scalar loop does lane by lane.
#[cfg(target_arch = "x86_64")]
pub mod simd {
    use super::{HIDDEN, QA};
    use std::arch::x86_64::*;
    use std::sync::atomic::{AtomicU8, Ordering};

    /// 0: not yet known; 1: no AVX2; 2: AVX2.
    static AVX2: AtomicU8 = AtomicU8::new(0);

    /// Whether this CPU has AVX2 (asked once).
    #[inline(always)]
    pub fn has_avx2() -> bool {
        match AVX2.load(Ordering::Relaxed) {
            0 => {
                let has = std::arch::is_x86_feature_detected!("avx2");
                AVX2.store(if has { 2 } else { 1 }, Ordering::Relaxed);
                has
            }
            known => known == 2,
        }
    }

    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn screlu_dot_avx2(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i64 {
        const _: () = assert!(HIDDEN % 16 == 0);
        let (zero, top) = (_mm256_setzero_si256(), _mm256_set1_epi16(QA as i16));
        let mut sum = _mm256_setzero_si256();
        for i in (0..HIDDEN).step_by(16) {
            // SAFETY: `i + 16 <= HIDDEN`, so both 32-byte loads are inside the arrays
            // (unaligned loads).
            let (a, w) = unsafe {
                (_mm256_loadu_si256(acc.as_ptr().add(i).cast()), _mm256_loadu_si256(weights.as_ptr().add(i).cast()))
            };
            let v = _mm256_min_epi16(_mm256_max_epi16(a, zero), top);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_mullo_epi16(v, w), v));
        }
        // Each half's lane adds up an eighth of the neurons, so the halves' sum (a quarter)
        // still fits its lane (`MAX_LANE_SUM`).
        let half = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256::<1>(sum));
        horizontal_sum(half)
    }

    /// `out = parent + adds - subs` (wrapping), 16 lanes at a time: the accumulator update of
    /// `super::apply`.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn apply_avx2<const A: usize, const S: usize>(
        parent: &[i16; HIDDEN],
        adds: [&[i16; HIDDEN]; A],
        subs: [&[i16; HIDDEN]; S],
        out: &mut [i16; HIDDEN],
    ) {
        for i in (0..HIDDEN).step_by(16) {
            // SAFETY: `i + 16 <= HIDDEN` (a multiple of 16), so every 32-byte load and the
            // store are inside their arrays (unaligned accesses).
            unsafe {
                let mut v = _mm256_loadu_si256(parent.as_ptr().add(i).cast());
                for row in adds {
                    v = _mm256_add_epi16(v, _mm256_loadu_si256(row.as_ptr().add(i).cast()));
                }
                for row in subs {
                    v = _mm256_sub_epi16(v, _mm256_loadu_si256(row.as_ptr().add(i).cast()));
                }
                _mm256_storeu_si256(out.as_mut_ptr().add(i).cast(), v);
            }
        }
    }

    /// # Safety
    /// The CPU must have SSE2 (every x86-64 CPU does).
    #[target_feature(enable = "sse2")]
    pub unsafe fn screlu_dot_sse2(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i64 {
        const _: () = assert!(HIDDEN % 8 == 0);
        let (zero, top) = (_mm_setzero_si128(), _mm_set1_epi16(QA as i16));
        let mut sum = _mm_setzero_si128();
        for i in (0..HIDDEN).step_by(8) {
            // SAFETY: `i + 8 <= HIDDEN`, so both 16-byte loads are inside the arrays.
            let (a, w) = unsafe {
                (_mm_loadu_si128(acc.as_ptr().add(i).cast()), _mm_loadu_si128(weights.as_ptr().add(i).cast()))
            };
            let v = _mm_min_epi16(_mm_max_epi16(a, zero), top);
            sum = _mm_add_epi32(sum, _mm_madd_epi16(_mm_mullo_epi16(v, w), v));
        }
        horizontal_sum(sum)
    }

    /// The sum of four 32-bit lanes, in 64 bits.
    #[inline(always)]
    fn horizontal_sum(v: __m128i) -> i64 {
        let mut lanes = [0i32; 4];
        // SAFETY: `lanes` is 16 bytes, the size of the store.
        unsafe { _mm_storeu_si128(lanes.as_mut_ptr().cast(), v) };
        lanes.iter().map(|&x| i64::from(x)).sum()
    }
}

/// The output layer's kernel in WebAssembly SIMD (every current browser has it; `make web`
/// builds with it): 8 lanes at a time, as the SSE2 kernel, with the same sum. The accumulator
/// update is the scalar loop, which the compiler vectorises with SIMD on.
#[cfg(all(target_family = "wasm", target_feature = "simd128"))]
mod wasm_simd {
    use super::{HIDDEN, QA};
    use core::arch::wasm32::*;

    pub fn screlu_dot_simd128(acc: &[i16; HIDDEN], weights: &[i16; HIDDEN]) -> i64 {
        const _: () = assert!(HIDDEN % 8 == 0);
        let (zero, top) = (i16x8_splat(0), i16x8_splat(QA as i16));
        let mut sum = i32x4_splat(0);
        for i in (0..HIDDEN).step_by(8) {
            // SAFETY: `i + 8 <= HIDDEN`, so both 16-byte loads are inside the arrays (WebAssembly
            // loads need no alignment).
            let (a, w) = unsafe { (v128_load(acc.as_ptr().add(i).cast()), v128_load(weights.as_ptr().add(i).cast())) };
            let v = i16x8_min(i16x8_max(a, zero), top);
            sum = i32x4_add(sum, i32x4_dot_i16x8(i16x8_mul(v, w), v));
        }
        i64::from(i32x4_extract_lane::<0>(sum))
            + i64::from(i32x4_extract_lane::<1>(sum))
            + i64::from(i32x4_extract_lane::<2>(sum))
            + i64::from(i32x4_extract_lane::<3>(sum))
    }
}
