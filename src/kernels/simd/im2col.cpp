// SIMD im2col / col2im for column stride 1 (other strides: the reference loops). Each output
// row of a column-matrix row is a short run (oW floats, often 7–28): a library memcpy/memset
// call per run cost more than the copying itself (measured: im2col was ~40 % of the bench
// CNN's second convolution), so runs are moved with vector loads/stores (rows-inl.h). A copy and its adjoint: results equal the reference's exactly.
#include "kernels/reference/reference_kernels.h"
#include "kernels/simd/simd_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/im2col.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "hwy/highway.h"
#include "kernels/simd/rows-inl.h"

HWY_BEFORE_NAMESPACE();
namespace sg {
namespace simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

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

SG_NO_MEMCPY void Im2col(const Im2colGeom& g, const float* x, float* col, int64_t ld) {
  for (int64_t c = 0; c < g.C; ++c)
    for (int64_t ki = 0; ki < g.kH; ++ki)
      for (int64_t kj = 0; kj < g.kW; ++kj) {
        float* row = col + ((c * g.kH + ki) * g.kW + kj) * ld;
        const int64_t off_h = ki * g.dH - g.pH, off_w = kj * g.dW - g.pW;
        const ref::ValidRange rw = ref::valid_outputs(off_w, 1, g.W, g.oW);
        for (int64_t oh = 0; oh < g.oH; ++oh) {
          float* dst = row + oh * g.oW;
          const int64_t ih = oh * g.sH + off_h;
          if (ih < 0 || ih >= g.H) ZeroRun(dst, g.oW);
          else CopyRun(x + (c * g.H + ih) * g.W + off_w, rw.lo, rw.hi, g.oW, dst);
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
