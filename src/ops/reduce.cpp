// Reductions (sum, mean, prod, amax, amin, var, std, logsumexp, norm, argmax, argmin).
// Every reduction sees its input as [outer, r, inner]: the reduced dims are moved together
// (a permuted contiguous copy, only when they are not already one block) so that one
// backend_for(device).reduce_f32 (reduce_f64 for float64) call does the work; int32/bool reductions, arg-reductions and
// the group-dependent gradients have kernels of their own (kernels/data_kernels.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "autograd/record.h"
#include "core/copy.h"
#include "kernels/backend.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {
namespace {

// How a reduction reads x: x permuted by `perm` is [outer dims..., reduced..., inner dims...]
// and, contiguous, is the [outer, r, inner] buffer the kernels take. Kept dims keep their
// order, so the [outer, inner] result is already laid out as out_shape.
struct Plan {
  Shape shape;         // x's shape
  Dims dims;           // the reduced dims, normalized and sorted
  Dims perm;           // arranged dim k is x's dim perm[k]
  Shape arranged;      // x's shape permuted by perm
  int64_t outer = 1, r = 1, inner = 1;
  Shape keep_shape;    // x's shape with 1 at the reduced dims
  Shape out_shape;     // keep_shape, or without the reduced dims
  bool identity() const {
    for (size_t k = 0; k < perm.size(); ++k)
      if (perm[k] != static_cast<int64_t>(k)) return false;
    return true;
  }
};

// rows_last: every kept dim goes to `outer` (inner = 1), for the row kernels (logsumexp).
Plan make_plan(const Shape& shape, const Dims& dims, bool keepdim, const char* op,
               bool rows_last = false) {
  Plan p;
  p.shape = shape;
  const int64_t nd = static_cast<int64_t>(shape.size());
  p.dims = normalize_dims(dims, nd, op);
  std::vector<bool> reduced(nd, false);
  for (int64_t d : p.dims) reduced[d] = true;
  // Kept dims after the last reduced dim stay inner; all others go outer.
  const int64_t last = rows_last ? nd : (p.dims.empty() ? -1 : p.dims.back());
  Dims outer, inner;
  for (int64_t d = 0; d < nd; ++d) {
    if (reduced[d]) continue;
    (d < last ? outer : inner).push_back(d);
  }
  for (int64_t d : outer) p.outer *= shape[d];
  for (int64_t d : p.dims) p.r *= shape[d];
  for (int64_t d : inner) p.inner *= shape[d];
  p.perm = outer;
  p.perm.insert(p.perm.end(), p.dims.begin(), p.dims.end());
  p.perm.insert(p.perm.end(), inner.begin(), inner.end());
  for (int64_t d : p.perm) p.arranged.push_back(shape[d]);
  for (int64_t d = 0; d < nd; ++d) {
    p.keep_shape.push_back(reduced[d] ? 1 : shape[d]);
    if (!reduced[d]) p.out_shape.push_back(shape[d]);
    else if (keepdim) p.out_shape.push_back(1);
  }
  return p;
}

// x as the contiguous [outer, r, inner] buffer (of `dtype`).
Tensor arrange(const Tensor& x, const Plan& p, DType dtype) {
  if (p.identity()) return as_contiguous(x, dtype);
  Shape strides;
  for (int64_t d : p.perm) strides.push_back(x.strides()[d]);
  return contiguous_copy(Tensor::view_of(x, p.arranged, strides, x.offset()), dtype);
}

// The inverse of arrange: y (contiguous, shape p.arranged) back in x's dim order.
Tensor unarrange(const Tensor& y, const Plan& p) {
  if (p.identity()) return y;
  Shape strides(p.shape.size());
  for (size_t k = 0; k < p.perm.size(); ++k) strides[p.perm[k]] = y.strides()[k];
  return contiguous_copy(Tensor::view_of(y, p.shape, strides, y.offset()));
}

void require_float(const Tensor& x, const char* op) {
  check(x.dtype() == DType::Float32 || x.dtype() == DType::Float64, op,
        ": expected a floating point (float32 or float64) tensor, got ", dtype_name(x.dtype()));
}

// The dtype a floating reduction computes in: float64 for float64, float32 for the rest
// (integers are promoted to float32, as PyTorch's default dtype).
DType fdt(const Tensor& x) { return float_dtype(x.dtype() == DType::Float64); }

void require_nonempty(const Plan& p, const char* op) {
  check(p.r > 0, op, ": cannot reduce over a zero-size dim (input shape ", p.shape, ", dims ",
        p.dims, ")");
}

// ---- float32 and float64 through the backend (xc's dtype, one of the two) ----

Tensor reduce_arranged(Reduce op, const Tensor& xc, const Plan& p) {
  Tensor out = Tensor::uninitialized(p.out_shape, xc.dtype(), xc.device());  // the kernel writes it all (r = 0 too)
  if (out.numel() == 0) return out;
  if (xc.dtype() == DType::Float64)
    backend_for(xc.device()).reduce_f64(op, dev_f64(xc), p.outer, p.r, p.inner, dev_f64(out));
  else
    backend_for(xc.device()).reduce_f32(op, xc.dev_f32(), p.outer, p.r, p.inner, out.dev_f32());
  return out;
}

// x (contiguous) op s, elementwise, in x's dtype (s held in float64 for float64).
Tensor with_scalar(Binary op, const Tensor& xc, double s) {
  return binary_float(op, xc, scalar_like(s, xc), "reduce");
}

// [outer, r, inner] minus the per-group [outer, inner] values (the deviations of var/std).
Tensor minus_groups(const Tensor& xc, const Tensor& m, const Plan& p) {
  Tensor y = Tensor::uninitialized(xc.shape(), xc.dtype(), xc.device());
  if (y.numel() == 0) return y;
  BroadcastPlan plan{{p.outer, p.r, p.inner}, {p.r * p.inner, p.inner, 1}, {p.inner, 0, 1}};
  if (xc.dtype() == DType::Float64)
    backend_for(xc.device()).binary_f64(Binary::Sub, plan, dev_f64(xc), dev_f64(m), dev_f64(y));
  else
    backend_for(xc.device()).binary_f32(Binary::Sub, plan, xc.dev_f32(), m.dev_f32(), y.dev_f32());
  return y;
}

// ---- int32 / bool ----

// Sum/prod of an int32 or bool tensor: int32, wrapping on overflow.
Tensor int_fold(const Tensor& x, const Plan& p, bool product) {
  Tensor xc = arrange(x, p, DType::Int32);
  Tensor out = Tensor::uninitialized(p.out_shape, DType::Int32, x.device());
  if (out.numel() > 0)
    backend_for(x.device()).reduce_int(product ? Reduce::Prod : Reduce::Sum, DType::Int32, xc.dev_raw(), p.outer,
                                       p.r, p.inner, out.dev_raw());
  return out;
}

Tensor int_extreme(const Tensor& x, const Plan& p, bool is_max) {
  Tensor xc = arrange(x, p, x.dtype());
  Tensor out = Tensor::uninitialized(p.out_shape, x.dtype(), x.device());
  if (out.numel() > 0)
    backend_for(x.device()).reduce_int(is_max ? Reduce::Max : Reduce::Min, x.dtype(), xc.dev_raw(), p.outer, p.r,
                                       p.inner, out.dev_raw());
  return out;
}

// ---- gradients that depend on the whole group ----

// dx = the backend's group-backward kernel `k` on the arranged x, out and g, back in x's layout
// (float32 only: float64 gradients take the formulas below, built from ops).
template <class K>
Tensor group_grad(const Tensor& x, const Tensor& out, const Tensor& g, const Plan& p, K k) {
  Tensor xc = arrange(x, p, DType::Float32);
  Tensor gc = as_contiguous(moved_to(g, x.device()), DType::Float32);
  Tensor yc = as_contiguous(out, DType::Float32);
  Tensor dx = Tensor::uninitialized(p.arranged, DType::Float32, x.device());
  if (dx.numel() > 0) k(backend_for(x.device()), xc.dev_f32(), yc.dev_f32(), gc.dev_f32(), dx.dev_f32());
  return unarrange(dx, p);
}

Tensor expand_back(const Tensor& g, const Plan& p) { return expand(reshape(g, p.keep_shape), p.shape); }

// ---- the same gradients through differentiable ops (while a gradient is recorded) ----

// max/min (and with use_abs the inf-norms): g split equally between the elements equal to the
// extreme, times sign(x) with use_abs. The choice of elements is piecewise constant in x.
Tensor tie_shares(const Tensor& x, const Tensor& out, const Tensor& g, const Plan& p, bool use_abs) {
  const Tensor hit = cast(eq(use_abs ? abs(x) : x, reshape(out, p.keep_shape)), fdt(x));
  Tensor share = div(hit, sum(hit, p.dims, true));
  if (use_abs) share = mul(share, sign(x));
  return mul(share, reshape(g, p.keep_shape));
}

// d prod / d x_j = prod / x_j, where x_j = 0: the product of the others when it is the only zero
// of its group, else 0. prod's own formula handles the zeros, so this differentiates again.
Tensor prod_grad_ops(const Tensor& x, const Tensor& out, const Tensor& g, const Plan& p) {
  const Tensor zero = f32_scalar(0), one = f32_scalar(1);
  const Tensor is_zero = eq(x, zero);
  const Tensor nonzero = where(is_zero, one, x);
  const Tensor zeros_in_group = sum(cast(is_zero, fdt(x)), p.dims, true);
  const Tensor others_at_zero = where(eq(zeros_in_group, one), prod(nonzero, p.dims, true), zero);
  const Tensor d = where(is_zero, others_at_zero, div(reshape(out, p.keep_shape), nonzero));
  return mul(d, reshape(g, p.keep_shape));
}

// The p-norm's derivative times g, 0 where the norm is 0 (divisions kept finite there, so that
// the recorded formula has finite derivatives too).
Tensor norm_grad_ops(const Tensor& x, const Tensor& out, const Tensor& g, const Plan& p, double p_) {
  if (std::isinf(p_)) return tie_shares(x, out, g, p, true);
  const Tensor zero = f32_scalar(0), one = f32_scalar(1);
  if (p_ == 0) return mul(mul(x, zero), reshape(g, p.keep_shape));  // 0, shaped as x
  const Tensor y = reshape(out, p.keep_shape), gk = reshape(g, p.keep_shape);
  const Tensor y_zero = eq(y, zero);
  const Tensor y_safe = where(y_zero, one, y);
  Tensor w;
  if (p_ == 1) w = sign(x);
  else if (p_ == 2) w = div(x, y_safe);
  else w = where(eq(x, zero), zero, mul(sign(x), pow(div(abs(x), y_safe), scalar_like(p_ - 1, x))));
  return mul(where(y_zero, zero, w), gk);
}

Tensor extreme(const Tensor& x, const Dims& dims, bool keepdim, bool is_max) {
  const char* op = is_max ? "max" : "min";
  Plan p = make_plan(x.shape(), dims, keepdim, op);
  require_nonempty(p, op);
  if (!is_floating(x.dtype())) return int_extreme(x, p, is_max);
  Tensor out = reduce_arranged(is_max ? Reduce::Max : Reduce::Min, arrange(x, p, fdt(x)), p);
  return record(is_max ? "amax" : "amin", out, {x}, {x, out}, [p](const Tensor& g, const SavedTensors& s) {
    const Tensor &x = s[0], &out = s[1];
    if (recording_backward({g}) || x.dtype() == DType::Float64) return std::vector<Tensor>{tie_shares(x, out, g, p, false)};
    return std::vector<Tensor>{group_grad(x, out, g, p, [&p](const Backend& be, const float* xp, const float* yp,
                                                             const float* gp, float* dp) {
      be.extreme_backward_f32(false, xp, yp, gp, p.outer, p.r, p.inner, dp);
    })};
  });
}

// PyTorch's max(0, n − correction): n = 1 unbiased gives 0/0 = NaN, as in PyTorch.
double var_divisor(const Plan& p, bool unbiased) {
  return std::max<double>(0.0, double(p.r) - (unbiased ? 1.0 : 0.0));
}

// var and std share the forward: Σ (x − mean)² / divisor, two passes (no cancellation).
Tensor variance(const Tensor& x, const Plan& p, bool unbiased) {
  Tensor xc = arrange(x, p, fdt(x));
  Tensor m = with_scalar(Binary::Div, reduce_arranged(Reduce::Sum, xc, p), double(p.r));
  Tensor sq = unary_float(Unary::Square, minus_groups(xc, m, p));
  return with_scalar(Binary::Div, reduce_arranged(Reduce::Sum, sq, p), var_divisor(p, unbiased));
}

}  // namespace

