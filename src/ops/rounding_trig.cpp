// Rounding (floor, ceil, round, trunc) and the trigonometric and hyperbolic functions that
// unary.cpp's Unary kernels do not cover: tan, the inverse trigonometric functions, sinh/cosh
// and atan2. Forward values come from the DataKernels math_f32/atan2_f32 kernels; gradients are
// PyTorch's formulas written with ops.
#include "autograd/record.h"
#include "core/copy.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

// y = fn(x) in float32 (int32/bool inputs cast first), no autograd.
Tensor math(MathFn fn, const Tensor& x) {
  const Tensor xc = as_contiguous(x, DType::Float32);
  Tensor out = Tensor::uninitialized(x.shape(), DType::Float32, x.device());
  if (out.numel() > 0) backend_for(x.device()).math_f32(fn, xc.dev_f32(), out.dev_f32(), out.numel());
  return out;
}

// Rounding keeps integers as they are (PyTorch returns a copy) and has gradient 0.
Tensor rounding(const char* name, MathFn fn, const Tensor& x) {
  check(x.dtype() != DType::Bool, name, ": expected a float32 or int32 tensor, got bool (PyTorch refuses it too; convert it first)");
  if (x.dtype() != DType::Float32) return contiguous_copy(x);
  Tensor out = math(fn, x);
  return record(name, out, {x}, [shape = x.shape()](const Tensor& g) -> Grads {
    return {zeros(shape, DType::Float32, g.device())};
  });
}

// A float function whose gradient is g ⊙ deriv(x, y).
template <class D>
Tensor smooth(const char* name, MathFn fn, const Tensor& x, D deriv) {
  Tensor out = math(fn, x);
  return record(name, out, {x}, [x, out, deriv](const Tensor& g) -> Grads { return {mul(g, deriv(x, out))}; });
}

Tensor one() { return f32_scalar(1); }

}  // namespace

Tensor floor(const Tensor& x) { return rounding("floor", MathFn::Floor, x); }
Tensor ceil(const Tensor& x) { return rounding("ceil", MathFn::Ceil, x); }
Tensor round(const Tensor& x) { return rounding("round", MathFn::Round, x); }
Tensor trunc(const Tensor& x) { return rounding("trunc", MathFn::Trunc, x); }

Tensor tan(const Tensor& x) {
  return smooth("tan", MathFn::Tan, x, [](const Tensor&, const Tensor& y) { return add(square(y), one()); });
}

Tensor atan(const Tensor& x) {
  return smooth("atan", MathFn::Atan, x, [](const Tensor& x, const Tensor&) { return reciprocal(add(square(x), one())); });
}

Tensor asin(const Tensor& x) {
  return smooth("asin", MathFn::Asin, x, [](const Tensor& x, const Tensor&) { return rsqrt(sub(one(), square(x))); });
}

Tensor acos(const Tensor& x) {
  return smooth("acos", MathFn::Acos, x,
                [](const Tensor& x, const Tensor&) { return neg(rsqrt(sub(one(), square(x)))); });
}

Tensor sinh(const Tensor& x) {
  return smooth("sinh", MathFn::Sinh, x, [](const Tensor& x, const Tensor&) { return cosh(x); });
}

Tensor cosh(const Tensor& x) {
  return smooth("cosh", MathFn::Cosh, x, [](const Tensor& x, const Tensor&) { return sinh(x); });
}

Tensor atan2(const Tensor& a0, const Tensor& b0) {
  const char* op = "atan2";
  const Shape shape = broadcast_shapes(a0.shape(), b0.shape(), op);
  const Device dev = operands_device(op, {&a0, &b0});
  const Tensor a = moved_to(a0, dev), b = moved_to(b0, dev);
  const Tensor af = a.dtype() == DType::Float32 ? a : contiguous_copy(a, DType::Float32);
  const Tensor bf = b.dtype() == DType::Float32 ? b : contiguous_copy(b, DType::Float32);
  Tensor out = Tensor::uninitialized(shape, DType::Float32, dev);
  if (out.numel() > 0)
    backend_for(dev).atan2_f32(broadcast_plan(af, bf, shape), af.dev_f32(), bf.dev_f32(), out.dev_f32());
  // d/da = b / (a² + b²), d/db = −a / (a² + b²).
  return record(op, out, {a0, b0}, [a0, b0](const Tensor& g) -> Grads {
    const Tensor scale = div(g, add(square(a0), square(b0)));
    return {a0.requires_grad() ? sum_to(mul(scale, b0), a0.shape()) : Tensor(),
            b0.requires_grad() ? sum_to(mul(scale, neg(a0)), b0.shape()) : Tensor()};
  });
}

}  // namespace sg
