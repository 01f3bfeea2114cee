// Max pooling, scalar: the oracle for the SIMD kernel (which also calls max_pool2d_row for the
// window positions it does not vectorize).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/reference/reference_kernels.h"

namespace sg::ref {

namespace {

template <class T>
void max_pool2d_row_t(const PoolGeom& g, const T* xp, int64_t oh, int64_t ow0, int64_t ow1, T* y, int32_t* idx) {
  for (int64_t ow = ow0; ow < ow1; ++ow) {
    // A dilated window can fall entirely on padding (ceil_mode, e.g. width 1, kernel 3,
    // dilation 2, padding 1, stride 3): then −inf and index −1, as PyTorch.
    T best = -std::numeric_limits<T>::infinity();
    int64_t at = -1;
    for (int64_t ki = 0; ki < g.kH; ++ki) {
      const int64_t ih = oh * g.sH - g.pH + ki * g.dH;
      if (ih < 0 || ih >= g.H) continue;
      for (int64_t kj = 0; kj < g.kW; ++kj) {
        const int64_t iw = ow * g.sW - g.pW + kj * g.dW;
        if (iw < 0 || iw >= g.W) continue;
        const T v = xp[ih * g.W + iw];
        if (at < 0 || v > best || std::isnan(v)) {
          best = v;
          at = ih * g.W + iw;
        }
      }
    }
    y[ow] = best;
    if (idx) idx[ow] = static_cast<int32_t>(at);
  }
}

template <class T>
void max_pool2d_t(const PoolGeom& g, const T* x, T* y, int32_t* idx) {
  const int64_t L = g.oH * g.oW;
  for (int64_t p = 0; p < g.P; ++p)
    for (int64_t oh = 0; oh < g.oH; ++oh) {
      const int64_t o = p * L + oh * g.oW;
      max_pool2d_row_t(g, x + p * g.H * g.W, oh, 0, g.oW, y + o, idx ? idx + o : nullptr);
    }
}

template <class T>
void max_pool2d_backward_t(const PoolGeom& g, const T* dy, const int32_t* idx, T* dx) {
  const int64_t HW = g.H * g.W, L = g.oH * g.oW;
  std::fill(dx, dx + g.P * HW, T(0));
  for (int64_t p = 0; p < g.P; ++p) {
    T* d = dx + p * HW;
    for (int64_t j = 0; j < L; ++j) {
      const int32_t at = idx[p * L + j];
      if (at >= 0) d[at] += dy[p * L + j];  // −1: a window of padding only, no input to route to
    }
  }
}

}  // namespace

// float32 (the oracle of the SIMD kernel) and float64 (float64 tensors' pools, on the CPU).
void max_pool2d_row(const PoolGeom& g, const float* xp, int64_t oh, int64_t ow0, int64_t ow1, float* y,
                    int32_t* idx) {
  max_pool2d_row_t(g, xp, oh, ow0, ow1, y, idx);
}
void max_pool2d_f32(const PoolGeom& g, const float* x, float* y, int32_t* idx) { max_pool2d_t(g, x, y, idx); }
void max_pool2d_f64(const PoolGeom& g, const double* x, double* y, int32_t* idx) { max_pool2d_t(g, x, y, idx); }
void max_pool2d_backward_f32(const PoolGeom& g, const float* dy, const int32_t* idx, float* dx) {
  max_pool2d_backward_t(g, dy, idx, dx);
}
void max_pool2d_backward_f64(const PoolGeom& g, const double* dy, const int32_t* idx, double* dx) {
  max_pool2d_backward_t(g, dy, idx, dx);
}

}  // namespace sg::ref