Tensor sum(const Tensor& x, const Dims& dims, bool keepdim) {
  Plan p = make_plan(x.shape(), dims, keepdim, "sum");
  if (!is_floating(x.dtype())) return int_fold(x, p, false);
  Tensor out = reduce_arranged(Reduce::Sum, arrange(x, p, fdt(x)), p);
  return record("sum", out, {x}, [p](const Tensor& g) { return std::vector<Tensor>{expand_back(g, p)}; });
}

Tensor mean(const Tensor& x, const Dims& dims, bool keepdim) {
  check(x.dtype() == DType::Float32 || x.dtype() == DType::Float64,
        "mean: could not infer output dtype. Input dtype must be a floating point dtype, got ",
        dtype_name(x.dtype()));
  Plan p = make_plan(x.shape(), dims, keepdim, "mean");
  Tensor s = reduce_arranged(Reduce::Sum, arrange(x, p, fdt(x)), p);
  Tensor out = with_scalar(Binary::Div, s, double(p.r));  // r = 0 gives 0/0 = NaN, as PyTorch
  Tensor n = scalar_tensor(double(p.r));
  return record("mean", out, {x}, [p, n](const Tensor& g) {
    return std::vector<Tensor>{expand_back(div(g, n), p)};
  });
}

Tensor prod(const Tensor& x, const Dims& dims, bool keepdim) {
  Plan p = make_plan(x.shape(), dims, keepdim, "prod");
  if (!is_floating(x.dtype())) return int_fold(x, p, true);
  Tensor out = reduce_arranged(Reduce::Prod, arrange(x, p, fdt(x)), p);
  return record("prod", out, {x}, {x, out}, [p](const Tensor& g, const SavedTensors& s) {
    const Tensor &x = s[0], &out = s[1];
    if (recording_backward({g, x}) || x.dtype() == DType::Float64) return std::vector<Tensor>{prod_grad_ops(x, out, g, p)};
    return std::vector<Tensor>{group_grad(x, out, g, p, [&p](const Backend& be, const float* xp, const float*,
                                                             const float* gp, float* dp) {
      be.prod_backward_f32(xp, gp, p.outer, p.r, p.inner, dp);
    })};
  });
}

