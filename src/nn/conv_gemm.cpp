#include "nn/conv_gemm.h"

#include <algorithm>
#include <vector>

#include "core/tensor.h"

#include "core/error.h"
#include "core/parallel.h"
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

// Threads: the chunks of B images are dealt out in at most num_threads() pieces of consecutive
// chunks, one piece per thread, each with its own scratch buffers (allocated here, on the
// calling thread) — the GEMMs inside a piece then run serially. With a single chunk the loop
// stays on the caller and the GEMM itself splits over the threads.
struct ChunkPlan {
  int64_t B, chunks, per_piece, pieces;
};
ChunkPlan plan_chunks(const ConvGeom& g, int64_t B) {
  const int64_t chunks = (g.N + B - 1) / B;
  const int64_t threads = in_parallel_region() ? 1 : std::min<int64_t>(num_threads(), chunks);
  const int64_t per_piece = threads > 1 ? (chunks + threads - 1) / threads : std::max<int64_t>(chunks, 1);
  return {B, chunks, per_piece, chunks > 0 ? (chunks + per_piece - 1) / per_piece : 0};
}
// body(piece, n0, nb) for every chunk: images n0 … n0+nb−1, on the piece's thread.
template <class Body>
void for_each_chunk(const ConvGeom& g, const ChunkPlan& c, Body&& body) {
  parallel_for(0, c.chunks, c.per_piece, [&](int64_t lo, int64_t hi) {
    for (int64_t ci = lo; ci < hi; ++ci) body(lo / c.per_piece, ci * c.B, std::min(c.B, g.N - ci * c.B));
  });
}
std::vector<Tensor> scratch_per_piece(const ChunkPlan& c, int64_t n) {
  std::vector<Tensor> out;
  for (int64_t p = 0; p < c.pieces; ++p) out.push_back(scratch(n));
  return out;
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
  const ChunkPlan plan = plan_chunks(g, B);
  const std::vector<Tensor> cols = scratch_per_piece(plan, K * B * L), tmps = scratch_per_piece(plan, Og * B * L);
  for_each_chunk(g, plan, [&](int64_t piece, int64_t n0, int64_t nb) {
    float* col = cols[size_t(piece)].f32();
    float* tmp = tmps[size_t(piece)].f32();
    const int64_t ld = nb * L;
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      for (int64_t b = 0; b < nb; ++b) im2col(g, x + ((n0 + b) * g.C + gi * Cg) * HW, col + b * L, ld);
      // tmp [Og, nb·L] = W_g · col, then scattered to y [n, gi·Og + o, :] with the bias.
      gemm(false, false, Og, ld, K, w + gi * Og * K, K, col, ld, 0.0f, tmp, ld);
      for (int64_t o = 0; o < Og; ++o) {
        const float bv = bias ? bias[gi * Og + o] : 0.0f;
        for (int64_t b = 0; b < nb; ++b) {
          const float* src = tmp + o * ld + b * L;
          float* dst = y + ((n0 + b) * g.O + gi * Og + o) * L;
          for (int64_t i = 0; i < L; ++i) dst[i] = src[i] + bv;
        }
      }
    }
  });
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
  const ChunkPlan plan = plan_chunks(g, B);
  const std::vector<Tensor> dcols = scratch_per_piece(plan, K * B * L);
  const std::vector<Tensor> dyps = B > 1 ? scratch_per_piece(plan, Og * B * L) : std::vector<Tensor>();
  for_each_chunk(g, plan, [&](int64_t piece, int64_t n0, int64_t nb) {
    float* dcol = dcols[size_t(piece)].f32();
    const int64_t ld = nb * L;
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const float* dyg = dy + (n0 * g.O + gi * Og) * L;  // one image: already [Og, L]
      if (nb > 1) {
        float* dyp = dyps[size_t(piece)].f32();
        gather_channels(g, dy, n0, nb, gi, dyp);
        dyg = dyp;
      }
      // dcol [K, nb·L] = W_gᵀ [K, Og] · dy_g [Og, nb·L]
      gemm(true, false, K, ld, Og, w + gi * Og * K, K, dyg, ld, 0.0f, dcol, ld);
      for (int64_t b = 0; b < nb; ++b) col2im(g, dcol + b * L, ld, dx + ((n0 + b) * g.C + gi * Cg) * HW);
    }
  });
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
  // Piece p > 0 accumulates into its own zeroed copy of dW, summed into dw at the end (so the
  // sum order, and the last bits, depend on the thread count).
  const ChunkPlan plan = plan_chunks(g, B);
  const std::vector<Tensor> cols = scratch_per_piece(plan, K * B * L);
  const std::vector<Tensor> dyps = B > 1 ? scratch_per_piece(plan, Og * B * L) : std::vector<Tensor>();
  std::vector<Tensor> partial;
  for (int64_t p = 1; p < plan.pieces; ++p) partial.push_back(Tensor::empty({g.O * K}));  // zeroed
  for_each_chunk(g, plan, [&](int64_t piece, int64_t n0, int64_t nb) {
    float* col = cols[size_t(piece)].f32();
    float* out = piece == 0 ? dw : partial[size_t(piece - 1)].f32();
    const int64_t ld = nb * L;
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      for (int64_t b = 0; b < nb; ++b) im2col(g, x + ((n0 + b) * g.C + gi * Cg) * HW, col + b * L, ld);
      const float* dyg = dy + (n0 * g.O + gi * Og) * L;
      if (nb > 1) {
        float* dyp = dyps[size_t(piece)].f32();
        gather_channels(g, dy, n0, nb, gi, dyp);
        dyg = dyp;
      }
      // dW_g [Og, K] += dy_g [Og, nb·L] · col [K, nb·L]ᵀ
      gemm(false, true, Og, K, ld, dyg, ld, col, ld, 1.0f, out + gi * Og * K, K);
    }
  });
  for (const Tensor& part : partial)
    for (int64_t i = 0; i < g.O * K; ++i) dw[i] += part.f32()[i];
}

}  // namespace sg
