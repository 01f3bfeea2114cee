// SIMD convolutions: the GEMM driver of gemm-inl.h with B panels packed straight from the
// image (an implicit im2col: the column matrix is never stored whole).
//   forward        y_n [Og, L] = W_g [Og, K] · col(x_n) [K, L], bias (per row) and ReLU in the
//                  write-back; one GEMM per image and group, written straight into y.
//   weight grad    dW_g [Og, K] += dy_n [Og, L] · col(x_n)ᵀ [L, K], image after image.
//   data grad      stride 1: itself a forward convolution of dy with the kernel flipped and
//                  its in/out channels swapped, padding dH·(kH − 1) − pH (so it runs the
//                  forward path, writes dx once and needs no scatter); other strides: dcol =
//                  W_gᵀ · dy_n, then col2im.
// Column matrix of one image's group: row p = (c·kH + ki)·kW + kj, column j = oh·oW + ow,
// col[p][j] = x[c, oh·sH − pH + ki·dH, ow·sW − pW + kj·dW] (0 outside the image).
// Threads: images (or, with fewer images than threads, column ranges of each image) are dealt
// out to the threads; every output of the forward and data passes is computed by the same
// GEMM code whatever the split, so they are bit-identical for any thread count. The weight
// gradient sums each thread's images into a buffer of its own, added up at the end (its last
// bits depend on the thread count).
#include <algorithm>
#include <vector>

#include "core/parallel.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/simd/simd_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/conv.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "kernels/simd/gemm-inl.h"

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {

// out[0, n) = 0.
HWY_INLINE void Zero(float* out, int64_t n) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::Zero(d), d, out + i);
  for (; i < n; ++i) out[i] = 0.0f;
}

// out[0, n) = src[0, n).
HWY_INLINE void Copy(const float* src, float* out, int64_t n) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::LoadU(d, src + i), d, out + i);
  for (; i < n; ++i) out[i] = src[i];
}

// col[p][j0, j1) of one image's group (x: its Cg channels) → out[0, j1 − j0): runs of one
// output row at a time, each a zero prefix, a copy and a zero suffix.
HWY_INLINE void ColSegment(const ConvGeom& g, const float* x, int64_t p, int64_t j0, int64_t j1, float* out) {
  const int64_t taps = g.kH * g.kW;
  const int64_t c = p / taps, ki = p % taps / g.kW, kj = p % g.kW;
  const int64_t off_h = ki * g.dH - g.pH, off_w = kj * g.dW - g.pW;
  const ref::ValidRange rw = ref::valid_outputs(off_w, g.sW, g.W, g.oW);
  const float* xc = x + c * g.H * g.W;
  int64_t oh = j0 / g.oW, ow = j0 % g.oW;
  for (int64_t j = j0; j < j1; ow = 0, ++oh) {
    const int64_t run = std::min(g.oW - ow, j1 - j);
    const int64_t ih = oh * g.sH + off_h;
    if (ih < 0 || ih >= g.H) {
      Zero(out, run);
    } else {
      const float* src = xc + ih * g.W + off_w;  // src[ow · sW] is output column ow's input
      const int64_t lo = std::clamp<int64_t>(rw.lo - ow, 0, run);
      const int64_t hi = std::clamp<int64_t>(rw.hi - ow, lo, run);
      Zero(out, lo);
      if (g.sW == 1) {
        Copy(src + ow + lo, out + lo, hi - lo);
      } else {
        for (int64_t t = lo; t < hi; ++t) out[t] = src[(ow + t) * g.sW];
      }
      Zero(out + hi, run - hi);
    }
    out += run;
    j += run;
  }
}

// A row buffer per thread for the packers (n floats, aligned).
HWY_INLINE float* RowScratch(int64_t n) {
  thread_local std::vector<float> buf;
  return Scratch(buf, n);
}

// Forward: op(B) = col [K, L] of one image's group, columns from j_base on.
struct ImageB {
  const ConvGeom& g;
  const float* x;
  int64_t j_base;
  void operator()(int64_t p0, int64_t kc, int64_t j0, int64_t nc, int64_t nr, float* HWY_RESTRICT dst) const {
    const DF d;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    float* row = RowScratch(nc);
    const int64_t full = nc / nr * nr;
    for (int64_t pp = 0; pp < kc; ++pp) {
      ColSegment(g, x, p0 + pp, j_base + j0, j_base + j0 + nc, row);
      // Into the panels: nr floats of row pp in each (the panel layout of DenseB).
      for (int64_t q = 0; q < full; q += nr) {
        float* out = dst + q * kc + pp * nr;
        for (int64_t t = 0; t < nr; t += N) hn::StoreU(hn::LoadU(d, row + q + t), d, out + t);
      }
      if (full < nc) {
        float* out = dst + full * kc + pp * nr;
        for (int64_t t = 0; t < nr; ++t) out[t] = full + t < nc ? row[full + t] : 0.0f;
      }
    }
  }
};

