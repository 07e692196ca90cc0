//! Linear layers in 8-bit integers, by dynamic quantisation (what ONNX Runtime's
//! `quantize_dynamic` does): each weight row is scaled to `i8` once, at load; each token's
//! activations are scaled to `u8` with a zero point on every call; the products are summed
//! exactly in `i32` and scaled back to `f32`.
//!
//! With AVX-512 VNNI one instruction multiplies and adds 64 byte pairs. With AVX2 the bytes
//! are widened to `i16` and `vpmaddwd` adds 16 pairs per instruction, exactly (the byte form,
//! `vpmaddubsw`, saturates). Elsewhere portable code computes the same integers, slowly.
//! All three give the same `i32` sums, so a vector does not depend on the CPU's kernel.

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
    kernel: Kernel,
}

/// The integer kernels, fastest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// AVX-512 with VNNI: `vpdpbusd` on bytes.
    Vnni,
    /// AVX2: `vpmaddwd` on bytes widened to `i16`.
    Avx2,
    /// Plain Rust, not vectorised: about 1/100 of VNNI's speed.
    Portable,
}

impl Kernel {
    /// The fastest kernel this CPU runs.
    pub fn best() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512vnni")
            {
                return Kernel::Vnni;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return Kernel::Avx2;
            }
        }
        Kernel::Portable
    }

    /// Whether this CPU can run the kernel.
    pub fn available(self) -> bool {
        match (self, Kernel::best()) {
            (Kernel::Portable, _) | (_, Kernel::Vnni) => true,
            (Kernel::Avx2, best) => best == Kernel::Avx2,
            (Kernel::Vnni, _) => false,
        }
    }
}

/// Activations of one call, quantised per token row: `x ≈ scale · (q − zero)`.
#[derive(Default)]
pub struct QuantRows {
    q: Vec<u8>,
    /// `q` widened to `i16`, for the AVX2 kernel only.
    wide: Vec<i16>,
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

