//! Linear layers in 8-bit integers, by dynamic quantisation (what ONNX Runtime's
//! `quantize_dynamic` does): each weight row is scaled to `i8` once, at load; each token's
//! activations are scaled to `u8` with a zero point on every call; the products are summed
//! exactly in `i32` and scaled back to `f32`.
//!
//! With AVX-512 VNNI one instruction multiplies and adds 64 byte pairs. Elsewhere portable
//! code computes the same integers (more slowly).

use crate::vecmath;

/// Output columns per packed weight panel: three AVX-512 registers of 16 `i32`.
const NR: usize = 48;
/// Token rows per kernel call.
const MR: usize = 8;

type Block = [[i32; NR]; MR];

/// `y = x Wᵀ + b` with `W` in 8-bit integers.
pub struct QLinear {
    n: usize,
    k: usize,
    /// The weights panel by panel, `[n_pad / NR][k / 4][NR][4]`: four consecutive inputs of
    /// one output are the four bytes one VNNI lane multiplies.
    packed: Vec<i8>,
    /// Per output (padded to whole panels): the weight row's scale and the sum of its
    /// integers, which removes the activations' zero point.
    scale: Vec<f32>,
    row_sum: Vec<i32>,
    bias: Vec<f32>,
    vnni: bool,
}

/// Activations of one call, quantised per token row: `x ≈ scale · (q − zero)`.
#[derive(Default)]
pub struct QuantRows {
    q: Vec<u8>,
    scale: Vec<f32>,
    zero: Vec<i32>,
}

impl QuantRows {
    /// Quantise the rows of `x` (`[m × k]`); the range of each row includes 0.
    pub fn quantise(&mut self, x: &[f32], k: usize) {
        let m = x.len() / k;
        self.q.resize(m * k, 0);
        self.scale.resize(m, 0.0);
        self.zero.resize(m, 0);
        let mut sz = (0.0, 0);
        for (i, (row, q)) in x
            .chunks_exact(k)
            .zip(self.q.chunks_exact_mut(k))
            .enumerate()
        {
            vecmath::quantise_row(row, q, &mut sz);
            (self.scale[i], self.zero[i]) = sz;
        }
    }
}

/// True when this CPU runs the AVX-512 VNNI kernel.
pub fn has_vnni() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

impl QLinear {
    /// The most inputs per output: the `i32` sums stay exact while 255 · 127 · k < 2³¹.
    pub const MAX_INPUTS: usize = 66_000;

    /// From PyTorch's layout: `weight` is `[n × k]` row-major, `bias` has `n` values.
    /// `k` must be a positive multiple of 4, at most [`QLinear::MAX_INPUTS`].
    pub fn new(weight: &[f32], bias: &[f32], n: usize, k: usize) -> QLinear {
        assert!(k > 0 && k <= Self::MAX_INPUTS && k.is_multiple_of(4));
        assert!(weight.len() == n * k && bias.len() == n);
        let n_pad = n.div_ceil(NR) * NR;
        let mut packed = vec![0i8; n_pad * k];
        let mut scale = vec![0f32; n_pad];
        let mut row_sum = vec![0i32; n_pad];
        for (j, row) in weight.chunks_exact(k).enumerate() {
            let max = row.iter().fold(0f32, |m, &v| m.max(v.abs()));
            let s = if max > 0.0 { max / 127.0 } else { 1.0 };
            scale[j] = s;
            let panel = &mut packed[(j / NR) * k * NR..(j / NR + 1) * k * NR];
            for (i, &v) in row.iter().enumerate() {
                let q = (v / s).round().clamp(-127.0, 127.0) as i8;
                row_sum[j] += q as i32;
                panel[(i / 4) * NR * 4 + (j % NR) * 4 + i % 4] = q;
            }
        }
        let mut b = bias.to_vec();
        b.resize(n_pad, 0.0);
        QLinear {
            n,
            k,
            packed,
            scale,
            row_sum,
            bias: b,
            vnni: has_vnni(),
        }
    }

    /// Outputs per row.
    pub fn outputs(&self) -> usize {
        self.n
    }

    /// Use the portable kernel even where VNNI is available (to compare the two).
    pub fn force_portable(&mut self) {
        self.vnni = false;
    }

