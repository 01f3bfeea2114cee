// SIMD im2col / col2im for column stride 1 (other strides: the reference loops). Each output
// row of a column-matrix row is a short run (oW floats, often 7–28): a library memcpy/memset
// call per run cost more than the copying itself (measured: im2col was ~40 % of the bench
// CNN's second convolution), so runs are moved with vector loads/stores and the padded edges
// are built lane by lane. A copy and its adjoint: results equal the reference's exactly.
#include "kernels/reference/reference_kernels.h"
#include "kernels/simd/simd_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/im2col.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// dst[i] = src_row[i + off] for i in [lo, hi), 0 elsewhere in [0, n).
HWY_INLINE void RowCopy(const float* src_row, int64_t off, int64_t lo, int64_t hi, float* dst, int64_t n) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  if (n >= N && hi - lo >= N && lo <= N && n - hi <= N) {
    // The usual row (padding narrower than a vector): zero both ends with one store each,
    // then copy [lo, hi) in whole vectors, the last one shifted back to end at hi (it
    // rewrites a few floats with the same values).
    hn::StoreU(hn::Zero(d), d, dst);
    hn::StoreU(hn::Zero(d), d, dst + n - N);
    int64_t i = lo;
    for (; i + N <= hi; i += N) hn::StoreU(hn::LoadU(d, src_row + i + off), d, dst + i);
    if (i < hi) hn::StoreU(hn::LoadU(d, src_row + hi - N + off), d, dst + hi - N);
    return;
  }
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    if (i >= lo && i + N <= hi) {
      hn::StoreU(hn::LoadU(d, src_row + i + off), d, dst + i);
    } else {
      HWY_ALIGN float buf[HWY_MAX_BYTES / sizeof(float)];
      for (int64_t j = 0; j < N; ++j) buf[j] = (i + j >= lo && i + j < hi) ? src_row[i + j + off] : 0.0f;
      hn::StoreU(hn::Load(d, buf), d, dst + i);
    }
  }
  for (; i < n; ++i) dst[i] = (i >= lo && i < hi) ? src_row[i + off] : 0.0f;
}

HWY_INLINE void RowZero(float* dst, int64_t n) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::Zero(d), d, dst + i);
  for (; i < n; ++i) dst[i] = 0.0f;
}

// dst_row[i + off] += src[i] for i in [lo, hi).
HWY_INLINE void RowAdd(const float* src, int64_t off, int64_t lo, int64_t hi, float* dst_row) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = lo;
  for (; i + N <= hi; i += N) {
    float* p = dst_row + i + off;
    hn::StoreU(hn::Add(hn::LoadU(d, p), hn::LoadU(d, src + i)), d, p);
  }
  for (; i < hi; ++i) dst_row[i + off] += src[i];
}

void Im2col(const Im2colGeom& g, const float* x, float* col, int64_t ld) {
  for (int64_t c = 0; c < g.C; ++c)
    for (int64_t ki = 0; ki < g.kH; ++ki)
      for (int64_t kj = 0; kj < g.kW; ++kj) {
        float* row = col + ((c * g.kH + ki) * g.kW + kj) * ld;
        const int64_t off_h = ki * g.dH - g.pH, off_w = kj * g.dW - g.pW;
        const ref::ValidRange rw = ref::valid_outputs(off_w, 1, g.W, g.oW);
        for (int64_t oh = 0; oh < g.oH; ++oh) {
          float* dst = row + oh * g.oW;
          const int64_t ih = oh * g.sH + off_h;
          if (ih < 0 || ih >= g.H) RowZero(dst, g.oW);
          else RowCopy(x + (c * g.H + ih) * g.W, off_w, rw.lo, rw.hi, dst, g.oW);
        }
      }
}

void Col2im(const Im2colGeom& g, const float* col, int64_t ld, float* dx) {
  for (int64_t c = 0; c < g.C; ++c)
    for (int64_t ki = 0; ki < g.kH; ++ki)
      for (int64_t kj = 0; kj < g.kW; ++kj) {
        const float* row = col + ((c * g.kH + ki) * g.kW + kj) * ld;
        const int64_t off_h = ki * g.dH - g.pH, off_w = kj * g.dW - g.pW;
        const ref::ValidRange rw = ref::valid_outputs(off_w, 1, g.W, g.oW);
        for (int64_t oh = 0; oh < g.oH; ++oh) {
          const int64_t ih = oh * g.sH + off_h;
          if (ih < 0 || ih >= g.H) continue;
          RowAdd(row + oh * g.oW, off_w, rw.lo, rw.hi, dx + (c * g.H + ih) * g.W);
        }
      }
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace sg
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sg {
namespace simd {
HWY_EXPORT(Im2col);
HWY_EXPORT(Col2im);

void im2col_f32(const Im2colGeom& g, const float* x, float* col, int64_t ld) {
  if (g.sW != 1) return ref::im2col_f32(g, x, col, ld);
  HWY_DYNAMIC_DISPATCH(Im2col)(g, x, col, ld);
}

void col2im_f32(const Im2colGeom& g, const float* col, int64_t ld, float* dx) {
  if (g.sW != 1) return ref::col2im_f32(g, col, ld, dx);
  HWY_DYNAMIC_DISPATCH(Col2im)(g, col, ld, dx);
}

}  // namespace simd
}  // namespace sg
#endif  // HWY_ONCE