// Weight gradient: op(B) = colᵀ [L, K] of one image's group: op(B)'s column j is row j of col.
struct ImageBt {
  const ConvGeom& g;
  const float* x;
  void operator()(int64_t p0, int64_t kc, int64_t j0, int64_t nc, int64_t nr, float* HWY_RESTRICT dst) const {
    float* rows_buf = RowScratch(nr * kc);
    const float* rows[kMaxNR];
    for (int64_t jp = 0; jp < nc; jp += nr) {
      const int64_t w = std::min(nr, nc - jp);
      for (int64_t r = 0; r < w; ++r) {
        ColSegment(g, x, j0 + jp + r, p0, p0 + kc, rows_buf + r * kc);
        rows[r] = rows_buf + r * kc;
      }
      for (int64_t r = w; r < nr; ++r) rows[r] = rows[w - 1];
      PackTransposed(rows, w, nr, kc, dst + jp * kc);
    }
  }
};

bool IsPointwise(const ConvGeom& g) {
  return g.kH == 1 && g.kW == 1 && g.sH == 1 && g.sW == 1 && g.pH == 0 && g.pW == 0 && g.oH == g.H && g.oW == g.W;
}

// Work items of a per-image pass: whole images when there are at least as many as threads,
// else column ranges of each image (multiples of 64 columns: whole tiles of every target).
struct Split {
  int64_t per_image, cols;
};
Split SplitWork(int64_t N, int64_t L) {
  const int64_t threads = in_parallel_region() ? 1 : num_threads();
  if (N >= threads || L <= 64) return {1, L};
  const int64_t cols = std::max<int64_t>(64, (L + threads - 1) / threads + 63) / 64 * 64;
  return {(L + cols - 1) / cols, cols};
}

void ConvForward(const ConvGeom& g, const float* x, const float* w, const float* bias, GemmAct act, float* y) {
  const int64_t K = g.K(), L = g.L(), Og = g.Og(), Cg = g.Cg(), HW = g.H * g.W;
  if (g.N == 0 || g.O == 0 || L == 0) return;
  const bool pointwise = IsPointwise(g);
  const Split split = SplitWork(g.N, L);
  const int64_t items = g.N * split.per_image;
  parallel_for(0, items, std::max<int64_t>(1, items / std::max(1, num_threads())), [&](int64_t lo, int64_t hi) {
    for (int64_t item = lo; item < hi; ++item) {
      const int64_t n = item / split.per_image;
      const int64_t j0 = item % split.per_image * split.cols, nc = std::min(split.cols, L - j0);
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        const float* xg = x + (n * g.C + gi * Cg) * HW;
        const GemmArgs ga{false, false, Og, nc, K, 1.0f, 0.0f, w + gi * Og * K, K, xg + j0, L,
                          nullptr, bias ? bias + gi * Og : nullptr, act, y + (n * g.O + gi * Og) * L + j0, L};
        if (K == 0) {  // no input channels: bias (and act) alone
          for (int64_t o = 0; o < Og; ++o) {
            float* row = ga.c + o * L;
            for (int64_t j = 0; j < nc; ++j) row[j] = ga.row_bias ? ga.row_bias[o] : 0.0f;
            if (act != GemmAct::None) unary_f32(gemm_act_unary(act), 0.0f, row, row, nc);
          }
        } else if (pointwise) {
          GemmWithTile(ga, DenseB{ga});  // the column matrix is x itself
        } else {
          GemmWithTile(ga, ImageB{g, xg, j0});
        }
      }
    }
  });
}

void ConvBackwardWeight(const ConvGeom& g, const float* x, const float* dy, float* dw) {
  const int64_t K = g.K(), L = g.L(), Og = g.Og(), Cg = g.Cg(), HW = g.H * g.W;
  const int64_t size = g.O * K;
  std::fill(dw, dw + size, 0.0f);
  if (g.N == 0 || size == 0 || L == 0) return;
  const bool pointwise = IsPointwise(g);
  const int64_t threads = in_parallel_region() ? 1 : std::min<int64_t>(num_threads(), g.N);
  const int64_t per = (g.N + threads - 1) / threads, pieces = (g.N + per - 1) / per;
  // Piece 0 sums into dw, the others into buffers of their own, added at the end.
  std::vector<float> partial(static_cast<size_t>((pieces - 1) * size));
  parallel_for(0, g.N, per, [&](int64_t lo, int64_t hi) {
    float* out = lo == 0 ? dw : partial.data() + (lo / per - 1) * size;
    for (int64_t n = lo; n < hi; ++n)
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        const float* xg = x + (n * g.C + gi * Cg) * HW;
        // dW_g [Og, K] (+)= dy_g [Og, L] · col(x_g)ᵀ; the first image overwrites.
        const GemmArgs ga{false, true, Og, K, L, 1.0f, n == lo ? 0.0f : 1.0f, dy + (n * g.O + gi * Og) * L, L,
                          xg, L, nullptr, nullptr, GemmAct::None, out + gi * Og * K, K};
        if (pointwise) GemmWithTile(ga, DenseB{ga});  // col(x_g)ᵀ = x_gᵀ: B stored [K, L]
        else GemmWithTile(ga, ImageBt{g, xg});
      }
  });
  for (int64_t p = 1; p < pieces; ++p) {
    const float* part = partial.data() + (p - 1) * size;
    const DF d;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    int64_t i = 0;
    for (; i + N <= size; i += N) hn::StoreU(hn::Add(hn::LoadU(d, dw + i), hn::LoadU(d, part + i)), d, dw + i);
    for (; i < size; ++i) dw[i] += part[i];
  }
}