    /// `y = x Wᵀ + b` for the rows of `x` (`[m × k]`), written to `y` (`[m × n]`).
    /// `rows` is reused between calls.
    pub fn forward(&self, x: &[f32], rows: &mut QuantRows, y: &mut [f32]) {
        let (n, k) = (self.n, self.k);
        let m = x.len() / k;
        assert!(x.len() == m * k && y.len() == m * n);
        rows.quantise(x, k);
        let mut acc: Block = [[0; NR]; MR];
        for (p, panel) in self.packed.chunks_exact(k * NR).enumerate() {
            for i0 in (0..m).step_by(MR) {
                let r = MR.min(m - i0);
                self.kernel(&rows.q[i0 * k..(i0 + r) * k], r, panel, &mut acc);
                let cols = (p * NR)..((p + 1) * NR).min(n);
                for (dr, a) in acc[..r].iter().enumerate() {
                    let i = i0 + dr;
                    vecmath::dequantise(
                        &mut y[i * n + cols.start..i * n + cols.end],
                        a,
                        rows.scale[i],
                        rows.zero[i],
                        &self.scale[cols.clone()],
                        &self.row_sum[cols.clone()],
                        &self.bias[cols.clone()],
                    );
                }
            }
        }
    }

    /// Integer products of `r` rows of `a` (`[r × k]`) with one panel, into `acc[..r]`.
    fn kernel(&self, a: &[u8], r: usize, panel: &[i8], acc: &mut Block) {
        assert!((1..=MR).contains(&r) && a.len() == r * self.k && panel.len() == self.k * NR);
        #[cfg(target_arch = "x86_64")]
        if self.vnni {
            // SAFETY: the CPU has AVX-512F and VNNI (checked in `new`); `a` holds `r` rows
            // of `k` bytes and `panel` `k × NR` bytes, which is all the kernel reads.
            unsafe { vnni::kernel(a.as_ptr(), self.k, r, panel.as_ptr(), acc) };
            return;
        }
        portable_kernel(a, self.k, r, panel, acc);
    }
}