    fn widen(&mut self) {
        self.wide.clear();
        self.wide.extend(self.q.iter().map(|&v| v as i16));
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
            kernel: Kernel::best(),
        }
    }

    /// Outputs per row.
    pub fn outputs(&self) -> usize {
        self.n
    }

    /// The kernel this layer runs.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// Use the portable kernel even where a faster one is available (to compare them).
    pub fn force_portable(&mut self) {
        self.kernel = Kernel::Portable;
    }

    /// Use `kernel` (to compare kernels on one CPU), or return false when this CPU cannot.
    pub fn force_kernel(&mut self, kernel: Kernel) -> bool {
        let ok = kernel.available();
        if ok {
            self.kernel = kernel;
        }
        ok
    }

    /// `y = x Wᵀ + b` for the rows of `x` (`[m × k]`), written to `y` (`[m × n]`).
    /// `rows` is reused between calls.
    pub fn forward(&self, x: &[f32], rows: &mut QuantRows, y: &mut [f32]) {
        let (n, k) = (self.n, self.k);
        let m = x.len() / k;
        assert!(x.len() == m * k && y.len() == m * n);
        rows.quantise(x, k);
        if self.kernel == Kernel::Avx2 {
            rows.widen();
        }
        let mut acc: Block = [[0; NR]; MR];
        for (p, panel) in self.packed.chunks_exact(k * NR).enumerate() {
            for i0 in (0..m).step_by(MR) {
                let r = MR.min(m - i0);
                self.run_kernel(rows, i0, r, panel, &mut acc);
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

    /// Integer products of rows `i0..i0 + r` of `rows` with one panel, into `acc[..r]`.
    fn run_kernel(&self, rows: &QuantRows, i0: usize, r: usize, panel: &[i8], acc: &mut Block) {
        let k = self.k;
        let a = &rows.q[i0 * k..(i0 + r) * k];
        assert!((1..=MR).contains(&r) && panel.len() == k * NR);
        match self.kernel {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has AVX-512F and VNNI (checked by `Kernel::best` or
            // `force_kernel`); `a` holds `r` rows of `k` bytes and `panel` `k × NR` bytes,
            // which is all the kernel reads.
            Kernel::Vnni => unsafe { vnni::kernel(a.as_ptr(), k, r, panel.as_ptr(), acc) },
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => {
                let w = &rows.wide[i0 * k..(i0 + r) * k];
                // SAFETY: the CPU has AVX2 (checked as above); `w` holds `r` rows of `k`
                // values and `panel` `k × NR` bytes, which is all the kernel reads.
                unsafe { avx2::kernel(w.as_ptr(), k, r, panel.as_ptr(), acc) }
            }
            _ => portable_kernel(a, k, r, panel, acc),
        }
    }
}

fn portable_kernel(a: &[u8], k: usize, r: usize, panel: &[i8], acc: &mut Block) {
    for (row, out) in a.chunks_exact(k).zip(acc.iter_mut()).take(r) {
        *out = [0; NR];
        for (quad, w) in row.chunks_exact(4).zip(panel.chunks_exact(NR * 4)) {
            // Written so the compiler vectorises over the outputs.
            let x = [0, 1, 2, 3].map(|t| quad[t] as i32);
            for (o, wq) in out.iter_mut().zip(w.chunks_exact(4)) {
                *o += x[0] * wq[0] as i32
                    + x[1] * wq[1] as i32
                    + x[2] * wq[2] as i32
                    + x[3] * wq[3] as i32;
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

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Block, MR, NR};
    use std::arch::x86_64::*;

    /// Outputs per pass: one group of four inputs for eight outputs is 32 bytes, widened into
    /// two registers of sixteen `i16`.
    const NB: usize = 8;

    /// Rows at most four at a time, so each pass keeps 4 × 2 sums, 2 weights and 1 activation
    /// in the 16 registers.
    ///
    /// # Safety
    /// The CPU must have AVX2; `a` must point to `r × k` values and `w` to `k × NR` bytes.
    pub unsafe fn kernel(a: *const i16, k: usize, r: usize, w: *const i8, acc: &mut Block) {
        assert!((1..=MR).contains(&r));
        let mut i = 0;
        while i < r {
            let n = (r - i).min(4);
            // SAFETY: rows i..i + n are inside the r rows the caller vouched for.
            unsafe {
                let ai = a.add(i * k);
                let out = &mut acc[i..i + n];
                match n {
                    4 => rows::<4>(ai, k, w, out),
                    3 => rows::<3>(ai, k, w, out),
                    2 => rows::<2>(ai, k, w, out),
                    _ => rows::<1>(ai, k, w, out),
                }
            }
            i += n;
        }
    }

    #[target_feature(enable = "avx2")]
    unsafe fn rows<const R: usize>(a: *const i16, k: usize, w: *const i8, out: &mut [[i32; NR]]) {
        const { assert!(R <= 4 && NR.is_multiple_of(NB)) };
        for b in 0..NR / NB {
            // Lane pairs hold two inputs of one output: [o0 x0x1, o0 x2x3, o1 x0x1, …].
            let mut c = [[_mm256_setzero_si256(); 2]; R];
            for g in 0..k / 4 {
                // SAFETY: g < k / 4 and b < NR / NB, so the 32 weight bytes at
                // g · NR · 4 + b · 32 are inside the panel, and each row's four values at 4g
                // inside its row.
                unsafe {
                    let wp = w.add(g * NR * 4 + b * NB * 4);
                    let w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128(wp as *const __m128i));
                    let w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128(wp.add(16) as *const __m128i));
                    for (i, ci) in c.iter_mut().enumerate() {
                        let x = (a.add(i * k + g * 4) as *const i64).read_unaligned();
                        let x = _mm256_set1_epi64x(x);
                        ci[0] = _mm256_add_epi32(ci[0], _mm256_madd_epi16(x, w0));
                        ci[1] = _mm256_add_epi32(ci[1], _mm256_madd_epi16(x, w1));
                    }
                }
            }
            for (ci, row) in c.iter().zip(out.iter_mut()) {
                // [o0, o1, o4, o5 | o2, o3, o6, o7] → outputs in order.
                let s = _mm256_hadd_epi32(ci[0], ci[1]);
                let s = _mm256_permute4x64_epi64::<0b11_01_10_00>(s);
                // SAFETY: the row has NR lanes; b · NB + 8 ≤ NR.
                unsafe { _mm256_storeu_si256(row.as_mut_ptr().add(b * NB) as *mut __m256i, s) };
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

        for kernel in [Kernel::Vnni, Kernel::Avx2, Kernel::Portable] {
            let mut other = QLinear::new(&w, &b, n, k);
            if other.force_kernel(kernel) {
                let mut same = vec![0f32; m * n];
                other.forward(&x, &mut rows, &mut same);
                assert_eq!(got, same, "{:?} and {kernel:?} differ", q.kernel());
            }
        }
    }

    /// Every row count, the widest sums: each kernel this CPU has gives the portable integers.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn kernels_agree_at_the_extremes() {
        let k = 1536;
        let panel: Vec<i8> = (0..k * NR)
            .map(|i| if i % 3 == 0 { -127 } else { 127 })
            .collect();
        for fill in [255u8, 0, 1, 128] {
            for rows in 1..=MR {
                let a: Vec<u8> = (0..rows * k)
                    .map(|i| if fill == 128 { (i % 256) as u8 } else { fill })
                    .collect();
                let wide: Vec<i16> = a.iter().map(|&v| v as i16).collect();
                let mut want: Block = [[0; NR]; MR];
                portable_kernel(&a, k, rows, &panel, &mut want);
                if Kernel::Vnni.available() {
                    let mut got: Block = [[1; NR]; MR];
                    // SAFETY: this CPU has VNNI; `a` holds rows × k bytes, `panel` k × NR.
                    unsafe { vnni::kernel(a.as_ptr(), k, rows, panel.as_ptr(), &mut got) };
                    assert_eq!(want[..rows], got[..rows], "VNNI, {rows} rows of {fill}");
                }
                if Kernel::Avx2.available() {
                    let mut got: Block = [[1; NR]; MR];
                    // SAFETY: this CPU has AVX2; `wide` holds rows × k values.
                    unsafe { avx2::kernel(wide.as_ptr(), k, rows, panel.as_ptr(), &mut got) };
                    assert_eq!(want[..rows], got[..rows], "AVX2, {rows} rows of {fill}");
                }
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
