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

}  // namespace sg::optim
