// im2col / col2im, scalar: the oracle for the SIMD versions (a copy and its adjoint, so the
// two must agree exactly).
#include <algorithm>

#include "kernels/reference/reference_kernels.h"

namespace sg::ref {

ValidRange valid_outputs(int64_t off, int64_t s, int64_t size, int64_t out) {
  int64_t lo = off >= 0 ? 0 : (-off + s - 1) / s;
  int64_t hi = size - 1 - off < 0 ? 0 : (size - 1 - off) / s + 1;
  hi = std::min(hi, out);
  lo = std::min(lo, hi);
  return {lo, hi};
}

void im2col_f32(const Im2colGeom& g, const float* x, float* col, int64_t ld) {
  for (int64_t c = 0; c < g.C; ++c)
    for (int64_t ki = 0; ki < g.kH; ++ki)
      for (int64_t kj = 0; kj < g.kW; ++kj) {
        float* row = col + ((c * g.kH + ki) * g.kW + kj) * ld;
        const int64_t off_h = ki * g.dH - g.pH, off_w = kj * g.dW - g.pW;
        const ValidRange rw = valid_outputs(off_w, g.sW, g.W, g.oW);
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

void col2im_f32(const Im2colGeom& g, const float* col, int64_t ld, float* dx) {
  for (int64_t c = 0; c < g.C; ++c)
    for (int64_t ki = 0; ki < g.kH; ++ki)
      for (int64_t kj = 0; kj < g.kW; ++kj) {
        const float* row = col + ((c * g.kH + ki) * g.kW + kj) * ld;
        const int64_t off_h = ki * g.dH - g.pH, off_w = kj * g.dW - g.pW;
        const ValidRange rw = valid_outputs(off_w, g.sW, g.W, g.oW);
        for (int64_t oh = 0; oh < g.oH; ++oh) {
          const int64_t ih = oh * g.sH + off_h;
          if (ih < 0 || ih >= g.H) continue;
          const float* src = row + oh * g.oW;
          float* dst = dx + (c * g.H + ih) * g.W;
          for (int64_t ow = rw.lo; ow < rw.hi; ++ow) dst[ow * g.sW + off_w] += src[ow];
        }
      }
}

}  // namespace sg::ref
