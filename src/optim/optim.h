// Optimizer steps with PyTorch 1.13's update rules (the single-tensor paths of torch/optim/*.py).
// One call updates every parameter of a group in place: parameters are leaves, so the update
// writes straight into their storage, outside autograd. A parameter whose grad is undefined is
// skipped and its state left untouched, as PyTorch skips params whose .grad is None.
//
// State: one ParamState per parameter, the tensors of PyTorch's optimizer.state[p] under its
// state-dict keys. Missing entries are created on the parameter's first step (PyTorch's lazy
// initialisation); existing ones (e.g. from a loaded state dict) are checked and updated in place.
//   SGD      momentum_buffer (only when momentum != 0; the first step copies the update into it)
//   Adam     step, exp_avg, exp_avg_sq, max_exp_avg_sq (amsgrad only)
//   AdamW    same as Adam
//   RMSprop  step, square_avg, momentum_buffer (momentum > 0), grad_avg (centered)
//   Adagrad  step, sum (filled with initial_accumulator_value)
//   Adadelta step, square_avg, acc_delta
//   Adamax   step, exp_avg, exp_inf
//   NAdam    step, mu_product (one element, starts at 1), exp_avg, exp_avg_sq
//   RAdam    step, exp_avg, exp_avg_sq
// `step` is a one-element float32 tensor (as PyTorch 1.13's torch.tensor(0.)); an int32 one is
// accepted too. Every other entry is a tensor of the parameter's dtype and shape (torch.zeros_like).
// Parameters may be float32, float64 (updated in double on the cpu), float16 or bfloat16 (updated
// in float32 from the widened values and state, each stored value rounded once to nearest even).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ops/registry.h"

namespace sg::optim {

using ParamState = std::map<std::string, Tensor>;

struct SGDOptions {
  double lr = 0;  // required in PyTorch; the JS layer always passes it
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
  bool maximize = false;
};

struct AdamOptions {  // also AdamW's (whose PyTorch default weight_decay is 1e-2)
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;
  bool amsgrad = false;
  bool maximize = false;
};

struct RMSpropOptions {
  double lr = 1e-2;
  double alpha = 0.99;
  double eps = 1e-8;
  double weight_decay = 0;
  double momentum = 0;
  bool centered = false;
  bool maximize = false;
};

struct AdagradOptions {
  double lr = 1e-2;
  double lr_decay = 0;
  double weight_decay = 0;
  double initial_accumulator_value = 0;
  double eps = 1e-10;
  bool maximize = false;
};

struct AdadeltaOptions {
  double lr = 1.0;
  double rho = 0.9;
  double eps = 1e-6;
  double weight_decay = 0;
  bool maximize = false;
};

// Adamax's, NAdam's and RAdam's options besides their own: Adam's, without amsgrad.
struct BetasOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;
};

struct AdamaxOptions : BetasOptions {
  AdamaxOptions() { lr = 2e-3; }
  bool maximize = false;
};

struct NAdamOptions : BetasOptions {  // PyTorch 1.13's NAdam has no maximize
  NAdamOptions() { lr = 2e-3; }
  double momentum_decay = 4e-3;
};

struct RAdamOptions : BetasOptions {};  // PyTorch 1.13's RAdam has no maximize

// params, grads (undefined = skip) and states are parallel lists of the same length. Every
// argument is validated (PyTorch's constructor checks on the options; dtypes and shapes of
// params, grads and state) before anything is written, so a failing call changes nothing.
void sgd_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
              std::vector<ParamState>& states, const SGDOptions& options);
void adam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
               std::vector<ParamState>& states, const AdamOptions& options);
// Decoupled weight decay: p ·= 1 − lr·weight_decay, then Adam's update without L2.
void adamw_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                std::vector<ParamState>& states, const AdamOptions& options);
void rmsprop_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                  std::vector<ParamState>& states, const RMSpropOptions& options);
void adagrad_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                  std::vector<ParamState>& states, const AdagradOptions& options);
void adadelta_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                   std::vector<ParamState>& states, const AdadeltaOptions& options);
void adamax_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                 std::vector<ParamState>& states, const AdamaxOptions& options);
void nadam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                std::vector<ParamState>& states, const NAdamOptions& options);
void radam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                std::vector<ParamState>& states, const RAdamOptions& options);

// The same by algorithm name ('SGD', 'Adam', 'AdamW', 'RMSprop', 'Adagrad', 'Adadelta',
// 'Adamax', 'NAdam', 'RAdam'), the options read
// from camelCase attributes (the JS API's option names; Adam's betas as beta1 and beta2):
//   SGD      lr, momentum?, dampening?, weightDecay?, nesterov?, maximize?
//   Adam(W)  lr?, beta1?, beta2?, eps?, weightDecay?, amsgrad?, maximize?
//   RMSprop  lr?, alpha?, eps?, weightDecay?, momentum?, centered?, maximize?
//   Adagrad  lr?, lrDecay?, weightDecay?, initialAccumulatorValue?, eps?, maximize?
//   Adadelta lr?, rho?, eps?, weightDecay?, maximize?
//   Adamax   lr?, beta1?, beta2?, eps?, weightDecay?, maximize?
//   NAdam    lr?, beta1?, beta2?, eps?, weightDecay?, momentumDecay?
//   RAdam    lr?, beta1?, beta2?, eps?, weightDecay?
void optimizer_step(const std::string& algorithm, const Attrs& hyper,
                    const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                    std::vector<ParamState>& states);
// Creates every parameter's missing state entries without stepping, as PyTorch's Adagrad
// constructor does (the others create state lazily; for them this is optional). SGD's momentum
// buffer is only ever created by a step, from the first gradient.
void optimizer_init_state(const std::string& algorithm, const Attrs& hyper,
                          const std::vector<Tensor>& params, std::vector<ParamState>& states);

// Each parameter's .grad (undefined for an undefined parameter or one without a grad): what a
// step or a clipping function reads.
std::vector<Tensor> grads_of(const std::vector<Tensor>& params);

// torch.nn.utils.clip_grad_norm_ over the defined grads, viewed as one vector: returns the
// total norm (norm_type: any p != 0, ±infinity, or 0 = PyTorch's count of the grads holding a
// nonzero) and scales every grad in place by clip_coef = max_norm / (total + 1e-6) when it
// is below 1 (also when it is NaN, as PyTorch's clamp(max=1) keeps a NaN). With
// error_if_nonfinite, a NaN or infinite total is an error and nothing is scaled. No grads: 0.
double clip_grad_norm_(const std::vector<Tensor>& grads, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
// torch.nn.utils.clip_grad_value_: clamps every defined grad to [−clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& grads, double clip_value);

}  // namespace sg::optim