Tensor amax(const Tensor& x, const Dims& dims, bool keepdim) { return extreme(x, dims, keepdim, true); }
Tensor amin(const Tensor& x, const Dims& dims, bool keepdim) { return extreme(x, dims, keepdim, false); }

Tensor var(const Tensor& x, const Dims& dims, bool keepdim, bool unbiased) {
  require_float(x, "var");
  Plan p = make_plan(x.shape(), dims, keepdim, "var");
  Tensor out = variance(x, p, unbiased);
  // d var / dx = 2 (x − mean) / divisor.
  return record("var", out, {x}, {x}, [p, unbiased](const Tensor& g, const SavedTensors& s) {
    const Tensor& x = s[0];
    Tensor scale = scalar_like(2.0 / var_divisor(p, unbiased), x);
    Tensor dev = sub(x, mean(x, p.dims, true));
    return std::vector<Tensor>{mul(dev, reshape(mul(g, scale), p.keep_shape))};
  });
}

Tensor std(const Tensor& x, const Dims& dims, bool keepdim, bool unbiased) {
  require_float(x, "std");
  Plan p = make_plan(x.shape(), dims, keepdim, "std");
  Tensor v = variance(x, p, unbiased);
  Tensor out = unary_float(Unary::Sqrt, v);
  // d std / dx = (x − mean) / (divisor · std), and 0 where std = 0 (as PyTorch).
  return record("std", out, {x}, {x, out}, [p, unbiased](const Tensor& g, const SavedTensors& s) {
    const Tensor &x = s[0], &out = s[1];
    const Tensor zero = f32_scalar(0);
    const Tensor scaled = div(g, mul(out, f32_scalar(var_divisor(p, unbiased))));
    const Tensor gs = where(eq(out, zero), zero, scaled);
    Tensor dev = sub(x, mean(x, p.dims, true));
    return std::vector<Tensor>{mul(dev, reshape(gs, p.keep_shape))};
  });
}

