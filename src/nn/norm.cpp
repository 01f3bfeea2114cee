// The normalization layers share one shape of computation: statistics over some dims,
// x̂ = (x − mean)·rstd, y = x̂·w + b. Forward and backward are written with the ops of
// ops.h (run unrecorded), so they work on every backend. The backward with batch statistics
// is the closed form  dx = rstd·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂))  over the statistics' dims,
// with dx̂ = g·w; with fixed (running) statistics it is dx̂·rstd.
// Statistics are sums to a "kept" shape (sum_to: the reduced dims become 1, any of them, in
// one strided pass), two-pass for the variance.
#include "nn/norm.h"

#include <functional>

#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "nn/batch_norm_fused.h"
#include "nn/layer_norm_fused.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

using DxOf = std::function<Tensor(const Tensor& dxhat)>;

// A constant of the formulas in t's dtype (float64 keeps it exact: 1/3 is not a float).
Tensor num(double v, const Tensor& t) { return scalar_like(v, t); }

void check_input(const char* op, const Tensor& x, int64_t min_dims, const char* layout) {
  check(x.defined(), op, ": the input must be given");
  check(x.dtype() == DType::Float32 || x.dtype() == DType::Float64, op,
        ": expected input of dtype float32 or float64, got ", dtype_name(x.dtype()));
  check(x.ndim() >= min_dims, op, ": expected an input of shape ", layout, ", got ", x.shape());
}

// An optional per-channel (or normalized-shape) tensor: the input's dtype, with exactly `shape`.
void check_param(const char* op, const Tensor& t, const char* name, const Shape& shape, DType dtype) {
  if (!t.defined()) return;
  check(t.dtype() == dtype, op, ": expected ", name, " of dtype ", dtype_name(dtype), " (the input's), got ",
        dtype_name(t.dtype()));
  check(t.shape() == shape, op, ": expected ", name, " of shape ", shape, ", got ", t.shape());
}

// [1, C, 1, ...] for an input of `ndim` dims: how a per-channel [C] tensor broadcasts.
Shape channel_view(int64_t c, int64_t ndim) {
  Shape s(size_t(ndim), 1);
  s[1] = c;
  return s;
}

// Means over the dims where `kept` (x's shape with the reduced dims set to 1) is 1.
struct Stats {
  Shape kept;
  double count;  // elements per statistic

  Stats(const Shape& shape, const std::vector<bool>& reduced) : kept(shape), count(1) {
    for (size_t d = 0; d < shape.size(); ++d)
      if (reduced[d]) {
        count *= double(shape[d]);
        kept[d] = 1;
      }
  }
  Tensor mean_of(const Tensor& t) const { return mul(sum_to(t, kept), num(1.0 / count, t)); }
  Tensor biased_var(const Tensor& t, const Tensor& mu) const { return mean_of(square(sub(t, mu))); }
};

// Reduced-dim flags: dims [from, to) of an ndim-dim shape, plus dim 0 when `with_batch`.
std::vector<bool> dims_flags(int64_t ndim, int64_t from, int64_t to, bool with_batch = false) {
  std::vector<bool> f(size_t(ndim), false);
  for (int64_t d = from; d < to; ++d) f[d] = true;
  if (with_batch && ndim > 0) f[0] = true;
  return f;
}

// The gradient of x̂ = (x − mean(x))·rstd, rstd = 1/sqrt(var(x) + eps), statistics over st.
Tensor normalized_backward(const Tensor& dxhat, const Tensor& xhat, const Tensor& rstd, const Stats& st) {
  Tensor centered = sub(dxhat, st.mean_of(dxhat));
  return mul(rstd, sub(centered, mul(xhat, st.mean_of(mul(dxhat, xhat)))));
}

// running ← (1 − m)·running + m·batch, in place (batch has running's number of elements).
void update_running(const Tensor& running, const Tensor& batch, double momentum) {
  if (!running.defined()) return;
  copy_into(running, add(mul(running, num(1.0 - momentum, running)),
                         mul(reshape(batch, running.shape()), num(momentum, running))));
}