// dx for any stride: dcol = W_gᵀ · dy_n, then col2im, image by image (threads over images).
void ConvBackwardDataCol2im(const ConvGeom& g, const float* dy, const float* w, float* dx) {
  const int64_t K = g.K(), L = g.L(), Og = g.Og(), Cg = g.Cg(), HW = g.H * g.W;
  const Im2colGeom ig{Cg, g.H, g.W, g.kH, g.kW, g.sH, g.sW, g.pH, g.pW, g.dH, g.dW, g.oH, g.oW};
  parallel_for(0, g.N, 1, [&](int64_t lo, int64_t hi) {
    thread_local std::vector<float> buf;
    float* dcol = Scratch(buf, K * L);
    for (int64_t n = lo; n < hi; ++n)
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        float* dxg = dx + (n * g.C + gi * Cg) * HW;
        Zero(dxg, Cg * HW);
        if (Og == 0 || K == 0) continue;
        const GemmArgs ga{true, false, K, L, Og, 1.0f, 0.0f, w + gi * Og * K, K, dy + (n * g.O + gi * Og) * L, L,
                          nullptr, nullptr, GemmAct::None, dcol, L};
        GemmWithTile(ga, DenseB{ga});
        col2im_f32(ig, dcol, L, dxg);
      }
  });
}

void ConvBackwardData(const ConvGeom& g, const float* dy, const float* w, const float* bias, float* dx) {
  const int64_t HW = g.H * g.W;
  if (g.N == 0 || g.C == 0 || HW == 0) return;
  if (g.sH != 1 || g.sW != 1 || g.L() == 0) {
    ConvBackwardDataCol2im(g, dy, w, dx);
    if (bias)
      for (int64_t n = 0; n < g.N; ++n)
        for (int64_t c = 0; c < g.C; ++c) {
          float* row = dx + (n * g.C + c) * HW;
          for (int64_t i = 0; i < HW; ++i) row[i] += bias[c];
        }
    return;
  }
  // Stride 1: dx = conv(dy, w') with w'[c, o, a, b] = w[o, c, kH−1−a, kW−1−b] per group,
  // which reads dy[o, h − p' + a·dH, …] with p' = dH·(kH − 1) − pH (negative p': a crop).
  const int64_t Cg = g.Cg(), Og = g.Og(), taps = g.kH * g.kW;
  thread_local std::vector<float> flipped_buf;
  float* flipped = Scratch(flipped_buf, g.C * Og * taps);
  for (int64_t gi = 0; gi < g.groups; ++gi)
    for (int64_t cg = 0; cg < Cg; ++cg)
      for (int64_t o = 0; o < Og; ++o)
        for (int64_t t = 0; t < taps; ++t)
          flipped[((gi * Cg + cg) * Og + o) * taps + t] = w[((gi * Og + o) * Cg + cg) * taps + taps - 1 - t];
  ConvGeom t = g;
  t.C = g.O;
  t.H = g.oH;
  t.W = g.oW;
  t.O = g.C;
  t.pH = g.dH * (g.kH - 1) - g.pH;
  t.pW = g.dW * (g.kW - 1) - g.pW;
  t.oH = g.H;
  t.oW = g.W;
  ConvForward(t, dy, flipped, bias, GemmAct::None, dx);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sg {
namespace simd {
HWY_EXPORT(ConvForward);
HWY_EXPORT(ConvBackwardData);
HWY_EXPORT(ConvBackwardWeight);

void conv2d_f32(const ConvGeom& g, const float* x, const float* w, const float* bias, GemmAct act, float* y) {
  HWY_DYNAMIC_DISPATCH(ConvForward)(g, x, w, bias, act, y);
}

void conv2d_backward_data_f32(const ConvGeom& g, const float* dy, const float* w, const float* bias, float* dx) {
  HWY_DYNAMIC_DISPATCH(ConvBackwardData)(g, dy, w, bias, dx);
}

void conv2d_backward_weight_f32(const ConvGeom& g, const float* x, const float* dy, float* dw) {
  HWY_DYNAMIC_DISPATCH(ConvBackwardWeight)(g, x, dy, dw);
}

}  // namespace simd
}  // namespace sg
#endif  // HWY_ONCE
