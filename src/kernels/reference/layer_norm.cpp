// LayerKernels' defaults for training batch norm: per channel over its M = N·S values, the
// statistics accumulated in double (two passes, no cancellation), then one pass each for the
// normalized output and the backward (norm.cpp's closed form with dx̂ = g·w).
// Threads: every pass goes over ranges of channels, each channel on one thread summing its
// images in the same order as on one thread, so the results do not depend on the thread count.
#include <cmath>

#include "kernels/layer_kernels.h"
#include "kernels/parallel_kernels.h"

namespace sg {

void LayerKernels::batch_norm_stats_f32(const float* x, int64_t N, int64_t C, int64_t S, double eps, float* mean,
                                        float* var, float* rstd) const {
  const double M = double(N * S);
  par::over_items(C, N * S, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      double s = 0;  // plane by plane: each plane's sum, then the planes'
      for (int64_t n = 0; n < N; ++n) {
        const float* p = x + (n * C + c) * S;
        double plane = 0;
        for (int64_t i = 0; i < S; ++i) plane += p[i];
        s += plane;
      }
      const double mu = s / M;
      double q = 0;
      for (int64_t n = 0; n < N; ++n) {
        const float* p = x + (n * C + c) * S;
        double plane = 0;
        for (int64_t i = 0; i < S; ++i) plane += (p[i] - mu) * (p[i] - mu);
        q += plane;
      }
      const double v = q / M;
      mean[c] = static_cast<float>(mu);
      var[c] = static_cast<float>(v);
      rstd[c] = static_cast<float>(1.0 / std::sqrt(v + eps));
    }
  });
}

void LayerKernels::batch_norm_apply_f32(const float* x, int64_t N, int64_t C, int64_t S, const float* mean,
                                        const float* rstd, const float* w, const float* b, float* y) const {
  par::over_items(C, N * S, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const float mu = mean[c];
      const float scale = float(double(rstd[c]) * (w ? double(w[c]) : 1.0));
      const float shift = b ? b[c] : 0.0f;
      for (int64_t n = 0; n < N; ++n) {
        const float* p = x + (n * C + c) * S;
        float* q = y + (n * C + c) * S;
        for (int64_t i = 0; i < S; ++i) q[i] = (p[i] - mu) * scale + shift;
      }
    }
  });
}

void LayerKernels::batch_norm_backward_f32(const float* x, const float* g, int64_t N, int64_t C, int64_t S,
                                           const float* mean, const float* rstd, const float* w, float* sum_g,
                                           float* sum_gx, float* dx) const {
  const double M = double(N * S);
  par::over_items(C, N * S, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const float mu = mean[c], rs = rstd[c];
      double sg = 0, sgx = 0;
      for (int64_t n = 0; n < N; ++n) {
        const float* p = x + (n * C + c) * S;
        const float* q = g + (n * C + c) * S;
        double a = 0, b = 0;
        for (int64_t i = 0; i < S; ++i) {
          a += q[i];
          b += double(q[i]) * double((p[i] - mu) * rs);
        }
        sg += a;
        sgx += b;
      }
      sum_g[c] = static_cast<float>(sg);
      sum_gx[c] = static_cast<float>(sgx);
      if (!dx) continue;
      const float k = float(double(rs) * (w ? double(w[c]) : 1.0));
      const float mg = float(sg / M), mgx = float(sgx / M);
      for (int64_t n = 0; n < N; ++n) {
        const float* p = x + (n * C + c) * S;
        const float* q = g + (n * C + c) * S;
        float* d = dx + (n * C + c) * S;
        for (int64_t i = 0; i < S; ++i) d[i] = k * (q[i] - mg - (p[i] - mu) * rs * mgx);
      }
    }
  });
}

}  // namespace sg