// x̂ and how dx̂ becomes dx, for one input. Computed unrecorded by the forward; computed again,
// recorded, from the saved input when a gradient is being recorded (double backward), so that
// dx is differentiable with respect to x too. `again` makes x̂ again from x with the statistics
// the forward computed (it holds only them), for a backward that does not keep x̂ itself.
struct Normalized;
using Normalize = std::function<Normalized(const Tensor& x)>;
struct Normalized {
  Tensor xhat;
  DxOf dx_of;
  Normalize again;
};

// y = x̂·w + b as one node `op` over {x, w, b}. w and b (either may be undefined) broadcast
// against x̂ through `view`.
Tensor affine_node(const char* op, const Tensor& x, const Tensor& w, const Tensor& b, const Shape& view,
                   const Normalize& normalize) {
  Normalized n;
  Tensor y;
  {
    const Tensor wv = w.defined() ? reshape(w.detach(), view) : Tensor();
    NoGradGuard no_grad;
    n = normalize(x);
    y = n.xhat;
    if (w.defined()) y = mul(y, wv);
    if (b.defined()) y = add(y, reshape(b.detach(), view));
    if (!w.defined() && !b.defined()) y = clone(y);  // never hand out x̂, which backward keeps
  }
  const bool need_x = x.requires_grad(), need_w = w.defined() && w.requires_grad(),
             need_b = b.defined() && b.requires_grad();
  const Shape w_shape = w.defined() ? w.shape() : Shape{}, b_shape = b.defined() ? b.shape() : Shape{};
  // A float16/bfloat16 input's float32 copy (ops/dtype_widening.cpp) is saved as the 16-bit
  // original (autograd/record.h): then the node keeps only the float32 statistics (mean and rstd,
  // one a row) and makes x̂ again from the widened input, instead of holding a float32 x̂ of the
  // whole input, as PyTorch's layer norm saves its input, mean and rstd.
  const bool half_input = SaveOriginals::original_of(x) != nullptr;
  const Normalized kept = half_input ? Normalized{Tensor(), nullptr, n.again} : n;
  n = Normalized();
  const bool has_w = w.defined();
  // Captures no tensor but the statistics: w is read from the saved list (a 16-bit weight's
  // float32 copy is not kept either).
  return record(op, y, {x, w, b}, {x, w}, [=](const Tensor& g, const SavedTensors& s) {
    Normalized m = kept;
    Tensor wm = has_w ? reshape(s[1].detach(), view) : Tensor();
    if (recording_backward({g, s[0], s[1]})) {
      m = normalize(s[0]);
      if (has_w) wm = reshape(s[1], view);
    } else if (!m.xhat.defined()) {
      m = m.again(s[0]);
    }
    Tensor dx, dw, db;
    if (need_x) dx = m.dx_of(wm.defined() ? mul(g, wm) : g);
    if (need_w) dw = reshape(sum_to(mul(g, m.xhat), view), w_shape);
    if (need_b) db = reshape(sum_to(g, view), b_shape);
    return std::vector<Tensor>{dx, dw, db};
  });
}

// x̂ with statistics over st's reduced dims (batch norm in training, layer, group and instance
// norm).
// x̂ = (x − mu)·rstd with batch statistics mu and rstd over st's reduced dims.
Normalized with_batch_statistics(const Tensor& x, const Tensor& mu, const Tensor& rstd, const Stats& st) {
  Tensor xhat = mul(sub(x, mu), rstd);
  return {xhat, [xhat, rstd, st](const Tensor& dxhat) { return normalized_backward(dxhat, xhat, rstd, st); },
          [mu, rstd, st](const Tensor& x) { return with_batch_statistics(x, mu, rstd, st); }};
}

Normalized batch_statistics(const Tensor& x, const Stats& st, double eps) {
  Tensor mu = st.mean_of(x);
  Tensor rstd = rsqrt(add(st.biased_var(x, mu), num(eps, x)));
  return with_batch_statistics(x, mu, rstd, st);
}

// x̂ = (x − mean)·rstd with fixed (running) statistics, `mean` and `rstd` seen broadcast.
Normalized with_fixed_statistics(const Tensor& x, const Tensor& mean, const Tensor& rstd) {
  Tensor xhat = mul(sub(x, mean), rstd);
  return {xhat, [rstd](const Tensor& dxhat) { return mul(dxhat, rstd); },
          [mean, rstd](const Tensor& x) { return with_fixed_statistics(x, mean, rstd); }};
}

