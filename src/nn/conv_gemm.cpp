#include "nn/conv_gemm.h"

#include <algorithm>
#include <vector>

#include "core/tensor.h"

#include "core/error.h"
#include "kernels/backend.h"

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

// The kernel layer's view of one image's group.
Im2colGeom im2col_geom(const ConvGeom& g) {
  return Im2colGeom{g.Cg(), g.H, g.W, g.kH, g.kW, g.sH, g.sW, g.pH, g.pW, g.dH, g.dW, g.oH, g.oW};
}

// im2col/col2im through the active backend: x [Cg, H, W] ↔ its columns of col [K, ld].
void im2col(const ConvGeom& g, const float* x, float* col, int64_t ld) {
  backend().im2col_f32(im2col_geom(g), x, col, ld);
}
void col2im(const ConvGeom& g, const float* col, int64_t ld, float* dx) {
  backend().col2im_f32(im2col_geom(g), col, ld, dx);
}

// A 1×1 kernel with stride 1 and no padding: the column matrix is the input itself.
bool is_pointwise(const ConvGeom& g) {
  return g.kH == 1 && g.kW == 1 && g.sH == 1 && g.sW == 1 && g.pH == 0 && g.pW == 0 &&
         g.oH == g.H && g.oW == g.W;
}

// Images per chunk: the column matrices of several images side by side make one wide GEMM
// ([Og, K] · [K, B·L]) instead of B narrow ones, which keeps the kernel at its best speed on
// small feature maps. The chunk is capped at kChunkFloats floats of columns (1 MiB, so they
// are still in cache when the GEMM reads them; 16 MiB chunks measured slower). The size is
// checked in 64 bits before anything is allocated: in wasm32 a size_t product past 2^32 would
// wrap and im2col would write past the buffer.
constexpr int64_t kChunkFloats = int64_t(1) << 18;

int64_t chunk_images(const ConvGeom& g) {
  const int64_t K = g.K(), L = g.L();
  const int64_t limit = int64_t(1) << 29;  // 2 GiB of floats: more than any wasm heap holds
  if (K < 0 || L < 0 || (L != 0 && K > limit / L))
    fail("cannot allocate the column buffer of ", K, " x ", L, " floats: too large");
  const int64_t per = std::max<int64_t>(K * L, 1);
  return std::max<int64_t>(1, std::min(g.N, kChunkFloats / per));
}

// A scratch buffer of n floats from the caching allocator (contents undefined).
Tensor scratch(int64_t n) { return Tensor::uninitialized({std::max<int64_t>(n, 1)}); }

// The Og channels of group gi of images n0 … n0+B−1 of t [N, O, L] as one [Og, B·L] matrix.
void gather_channels(const ConvGeom& g, const float* t, int64_t n0, int64_t B, int64_t gi, float* out) {
  const int64_t L = g.L(), Og = g.Og();
  for (int64_t o = 0; o < Og; ++o)
    for (int64_t b = 0; b < B; ++b) {
      const float* src = t + ((n0 + b) * g.O + gi * Og + o) * L;
      std::copy(src, src + L, out + (o * B + b) * L);
    }
}

}  // namespace

void conv_forward_f32(const ConvGeom& g, const float* x, const float* w, const float* bias, float* y) {
  const int64_t K = g.K(), L = g.L(), Og = g.Og(), Cg = g.Cg(), HW = g.H * g.W;
  const int64_t B = chunk_images(g);
  if (is_pointwise(g) || B == 1) {  // one image at a time, written straight into y
    const bool direct = is_pointwise(g);
    Tensor col = direct ? Tensor() : scratch(K * L);
    for (int64_t n = 0; n < g.N; ++n)
      for (int64_t gi = 0; gi < g.groups; ++gi) {
        const float* xg = x + (n * g.C + gi * Cg) * HW;
        if (!direct) im2col(g, xg, col.f32(), L);
        float* yg = y + (n * g.O + gi * Og) * L;
        if (bias)  // start from the bias and let the gemm add onto it
          for (int64_t o = 0; o < Og; ++o) std::fill(yg + o * L, yg + (o + 1) * L, bias[gi * Og + o]);
        gemm(false, false, Og, L, K, w + gi * Og * K, K, direct ? xg : col.f32(), L,
             bias ? 1.0f : 0.0f, yg, L);
      }
    return;
  }
  Tensor col = scratch(K * B * L), tmp = scratch(Og * B * L);
  for (int64_t n0 = 0; n0 < g.N; n0 += B) {
    const int64_t nb = std::min(B, g.N - n0), ld = nb * L;
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      for (int64_t b = 0; b < nb; ++b) im2col(g, x + ((n0 + b) * g.C + gi * Cg) * HW, col.f32() + b * L, ld);
      // tmp [Og, nb·L] = W_g · col, then scattered to y [n, gi·Og + o, :] with the bias.
      gemm(false, false, Og, ld, K, w + gi * Og * K, K, col.f32(), ld, 0.0f, tmp.f32(), ld);
      for (int64_t o = 0; o < Og; ++o) {
        const float bv = bias ? bias[gi * Og + o] : 0.0f;
        for (int64_t b = 0; b < nb; ++b) {
          const float* src = tmp.f32() + o * ld + b * L;
          float* dst = y + ((n0 + b) * g.O + gi * Og + o) * L;
          for (int64_t i = 0; i < L; ++i) dst[i] = src[i] + bv;
        }
      }
    }
  }
}

