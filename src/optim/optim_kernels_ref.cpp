// Scalar twins of the optimizer kernels: the same float32 operations in the same order, one
// element at a time; instantiated in double, the float64 parameters' kernels (the same operations
// in PyTorch's order, as torch.optim runs them on a float64 tensor). The tests hold the SIMD kernels to bit-identical results with these.
#include <cmath>

#include "optim/optim_kernels.h"

namespace sg::optim::ref {

namespace {
// torch.maximum: NaN wins.
template <class T>
T maximum_nan(T a, T b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  return a > b ? a : b;
}
}  // namespace

template <class T>
void sgd_t(T* p, const T* g, T* buf, int64_t n, const SgdScalarsT<T>& s) {
  for (int64_t i = 0; i < n; ++i) {
    T dp = g[i] * s.sign;
    if (s.has_weight_decay) dp = dp + s.weight_decay * p[i];
    if (s.has_momentum) {
      const T b = s.first ? dp : buf[i] * s.momentum + s.one_minus_dampening * dp;
      buf[i] = b;
      dp = s.nesterov ? dp + s.momentum * b : b;
    }
    p[i] = p[i] + s.neg_lr * dp;
  }
}

template <class T>
void adam_t(T* p, const T* g, T* m, T* v, T* vmax, int64_t n,
              const AdamScalarsT<T>& s) {
  for (int64_t i = 0; i < n; ++i) {
    T pv = p[i];
    T gv = g[i] * s.sign;
    if (s.decoupled) pv = pv * s.decay;
    if (s.l2) gv = gv + s.weight_decay * pv;
    const T mv = m[i] * s.beta1 + s.one_minus_beta1 * gv;
    const T vv = v[i] * s.beta2 + (s.one_minus_beta2 * gv) * gv;
    m[i] = mv;
    v[i] = vv;
    T second = vv;
    if (s.amsgrad) second = vmax[i] = maximum_nan(vmax[i], vv);
    const T denom = std::sqrt(second) / s.bias_correction2_sqrt + s.eps;
    p[i] = pv + (s.neg_step_size * mv) / denom;
  }
}

template <class T>
void rmsprop_t(T* p, const T* g, T* square_avg, T* grad_avg, T* buf,
                 int64_t n, const RmspropScalarsT<T>& s) {
  for (int64_t i = 0; i < n; ++i) {
    T gv = g[i] * s.sign;
    if (s.has_weight_decay) gv = gv + s.weight_decay * p[i];
    const T sq = square_avg[i] * s.alpha + (s.one_minus_alpha * gv) * gv;
    square_avg[i] = sq;
    T avg;
    if (s.centered) {
      const T ga = grad_avg[i] * s.alpha + s.one_minus_alpha * gv;
      grad_avg[i] = ga;
      avg = std::sqrt(sq - ga * ga);
    } else {
      avg = std::sqrt(sq);
    }
    avg = avg + s.eps;
    if (s.has_momentum) {
      const T b = buf[i] * s.momentum + gv / avg;
      buf[i] = b;
      p[i] = p[i] + s.neg_lr * b;
    } else {
      p[i] = p[i] + (s.neg_lr * gv) / avg;
    }
  }
}

template <class T>
void adagrad_t(T* p, const T* g, T* sum, int64_t n, const AdagradScalarsT<T>& s) {
  for (int64_t i = 0; i < n; ++i) {
    T gv = g[i] * s.sign;
    if (s.has_weight_decay) gv = gv + s.weight_decay * p[i];
    const T sv = sum[i] + gv * gv;
    sum[i] = sv;
    const T stdv = std::sqrt(sv) + s.eps;
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

template <class T>
void adadelta_t(T* p, const T* g, T* square_avg, T* acc_delta, int64_t n,
                  const AdadeltaScalarsT<T>& s) {
  for (int64_t i = 0; i < n; ++i) {
    T gv = g[i] * s.sign;
    if (s.has_weight_decay) gv = gv + s.weight_decay * p[i];
    const T sq = square_avg[i] * s.rho + (s.one_minus_rho * gv) * gv;
    square_avg[i] = sq;
    const T delta = std::sqrt(acc_delta[i] + s.eps) / std::sqrt(sq + s.eps) * gv;
    acc_delta[i] = acc_delta[i] * s.rho + (s.one_minus_rho * delta) * delta;
    p[i] = p[i] + s.neg_lr * delta;
  }
}

template <class T>
void adamax_t(T* p, const T* g, T* exp_avg, T* exp_inf, int64_t n,
                const AdamaxScalarsT<T>& s) {
  for (int64_t i = 0; i < n; ++i) {
    T gv = g[i] * s.sign;
    if (s.has_weight_decay) gv = gv + s.weight_decay * p[i];
    const T m = exp_avg[i] * s.beta1 + s.one_minus_beta1 * gv;
    const T u = maximum_nan(exp_inf[i] * s.beta2, std::fabs(gv) + s.eps);
    exp_avg[i] = m;
    exp_inf[i] = u;
    p[i] = p[i] + (s.neg_clr * m) / u;
  }
}

namespace {
// Element i of Adam's moments (MomentsScalars): returns g (with weight decay), updates m and v.
template <class T>
T moments_at(const MomentsScalarsT<T>& s, const T* p, const T* g, T* m, T* v, int64_t i) {
  T gv = g[i];
  if (s.has_weight_decay) gv = gv + s.weight_decay * p[i];
  m[i] = m[i] * s.beta1 + s.one_minus_beta1 * gv;
  v[i] = v[i] * s.beta2 + (s.one_minus_beta2 * gv) * gv;
  return gv;
}
}  // namespace

template <class T>
void nadam_t(T* p, const T* g, T* exp_avg, T* exp_avg_sq, int64_t n,
               const NadamScalarsT<T>& s) {
  for (int64_t i = 0; i < n; ++i) {
    const T gv = moments_at(s.moments, p, g, exp_avg, exp_avg_sq, i);
    const T denom = std::sqrt(exp_avg_sq[i] / s.bias_correction2) + s.moments.eps;
    const T pv = p[i] + (s.grad_coef * gv) / denom;
    p[i] = pv + (s.avg_coef * exp_avg[i]) / denom;
  }
}

template <class T>
void radam_t(T* p, const T* g, T* exp_avg, T* exp_avg_sq, int64_t n,
               const RadamScalarsT<T>& s) {
  for (int64_t i = 0; i < n; ++i) {
    moments_at(s.moments, p, g, exp_avg, exp_avg_sq, i);
    const T step = (exp_avg[i] / s.bias_correction1) * s.lr;
    if (s.rectified) {
      const T adaptive = (T(1) / (std::sqrt(exp_avg_sq[i]) + s.moments.eps)) * s.bias_correction2_sqrt;
      p[i] = p[i] - (step * adaptive) * s.rect;
    } else {
      p[i] = p[i] - step;
    }
  }
}

// The float32 twins of the SIMD kernels, and the float64 kernels of float64 parameters.
void sgd_f32(float* p, const float* g, float* buf, int64_t n, const SgdScalarsT<float>& s) { sgd_t(p, g, buf, n, s); }
void sgd_f64(double* p, const double* g, double* buf, int64_t n, const SgdScalarsT<double>& s) { sgd_t(p, g, buf, n, s); }
void adam_f32(float* p, const float* g, float* m, float* v, float* vmax, int64_t n,
              const AdamScalarsT<float>& s) { adam_t(p, g, m, v, vmax, n, s); }
void adam_f64(double* p, const double* g, double* m, double* v, double* vmax, int64_t n,
              const AdamScalarsT<double>& s) { adam_t(p, g, m, v, vmax, n, s); }
void rmsprop_f32(float* p, const float* g, float* square_avg, float* grad_avg, float* buf,
                 int64_t n, const RmspropScalarsT<float>& s) { rmsprop_t(p, g, square_avg, grad_avg, buf, n, s); }
void rmsprop_f64(double* p, const double* g, double* square_avg, double* grad_avg, double* buf,
                 int64_t n, const RmspropScalarsT<double>& s) { rmsprop_t(p, g, square_avg, grad_avg, buf, n, s); }
void adagrad_f32(float* p, const float* g, float* sum, int64_t n, const AdagradScalarsT<float>& s) { adagrad_t(p, g, sum, n, s); }
void adagrad_f64(double* p, const double* g, double* sum, int64_t n, const AdagradScalarsT<double>& s) { adagrad_t(p, g, sum, n, s); }
void adadelta_f32(float* p, const float* g, float* square_avg, float* acc_delta, int64_t n,
                  const AdadeltaScalarsT<float>& s) { adadelta_t(p, g, square_avg, acc_delta, n, s); }
void adadelta_f64(double* p, const double* g, double* square_avg, double* acc_delta, int64_t n,
                  const AdadeltaScalarsT<double>& s) { adadelta_t(p, g, square_avg, acc_delta, n, s); }
void adamax_f32(float* p, const float* g, float* exp_avg, float* exp_inf, int64_t n,
                const AdamaxScalarsT<float>& s) { adamax_t(p, g, exp_avg, exp_inf, n, s); }
void adamax_f64(double* p, const double* g, double* exp_avg, double* exp_inf, int64_t n,
                const AdamaxScalarsT<double>& s) { adamax_t(p, g, exp_avg, exp_inf, n, s); }
void nadam_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
               const NadamScalarsT<float>& s) { nadam_t(p, g, exp_avg, exp_avg_sq, n, s); }
void nadam_f64(double* p, const double* g, double* exp_avg, double* exp_avg_sq, int64_t n,
               const NadamScalarsT<double>& s) { nadam_t(p, g, exp_avg, exp_avg_sq, n, s); }
void radam_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
               const RadamScalarsT<float>& s) { radam_t(p, g, exp_avg, exp_avg_sq, n, s); }
void radam_f64(double* p, const double* g, double* exp_avg, double* exp_avg_sq, int64_t n,
               const RadamScalarsT<double>& s) { radam_t(p, g, exp_avg, exp_avg_sq, n, s); }

}  // namespace sg::optim::ref