Normalized fixed_statistics(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                            const Shape& view, double eps) {
  Tensor rstd = rsqrt(add(reshape(running_var, view), num(eps, x)));
  return with_fixed_statistics(x, reshape(running_mean, view), rstd);
}

}  // namespace

Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  const char* op = "batchNorm";
  check_input(op, x, 2, "[N, C, ...]");
  const int64_t c = x.shape()[1];
  check_param(op, running_mean, "runningMean", {c}, x.dtype());
  check_param(op, running_var, "runningVar", {c}, x.dtype());
  check_param(op, weight, "weight", {c}, x.dtype());
  check_param(op, bias, "bias", {c}, x.dtype());
  if (training) {
    const int64_t m = c > 0 ? x.numel() / c : 0;
    check(m > 1, op, ": Expected more than 1 value per channel when training, got input size ", x.shape());
    if (x.dtype() == DType::Float64) {
      // The composed form (the fused kernels are float32's): batch statistics over N and the
      // spatial dims, the running ones updated with the unbiased variance, as PyTorch.
      const Stats st(x.shape(), dims_flags(x.ndim(), 2, x.ndim(), true));
      if (running_mean.defined() || running_var.defined()) {
        NoGradGuard no_grad;
        const Tensor mu = st.mean_of(x.detach());
        update_running(running_mean, mu, momentum);
        update_running(running_var, mul(st.biased_var(x.detach(), mu), num(double(m) / double(m - 1), x)), momentum);
      }
      return affine_node(op, x, weight, bias, channel_view(c, x.ndim()),
                         [st, eps](const Tensor& x) { return batch_statistics(x, st, eps); });
    }
    // One forward and one backward pass (batch_norm_fused.cpp) instead of the composed ops.
    return batch_norm_training_fused(op, x, running_mean, running_var, weight, bias, momentum, eps);
  }
  const Shape view = channel_view(c, x.ndim());
  check(running_mean.defined() && running_var.defined(), op,
        ": runningMean and runningVar must be given in eval mode (training false)");
  return affine_node(op, x, weight, bias, view, [running_mean, running_var, view, eps](const Tensor& x) {
    return fixed_statistics(x, running_mean, running_var, view, eps);
  });
}

std::vector<Tensor> batch_norm_training_grads_ops(const Tensor& g, const Tensor& x, const Tensor& weight,
                                                  double eps) {
  const int64_t c = x.shape()[1];
  const Shape view = channel_view(c, x.ndim());
  const Normalized n = batch_statistics(x, Stats(x.shape(), dims_flags(x.ndim(), 2, x.ndim(), true)), eps);
  const Tensor wv = weight.defined() ? reshape(weight, view) : Tensor();
  Tensor dx, dw, db;
  if (x.requires_grad()) dx = n.dx_of(wv.defined() ? mul(g, wv) : g);
  if (weight.defined() && weight.requires_grad()) dw = reshape(sum_to(mul(g, n.xhat), view), {c});
  db = reshape(sum_to(g, view), {c});
  return {dx, dw, db};
}

Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  const char* op = "layerNorm";
  check_input(op, x, 0, "[*, normalizedShape]");
  const int64_t k = int64_t(normalized_shape.size()), nd = x.ndim();
  check(k >= 1, op, ": normalizedShape must have at least one dim");
  for (int64_t s : normalized_shape) check(s >= 0, op, ": invalid normalizedShape ", normalized_shape);
  const bool fits = nd >= k && Shape(x.shape().end() - k, x.shape().end()) == normalized_shape;
  check(fits, op, ": given normalizedShape ", normalized_shape, ", expected an input of shape [*, ",
        shape_str(normalized_shape).substr(1), ", got ", x.shape());
  check_param(op, weight, "weight", normalized_shape, x.dtype());
  check_param(op, bias, "bias", normalized_shape, x.dtype());
  // One row kernel forward and two backward where the device has them (layer_norm_fused.cpp).
  if (Tensor y = layer_norm_fused(op, x, normalized_shape, weight, bias, eps); y.defined()) return y;
  const Stats st(x.shape(), dims_flags(nd, nd - k, nd));

  return affine_node(op, x, weight, bias, normalized_shape,
                     [st, eps](const Tensor& x) { return batch_statistics(x, st, eps); });
}

