// Scalar twins of the optimizer kernels: the same float32 operations in the same order, one
// element at a time. The tests hold the SIMD kernels to bit-identical results with these.
#include <cmath>

#include "optim/optim_kernels.h"

namespace sg::optim::ref {

namespace {
// torch.maximum: NaN wins.
float maximum_nan(float a, float b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  return a > b ? a : b;
}
}  // namespace

void sgd_f32(float* p, const float* g, float* buf, int64_t n, const SgdScalars& s) {
  for (int64_t i = 0; i < n; ++i) {
    float dp = g[i] * s.sign;
    if (s.has_weight_decay) dp = dp + s.weight_decay * p[i];
    if (s.has_momentum) {
      const float b = s.first ? dp : buf[i] * s.momentum + s.one_minus_dampening * dp;
      buf[i] = b;
      dp = s.nesterov ? dp + s.momentum * b : b;
    }
    p[i] = p[i] + s.neg_lr * dp;
  }
}

void adam_f32(float* p, const float* g, float* m, float* v, float* vmax, int64_t n,
              const AdamScalars& s) {
  for (int64_t i = 0; i < n; ++i) {
    float pv = p[i];
    float gv = g[i] * s.sign;
    if (s.decoupled) pv = pv * s.decay;
    if (s.l2) gv = gv + s.weight_decay * pv;
    const float mv = m[i] * s.beta1 + s.one_minus_beta1 * gv;
    const float vv = v[i] * s.beta2 + (s.one_minus_beta2 * gv) * gv;
    m[i] = mv;
    v[i] = vv;
    float second = vv;
    if (s.amsgrad) second = vmax[i] = maximum_nan(vmax[i], vv);
    const float denom = std::sqrt(second) / s.bias_correction2_sqrt + s.eps;
    p[i] = pv + (s.neg_step_size * mv) / denom;
  }
}

void rmsprop_f32(float* p, const float* g, float* square_avg, float* grad_avg, float* buf,
                 int64_t n, const RmspropScalars& s) {
  for (int64_t i = 0; i < n; ++i) {
    float gv = g[i] * s.sign;
    if (s.has_weight_decay) gv = gv + s.weight_decay * p[i];
    const float sq = square_avg[i] * s.alpha + (s.one_minus_alpha * gv) * gv;
    square_avg[i] = sq;
    float avg;
    if (s.centered) {
      const float ga = grad_avg[i] * s.alpha + s.one_minus_alpha * gv;
      grad_avg[i] = ga;
      avg = std::sqrt(sq - ga * ga);
    } else {
      avg = std::sqrt(sq);
    }
    avg = avg + s.eps;
    if (s.has_momentum) {
      const float b = buf[i] * s.momentum + gv / avg;
      buf[i] = b;
      p[i] = p[i] + s.neg_lr * b;
    } else {
      p[i] = p[i] + (s.neg_lr * gv) / avg;
    }
  }
}

void adagrad_f32(float* p, const float* g, float* sum, int64_t n, const AdagradScalars& s) {
  for (int64_t i = 0; i < n; ++i) {
    float gv = g[i] * s.sign;
    if (s.has_weight_decay) gv = gv + s.weight_decay * p[i];
    const float sv = sum[i] + gv * gv;
    sum[i] = sv;
    const float stdv = std::sqrt(sv) + s.eps;
    p[i] = p[i] + (s.neg_clr * gv) / stdv;
  }
}

double sum_squares_f32(const float* x, int64_t n) {
  double total = 0;
  for (int64_t i = 0; i < n; ++i) total += static_cast<double>(x[i]) * x[i];
  return total;
}

double sum_abs_f32(const float* x, int64_t n) {
  double total = 0;
  for (int64_t i = 0; i < n; ++i) total += std::fabs(static_cast<double>(x[i]));
  return total;
}

float max_abs_f32(const float* x, int64_t n) {
  float best = 0;
  for (int64_t i = 0; i < n; ++i) best = maximum_nan(best, std::fabs(x[i]));
  return best;
}

void scale_f32(float* x, int64_t n, float c) {
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] * c;
}

void clamp_f32(float* x, int64_t n, float lo, float hi) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isnan(x[i])) x[i] = std::fmin(std::fmax(x[i], lo), hi);
}

void adadelta_f32(float* p, const float* g, float* square_avg, float* acc_delta, int64_t n,
                  const AdadeltaScalars& s) {
  for (int64_t i = 0; i < n; ++i) {
    float gv = g[i] * s.sign;
    if (s.has_weight_decay) gv = gv + s.weight_decay * p[i];
    const float sq = square_avg[i] * s.rho + (s.one_minus_rho * gv) * gv;
    square_avg[i] = sq;
    const float delta = std::sqrt(acc_delta[i] + s.eps) / std::sqrt(sq + s.eps) * gv;
    acc_delta[i] = acc_delta[i] * s.rho + (s.one_minus_rho * delta) * delta;
    p[i] = p[i] + s.neg_lr * delta;
  }
}

void adamax_f32(float* p, const float* g, float* exp_avg, float* exp_inf, int64_t n,
                const AdamaxScalars& s) {
  for (int64_t i = 0; i < n; ++i) {
    float gv = g[i] * s.sign;
    if (s.has_weight_decay) gv = gv + s.weight_decay * p[i];
    const float m = exp_avg[i] * s.beta1 + s.one_minus_beta1 * gv;
    const float u = maximum_nan(exp_inf[i] * s.beta2, std::fabs(gv) + s.eps);
    exp_avg[i] = m;
    exp_inf[i] = u;
    p[i] = p[i] + (s.neg_clr * m) / u;
  }
}

namespace {
// Element i of Adam's moments (MomentsScalars): returns g (with weight decay), updates m and v.
float moments_at(const MomentsScalars& s, const float* p, const float* g, float* m, float* v,
                 int64_t i) {
  float gv = g[i];
  if (s.has_weight_decay) gv = gv + s.weight_decay * p[i];
  m[i] = m[i] * s.beta1 + s.one_minus_beta1 * gv;
  v[i] = v[i] * s.beta2 + (s.one_minus_beta2 * gv) * gv;
  return gv;
}
}  // namespace

void nadam_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
               const NadamScalars& s) {
  for (int64_t i = 0; i < n; ++i) {
    const float gv = moments_at(s.moments, p, g, exp_avg, exp_avg_sq, i);
    const float denom = std::sqrt(exp_avg_sq[i] / s.bias_correction2) + s.moments.eps;
    const float pv = p[i] + (s.grad_coef * gv) / denom;
    p[i] = pv + (s.avg_coef * exp_avg[i]) / denom;
  }
}

void radam_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
               const RadamScalars& s) {
  for (int64_t i = 0; i < n; ++i) {
    moments_at(s.moments, p, g, exp_avg, exp_avg_sq, i);
    const float step = (exp_avg[i] / s.bias_correction1) * s.lr;
    if (s.rectified) {
      const float adaptive = (1.0f / (std::sqrt(exp_avg_sq[i]) + s.moments.eps)) * s.bias_correction2_sqrt;
      p[i] = p[i] - (step * adaptive) * s.rect;
    } else {
      p[i] = p[i] - step;
    }
  }
}

}  // namespace sg::optim::ref
