#include "nn/conv_gemm.h"

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "core/parallel.h"
#include "kernels/backend.h"
#include "kernels/parallel_kernels.h"

namespace sg {
namespace {

// C = op(A) · op(B) + beta · C through the active backend; empty sizes handled here so no
// backend has to care (K = 0 gives 0, or C unchanged when beta = 1).
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (beta == 0.0f)
      for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    return;
  }
  backend().gemm_f32(ta, tb, m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
}

// The outputs o in [lo, hi) whose input position o·s + off lies inside [0, size).
struct Range {
  int64_t lo, hi;
};
Range valid_outputs(int64_t off, int64_t s, int64_t size, int64_t out) {
  int64_t lo = off >= 0 ? 0 : (-off + s - 1) / s;
  int64_t hi = size - 1 - off < 0 ? 0 : (size - 1 - off) / s + 1;
  hi = std::min(hi, out);
  lo = std::min(lo, hi);
  return {lo, hi};
}

// One image's Cg channels x [Cg, H, W] → col [Cg·kH·kW, oH·oW]; padding reads as 0.
void im2col(const ConvGeom& g, const float* x, float* col) {
  const int64_t L = g.L();
  for (int64_t c = 0; c < g.Cg(); ++c)
    for (int64_t ki = 0; ki < g.kH; ++ki)
      for (int64_t kj = 0; kj < g.kW; ++kj) {
        float* row = col + ((c * g.kH + ki) * g.kW + kj) * L;
        const int64_t off_h = ki * g.dH - g.pH, off_w = kj * g.dW - g.pW;
        const Range rw = valid_outputs(off_w, g.sW, g.W, g.oW);
        for (int64_t oh = 0; oh < g.oH; ++oh) {
          float* dst = row + oh * g.oW;
          const int64_t ih = oh * g.sH + off_h;
          if (ih < 0 || ih >= g.H) {
            std::fill(dst, dst + g.oW, 0.0f);
            continue;
          }
          const float* src = x + (c * g.H + ih) * g.W;
          std::fill(dst, dst + rw.lo, 0.0f);
          for (int64_t ow = rw.lo; ow < rw.hi; ++ow) dst[ow] = src[ow * g.sW + off_w];
          std::fill(dst + rw.hi, dst + g.oW, 0.0f);
        }
      }
}

// The adjoint of im2col: adds every column entry back onto the input position it was read
// from (dx [Cg, H, W] must be zeroed by the caller). Padding entries are dropped.
void col2im(const ConvGeom& g, const float* col, float* dx) {
  const int64_t L = g.L();
  for (int64_t c = 0; c < g.Cg(); ++c)
    for (int64_t ki = 0; ki < g.kH; ++ki)
      for (int64_t kj = 0; kj < g.kW; ++kj) {
        const float* row = col + ((c * g.kH + ki) * g.kW + kj) * L;
        const int64_t off_h = ki * g.dH - g.pH, off_w = kj * g.dW - g.pW;
        const Range rw = valid_outputs(off_w, g.sW, g.W, g.oW);
        for (int64_t oh = 0; oh < g.oH; ++oh) {
          const int64_t ih = oh * g.sH + off_h;
          if (ih < 0 || ih >= g.H) continue;
          const float* src = row + oh * g.oW;
          float* dst = dx + (c * g.H + ih) * g.W;
          for (int64_t ow = rw.lo; ow < rw.hi; ++ow) dst[ow * g.sW + off_w] += src[ow];
        }
      }
}

// A 1×1 kernel with stride 1 and no padding: the column matrix is the input itself.
bool is_pointwise(const ConvGeom& g) {
  return g.kH == 1 && g.kW == 1 && g.sH == 1 && g.sW == 1 && g.pH == 0 && g.pW == 0 &&
         g.oH == g.H && g.oW == g.W;
}

// The per-image column buffer, K × L floats. The size is checked in 64 bits before the
// allocation: in wasm32 a size_t product past 2^32 would wrap and im2col would write past
// the buffer.
// Checked once up front (also for an empty batch), then each thread's piece allocates its own.
void check_column_buffer(bool direct, int64_t K, int64_t L) {
  if (direct) return;
  const int64_t limit = int64_t(1) << 29;  // 2 GiB of floats: more than any wasm heap holds
  if (K < 0 || L < 0 || (L != 0 && K > limit / L))
    fail("cannot allocate the column buffer of ", K, " x ", L, " floats: too large");
}
std::vector<float> column_buffer(bool direct, int64_t K, int64_t L) {
  check_column_buffer(direct, K, L);
  if (direct) return {};
  return std::vector<float>(static_cast<size_t>(K * L));
}

// Images per piece when a batch is split over threads (each piece has its own column buffer;
// the per-image GEMMs inside then run on their piece's thread). The whole batch in one piece on
// one thread, for one image (the GEMM split takes over), or when the convolution is small.
int64_t image_chunk(const ConvGeom& g) {
  if (num_threads() < 2 || in_parallel_region() || g.N < 2) return std::max<int64_t>(g.N, 1);
  if (g.N * g.O * g.K() * g.L() < par::kMinGemmWork) return g.N;
  return chunk_size(g.N, 1, 1, 2);
}

}  // namespace