Tensor logsumexp(const Tensor& x, const Dims& dims, bool keepdim) {
  Plan p = make_plan(x.shape(), dims, keepdim, "logsumexp", /*rows_last=*/true);
  // Integers are promoted to float32, as PyTorch does.
  Tensor xc = arrange(x, p, fdt(x));
  Tensor out = Tensor::uninitialized(p.out_shape, xc.dtype(), x.device());
  if (out.numel() > 0) {
    const Backend& be = backend_for(x.device());
    if (p.r == 0) be.fill(xc.dtype(), -std::numeric_limits<double>::infinity(), out.dev_raw(), out.numel());
    else if (xc.dtype() == DType::Float64) be.logsumexp_rows_f64(dev_f64(xc), dev_f64(out), p.outer, p.r);
    else be.logsumexp_rows_f32(xc.dev_f32(), out.dev_f32(), p.outer, p.r);
  }
  // d lse / dx = softmax(x) = exp(x − lse).
  return record("logsumexp", out, {x}, {x, out}, [p](const Tensor& g, const SavedTensors& s) {
    Tensor sm = exp(sub(s[0], reshape(s[1], p.keep_shape)));
    return std::vector<Tensor>{mul(sm, reshape(g, p.keep_shape))};
  });
}

Tensor norm(const Tensor& x, double p_, const Dims& dims, bool keepdim) {
  require_float(x, "norm");
  check(!std::isnan(p_) && (p_ >= 0 || std::isinf(p_)), "norm: p must be positive, 0, inf or -inf, got ", p_);
  Plan p = make_plan(x.shape(), dims, keepdim, "norm");
  const float inf = std::numeric_limits<float>::infinity();
  Tensor ax = unary_float(Unary::Abs, arrange(x, p, fdt(x)));
  Tensor out;
  if (p_ == inf || p_ == -inf) {
    // An empty max-norm is 0, as torch.linalg.vector_norm's (which rejects the empty min).
    if (p.r == 0 && p_ == inf) out = Tensor::empty(p.out_shape, ax.dtype(), x.device());
    else {
      require_nonempty(p, "norm");
      out = reduce_arranged(p_ == inf ? Reduce::Max : Reduce::Min, ax, p);
    }
  } else if (p_ == 0) {
    out = reduce_arranged(Reduce::Sum, unary_float(Unary::Sign, ax), p);  // count of nonzeros
  } else if (p_ == 1) {
    out = reduce_arranged(Reduce::Sum, ax, p);
  } else if (p_ == 2) {
    out = unary_float(Unary::Sqrt, reduce_arranged(Reduce::Sum, unary_float(Unary::Square, ax), p));
  } else {
    Tensor s = reduce_arranged(Reduce::Sum, with_scalar(Binary::Pow, ax, p_), p);
    out = with_scalar(Binary::Pow, s, 1.0 / p_);
  }
  return record("norm", out, {x}, {x, out}, [p, p_](const Tensor& g, const SavedTensors& s) {
    const Tensor &x = s[0], &out = s[1];
    if (recording_backward({g, x}) || x.dtype() == DType::Float64)
      return std::vector<Tensor>{norm_grad_ops(x, out, g, p, p_)};
    return std::vector<Tensor>{group_grad(x, out, g, p, [&p, p_](const Backend& be, const float* xp,
                                                                 const float* yp, const float* gp, float* dp) {
      if (std::isinf(p_)) be.extreme_backward_f32(true, xp, yp, gp, p.outer, p.r, p.inner, dp);
      else be.norm_backward_f32(p_, xp, yp, gp, p.outer, p.r, p.inner, dp);
    })};
  });
}

namespace {

Tensor arg_extreme(const Tensor& x, std::optional<int64_t> dim, bool keepdim, bool is_max) {
  const char* op = is_max ? "argmax" : "argmin";
  Plan p;
  if (dim) {
    p = make_plan(x.shape(), {*dim}, keepdim, op);
  } else {
    // The index into the flattened tensor; keepdim keeps every dim as 1.
    p = make_plan(x.shape(), {}, keepdim, op);
  }
  require_nonempty(p, op);
  check(p.r <= std::numeric_limits<int32_t>::max(), op, ": the reduced size ", p.r, " does not fit int32 indices");
  Tensor xc = arrange(x, p, x.dtype());
  Tensor out = Tensor::uninitialized(p.out_shape, DType::Int32, x.device());
  if (out.numel() > 0)
    backend_for(x.device()).arg_reduce(is_max, x.dtype(), xc.dev_raw(), p.outer, p.r, p.inner, out.dev_i32());
  return out;
}

}  // namespace

Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme(x, dim, keepdim, true);
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme(x, dim, keepdim, false);
}

}  // namespace sg
