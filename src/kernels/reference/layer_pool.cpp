// LayerKernels' defaults for average pooling (box means, kernels/box_geom.h). Planes are
// independent: ranges of them go to the threads, each plane computed as on one thread, so the
// results do not depend on the thread count.
#include <cstring>

#include "kernels/layer_kernels.h"
#include "kernels/parallel_kernels.h"
#include "kernels/reference/reference_kernels.h"

namespace sg {

namespace {

template <class T>
void box_mean_t(const BoxGeom& g, const T* x, T* y) {
  const int64_t H = g.rows.in, W = g.cols.in, oH = g.rows.out, oW = g.cols.out;
  par::over_items(g.P, H * W, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* xp = x + p * H * W;
      T* yp = y + p * oH * oW;
      for (int64_t i = 0; i < oH; ++i)
        for (int64_t j = 0; j < oW; ++j) {
          const int64_t h0 = g.rows.start(i), h1 = g.rows.end(i), w0 = g.cols.start(j), w1 = g.cols.end(j);
          if (h0 >= h1 || w0 >= w1) {
            yp[i * oW + j] = T(0);
            continue;
          }
          double acc = 0;
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) acc += xp[h * W + w];
          yp[i * oW + j] = static_cast<T>(acc / static_cast<double>(g.rows.count(i) * g.cols.count(j)));
        }
    }
  });
}

template <class T>
void box_mean_backward_t(const BoxGeom& g, const T* dy, T* dx) {
  const int64_t H = g.rows.in, W = g.cols.in, oH = g.rows.out, oW = g.cols.out;
  par::over_items(g.P, H * W, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      T* dp = dx + p * H * W;
      std::memset(dp, 0, sizeof(T) * size_t(H * W));
      const T* gp = dy + p * oH * oW;
      for (int64_t i = 0; i < oH; ++i)
        for (int64_t j = 0; j < oW; ++j) {
          const int64_t h0 = g.rows.start(i), h1 = g.rows.end(i), w0 = g.cols.start(j), w1 = g.cols.end(j);
          if (h0 >= h1 || w0 >= w1) continue;
          const T share = static_cast<T>(gp[i * oW + j] / static_cast<double>(g.rows.count(i) * g.cols.count(j)));
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) dp[h * W + w] += share;
        }
    }
  });
}

}  // namespace

void LayerKernels::box_mean_f32(const BoxGeom& g, const float* x, float* y) const { box_mean_t(g, x, y); }
void LayerKernels::box_mean_backward_f32(const BoxGeom& g, const float* dy, float* dx) const {
  box_mean_backward_t(g, dy, dx);
}

// float64 tensors' box means (reference_kernels.h), on the CPU.
namespace ref {
void box_mean_f64(const BoxGeom& g, const double* x, double* y) { box_mean_t(g, x, y); }
void box_mean_backward_f64(const BoxGeom& g, const double* dy, double* dx) { box_mean_backward_t(g, dy, dx); }
}  // namespace ref

}  // namespace sg
