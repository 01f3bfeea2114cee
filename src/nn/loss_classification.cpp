// cross_entropy (fused log-softmax + NLL) and nll_loss. Both see the input as rows of classes
// [R, C]: input [C] is one row, [N, C] N rows, and [N, C, d1, ...] is permuted to
// [N, d1, ..., C] (one copy) so that row r matches target element r.
//
// The per-row losses and their gradients are the backend's fused kernels
// (kernels/layer_kernels.h); the reduction over rows is made of ops, so that the 'mean'
// divisor (the targets' weights summed) stays on the tensors' device:
//   d loss_r / d x_r = s_r·(a_r·p_r − q_r),  q_r the (weighted, smoothed) target distribution,
//   a_r = Σ_c q_rc, s_r the reduction's scale (g, g/denominator, or g_r for 'none').
#include <algorithm>
#include <cmath>
#include <vector>

#include "autograd/composite.h"
#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "autograd/grad_mode.h"
#include "kernels/backend.h"
#include "nn/embedding.h"
#include "nn/loss.h"
#include "nn/loss_common.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

using namespace loss_detail;

namespace {

// How a class-dim input is laid out as rows.
struct Rows {
  int64_t rows = 0, classes = 0;
  Shape input_shape;
  Shape target_shape;  // input's shape without the class dim ([] for a 1-D input)
  bool permuted = false;  // [N, C, d...]: rows are a permuted copy
};

Rows rows_layout(const char* op, const Tensor& input) {
  check_float(op, input, "input");
  check(input.ndim() >= 1, op, ": expected an input of shape [C], [N, C] or [N, C, d1, ...], got a 0-d tensor");
  Rows l;
  l.input_shape = input.shape();
  const int64_t class_dim = input.ndim() == 1 ? 0 : 1;
  l.classes = input.shape()[class_dim];
  check(l.classes > 0, op, ": expected at least one class, got input of shape ", input.shape());
  for (int64_t d = 0; d < input.ndim(); ++d)
    if (d != class_dim) l.target_shape.push_back(input.shape()[d]);
  l.rows = numel_of(l.target_shape);
  l.permuted = input.ndim() > 2;
  return l;
}

// The input as a contiguous [R, C] tensor.
Tensor to_rows(const Tensor& x, const Rows& l) {
  if (!l.permuted) return reshape(as_contiguous(x), {l.rows, l.classes});
  Dims perm{0};
  for (int64_t d = 2; d < x.ndim(); ++d) perm.push_back(d);
  perm.push_back(1);
  return reshape(contiguous_copy(permute(x, perm)), {l.rows, l.classes});
}

// The inverse of to_rows for a gradient [R, C].
Tensor from_rows(const Tensor& g, const Rows& l) {
  if (!l.permuted) return reshape(g, l.input_shape);
  Shape moved{l.input_shape[0]};
  for (size_t d = 2; d < l.input_shape.size(); ++d) moved.push_back(l.input_shape[d]);
  moved.push_back(l.classes);
  const int64_t nd = int64_t(l.input_shape.size());
  Dims perm{0, nd - 1};
  for (int64_t d = 1; d < nd - 1; ++d) perm.push_back(d);
  return contiguous_copy(permute(reshape(g, moved), perm));
}

// Index targets: int32 of the target shape, each in [0, C) or equal to ignore_index.
Tensor checked_indices(const char* op, const Tensor& target, const Rows& l, int64_t ignore_index, Device dev) {
  check(target.shape() == l.target_shape, op, ": expected target of shape ", l.target_shape, " for input ",
        l.input_shape, ", got ", target.shape());
  Tensor t = as_contiguous(moved_to(target, dev));
  if (l.rows > 0)
    backend_for(dev).check_indices(t.dev_i32(), l.rows, 0, l.classes, ignore_index, std::string(op) + ": target ",
                                   " is out of range for " + std::to_string(l.classes) + " classes");
  return t;
}

void check_class_weight(const char* op, const Tensor& weight, int64_t classes) {
  if (!weight.defined()) return;
  check_float(op, weight, "weight");
  check(weight.shape() == Shape{classes}, op, ": expected weight of shape ", Shape{classes}, ", got ",
        weight.shape());
}

const float* opt_ptr(const Tensor& t) { return t.defined() ? t.dev_f32() : nullptr; }

// Per-row losses [R] → the reduced output; `denom` ([] tensor) is the 'mean' divisor.
Tensor reduce_rows(const Tensor& loss, Reduction r, const Tensor& denom, const Shape& target_shape) {
  if (r == Reduction::None) return reshape(loss, target_shape);
  const Tensor total = sum(loss);
  return r == Reduction::Mean ? div(total, denom) : total;
}

// s_r for every row ([R], contiguous) from the output gradient g.
Tensor row_scales(const Tensor& g, Reduction r, const Tensor& denom, int64_t rows) {
  if (r == Reduction::None) return as_contiguous(reshape(g, {rows}), DType::Float32);
  const Tensor v = r == Reduction::Mean ? div(g, denom) : g;
  return contiguous_copy(expand(reshape(v, {1}), {rows}));
}

// ---- the same losses through differentiable ops, for double backward (autograd/composite.h) ----

// to_rows through recorded ops.
Tensor rows_recorded(const Tensor& x, const Rows& l) {
  if (!l.permuted) return reshape(x, {l.rows, l.classes});
  Dims perm{0};
  for (int64_t d = 2; d < x.ndim(); ++d) perm.push_back(d);
  perm.push_back(1);
  return reshape(contiguous(permute(x, perm)), {l.rows, l.classes});
}

// The kernels' target distribution q [R, C] of index targets: (1 − ε)·w_y at the target class
// plus ε/C·w_c everywhere, 0 for an ignored row (w = 1 without weights).
Tensor index_target_weights(const Tensor& target, const Tensor& w, int64_t ignore_index, double eps, int64_t C) {
  const Tensor t = reshape(target, {target.numel()});
  const Tensor valid = ne(t, scalar_tensor(double(ignore_index), DType::Int32));
  const Tensor safe = where(valid, t, scalar_tensor(0.0, DType::Int32));
  const Tensor onehot = cast(one_hot(safe, C), DType::Float32);
  const Tensor wy = w.defined() ? index_select(w, 0, safe) : ones({t.numel()}, DType::Float32, t.device());
  Tensor q = mul(onehot, unsqueeze(mul(wy, scalar_tensor(1.0 - eps)), 1));
  if (eps > 0) q = add(q, w.defined() ? mul(w, scalar_tensor(eps / double(C))) : scalar_tensor(eps / double(C)));
  return mul(q, unsqueeze(cast(valid, DType::Float32), 1));
}

// −Σ_c q_rc·v_rc per row, reduced as the node reduces ([R] rows of the target shape).
Tensor weighted_rows(const Tensor& q, const Tensor& v, Reduction red, const Tensor& denom, const Rows& l) {
  return reduce_rows(neg(sum(mul(q, v), {1})), red, denom, l.target_shape);
}

// crossEntropy (log_softmax of the rows) or nllLoss (the rows as they are) of float64 input and
// index targets, composed of recorded float64 ops (the fused kernels are float32's): q as
// index_target_weights builds it, in float64, and the 'mean' divisor Σ w_y over the rows not
// ignored, as PyTorch's.
Tensor indices_loss_f64(const Tensor& input, const Tensor& t, const Tensor& weight, int64_t ignore_index,
                        Reduction red, double eps, const Rows& l, bool log_softmax_rows) {
  const int64_t C = l.classes;
  const Tensor flat = reshape(t, {t.numel()});
  const Tensor valid = ne(flat, scalar_tensor(double(ignore_index), DType::Int32));
  const Tensor safe = where(valid, flat, scalar_tensor(0.0, DType::Int32));
  const Tensor w = weight.defined() ? weight.detach() : Tensor();
  const Tensor wy = w.defined() ? index_select(w, 0, safe) : ones({flat.numel()}, DType::Float64, flat.device());
  const Tensor keep = cast(valid, DType::Float64);
  Tensor q = mul(cast(one_hot(safe, C), DType::Float64), unsqueeze(mul(wy, scalar_tensor(1.0 - eps, DType::Float64)), 1));
  if (eps > 0) {
    const Tensor spread = scalar_tensor(eps / double(C), DType::Float64);
    q = add(q, w.defined() ? mul(w, spread) : spread);
  }
  q = mul(q, unsqueeze(keep, 1));
  const Tensor denom = sum(mul(wy, keep));
  const Tensor rows = rows_recorded(input, l);
  const Tensor v = log_softmax_rows ? log_softmax(rows, 1) : rows;
  if (red != Reduction::Mean) return weighted_rows(q, v, red, denom, l);
  // Every row ignored: PyTorch's 'mean' is 0/0 = NaN with a zero gradient (the float32 kernels
  // write zeros for ignored rows). Dividing by that 0 inside the graph would make the gradient
  // 0·∞ = NaN, so the graph divides by 1 there and the NaN comes from a detached 0/denom.
  const Tensor zero = scalar_tensor(0.0, DType::Float64);
  const Tensor divisor = where(eq(denom, zero), scalar_tensor(1.0, DType::Float64), denom);
  return add(weighted_rows(q, v, red, divisor, l), div(zero, denom).detach());
}

Tensor cross_entropy_indices(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                             Reduction red, double eps, const Rows& l) {
  const char* op = "crossEntropy";
  const Device dev = operands_device(op, {&input, &target, &weight});
  const Tensor t = checked_indices(op, target, l, ignore_index, dev);
  if (input.dtype() == DType::Float64) return indices_loss_f64(input, t, weight, ignore_index, red, eps, l, true);
  const Tensor x = to_rows(input, l).detach();
  const Tensor w = weight.defined() ? as_contiguous(weight).detach() : Tensor();
  const int64_t C = l.classes;
  Tensor loss = Tensor::uninitialized({l.rows}, DType::Float32, dev), wt = Tensor::uninitialized({l.rows}, DType::Float32, dev);
  if (l.rows > 0)
    backend_for(dev).cross_entropy_f32(x.dev_f32(), t.dev_i32(), opt_ptr(w), l.rows, C, ignore_index, eps,
                                       loss.dev_f32(), wt.dev_f32());
  Tensor out, denom;
  {
    NoGradGuard no_grad;
    denom = sum(wt);
    out = reduce_rows(loss, red, denom, l.target_shape);
  }
  return record(op, out, {input, target, weight}, {input}, [=](const Tensor& g, const SavedTensors& saved) {
    if (recording_backward({g, saved[0]})) {
      const Tensor q = index_target_weights(t, w, ignore_index, eps, C);
      return composite_vjp(g, {saved[0], Tensor(), Tensor()}, [&](const std::vector<Tensor>& in) {
        return weighted_rows(q, log_softmax(rows_recorded(in[0], l), 1), red, denom, l);
      });
    }
    NoGradGuard no_grad;
    const Tensor s = row_scales(g, red, denom, l.rows);
    Tensor dx = Tensor::uninitialized({l.rows, C}, DType::Float32, dev);
    if (dx.numel() > 0)
      backend_for(dev).cross_entropy_backward_f32(x.dev_f32(), t.dev_i32(), opt_ptr(w), l.rows, C, ignore_index, eps,
                                                  s.dev_f32(), dx.dev_f32());
    return std::vector<Tensor>{from_rows(dx, l), Tensor(), Tensor()};
  });
}

Tensor cross_entropy_probs(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                           Reduction red, double eps, const Rows& l) {
  const char* op = "crossEntropy";
  check(ignore_index < 0, op, ": ignoreIndex is not supported for probability (float32) targets, got ",
        ignore_index);
  const Device dev = operands_device(op, {&input, &target, &weight});
  const Tensor x = to_rows(input, l).detach();
  const Tensor q = to_rows(target, l).detach();  // the target distribution, before smoothing
  const Tensor w = weight.defined() ? as_contiguous(weight).detach() : Tensor();
  const int64_t C = l.classes;
  Tensor loss = Tensor::uninitialized({l.rows}, DType::Float32, dev);
  if (l.rows > 0)
    backend_for(dev).cross_entropy_probs_f32(x.dev_f32(), q.dev_f32(), opt_ptr(w), l.rows, C, eps, loss.dev_f32());
  const Tensor denom = scalar_tensor(double(l.rows));
  Tensor out;
  {
    NoGradGuard no_grad;
    out = reduce_rows(loss, red, denom, l.target_shape);
  }
  const bool need_t = target.requires_grad();
  return record(op, out, {input, target, weight}, {input, target}, [=](const Tensor& g, const SavedTensors& saved) {
    if (recording_backward({g, saved[0], saved[1]})) {
      return composite_vjp(g, {saved[0], saved[1], Tensor()}, [&](const std::vector<Tensor>& in) {
        // q = w_c·((1 − ε)·target + ε/C)
        Tensor qt = add(mul(rows_recorded(in[1], l), scalar_tensor(1.0 - eps)), scalar_tensor(eps / double(C)));
        if (w.defined()) qt = mul(qt, w);
        return weighted_rows(qt, log_softmax(rows_recorded(in[0], l), 1), red, denom, l);
      });
    }
    NoGradGuard no_grad;
    const Tensor s = row_scales(g, red, denom, l.rows);
    Tensor dx = Tensor::uninitialized({l.rows, C}, DType::Float32, dev);
    Tensor dt = need_t ? Tensor::uninitialized({l.rows, C}, DType::Float32, dev) : Tensor();
    if (dx.numel() > 0)
      backend_for(dev).cross_entropy_probs_backward_f32(x.dev_f32(), q.dev_f32(), opt_ptr(w), l.rows, C, eps,
                                                        s.dev_f32(), dx.dev_f32(), need_t ? dt.dev_f32() : nullptr);
    return std::vector<Tensor>{from_rows(dx, l), need_t ? from_rows(dt, l) : Tensor(), Tensor()};
  });
}

}  // namespace

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                     const std::string& reduction, double label_smoothing) {
  const char* op = "crossEntropy";
  const Reduction red = parse_reduction(op, reduction);
  const Rows l = rows_layout(op, input);
  check(target.defined(), op, ": target must be given");
  check_class_weight(op, weight, l.classes);
  // (an if, not check(): check's arguments are all evaluated, and an absent weight has no dtype)
  if (weight.defined() && weight.dtype() != input.dtype())
    fail(op, ": expected weight of the input's dtype (", dtype_name(input.dtype()), "), got ", dtype_name(weight.dtype()));
  check(label_smoothing >= 0.0 && label_smoothing <= 1.0, op, ": labelSmoothing must be between 0 and 1, got ",
        label_smoothing);
  if (target.dtype() == DType::Int32)
    return cross_entropy_indices(input, target, weight, ignore_index, red, label_smoothing, l);
  check(input.dtype() == DType::Float32, op, ": float64 input takes class-index (int32) targets here, got a ",
        dtype_name(target.dtype()), " target of probabilities");
  check(target.dtype() == DType::Float32, op,
        ": expected target of dtype int32 (class indices) or float32 (probabilities), got ",
        dtype_name(target.dtype()));
  check(target.shape() == l.input_shape, op, ": expected a float32 target of probabilities of the input's shape ",
        l.input_shape, ", got ", target.shape(), " (class indices must be int32)");
  return cross_entropy_probs(input, target, weight, ignore_index, red, label_smoothing, l);
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                const std::string& reduction) {
  const char* op = "nllLoss";
  const Reduction red = parse_reduction(op, reduction);
  const Rows l = rows_layout(op, input);
  check(target.defined(), op, ": target must be given");
  check(target.dtype() == DType::Int32, op, ": expected target of dtype int32 (class indices), got ",
        dtype_name(target.dtype()));
  check_class_weight(op, weight, l.classes);
  const Device dev = operands_device(op, {&input, &target, &weight});
  const Tensor t = checked_indices(op, target, l, ignore_index, dev);
  if (weight.defined())  // check() evaluates its message: only with a weight
    check(weight.dtype() == input.dtype(), op, ": expected weight of the input's dtype (", dtype_name(input.dtype()),
          "), got ", dtype_name(weight.dtype()));
  if (input.dtype() == DType::Float64) return indices_loss_f64(input, t, weight, ignore_index, red, 0.0, l, false);
  const Tensor x = to_rows(input, l).detach();
  const Tensor w = weight.defined() ? as_contiguous(weight).detach() : Tensor();
  const int64_t C = l.classes;
  Tensor loss = Tensor::uninitialized({l.rows}, DType::Float32, dev), wt = Tensor::uninitialized({l.rows}, DType::Float32, dev);
  if (l.rows > 0)
    backend_for(dev).nll_f32(x.dev_f32(), t.dev_i32(), opt_ptr(w), l.rows, C, ignore_index, loss.dev_f32(), wt.dev_f32());
  Tensor out, denom;
  {
    NoGradGuard no_grad;
    denom = sum(wt);
    out = reduce_rows(loss, red, denom, l.target_shape);
  }
  return record(op, out, {input, target, weight}, {input}, [=](const Tensor& g, const SavedTensors& saved) {
    if (recording_backward({g, saved[0]})) {
      const Tensor q = index_target_weights(t, w, ignore_index, 0.0, C);
      return composite_vjp(g, {saved[0], Tensor(), Tensor()}, [&](const std::vector<Tensor>& in) {
        return weighted_rows(q, rows_recorded(in[0], l), red, denom, l);
      });
    }
    NoGradGuard no_grad;
    const Tensor s = row_scales(g, red, denom, l.rows);
    Tensor dx = Tensor::empty({l.rows, C}, DType::Float32, dev);  // zero-filled
    if (l.rows > 0)
      backend_for(dev).nll_backward_f32(t.dev_i32(), opt_ptr(w), l.rows, C, ignore_index, s.dev_f32(), dx.dev_f32());
    return std::vector<Tensor>{from_rows(dx, l), Tensor(), Tensor()};
  });
}

}  // namespace sg