fn portable_kernel(a: &[u8], k: usize, r: usize, panel: &[i8], acc: &mut Block) {
    for (row, out) in a.chunks_exact(k).zip(acc.iter_mut()).take(r) {
        *out = [0; NR];
        for (quad, w) in row.chunks_exact(4).zip(panel.chunks_exact(NR * 4)) {
            for (o, wq) in out.iter_mut().zip(w.chunks_exact(4)) {
                *o += quad
                    .iter()
                    .zip(wq)
                    .map(|(&x, &v)| x as i32 * v as i32)
                    .sum::<i32>();
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod vnni {
    use super::{Block, MR, NR};
    use std::arch::x86_64::*;

    /// Dispatch on the number of rows, so each case keeps its sums in registers.
    ///
    /// # Safety
    /// The CPU must have AVX-512F and AVX-512 VNNI; `a` must point to `r × k` bytes and
    /// `w` to `k × NR` bytes.
    pub unsafe fn kernel(a: *const u8, k: usize, r: usize, w: *const i8, acc: &mut Block) {
        // SAFETY: forwarded from the caller.
        unsafe {
            match r {
                8 => rows::<8>(a, k, w, acc),
                7 => rows::<7>(a, k, w, acc),
                6 => rows::<6>(a, k, w, acc),
                5 => rows::<5>(a, k, w, acc),
                4 => rows::<4>(a, k, w, acc),
                3 => rows::<3>(a, k, w, acc),
                2 => rows::<2>(a, k, w, acc),
                1 => rows::<1>(a, k, w, acc),
                _ => unreachable!("1 to {MR} rows per kernel call, not {r}"),
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512vnni")]
    unsafe fn rows<const R: usize>(a: *const u8, k: usize, w: *const i8, acc: &mut Block) {
        const { assert!(R <= MR && NR == 48) };
        let mut c = [[_mm512_setzero_si512(); 3]; R];
        for g in 0..k / 4 {
            // SAFETY: g < k / 4, so the panel's group g (192 bytes) and each row's four bytes
            // at 4g are inside the buffers the caller vouched for.
            unsafe {
                let wp = w.add(g * NR * 4);
                let w0 = _mm512_loadu_si512(wp as *const __m512i);
                let w1 = _mm512_loadu_si512(wp.add(64) as *const __m512i);
                let w2 = _mm512_loadu_si512(wp.add(128) as *const __m512i);
                for (i, ci) in c.iter_mut().enumerate() {
                    let x = (a.add(i * k + g * 4) as *const i32).read_unaligned();
                    let x = _mm512_set1_epi32(x);
                    ci[0] = _mm512_dpbusd_epi32(ci[0], x, w0);
                    ci[1] = _mm512_dpbusd_epi32(ci[1], x, w1);
                    ci[2] = _mm512_dpbusd_epi32(ci[2], x, w2);
                }
            }
        }
        for (ci, out) in c.iter().zip(acc.iter_mut()) {
            for (t, v) in ci.iter().enumerate() {
                // SAFETY: out has NR = 48 lanes; t < 3 stores 16 of them each.
                unsafe { _mm512_storeu_si512(out.as_mut_ptr().add(t * 16) as *mut __m512i, *v) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic values in [-1, 1).
    fn noise(n: usize, seed: u32) -> Vec<f32> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (s >> 8) as f32 / (1u32 << 23) as f32 - 1.0
            })
            .collect()
    }

    fn reference(x: &[f32], w: &[f32], b: &[f32], n: usize, k: usize) -> Vec<f32> {
        x.chunks_exact(k)
            .flat_map(|row| {
                (0..n).map(move |j| {
                    row.iter()
                        .zip(&w[j * k..(j + 1) * k])
                        .map(|(a, v)| a * v)
                        .sum::<f32>()
                        + b[j]
                })
            })
            .collect()
    }

    #[test]
    fn close_to_float_and_the_same_on_every_kernel() {
        // n not a multiple of the panel, m not a multiple of the row block.
        let (m, n, k) = (13, 100, 64);
        let (x, w, b) = (noise(m * k, 1), noise(n * k, 2), noise(n, 3));
        let want = reference(&x, &w, &b, n, k);
        let q = QLinear::new(&w, &b, n, k);
        let mut rows = QuantRows::default();
        let mut got = vec![0f32; m * n];
        q.forward(&x, &mut rows, &mut got);
        // Outputs are sums of 64 products of values in [-1, 1): about ±2.7.
        let errs: Vec<f32> = want.iter().zip(&got).map(|(a, b)| (a - b).abs()).collect();
        let max = errs.iter().copied().fold(0f32, f32::max);
        let mean = errs.iter().sum::<f32>() / errs.len() as f32;
        assert!(max < 0.1 && mean < 0.02, "error max {max}, mean {mean}");

        let mut portable = QLinear::new(&w, &b, n, k);
        portable.force_portable();
        let mut same = vec![0f32; m * n];
        portable.forward(&x, &mut rows, &mut same);
        assert_eq!(got, same, "the VNNI and portable kernels differ");
    }

    /// Every row count, the widest sums: VNNI and portable give the same integers.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn kernels_agree_at_the_extremes() {
        if !has_vnni() {
            return;
        }
        let k = 1536;
        let panel: Vec<i8> = (0..k * NR)
            .map(|i| if i % 3 == 0 { -127 } else { 127 })
            .collect();
        for fill in [255u8, 0, 1, 128] {
            for rows in 1..=MR {
                let a: Vec<u8> = (0..rows * k)
                    .map(|i| if fill == 128 { (i % 256) as u8 } else { fill })
                    .collect();
                let mut want: Block = [[0; NR]; MR];
                let mut got: Block = [[1; NR]; MR];
                portable_kernel(&a, k, rows, &panel, &mut want);
                // SAFETY: this CPU has VNNI; `a` holds rows × k bytes, `panel` k × NR.
                unsafe { vnni::kernel(a.as_ptr(), k, rows, panel.as_ptr(), &mut got) };
                assert_eq!(want[..rows], got[..rows], "{rows} rows of {fill}");
            }
        }
    }

    #[test]
    fn zero_rows_and_weights() {
        let q = QLinear::new(&[0.0; 8], &[0.5, -0.5], 2, 4);
        let mut y = vec![9f32; 4];
        q.forward(&[0.0; 8], &mut QuantRows::default(), &mut y);
        assert_eq!(y, [0.5, -0.5, 0.5, -0.5]);
    }
}
