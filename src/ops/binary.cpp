// Arithmetic binary ops (add, sub, mul, div, pow, maximum, minimum) and clamp: NumPy
// broadcasting, PyTorch promotion, gradients summed back over broadcast dims.
//
// dtypes: float32 or float64 (torch.result_type, ops/elementwise.h computes_f64) if either operand is
// floating (the backend's kernels); otherwise the math is
// done in int64 by plain loops and truncated to int32 (wrapping, as C++ int32 arithmetic, but
// without UB). bool ⊕ bool stays bool for add and mul (torch.result_type(bool, bool) = bool:
// logical or/and, the int32 kernel's sum or product stored as != 0); maximum/minimum of bools stay
// bool (as PyTorch); sub of two bools is an error (as PyTorch). div is true division (float32 always). pow of ints stays int32.
#include <climits>
#include <cmath>
#include <limits>

#include "autograd/record.h"
#include "core/copy.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

Tensor as_i32(const Tensor& t) { return t.dtype() == DType::Int32 ? t : contiguous_copy(t, DType::Int32); }

// The gradients of a broadcast binary op: ga/gb are computed only for inputs that need them.
struct Needs {
  bool a, b;
  Shape sa, sb;
};
Needs needs(const Tensor& a, const Tensor& b) {
  return {a.requires_grad(), b.requires_grad(), a.shape(), b.shape()};
}

}  // namespace

Tensor int_binary(IntBinary op, const Tensor& a0, const Tensor& b0, const char* name, DType out_dtype) {
  const Shape shape = broadcast_shapes(a0.shape(), b0.shape(), name);
  const Device dev = operands_device(name, {&a0, &b0});
  const Tensor ai = as_i32(moved_to(a0, dev)), bi = as_i32(moved_to(b0, dev));
  Tensor out = Tensor::uninitialized(shape, out_dtype, dev);
  if (out.numel() == 0) return out;
  if (op == IntBinary::Pow) {
    // Checked before the kernel runs, so that a device kernel (which cannot throw) never sees
    // a negative exponent: PyTorch refuses them for integers.
    const Tensor e = as_contiguous(bi);
    backend_for(dev).check_indices(e.dev_i32(), e.numel(), 0, INT32_MAX, 0,
                                   "pow: integers to negative integer powers are not allowed, got exponent ", "");
  }
  backend_for(dev).binary_i32(op, broadcast_plan(ai, bi, shape), ai.dev_i32(), bi.dev_i32(), out_dtype,
                              out.dev_raw());
  return out;
}

// The dtype of an integer (or bool) op's result: bool for two bools, else int32.
DType int_result(const Tensor& a, const Tensor& b) {
  return a.dtype() == DType::Bool && b.dtype() == DType::Bool ? DType::Bool : DType::Int32;
}

Tensor add(const Tensor& a, const Tensor& b) {
  if (!is_floating(promote(a.dtype(), b.dtype())))
    return int_binary(IntBinary::Add, a, b, "add", int_result(a, b));
  Tensor out = binary_float(Binary::Add, a, b, "add");
  return record("add", out, {a, b}, [n = needs(a, b)](const Tensor& g) -> Grads {
    return {n.a ? sum_to(g, n.sa) : Tensor(), n.b ? sum_to(g, n.sb) : Tensor()};
  });
}

Tensor sub(const Tensor& a, const Tensor& b) {
  if (a.dtype() == DType::Bool && b.dtype() == DType::Bool)
    fail("sub: subtraction of two bool tensors is not supported (as in PyTorch); "
         "cast one to int32 or use a logical op");
  if (!is_floating(promote(a.dtype(), b.dtype())))
    return int_binary(IntBinary::Sub, a, b, "sub", DType::Int32);
  Tensor out = binary_float(Binary::Sub, a, b, "sub");
  return record("sub", out, {a, b}, [n = needs(a, b)](const Tensor& g) -> Grads {
    return {n.a ? sum_to(g, n.sa) : Tensor(), n.b ? sum_to(neg(g), n.sb) : Tensor()};
  });
}

Tensor mul(const Tensor& a, const Tensor& b) {
  if (!is_floating(promote(a.dtype(), b.dtype())))
    return int_binary(IntBinary::Mul, a, b, "mul", int_result(a, b));
  Tensor out = binary_float(Binary::Mul, a, b, "mul");
  // Each input is saved only for the other's gradient (as PyTorch does): x * 0.125 keeps no
  // copy of x alive until backward (attention's scores: half a megabyte per head and batch).
  const Needs n = needs(a, b);
  return record("mul", out, {a, b}, {n.b ? a : Tensor(), n.a ? b : Tensor()}, [n](const Tensor& g, const SavedTensors& s) -> Grads {
    const Tensor &a = s[0], &b = s[1];
    return {n.a ? sum_to(mul(g, b), n.sa) : Tensor(), n.b ? sum_to(mul(g, a), n.sb) : Tensor()};
  });
}

