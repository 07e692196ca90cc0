//! The element-wise parts of the int8 encoder (quantising rows, scaling sums back, softmax,
//! GELU, layer norm), written as plain loops the compiler vectorises. Each is compiled twice:
//! for the baseline CPU and for AVX-512 (chosen at run time), since the crate is built for
//! the baseline and these loops are a third of the encoder's time.

/// Defines `pub fn $name(args)` running `$body` compiled for AVX-512 when the CPU has it.
macro_rules! multiversion {
    ($(#[$meta:meta])* pub fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        $(#[$meta])*
        pub fn $name($($arg: $ty),*) {
            #[inline(always)]
            fn body($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,fma")]
                fn wide($($arg: $ty),*) {
                    body($($arg),*)
                }
                if avx512() {
                    // SAFETY: the CPU has the features `wide` is compiled for.
                    return unsafe { wide($($arg),*) };
                }
            }
            body($($arg),*)
        }
    };
}

#[cfg(target_arch = "x86_64")]
fn avx512() -> bool {
    use std::sync::OnceLock;
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
    })
}

/// Reductions in 16 lanes: strict floating point keeps a single running sum (or maximum)
/// scalar; sixteen independent ones vectorise.
const LANES: usize = 16;

/// Folds `step` over `x` in [`LANES`] running values, then joins them with `join`.
#[inline(always)]
fn reduce(
    x: &[f32],
    init: f32,
    step: impl Fn(f32, f32) -> f32,
    join: impl Fn(f32, f32) -> f32,
) -> f32 {
    let mut acc = [init; LANES];
    let mut chunks = x.chunks_exact(LANES);
    for c in &mut chunks {
        for (a, &v) in acc.iter_mut().zip(c) {
            *a = step(*a, v);
        }
    }
    let tail = chunks.remainder().iter().fold(init, |a, &v| step(a, v));
    acc.iter().fold(tail, |a, &v| join(a, v))
}

#[inline(always)]
fn larger(a: f32, b: f32) -> f32 {
    if b > a {
        b
    } else {
        a
    }
}

#[inline(always)]
fn smaller(a: f32, b: f32) -> f32 {
    if b < a {
        b
    } else {
        a
    }
}

#[inline(always)]
fn sum(x: &[f32]) -> f32 {
    reduce(x, 0.0, |a, v| a + v, |a, b| a + b)
}

#[inline(always)]
fn max(x: &[f32]) -> f32 {
    reduce(x, f32::NEG_INFINITY, larger, larger)
}

#[inline(always)]
fn min(x: &[f32]) -> f32 {
    reduce(x, f32::INFINITY, smaller, smaller)
}

/// `e^x` for `x ≤ 88`, relative error below 2e-7 (Cephes' `expf`), in operations that
/// vectorise; `x` below -87 gives `e^-87` (about 1.6e-38).
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    // NaN becomes -87 (the comparisons are false for it), so n below is always finite.
    let x = smaller(larger(-87.0, x), 88.0);
    // x = n ln2 + r, |r| ≤ ln2 / 2
    let n = (x * std::f32::consts::LOG2_E + 0.5).floor();
    let r = x - n * 0.693_359_4 + n * 2.121_944_4e-4;
    let p = 1.987_569_1e-4;
    let p = p * r + 1.398_199_9e-3;
    let p = p * r + 8.333_452e-3;
    let p = p * r + 4.166_579_6e-2;
    let p = p * r + 1.666_666_5e-1;
    let p = p * r + 0.5;
    let e = p * r * r + r + 1.0;
    // SAFETY: n is an integer in [-126, 127], so the conversion is exact (and, unlike `as`,
    // it vectorises).
    let n: i32 = unsafe { n.to_int_unchecked() };
    e * f32::from_bits(((n + 127) as u32) << 23)
}

/// The error function (Abramowitz and Stegun 7.1.26, absolute error below 1.5e-7).
#[inline(always)]
pub fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_7 + t * (-1.453_152_1 + t * 1.061_405_4))));
    let y = 1.0 - poly * exp(-a * a);
    y.copysign(x)
}

multiversion! {
    /// GELU with the error function, BERT's `"gelu"`: `x · (1 + erf(x / √2)) / 2`, in place.
    pub fn gelu(x: &mut [f32]) {
        for v in x.iter_mut() {
            *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2));
        }
    }
}

multiversion! {
    /// Softmax of each `n`-value row of `x`, in place.
    pub fn softmax_rows(x: &mut [f32], n: usize) {
        for r in x.chunks_exact_mut(n) {
            let top = max(r);
            for v in r.iter_mut() {
                *v = exp(*v - top);
            }
            let inv = 1.0 / sum(r);
            r.iter_mut().for_each(|v| *v *= inv);
        }
    }
}

