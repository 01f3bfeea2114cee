// The fused kernels of layers, losses and optimizers: training batch norm, cross-entropy and
// NLL over rows of classes, range checks of float inputs, and the optimizer updates. Each is a
// single pass (or two) that an op would otherwise build from many small ones; like DataKernels
// they keep op code away from tensor memory, so that a device implements them and every layer
// then runs there.
//
// Backend (kernels/backend.h) inherits these; the defaults are the CPU implementations (the
// scalar loops of kernels/reference, and for the optimizers the SIMD kernels of src/optim with
// their scalar twins, optim/optim_kernels.h). Pointers are device pointers, contiguous.
#pragma once
#include <cstdint>
#include <string>

#include "kernels/box_geom.h"
#include "kernels/optim_scalars.h"

namespace sg {

class LayerKernels {
 public:
  virtual ~LayerKernels() = default;

  // ---- average pooling (kernels/box_geom.h) ----
  // y [P, oH, oW] = the box means of x [P, H, W] (an empty box gives 0, as PyTorch); accumulated
  // in double.
  virtual void box_mean_f32(const BoxGeom& g, const float* x, float* y) const;
  // dx [P, H, W] = the adjoint: each dy spread evenly over its box (dx overwritten).
  virtual void box_mean_backward_f32(const BoxGeom& g, const float* dy, float* dx) const;

  // ---- batch norm (training) over x [N, C, S] per channel c, M = N·S values ----
  // mean[c] and the biased variance var[c] (accumulated in double), rstd[c] = 1/√(var + eps).
  virtual void batch_norm_stats_f32(const float* x, int64_t N, int64_t C, int64_t S, double eps, float* mean,
                                    float* var, float* rstd) const;
  // y = (x − mean)·(rstd·w) + b (w, b: nullptr for none).
  virtual void batch_norm_apply_f32(const float* x, int64_t N, int64_t C, int64_t S, const float* mean,
                                    const float* rstd, const float* w, const float* b, float* y) const;
  // sum_g[c] = Σ g, sum_gx[c] = Σ g·x̂ (x̂ = (x − mean)·rstd), and, when dx is not nullptr,
  // dx = rstd·w·(g − Σg/M − x̂·Σ(g·x̂)/M).
  virtual void batch_norm_backward_f32(const float* x, const float* g, int64_t N, int64_t C, int64_t S,
                                       const float* mean, const float* rstd, const float* w, float* sum_g,
                                       float* sum_gx, float* dx) const;

  // ---- layer norm over rows x [R, C] (nn/layer_norm_fused.cpp) ----
  // One pass per row: y = x̂·w + b with x̂ = (x − mean)·rstd, rstd = 1/√(biased var + eps), keeping
  // x̂ [R, C] and rstd [R] for the backward (w, b: nullptr for none). Returns false, computing
  // nothing, on a backend without such a kernel: layer_norm then composes ops (norm.cpp), which is
  // what the CPU backends do, so their float32 results are those of the composed form.
  virtual bool layer_norm_f32(const float* x, const float* w, const float* b, int64_t R, int64_t C, double eps,
                              float* y, float* xhat, float* rstd) const;
  // dx = rstd·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)) per row with dx̂ = g·w, dw = Σ_rows g·x̂,
  // db = Σ_rows g (each nullptr when not wanted). False as layer_norm_f32.
  virtual bool layer_norm_backward_f32(const float* g, const float* xhat, const float* rstd, const float* w,
                                       int64_t R, int64_t C, float* dx, float* dw, float* db) const;

  // ---- losses over rows of classes: x [R, C] logits (or log-probabilities for NLL) ----
  // Class-index targets t [R] (each in [0, C) or == ignore; checked before), class weights
  // w [C] (nullptr: 1), label smoothing eps: loss[r] = −Σ_c w_c·q_rc·log softmax(x_r)_c with
  // q_r = (1 − eps)·onehot(t_r) + eps/C, and wt[r] = w[t_r] (0 for ignored rows: the 'mean'
  // divisor is Σ wt).
  virtual void cross_entropy_f32(const float* x, const int32_t* t, const float* w, int64_t R, int64_t C,
                                 int64_t ignore, double eps, float* loss, float* wt) const;
  // dx[r] = s[r]·(a_r·softmax(x_r) − q_r ⊙ w) with a_r = Σ_c w_c q_rc (0 for ignored rows).
  virtual void cross_entropy_backward_f32(const float* x, const int32_t* t, const float* w, int64_t R,
                                          int64_t C, int64_t ignore, double eps, const float* s,
                                          float* dx) const;
  // Probability targets q [R, C]: loss[r] = −Σ_c w_c·((1 − eps)·q_rc + eps/C)·log softmax(x_r)_c.
  virtual void cross_entropy_probs_f32(const float* x, const float* q, const float* w, int64_t R, int64_t C,
                                       double eps, float* loss) const;
  // dx as above with that target; dq (nullptr: not wanted) = −s[r]·(1 − eps)·w_c·log softmax(x_r)_c.
  virtual void cross_entropy_probs_backward_f32(const float* x, const float* q, const float* w, int64_t R,
                                                int64_t C, double eps, const float* s, float* dx,
                                                float* dq) const;
  // loss[r] = −w[t_r]·x[r, t_r], wt[r] = w[t_r] (0 and 0 for ignored rows).
  virtual void nll_f32(const float* x, const int32_t* t, const float* w, int64_t R, int64_t C, int64_t ignore,
                       float* loss, float* wt) const;
  // dx (zero-filled by the caller) [r, t_r] = −s[r]·w[t_r].
  virtual void nll_backward_f32(const int32_t* t, const float* w, int64_t R, int64_t C, int64_t ignore,
                                const float* s, float* dx) const;
  // Throws sg::Error(before + v) for the first of the n values v that is not in [lo, hi] (NaN
  // included), as ops check data before using it.
  virtual void check_range_f32(const float* x, int64_t n, float lo, float hi, const std::string& before) const;

  // ---- optimizer updates, in place over n elements (optim/optim_kernels.h has the rules) ----
  virtual void sgd_step_f32(float* p, const float* g, float* buf, int64_t n, const optim::SgdScalars& s) const;
  virtual void adam_step_f32(float* p, const float* g, float* m, float* v, float* vmax, int64_t n,
                             const optim::AdamScalars& s) const;
  virtual void rmsprop_step_f32(float* p, const float* g, float* square_avg, float* grad_avg, float* buf,
                                int64_t n, const optim::RmspropScalars& s) const;
  virtual void adagrad_step_f32(float* p, const float* g, float* sum, int64_t n,
                                const optim::AdagradScalars& s) const;
  virtual void adadelta_step_f32(float* p, const float* g, float* square_avg, float* acc_delta, int64_t n,
                                 const optim::AdadeltaScalars& s) const;
  virtual void adamax_step_f32(float* p, const float* g, float* exp_avg, float* exp_inf, int64_t n,
                               const optim::AdamaxScalars& s) const;
  virtual void nadam_step_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
                              const optim::NadamScalars& s) const;
  virtual void radam_step_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
                              const optim::RadamScalars& s) const;
};

}  // namespace sg