Tensor div(const Tensor& a, const Tensor& b) {
  Tensor out = binary_float(Binary::Div, a, b, "div");  // true division: ints give float32
  const Needs n = needs(a, b);  // out is needed only for b's gradient (x / 8 keeps nothing but 8)
  return record("div", out, {a, b}, {b, n.b ? out : Tensor()}, [n](const Tensor& g, const SavedTensors& s) -> Grads {
    const Tensor &b = s[0], &out = s[1];
    // d(a/b)/db = −a/b² = −out/b
    return {n.a ? sum_to(div(g, b), n.sa) : Tensor(),
            n.b ? sum_to(neg(div(mul(g, out), b)), n.sb) : Tensor()};
  });
}

Tensor pow(const Tensor& a, const Tensor& b) {
  if (!is_floating(promote(a.dtype(), b.dtype()))) {
    return int_binary(IntBinary::Pow, a, b, "pow", DType::Int32);
  }
  Tensor out = binary_float(Binary::Pow, a, b, "pow");
  return record("pow", out, {a, b}, {a, b, out}, [n = needs(a, b)](const Tensor& g, const SavedTensors& s) -> Grads {
    const Tensor &a = s[0], &b = s[1], &out = s[2];
    const Tensor zero = f32_scalar(0);
    Tensor ga, gb;
    if (n.a) {  // b·a^(b−1), and 0 where b == 0 (PyTorch: avoids 0·inf at a == 0)
      Tensor d = mul(b, pow(a, sub(b, f32_scalar(1))));
      ga = sum_to(mul(g, where(eq(b, zero), zero, d)), n.sa);
    }
    if (n.b) {  // a^b·log(a), and 0 where a == 0 and b >= 0 (PyTorch's mask)
      Tensor d = mul(out, log(a));
      d = where(eq(a, zero), where(ge(b, zero), zero, d), d);
      gb = sum_to(mul(g, d), n.sb);
    }
    return {ga, gb};
  });
}

namespace {

// maximum (is_max) or minimum. PyTorch's gradient: ties give each side g/2; the losing side 0;
// NaN comparisons are false, so a NaN pair passes g to both sides.
Tensor extremum(const Tensor& a, const Tensor& b, bool is_max) {
  const char* name = is_max ? "maximum" : "minimum";
  const DType dt = promote(a.dtype(), b.dtype());
  if (!is_floating(dt)) {
    return int_binary(is_max ? IntBinary::Maximum : IntBinary::Minimum, a, b, name, dt);
  }
  Tensor out = binary_float(is_max ? Binary::Maximum : Binary::Minimum, a, b, name);
  return record(name, out, {a, b}, {a, b}, [is_max, n = needs(a, b)](const Tensor& g, const SavedTensors& s) -> Grads {
    const Tensor &a = s[0], &b = s[1];
    const Tensor zero = f32_scalar(0);
    const Tensor half_g = mul(g, f32_scalar(0.5));
    const Tensor tie = eq(a, b);
    Tensor ga, gb;
    if (n.a) ga = sum_to(where(tie, half_g, where(is_max ? lt(a, b) : gt(a, b), zero, g)), n.sa);
    if (n.b) gb = sum_to(where(tie, half_g, where(is_max ? gt(a, b) : lt(a, b), zero, g)), n.sb);
    return {ga, gb};
  });
}

}  // namespace

Tensor maximum(const Tensor& a, const Tensor& b) { return extremum(a, b, true); }
Tensor minimum(const Tensor& a, const Tensor& b) { return extremum(a, b, false); }

Tensor clamp(const Tensor& x, std::optional<double> lo, std::optional<double> hi) {
  check(lo.has_value() || hi.has_value(), "clamp: at least one of 'min' or 'max' must be given");
  const auto whole = [](const std::optional<double>& v) {
    return !v || (std::isfinite(*v) && *v == std::floor(*v) && std::fabs(*v) < 2147483648.0);
  };
  if (!is_floating(x.dtype()) && whole(lo) && whole(hi)) {
    // Integer input, integer bounds: stays int32 (PyTorch order: min(max(x, lo), hi)).
    Tensor out = as_i32(x);
    if (lo) out = int_binary(IntBinary::Maximum, out, scalar_tensor(*lo, DType::Int32), "clamp", DType::Int32);
    if (hi) out = int_binary(IntBinary::Minimum, out, scalar_tensor(*hi, DType::Int32), "clamp", DType::Int32);
    return out;  // at least one bound was given, so this is a new tensor
  }
  Tensor out = x;  // binary_f32 records nothing: the forward stays out of the graph
  if (lo) out = binary_float(Binary::Maximum, out, scalar_like(*lo, x), "clamp");
  if (hi) out = binary_float(Binary::Minimum, out, scalar_like(*hi, x), "clamp");
  // Gradient 1 on [lo, hi] inclusive (PyTorch's clamp_backward), 0 outside and at NaN.
  return record("clamp", out, {x}, {x}, [lo, hi](const Tensor& g, const SavedTensors& s) -> Grads {
    const Tensor& x = s[0];
    const Tensor zero = f32_scalar(0);
    Tensor gx = g;
    if (lo) gx = where(ge(x, scalar_like(*lo, x)), gx, zero);
    if (hi) gx = where(le(x, scalar_like(*hi, x)), gx, zero);
    return {gx};
  });
}

}  // namespace sg
