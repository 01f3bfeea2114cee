// Elementwise math functions: neg, exp, log family, sqrt/rsqrt, abs, sign, sin/cos, erf,
// square, reciprocal. Float math runs on the backend's Unary kernels (float32, or float64 for
// float64 inputs); int32/bool inputs are
// cast to float32 first, except neg/abs/sign/square which keep integers integral (PyTorch).
#include <cmath>

#include "autograd/record.h"
#include "core/copy.h"
#include "kernels/reference/scalar_math.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

// A float op whose gradient is g ⊙ d(x, out), with d built from ops.
template <class D>
Tensor float_unary(const char* name, Unary op, const Tensor& x, D deriv) {
  Tensor out = unary_float(op, x);
  return record(name, out, {x}, {x, out}, [deriv](const Tensor& g, const SavedTensors& s) -> Grads {
    return {mul(g, deriv(s[0], s[1]))};
  });
}

using scalar::kLn10;
using scalar::kLn2;
using scalar::kTwoOverSqrtPi;

}  // namespace

Tensor int_unary(IntUnary op, const Tensor& x) {
  const Tensor xi = as_contiguous(x, DType::Int32);
  Tensor out = Tensor::uninitialized(x.shape(), DType::Int32, x.device());
  if (out.numel() > 0) backend_for(x.device()).unary_i32(op, xi.dev_i32(), out.dev_i32(), out.numel());
  return out;
}

Tensor neg(const Tensor& x) {
  if (x.dtype() == DType::Bool)
    fail("neg: negation of a bool tensor is not supported (as in PyTorch); use a logical not "
         "instead");
  if (x.dtype() == DType::Int32) return int_unary(IntUnary::Neg, x);
  Tensor out = unary_float(Unary::Neg, x);
  return record("neg", out, {x}, [](const Tensor& g) -> Grads { return {neg(g)}; });
}

Tensor exp(const Tensor& x) {
  return float_unary("exp", Unary::Exp, x, [](const Tensor&, const Tensor& y) { return y; });
}

Tensor log(const Tensor& x) {
  Tensor out = unary_float(Unary::Log, x);
  return record("log", out, {x}, {x}, [](const Tensor& g, const SavedTensors& s) -> Grads { return {div(g, s[0])}; });
}

Tensor log2(const Tensor& x) {
  Tensor out = unary_float(Unary::Log2, x);
  return record("log2", out, {x}, {x}, [](const Tensor& g, const SavedTensors& s) -> Grads {
    return {div(g, mul(s[0], scalar_like(kLn2, s[0])))};
  });
}

Tensor log10(const Tensor& x) {
  Tensor out = unary_float(Unary::Log10, x);
  return record("log10", out, {x}, {x}, [](const Tensor& g, const SavedTensors& s) -> Grads {
    return {div(g, mul(s[0], scalar_like(kLn10, s[0])))};
  });
}

Tensor log1p(const Tensor& x) {
  Tensor out = unary_float(Unary::Log1p, x);
  return record("log1p", out, {x}, {x}, [](const Tensor& g, const SavedTensors& s) -> Grads {
    return {div(g, add(s[0], f32_scalar(1)))};
  });
}

Tensor expm1(const Tensor& x) {
  return float_unary("expm1", Unary::Expm1, x,
                     [](const Tensor&, const Tensor& y) { return add(y, f32_scalar(1)); });
}

Tensor sqrt(const Tensor& x) {
  Tensor out = unary_float(Unary::Sqrt, x);
  return record("sqrt", out, {x}, {out}, [](const Tensor& g, const SavedTensors& s) -> Grads {
    return {div(g, mul(s[0], f32_scalar(2)))};  // g / (2√x), PyTorch's form
  });
}

Tensor rsqrt(const Tensor& x) {
  return float_unary("rsqrt", Unary::Rsqrt, x, [](const Tensor&, const Tensor& y) {
    return mul(mul(y, square(y)), f32_scalar(-0.5));  // −½ x^(−3/2) = −½ y³
  });
}

Tensor abs(const Tensor& x) {
  check(x.dtype() != DType::Bool, "abs: expected a float32 or int32 tensor, got bool (PyTorch refuses it too; convert it first)");
  if (x.dtype() == DType::Int32) return int_unary(IntUnary::Abs, x);
  // sign(0) = 0: the gradient at 0 is 0, as PyTorch's.
  return float_unary("abs", Unary::Abs, x, [](const Tensor& x, const Tensor&) { return sign(x); });
}

Tensor sign(const Tensor& x) {
  if (x.dtype() == DType::Bool) return contiguous_copy(x);
  if (x.dtype() == DType::Int32) return int_unary(IntUnary::Sign, x);
  Tensor out = unary_float(Unary::Sign, x);
  // Piecewise constant: gradient zero, still recorded so backward reaches through it.
  return record("sign", out, {x}, [shape = x.shape()](const Tensor& g) -> Grads {
    return {zeros(shape, g.dtype(), g.device())};
  });
}

Tensor sin(const Tensor& x) {
  return float_unary("sin", Unary::Sin, x, [](const Tensor& x, const Tensor&) { return cos(x); });
}

Tensor cos(const Tensor& x) {
  return float_unary("cos", Unary::Cos, x,
                     [](const Tensor& x, const Tensor&) { return neg(sin(x)); });
}

Tensor erf(const Tensor& x) {
  return float_unary("erf", Unary::Erf, x, [](const Tensor& x, const Tensor&) {
    return mul(exp(neg(square(x))), scalar_like(kTwoOverSqrtPi, x));  // 2/√π e^(−x²)
  });
}

Tensor square(const Tensor& x) {
  if (!is_floating(x.dtype())) return int_unary(IntUnary::Square, x);
  return float_unary("square", Unary::Square, x,
                     [](const Tensor& x, const Tensor&) { return mul(x, f32_scalar(2)); });
}

Tensor reciprocal(const Tensor& x) {
  return float_unary("reciprocal", Unary::Reciprocal, x,
                     [](const Tensor&, const Tensor& y) { return neg(square(y)); });
}

}  // namespace sg
