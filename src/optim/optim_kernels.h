// Optimizer update kernels over contiguous float32 buffers of n elements, updated in place.
// Each follows PyTorch 1.13's single-tensor update (torch/optim/*.py) operation by operation,
// in float32, with the same operand order as ATen's kernels (add with alpha: a + α·b;
// addcmul: a + (v·b)·c; addcdiv: a + (v·b)/c), so that results stay within a few ulps of
// PyTorch's. Multiplies and adds are never fused, so the SIMD kernels (simd::, Highway,
// dispatched at run time natively and statically in wasm) and their scalar twins (ref::, the
// oracle of the tests) give bit-identical results.
//
// Per-call scalars are computed by the caller (optim.cpp) in double, as PyTorch computes them
// in Python, and passed rounded to float, as ATen rounds a Python scalar for a float tensor.
#pragma once
#include <cstdint>

#include "kernels/optim_scalars.h"

namespace sg::optim {

// The vectorized kernels (optim_kernels.cpp) and their scalar twins (optim_kernels_ref.cpp):
// the same declarations in two namespaces.
namespace simd {
void sgd_f32(float* p, const float* g, float* buf, int64_t n, const SgdScalars& s);
void adam_f32(float* p, const float* g, float* m, float* v, float* vmax, int64_t n,
              const AdamScalars& s);
void rmsprop_f32(float* p, const float* g, float* square_avg, float* grad_avg, float* buf,
                 int64_t n, const RmspropScalars& s);
void adagrad_f32(float* p, const float* g, float* sum, int64_t n, const AdagradScalars& s);
// For clip_grad_norm_/clip_grad_value_: sums accumulated in double; max |x| is NaN if any x is.
double sum_squares_f32(const float* x, int64_t n);
double sum_abs_f32(const float* x, int64_t n);
float max_abs_f32(const float* x, int64_t n);
void scale_f32(float* x, int64_t n, float c);             // x ·= c
void clamp_f32(float* x, int64_t n, float lo, float hi);  // min(max(x, lo), hi); NaN stays NaN
}  // namespace simd
namespace ref {
void sgd_f32(float* p, const float* g, float* buf, int64_t n, const SgdScalars& s);
void adam_f32(float* p, const float* g, float* m, float* v, float* vmax, int64_t n,
              const AdamScalars& s);
void rmsprop_f32(float* p, const float* g, float* square_avg, float* grad_avg, float* buf,
                 int64_t n, const RmspropScalars& s);
void adagrad_f32(float* p, const float* g, float* sum, int64_t n, const AdagradScalars& s);
// For clip_grad_norm_/clip_grad_value_: sums accumulated in double; max |x| is NaN if any x is.
double sum_squares_f32(const float* x, int64_t n);
double sum_abs_f32(const float* x, int64_t n);
float max_abs_f32(const float* x, int64_t n);
void scale_f32(float* x, int64_t n, float c);             // x ·= c
void clamp_f32(float* x, int64_t n, float lo, float hi);  // min(max(x, lo), hi); NaN stays NaN
}  // namespace ref

// ---- Adadelta, Adamax, NAdam, RAdam (torch/optim/{adadelta,adamax,nadam,radam}.py) ----
// g below is ±grad (+ weightDecay·p where has_weight_decay), as for the kernels above.
struct AdadeltaScalars {
  float sign = 1;
  float weight_decay = 0;
  float rho = 0, one_minus_rho = 0;
  float eps = 0;
  float neg_lr = 0;
  bool has_weight_decay = false;
};
// sq = sq·ρ + ((1 − ρ)·g)·g;  delta = √(acc + eps) / √(sq + eps) · g;
// acc = acc·ρ + ((1 − ρ)·delta)·delta;  p = p + (−lr)·delta
struct AdamaxScalars {
  float sign = 1;
  float weight_decay = 0;
  float beta1 = 0, one_minus_beta1 = 0, beta2 = 0;
  float eps = 0;
  float neg_clr = 0;  // −lr / (1 − β1^t)
  bool has_weight_decay = false;
};
// m = m·β1 + (1 − β1)·g;  u = max(u·β2, |g| + eps) (NaN wins, as torch.amax);  p = p + (−clr·m) / u
// NAdam's and RAdam's common part: g = grad + weightDecay·p;  m = m·β1 + (1 − β1)·g;
// v = v·β2 + ((1 − β2)·g)·g (Adam's moments; PyTorch 1.13's NAdam and RAdam have no maximize).
struct MomentsScalars {
  float weight_decay = 0;
  float beta1 = 0, one_minus_beta1 = 0, beta2 = 0, one_minus_beta2 = 0;
  float eps = 0;
  bool has_weight_decay = false;
};
struct NadamScalars {
  MomentsScalars moments;
  float bias_correction2 = 1;  // 1 − β2^t
  float grad_coef = 0;         // −lr·(1 − μ_t) / (1 − Π μ)
  float avg_coef = 0;          // −lr·μ_{t+1} / (1 − Π μ · μ_t · μ_{t+1}) (PyTorch 1.13's product)
};
// d = √(v / bc2) + eps;  p = p + (grad_coef·g) / d;  p = p + (avg_coef·m) / d
struct RadamScalars {
  MomentsScalars moments;
  float bias_correction1 = 1;  // m̂ = m / (1 − β1^t)
  float lr = 0;
  float bias_correction2_sqrt = 1;
  float rect = 1;
  bool rectified = false;  // ρ_t > 5
};
// rectified: a = (1 / (√v + eps))·√bc2, p = p − ((m̂·lr)·a)·rect;  otherwise p = p − m̂·lr

namespace simd {
void adadelta_f32(float* p, const float* g, float* square_avg, float* acc_delta, int64_t n,
                  const AdadeltaScalars& s);
void adamax_f32(float* p, const float* g, float* exp_avg, float* exp_inf, int64_t n,
                const AdamaxScalars& s);
void nadam_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
               const NadamScalars& s);
void radam_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
               const RadamScalars& s);
}  // namespace simd
namespace ref {
void adadelta_f32(float* p, const float* g, float* square_avg, float* acc_delta, int64_t n,
                  const AdadeltaScalars& s);
void adamax_f32(float* p, const float* g, float* exp_avg, float* exp_inf, int64_t n,
                const AdamaxScalars& s);
void nadam_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
               const NadamScalars& s);
void radam_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
               const RadamScalars& s);
}  // namespace ref

}  // namespace sg::optim