std::vector<Tensor> layer_norm_grads_ops(const Tensor& g, const Tensor& x, const Shape& normalized_shape,
                                         const Tensor& weight, double eps) {
  const int64_t nd = x.ndim(), k = int64_t(normalized_shape.size());
  const Normalized n = batch_statistics(x, Stats(x.shape(), dims_flags(nd, nd - k, nd)), eps);
  Tensor dx, dw, db;
  if (x.requires_grad()) dx = n.dx_of(weight.defined() ? mul(g, weight) : g);
  if (weight.defined() && weight.requires_grad()) dw = sum_to(mul(g, n.xhat), normalized_shape);
  db = sum_to(g, normalized_shape);
  return {dx, dw, db};
}

namespace {

// Group norm's x̂ (statistics over [N, groups, rest]) seen in the input's shape.
Normalized ungrouped(const Normalized& n, const Shape& grouped, const Shape& x_shape) {
  const DxOf grouped_dx = n.dx_of;
  const Normalize grouped_again = n.again;
  return Normalized{reshape(n.xhat, x_shape),
                    [grouped_dx, grouped, x_shape](const Tensor& dxhat) {
                      return reshape(grouped_dx(reshape(dxhat, grouped)), x_shape);
                    },
                    [grouped_again, grouped, x_shape](const Tensor& x) {
                      return ungrouped(grouped_again(reshape(x, grouped)), grouped, x_shape);
                    }};
}

}  // namespace

Tensor group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps) {
  const char* op = "groupNorm";
  check_input(op, x, 2, "[N, C, ...]");
  const int64_t n = x.shape()[0], c = x.shape()[1];
  check(num_groups > 0, op, ": numGroups must be positive, got ", num_groups);
  check(c % num_groups == 0, op, ": expected the number of channels to be divisible by numGroups, got input of shape ",
        x.shape(), " and numGroups ", num_groups);
  check_param(op, weight, "weight", {c}, x.dtype());
  check_param(op, bias, "bias", {c}, x.dtype());
  const Shape x_shape = x.shape();
  const int64_t spatial = numel_of(Shape(x_shape.begin() + 2, x_shape.end()));
  const Shape grouped{n, num_groups, (c / num_groups) * spatial};
  const Stats st(grouped, dims_flags(3, 2, 3));

  return affine_node(op, x, weight, bias, channel_view(c, x.ndim()), [grouped, x_shape, st, eps](const Tensor& x) {
    return ungrouped(batch_statistics(reshape(x, grouped), st, eps), grouped, x_shape);
  });
}

Tensor instance_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                     const Tensor& bias, bool use_input_stats, double momentum, double eps) {
  const char* op = "instanceNorm";
  check_input(op, x, 2, "[N, C, ...]");
  const int64_t n = x.shape()[0], c = x.shape()[1];
  check_param(op, running_mean, "runningMean", {c}, x.dtype());
  check_param(op, running_var, "runningVar", {c}, x.dtype());
  check_param(op, weight, "weight", {c}, x.dtype());
  check_param(op, bias, "bias", {c}, x.dtype());
  const Shape view = channel_view(c, x.ndim());
  const Stats st(x.shape(), dims_flags(x.ndim(), 2, x.ndim()));

  if (!use_input_stats) {
    check(running_mean.defined() && running_var.defined(), op,
          ": runningMean and runningVar must be given when useInputStats is false");
    return affine_node(op, x, weight, bias, view, [running_mean, running_var, view, eps](const Tensor& x) {
      return fixed_statistics(x, running_mean, running_var, view, eps);
    });
  }
  const int64_t s = numel_of(Shape(x.shape().begin() + 2, x.shape().end()));
  check(s > 1, op, ": Expected more than 1 spatial element when training, got input size ", x.shape());
  if (n > 0) {
    // The running stats follow the batch mean of the per-instance statistics.
    NoGradGuard no_grad;
    Tensor mu = st.mean_of(x);  // [N, C, 1, ...]
    Tensor var_b = st.biased_var(x, mu);
    update_running(running_mean, mean(reshape(mu, {n, c}), {0}), momentum);
    update_running(running_var, mul(mean(reshape(var_b, {n, c}), {0}), num(double(s) / double(s - 1), x)), momentum);
  }
  return affine_node(op, x, weight, bias, view, [st, eps](const Tensor& x) { return batch_statistics(x, st, eps); });
}

}  // namespace sg