void conv_forward_f32(const ConvGeom& g, const float* x, const float* w, const float* bias, float* y) {
  const int64_t K = g.K(), L = g.L(), Og = g.Og(), Cg = g.Cg(), HW = g.H * g.W;
  const bool direct = is_pointwise(g);
  check_column_buffer(direct, K, L);
  parallel_for(0, g.N, image_chunk(g), [&](int64_t n0, int64_t n1) {
    std::vector<float> col = column_buffer(direct, K, L);
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        const float* xg = x + (n * g.C + gi * Cg) * HW;
        if (!direct) im2col(g, xg, col.data());
        float* yg = y + (n * g.O + gi * Og) * L;
        if (bias)  // start from the bias and let the gemm add onto it
          for (int64_t o = 0; o < Og; ++o) std::fill(yg + o * L, yg + (o + 1) * L, bias[gi * Og + o]);
        gemm(false, false, Og, L, K, w + gi * Og * K, K, direct ? xg : col.data(), L,
             bias ? 1.0f : 0.0f, yg, L);
      }
  });
}

void conv_input_grad_f32(const ConvGeom& g, const float* dy, const float* w, float* dx) {
  const int64_t K = g.K(), L = g.L(), Og = g.Og(), Cg = g.Cg(), HW = g.H * g.W;
  const bool direct = is_pointwise(g);
  check_column_buffer(direct, K, L);
  parallel_for(0, g.N, image_chunk(g), [&](int64_t n0, int64_t n1) {
    std::vector<float> col = column_buffer(direct, K, L);
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        const float* dyg = dy + (n * g.O + gi * Og) * L;
        float* dxg = dx + (n * g.C + gi * Cg) * HW;
        // dcol [K, L] = W_gᵀ [K, Og] · dy_g [Og, L]
        if (direct) {
          gemm(true, false, K, L, Og, w + gi * Og * K, K, dyg, L, 0.0f, dxg, L);
          continue;
        }
        gemm(true, false, K, L, Og, w + gi * Og * K, K, dyg, L, 0.0f, col.data(), L);
        std::fill(dxg, dxg + Cg * HW, 0.0f);
        col2im(g, col.data(), dxg);
      }
  });
}

void conv_weight_grad_f32(const ConvGeom& g, const float* x, const float* dy, float* dw) {
  const int64_t K = g.K(), L = g.L(), Og = g.Og(), Cg = g.Cg(), HW = g.H * g.W;
  const bool direct = is_pointwise(g);
  check_column_buffer(direct, K, L);
  std::fill(dw, dw + g.O * K, 0.0f);  // the answer for an empty batch
  // Image piece p > 0 accumulates into partial[p − 1], summed into dw at the end (so the sum
  // order, and the last bits, depend on the thread count).
  const int64_t chunk = image_chunk(g), pieces = g.N > 0 ? (g.N + chunk - 1) / chunk : 1;
  std::vector<float> partial(static_cast<size_t>((pieces - 1) * g.O * K));
  parallel_for(0, g.N, chunk, [&](int64_t n0, int64_t n1) {
    const int64_t p = n0 / chunk;
    float* out = p == 0 ? dw : partial.data() + (p - 1) * g.O * K;
    std::vector<float> col = column_buffer(direct, K, L);
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        const float* xg = x + (n * g.C + gi * Cg) * HW;
        if (!direct) im2col(g, xg, col.data());
        // dW_g [Og, K] += dy_g [Og, L] · col [K, L]ᵀ
        gemm(false, true, Og, K, L, dy + (n * g.O + gi * Og) * L, L, direct ? xg : col.data(), L,
             1.0f, out + gi * Og * K, K);
      }
  });
  for (int64_t p = 1; p < pieces; ++p) {
    const float* src = partial.data() + (p - 1) * g.O * K;
    for (int64_t i = 0; i < g.O * K; ++i) dw[i] += src[i];
  }
}

}  // namespace sg
