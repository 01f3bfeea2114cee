// The per-call scalars of the optimizer update kernels (src/optim/optim_kernels.h and the
// Backend's *_step_f32 methods), computed by the caller in double as PyTorch computes them in
// Python and rounded to float, as ATen rounds a Python scalar for a float tensor.
#pragma once

namespace sg::optim {

struct SgdScalars {
  float sign = 1;          // −1 when maximizing (multiplying by ±1 is exact)
  float weight_decay = 0;  // L2: d = g + wd·p
  float momentum = 0;
  float one_minus_dampening = 1;
  float neg_lr = 0;
  bool has_weight_decay = false;
  bool has_momentum = false;
  bool nesterov = false;
  bool first = false;  // no momentum buffer yet: buf = d (PyTorch clones the first d_p)
};
// buf is read only when has_momentum (it may then be uninitialised if first).
struct AdamScalars {
  float sign = 1;
  float weight_decay = 0;  // Adam: L2 added to the grad
  float decay = 1;         // AdamW: p ·= 1 − lr·wd before the update
  float beta1 = 0, one_minus_beta1 = 0, beta2 = 0, one_minus_beta2 = 0;
  float bias_correction2_sqrt = 1;
  float eps = 0;
  float neg_step_size = 0;  // −lr / (1 − β1^t)
  bool l2 = false;          // Adam with weight_decay != 0
  bool decoupled = false;   // AdamW
  bool amsgrad = false;     // then vmax holds max_exp_avg_sq
};
struct RmspropScalars {
  float sign = 1;
  float weight_decay = 0;
  float alpha = 0, one_minus_alpha = 0;
  float eps = 0;
  float momentum = 0;
  float neg_lr = 0;
  bool has_weight_decay = false;
  bool centered = false;      // then grad_avg is used
  bool has_momentum = false;  // then buf is used
};
struct AdagradScalars {
  float sign = 1;
  float weight_decay = 0;
  float eps = 0;
  float neg_clr = 0;  // −lr / (1 + (t − 1)·lr_decay)
  bool has_weight_decay = false;
};

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

}  // namespace sg::optim