multiversion! {
    /// Layer norm of each row of `x` (rows as long as `weight`), in place.
    pub fn layer_norm(x: &mut [f32], weight: &[f32], bias: &[f32], eps: f32) {
        let h = weight.len();
        for row in x.chunks_exact_mut(h) {
            let mean = sum(row) / h as f32;
            let var = reduce(row, 0.0, |a, v| a + (v - mean) * (v - mean), |a, b| a + b) / h as f32;
            let inv = 1.0 / (var + eps).sqrt();
            for ((v, w), b) in row.iter_mut().zip(weight).zip(bias) {
                *v = (*v - mean) * inv * w + b;
            }
        }
    }
}

multiversion! {
    /// `acc += x`, element by element.
    pub fn add_into(acc: &mut [f32], x: &[f32]) {
        for (a, b) in acc.iter_mut().zip(x) {
            *a += b;
        }
    }
}

multiversion! {
    /// One row to `u8` with a zero point: `x ≈ scale · (q − zero)`; the range includes 0.
    /// Writes `q` and returns through `out` the scale and the zero point.
    pub fn quantise_row(x: &[f32], q: &mut [u8], out: &mut (f32, i32)) {
        let lo = min(x).min(0.0);
        let hi = max(x).max(0.0);
        // The weights are checked finite at load, so activations are too; were one not, the
        // row would come out wrong (NaN is skipped by the range and quantised to 0), not
        // crash.
        let s = if hi > lo && (hi - lo).is_finite() { (hi - lo) / 255.0 } else { 1.0 };
        let zero = (-lo / s + 0.5).floor().clamp(0.0, 255.0);
        let inv = 1.0 / s;
        // + 0.5 then truncation: rounds the non-negative values to nearest.
        for (q, &v) in q.iter_mut().zip(x) {
            let t = smaller(larger(0.0, v * inv + zero + 0.5), 255.0);
            // SAFETY: t is in [0, 255] (NaN became 0 above), so the conversion is exact
            // (and, unlike `as`, it vectorises).
            *q = unsafe { t.to_int_unchecked::<i32>() } as u8;
        }
        *out = (s, zero as i32);
    }
}

multiversion! {
    /// Scale integer sums back: `y[j] = sa · sw[j] · (acc[j] − za · sum_w[j]) + b[j]`.
    pub fn dequantise(
        y: &mut [f32],
        acc: &[i32],
        sa: f32,
        za: i32,
        sw: &[f32],
        sum_w: &[i32],
        b: &[f32],
    ) {
        for ((((o, &a), &s), &z), &bias) in y.iter_mut().zip(acc).zip(sw).zip(sum_w).zip(b) {
            *o = sa * s * (a - za * z) as f32 + bias;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_and_erf_are_accurate() {
        for i in -2000..=800 {
            let x = i as f32 / 10.0;
            let (got, want) = (exp(x), (x as f64).exp());
            let rel = ((got as f64 - want) / want.max(1e-30)).abs();
            assert!(x < -87.0 || rel < 5e-7, "exp({x}) = {got}, want {want}");
        }
        assert!(exp(-1000.0) < 1e-37);
        // erf(0.5) = 0.5204998778, erf(-1.5) = -0.9661051465
        assert!((erf(0.5) - 0.520_499_9).abs() < 1e-6);
        assert!((erf(-1.5) + 0.966_105_1).abs() < 1e-6);
        assert!(erf(0.0).abs() < 1e-6);
    }

    #[test]
    fn softmax_gelu_norm() {
        let mut r = [1.0, 2.0, 3.0, 0.0, 0.0, 0.0];
        softmax_rows(&mut r, 3);
        assert!((r[..3].iter().sum::<f32>() - 1.0).abs() < 1e-6 && r[2] > r[1]);
        assert!((r[3] - 1.0 / 3.0).abs() < 1e-6);
        let mut g = [0.0, 1.0, -1.0];
        gelu(&mut g);
        // GELU(1) = 0.8413447, GELU(-1) = -0.1586553
        assert!(g[0] == 0.0 && (g[1] - 0.841_344_7).abs() < 1e-6);
        assert!((g[2] + 0.158_655_3).abs() < 1e-6);
        let mut x = [1.0, 3.0];
        layer_norm(&mut x, &[1.0, 1.0], &[0.0, 0.5], 0.0);
        assert!((x[0] + 1.0).abs() < 1e-6 && (x[1] - 1.5).abs() < 1e-6);
    }

    #[test]
    fn quantises_to_the_nearest_step() {
        let mut q = [0u8; 4];
        let mut out = (0.0, 0);
        // step 4 / 255, zero point 64
        quantise_row(&[-1.0, 0.0, 0.5, 3.0], &mut q, &mut out);
        assert_eq!(out.1, 64);
        assert_eq!(q, [0, 64, 96, 255]);
        quantise_row(&[0.0; 3], &mut q[..3], &mut out);
        assert_eq!((out, &q[..3]), ((1.0, 0), &[0u8; 3][..]));
    }
}
