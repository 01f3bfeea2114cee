// The per-call scalars of the optimizer update kernels (src/optim/optim_kernels.h and the
// Backend's *_step_f32 methods), computed by the caller in double as PyTorch computes them in
// Python and rounded to the parameter's compute dtype (float, or double for float64 parameters), as ATen
// rounds a Python scalar for a tensor of that dtype.
#pragma once

namespace sg::optim {

template <class T>
struct SgdScalarsT {
  T sign = 1;          // −1 when maximizing (multiplying by ±1 is exact)
  T weight_decay = 0;  // L2: d = g + wd·p
  T momentum = 0;
  T one_minus_dampening = 1;
  T neg_lr = 0;
  bool has_weight_decay = false;
  bool has_momentum = false;
  bool nesterov = false;
  bool first = false;  // no momentum buffer yet: buf = d (PyTorch clones the first d_p)
};
// buf is read only when has_momentum (it may then be uninitialised if first).
template <class T>
struct AdamScalarsT {
  T sign = 1;
  T weight_decay = 0;  // Adam: L2 added to the grad
  T decay = 1;         // AdamW: p ·= 1 − lr·wd before the update
  T beta1 = 0, one_minus_beta1 = 0, beta2 = 0, one_minus_beta2 = 0;
  T bias_correction2_sqrt = 1;
  T eps = 0;
  T neg_step_size = 0;  // −lr / (1 − β1^t)
  bool l2 = false;          // Adam with weight_decay != 0
  bool decoupled = false;   // AdamW
  bool amsgrad = false;     // then vmax holds max_exp_avg_sq
};
template <class T>
struct RmspropScalarsT {
  T sign = 1;
  T weight_decay = 0;
  T alpha = 0, one_minus_alpha = 0;
  T eps = 0;
  T momentum = 0;
  T neg_lr = 0;
  bool has_weight_decay = false;
  bool centered = false;      // then grad_avg is used
  bool has_momentum = false;  // then buf is used
};
template <class T>
struct AdagradScalarsT {
  T sign = 1;
  T weight_decay = 0;
  T eps = 0;
  T neg_clr = 0;  // −lr / (1 + (t − 1)·lr_decay)
  bool has_weight_decay = false;
};

// ---- Adadelta, Adamax, NAdam, RAdam (torch/optim/{adadelta,adamax,nadam,radam}.py) ----
// g below is ±grad (+ weightDecay·p where has_weight_decay), as for the kernels above.
template <class T>
struct AdadeltaScalarsT {
  T sign = 1;
  T weight_decay = 0;
  T rho = 0, one_minus_rho = 0;
  T eps = 0;
  T neg_lr = 0;
  bool has_weight_decay = false;
};
// sq = sq·ρ + ((1 − ρ)·g)·g;  delta = √(acc + eps) / √(sq + eps) · g;
// acc = acc·ρ + ((1 − ρ)·delta)·delta;  p = p + (−lr)·delta
template <class T>
struct AdamaxScalarsT {
  T sign = 1;
  T weight_decay = 0;
  T beta1 = 0, one_minus_beta1 = 0, beta2 = 0;
  T eps = 0;
  T neg_clr = 0;  // −lr / (1 − β1^t)
  bool has_weight_decay = false;
};
// m = m·β1 + (1 − β1)·g;  u = max(u·β2, |g| + eps) (NaN wins, as torch.amax);  p = p + (−clr·m) / u
// NAdam's and RAdam's common part: g = grad + weightDecay·p;  m = m·β1 + (1 − β1)·g;
// v = v·β2 + ((1 − β2)·g)·g (Adam's moments; PyTorch 1.13's NAdam and RAdam have no maximize).
template <class T>
struct MomentsScalarsT {
  T weight_decay = 0;
  T beta1 = 0, one_minus_beta1 = 0, beta2 = 0, one_minus_beta2 = 0;
  T eps = 0;
  bool has_weight_decay = false;
};
template <class T>
struct NadamScalarsT {
  MomentsScalarsT<T> moments;
  T bias_correction2 = 1;  // 1 − β2^t
  T grad_coef = 0;         // −lr·(1 − μ_t) / (1 − Π μ)
  T avg_coef = 0;          // −lr·μ_{t+1} / (1 − Π μ · μ_t · μ_{t+1}) (PyTorch 1.13's product)
};
// d = √(v / bc2) + eps;  p = p + (grad_coef·g) / d;  p = p + (avg_coef·m) / d
template <class T>
struct RadamScalarsT {
  MomentsScalarsT<T> moments;
  T bias_correction1 = 1;  // m̂ = m / (1 − β1^t)
  T lr = 0;
  T bias_correction2_sqrt = 1;
  T rect = 1;
  bool rectified = false;  // ρ_t > 5
};
// rectified: a = (1 / (√v + eps))·√bc2, p = p − ((m̂·lr)·a)·rect;  otherwise p = p − m̂·lr

// The float32 kernels' scalars (the Backend's *_step_f32); the float64 reference kernels take
// the same structs in double (optim_kernels.h ref::*_f64).
using SgdScalars = SgdScalarsT<float>;
using AdamScalars = AdamScalarsT<float>;
using RmspropScalars = RmspropScalarsT<float>;
using AdagradScalars = AdagradScalarsT<float>;
using AdadeltaScalars = AdadeltaScalarsT<float>;
using AdamaxScalars = AdamaxScalarsT<float>;
using MomentsScalars = MomentsScalarsT<float>;
using NadamScalars = NadamScalarsT<float>;
using RadamScalars = RadamScalarsT<float>;

}  // namespace sg::optim