void conv_input_grad_f32(const ConvGeom& g, const float* dy, const float* w, float* dx) {
  const int64_t K = g.K(), L = g.L(), Og = g.Og(), Cg = g.Cg(), HW = g.H * g.W;
  const int64_t B = chunk_images(g);
  if (is_pointwise(g)) {  // dx_g [K, L] = W_gᵀ [K, Og] · dy_g [Og, L], image by image
    for (int64_t n = 0; n < g.N; ++n)
      for (int64_t gi = 0; gi < g.groups; ++gi)
        gemm(true, false, K, L, Og, w + gi * Og * K, K, dy + (n * g.O + gi * Og) * L, L, 0.0f,
             dx + (n * g.C + gi * Cg) * HW, L);
    return;
  }
  std::fill(dx, dx + g.N * g.C * HW, 0.0f);
  Tensor dcol = scratch(K * B * L), dyp = B > 1 ? scratch(Og * B * L) : Tensor();
  for (int64_t n0 = 0; n0 < g.N; n0 += B) {
    const int64_t nb = std::min(B, g.N - n0), ld = nb * L;
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const float* dyg = dy + (n0 * g.O + gi * Og) * L;  // one image: already [Og, L]
      if (nb > 1) {
        gather_channels(g, dy, n0, nb, gi, dyp.f32());
        dyg = dyp.f32();
      }
      // dcol [K, nb·L] = W_gᵀ [K, Og] · dy_g [Og, nb·L]
      gemm(true, false, K, ld, Og, w + gi * Og * K, K, dyg, ld, 0.0f, dcol.f32(), ld);
      for (int64_t b = 0; b < nb; ++b) col2im(g, dcol.f32() + b * L, ld, dx + ((n0 + b) * g.C + gi * Cg) * HW);
    }
  }
}

void conv_weight_grad_f32(const ConvGeom& g, const float* x, const float* dy, float* dw) {
  const int64_t K = g.K(), L = g.L(), Og = g.Og(), Cg = g.Cg(), HW = g.H * g.W;
  const int64_t B = chunk_images(g);
  std::fill(dw, dw + g.O * K, 0.0f);  // the answer for an empty batch
  if (is_pointwise(g)) {  // dW_g [Og, K] += dy_g [Og, L] · x_g [K, L]ᵀ, image by image
    for (int64_t n = 0; n < g.N; ++n)
      for (int64_t gi = 0; gi < g.groups; ++gi)
        gemm(false, true, Og, K, L, dy + (n * g.O + gi * Og) * L, L, x + (n * g.C + gi * Cg) * HW, L, 1.0f,
             dw + gi * Og * K, K);
    return;
  }
  Tensor col = scratch(K * B * L), dyp = B > 1 ? scratch(Og * B * L) : Tensor();
  for (int64_t n0 = 0; n0 < g.N; n0 += B) {
    const int64_t nb = std::min(B, g.N - n0), ld = nb * L;
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      for (int64_t b = 0; b < nb; ++b) im2col(g, x + ((n0 + b) * g.C + gi * Cg) * HW, col.f32() + b * L, ld);
      const float* dyg = dy + (n0 * g.O + gi * Og) * L;
      if (nb > 1) {
        gather_channels(g, dy, n0, nb, gi, dyp.f32());
        dyg = dyp.f32();
      }
      // dW_g [Og, K] += dy_g [Og, nb·L] · col [K, nb·L]ᵀ
      gemm(false, true, Og, K, ld, dyg, ld, col.f32(), ld, 1.0f, dw + gi * Og * K, K);
    }
  }
}

}  // namespace sg
