// Fused training batch norm. Per channel c over its M = N·S values:
//   forward   mean, biased var (two passes, in double), rstd = 1/√(var + eps);
//             y = (x − mean)·(rstd·w) + b in one pass
//   backward  Σg and Σg·x̂ in one pass (double), then in one more pass
//             dx = rstd·w·(g − Σg/M − x̂·Σ(g·x̂)/M),  dw = Σg·x̂,  db = Σg
// (the closed form of norm.cpp's normalized_backward with dx̂ = g·w).
// Threads: every pass goes over channel ranges, each channel on one thread summing its images
// in the same order as on one thread, so the results do not depend on the thread count.
#include "nn/batch_norm_fused.h"

#include <cmath>
#include <vector>

#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/copy.h"
#include "core/parallel.h"
#include "ops/ops.h"

namespace sg {
namespace {

// A [C] float32 tensor of `v`.
Tensor channels(const std::vector<double>& v) {
  Tensor t = Tensor::uninitialized({int64_t(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.f32()[i] = static_cast<float>(v[i]);
  return t;
}

// running ← (1 − m)·running + m·batch, in place (as the op-composed form does it).
void update_running(const Tensor& running, const Tensor& batch, double momentum) {
  if (!running.defined()) return;
  copy_into(running, add(mul(running, scalar_tensor(1.0 - momentum)), mul(batch, scalar_tensor(momentum))));
}

// f(c0, c1) over ranges of the C channels, each with at least ~16K of the M values per
// channel in all (waking a thread costs microseconds).
template <class F>
void over_channels(int64_t C, double M, F&& f) {
  const int64_t grain = std::max<int64_t>(chunk_size(C, 1, 1, 2), int64_t((1 << 14) / std::max(M, 1.0)));
  parallel_for(0, C, grain, f);
}

}  // namespace

Tensor batch_norm_training_fused(const char* op, const Tensor& x, const Tensor& running_mean,
                                 const Tensor& running_var, const Tensor& weight, const Tensor& bias,
                                 double momentum, double eps) {
  (void)op;
  const int64_t N = x.shape()[0], C = x.shape()[1];
  const int64_t S = N * C > 0 ? x.numel() / (N * C) : 0;
  const double M = double(N * S);
  const Tensor xc = as_contiguous(x).detach();
  const float* px = xc.f32();
  const size_t nc = static_cast<size_t>(C);
  std::vector<double> mean(nc, 0.0), var(nc, 0.0), rstd(nc, 0.0);
  over_channels(C, M, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c)
      for (int64_t n = 0; n < N; ++n) {
        const float* p = px + (n * C + c) * S;
        double s = 0;
        for (int64_t i = 0; i < S; ++i) s += p[i];
        mean[size_t(c)] += s;
      }
    for (int64_t c = c0; c < c1; ++c) {
      mean[size_t(c)] /= M;
      const double mu = mean[size_t(c)];
      for (int64_t n = 0; n < N; ++n) {
        const float* p = px + (n * C + c) * S;
        double s = 0;
        for (int64_t i = 0; i < S; ++i) s += (p[i] - mu) * (p[i] - mu);
        var[size_t(c)] += s;
      }
    }
  });
  for (int64_t c = 0; c < C; ++c) {
    var[size_t(c)] /= M;
    rstd[size_t(c)] = 1.0 / std::sqrt(var[size_t(c)] + eps);
  }
  {
    NoGradGuard no_grad;
    update_running(running_mean, channels(mean), momentum);
    std::vector<double> unbiased(var);
    for (double& v : unbiased) v *= M / (M - 1);
    update_running(running_var, channels(unbiased), momentum);
  }

  const Tensor wc = weight.defined() ? as_contiguous(weight).detach() : Tensor();
  const Tensor bc = bias.defined() ? as_contiguous(bias).detach() : Tensor();
  Tensor y = Tensor::uninitialized(x.shape());
  float* py = y.f32();
  over_channels(C, M, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const float mu = float(mean[size_t(c)]);
      const float scale = float(rstd[size_t(c)] * (wc.defined() ? double(wc.f32()[c]) : 1.0));
      const float shift = bc.defined() ? bc.f32()[c] : 0.0f;
      for (int64_t n = 0; n < N; ++n) {
        const float* p = px + (n * C + c) * S;
        float* q = py + (n * C + c) * S;
        for (int64_t i = 0; i < S; ++i) q[i] = (p[i] - mu) * scale + shift;
      }
    }
  });

  const bool need_x = x.requires_grad(), need_w = weight.defined() && weight.requires_grad(),
             need_b = bias.defined() && bias.requires_grad();
  const Tensor mean_t = channels(mean), rstd_t = channels(rstd);
  const Shape w_shape = weight.defined() ? weight.shape() : Shape{}, b_shape = bias.defined() ? bias.shape() : Shape{};
  return record(op, y, {x, weight, bias}, [=](const Tensor& g) {
    const Tensor gc = as_contiguous(g, DType::Float32);
    const float* pg = gc.f32();
    std::vector<double> sum_g(static_cast<size_t>(C), 0.0), sum_gx(static_cast<size_t>(C), 0.0);
    over_channels(C, M, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        const float mu = mean_t.f32()[c], rs = rstd_t.f32()[c];
        for (int64_t n = 0; n < N; ++n) {
          const float* p = px + (n * C + c) * S;
          const float* q = pg + (n * C + c) * S;
          double a = 0, b = 0;
          for (int64_t i = 0; i < S; ++i) {
            a += q[i];
            b += double(q[i]) * double((p[i] - mu) * rs);
          }
          sum_g[size_t(c)] += a;
          sum_gx[size_t(c)] += b;
        }
      }
    });
    Tensor dx, dw, db;
    if (need_x) {
      dx = Tensor::uninitialized(xc.shape());
      float* pd = dx.f32();
      over_channels(C, M, [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c) {
          const float mu = mean_t.f32()[c], rs = rstd_t.f32()[c];
          const float k = float(double(rs) * (wc.defined() ? double(wc.f32()[c]) : 1.0));
          const float mg = float(sum_g[size_t(c)] / M), mgx = float(sum_gx[size_t(c)] / M);
          for (int64_t n = 0; n < N; ++n) {
            const float* p = px + (n * C + c) * S;
            const float* q = pg + (n * C + c) * S;
            float* d = pd + (n * C + c) * S;
            for (int64_t i = 0; i < S; ++i) d[i] = k * (q[i] - mg - (p[i] - mu) * rs * mgx);
          }
        }
      });
    }
    if (need_w) dw = reshape(channels(sum_gx), w_shape);
    if (need_b) db = reshape(channels(sum_g), b_shape);
    return std::vector<Tensor>{dx, dw, db};
  });
}

}  // namespace sg
