// Fused training batch norm: the backend's batch-norm kernels (kernels/layer_kernels.h) compute
// per channel c over its M = N·S values
//   forward   mean, biased var (in double), rstd = 1/√(var + eps);  y = (x − mean)·(rstd·w) + b
//   backward  Σg and Σg·x̂, then dx = rstd·w·(g − Σg/M − x̂·Σ(g·x̂)/M),  dw = Σg·x̂,  db = Σg
// (the closed form of norm.cpp's normalized_backward with dx̂ = g·w).
#include "nn/batch_norm_fused.h"

#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/copy.h"
#include "kernels/backend.h"
#include "ops/ops.h"

namespace sg {
namespace {

// running ← (1 − m)·running + m·batch, in place (as the op-composed form does it).
void update_running(const Tensor& running, const Tensor& batch, double momentum) {
  if (!running.defined()) return;
  copy_into(running, add(mul(running, scalar_tensor(1.0 - momentum)), mul(batch, scalar_tensor(momentum))));
}

float* opt_ptr(const Tensor& t) { return t.defined() ? t.dev_f32() : nullptr; }

}  // namespace

Tensor batch_norm_training_fused(const char* op, const Tensor& x, const Tensor& running_mean,
                                 const Tensor& running_var, const Tensor& weight, const Tensor& bias,
                                 double momentum, double eps) {
  const int64_t N = x.shape()[0], C = x.shape()[1];
  const int64_t S = N * C > 0 ? x.numel() / (N * C) : 0;
  const double M = double(N * S);
  const Device dev = x.device();
  const Backend& be = backend_for(dev);
  const Tensor xc = as_contiguous(x).detach();
  const Tensor mean = Tensor::uninitialized({C}, DType::Float32, dev);
  const Tensor var = Tensor::uninitialized({C}, DType::Float32, dev);
  const Tensor rstd = Tensor::uninitialized({C}, DType::Float32, dev);
  if (C > 0) be.batch_norm_stats_f32(xc.dev_f32(), N, C, S, eps, mean.dev_f32(), var.dev_f32(), rstd.dev_f32());
  {
    NoGradGuard no_grad;
    update_running(running_mean, mean, momentum);
    update_running(running_var, mul(var, scalar_tensor(M / (M - 1))), momentum);
  }

  const Tensor wc = weight.defined() ? as_contiguous(weight).detach() : Tensor();
  const Tensor bc = bias.defined() ? as_contiguous(bias).detach() : Tensor();
  Tensor y = Tensor::uninitialized(x.shape(), DType::Float32, dev);
  if (y.numel() > 0)
    be.batch_norm_apply_f32(xc.dev_f32(), N, C, S, mean.dev_f32(), rstd.dev_f32(), opt_ptr(wc), opt_ptr(bc),
                            y.dev_f32());

  const bool need_x = x.requires_grad(), need_w = weight.defined() && weight.requires_grad(),
             need_b = bias.defined() && bias.requires_grad();
  const Shape w_shape = weight.defined() ? weight.shape() : Shape{}, b_shape = bias.defined() ? bias.shape() : Shape{};
  const Shape x_shape = x.shape();
  // x and the weight are read from the saved list, not captured: a float16/bfloat16 input's (or
  // weight's) float32 copy is saved as the 16-bit original and widened again (autograd/record.h),
  // so the graph holds only that and the float32 mean and rstd (one a channel).
  return record(op, y, {x, weight, bias}, {x, weight}, [=](const Tensor& g, const SavedTensors& s) {
    if (recording_backward({g, s[0], s[1]})) {
      std::vector<Tensor> d = batch_norm_training_grads_ops(g, s[0], s[1], eps);
      if (!need_x) d[0] = Tensor();
      if (!need_w) d[1] = Tensor();
      if (!need_b) d[2] = Tensor();
      return d;
    }
    const Backend& kb = backend_for(dev);
    const Tensor gc = as_contiguous(g, DType::Float32);
    const Tensor xs = as_contiguous(s[0]).detach();
    const Tensor ws = s[1].defined() ? as_contiguous(s[1]).detach() : Tensor();
    const Tensor sum_g = Tensor::uninitialized({C}, DType::Float32, dev);
    const Tensor sum_gx = Tensor::uninitialized({C}, DType::Float32, dev);
    Tensor dx = need_x ? Tensor::uninitialized(x_shape, DType::Float32, dev) : Tensor();
    if (C > 0)
      kb.batch_norm_backward_f32(xs.dev_f32(), gc.dev_f32(), N, C, S, mean.dev_f32(), rstd.dev_f32(), opt_ptr(ws),
                                 sum_g.dev_f32(), sum_gx.dev_f32(), need_x && dx.numel() > 0 ? dx.dev_f32() : nullptr);
    Tensor dw, db;
    if (need_w) dw = reshape(sum_gx, w_shape);
    if (need_b) db = reshape(sum_g, b_shape);
    return std::vector<Tensor>{dx, dw, db};
  });
}

}  // namespace sg
