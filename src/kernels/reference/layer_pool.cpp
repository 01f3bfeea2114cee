// LayerKernels' defaults for average pooling (box means, kernels/box_geom.h). Planes are
// independent: ranges of them go to the threads, each plane computed as on one thread, so the
// results do not depend on the thread count.
#include <cstring>

#include "kernels/layer_kernels.h"
#include "kernels/parallel_kernels.h"

namespace sg {

void LayerKernels::box_mean_f32(const BoxGeom& g, const float* x, float* y) const {
  const int64_t H = g.rows.in, W = g.cols.in, oH = g.rows.out, oW = g.cols.out;
  par::over_items(g.P, H * W, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const float* xp = x + p * H * W;
      float* yp = y + p * oH * oW;
      for (int64_t i = 0; i < oH; ++i)
        for (int64_t j = 0; j < oW; ++j) {
          const int64_t h0 = g.rows.start(i), h1 = g.rows.end(i), w0 = g.cols.start(j), w1 = g.cols.end(j);
          if (h0 >= h1 || w0 >= w1) {
            yp[i * oW + j] = 0.0f;
            continue;
          }
          double acc = 0;
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) acc += xp[h * W + w];
          yp[i * oW + j] = static_cast<float>(acc / static_cast<double>(g.rows.count(i) * g.cols.count(j)));
        }
    }
  });
}

void LayerKernels::box_mean_backward_f32(const BoxGeom& g, const float* dy, float* dx) const {
  const int64_t H = g.rows.in, W = g.cols.in, oH = g.rows.out, oW = g.cols.out;
  par::over_items(g.P, H * W, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      float* dp = dx + p * H * W;
      std::memset(dp, 0, sizeof(float) * size_t(H * W));
      const float* gp = dy + p * oH * oW;
      for (int64_t i = 0; i < oH; ++i)
        for (int64_t j = 0; j < oW; ++j) {
          const int64_t h0 = g.rows.start(i), h1 = g.rows.end(i), w0 = g.cols.start(j), w1 = g.cols.end(j);
          if (h0 >= h1 || w0 >= w1) continue;
          const float share = static_cast<float>(gp[i * oW + j] / static_cast<double>(g.rows.count(i) * g.cols.count(j)));
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) dp[h * W + w] += share;
        }
    }
  });
}

}  // namespace sg
