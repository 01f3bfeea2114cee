// PyTorch 1.13's special functions (ops/special.h). Forward values come from
// DataKernels::special_f32; gradients are derivatives.yaml's, written with differentiable ops
// (each a special function again, or exp/square), so higher derivatives follow:
//   erfinv: g·(√π/2)·exp(erfinv(x)²)    erfc: −g·(2/√π)·exp(−x²)
//   lgamma: g·digamma(x)    digamma: g·polygamma(1, x)    polygamma(n): g·polygamma(n+1, x)
//   i0: g·i1(x)    i1 (internal): g·(i0(x) − i1(x)/x), ½ at x = 0 (PyTorch's i1 backward)
#include "ops/special.h"

#include <string>

#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "kernels/reference/scalar_math.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

// y = fn(x) in float32 (int32/bool inputs promoted first, as PyTorch does), or in float64 for a
// float64 x (OpInfo::float64), no autograd.
Tensor values(Special fn, int64_t n, const Tensor& x) {
  if (x.dtype() == DType::Float64) {
    const Tensor xc = as_contiguous(x);
    Tensor out = Tensor::uninitialized(x.shape(), DType::Float64, x.device());
    if (out.numel() > 0) backend_for(x.device()).special_f64(fn, static_cast<int>(n), xc.f64(), out.f64(), out.numel());
    return out;
  }
  const Tensor xc = as_contiguous(x, DType::Float32);
  Tensor out = Tensor::uninitialized(x.shape(), DType::Float32, x.device());
  if (out.numel() > 0)
    backend_for(x.device()).special_f32(fn, static_cast<int>(n), xc.dev_f32(), out.dev_f32(), out.numel());
  return out;
}

// fn(x) whose gradient is g ⊙ deriv(x, y); x and y are handed to deriv from the saved list.
template <class D>
Tensor with_grad(const char* name, Special fn, int64_t n, const Tensor& x, D deriv) {
  Tensor out = values(fn, n, x);
  return record(name, out, {x}, {x, out}, [deriv](const Tensor& g, const SavedTensors& s) -> Grads {
    return {mul(g, deriv(s[0], s[1]))};
  });
}

Tensor i1(const Tensor& x) {
  return with_grad("i1", Special::I1, 0, x, [](const Tensor& x, const Tensor& y) {
    // i1(x)/x → ½ as x → 0; the division's 0/0 there is replaced (where keeps it out of the gradient)
    const Tensor at_zero = eq(x, scalar_like(0, x));
    const Tensor safe_x = where(at_zero, scalar_like(1, x), x);
    return where(at_zero, scalar_like(0.5, x), sub(i0(x), div(y, safe_x)));
  });
}

}  // namespace

Tensor erfinv(const Tensor& x) {
  // erfinv(x) made again from x, as PyTorch's formula does: a float16/bfloat16 result saved
  // instead (autograd/record.h) would carry its rounding into exp(y²).
  return with_grad("erfinv", Special::Erfinv, 0, x, [](const Tensor& x, const Tensor&) {
    const Tensor y = erfinv(x);
    return mul(exp(square(y)), scalar_like(1.0 / scalar::kTwoOverSqrtPi, y));  // √π/2 · exp(erfinv(x)²)
  });
}

Tensor erfc(const Tensor& x) {
  return with_grad("erfc", Special::Erfc, 0, x, [](const Tensor& x, const Tensor&) {
    return mul(exp(neg(square(x))), scalar_like(-scalar::kTwoOverSqrtPi, x));  // −2/√π · exp(−x²)
  });
}

Tensor lgamma(const Tensor& x) {
  return with_grad("lgamma", Special::Lgamma, 0, x, [](const Tensor& x, const Tensor&) { return digamma(x); });
}

Tensor digamma(const Tensor& x) {
  return with_grad("digamma", Special::Digamma, 0, x, [](const Tensor& x, const Tensor&) { return polygamma(1, x); });
}

Tensor polygamma(int64_t n, const Tensor& x) {
  // PyTorch's message; an order beyond int's range would only overflow n! to inf anyway.
  check(n >= 0, "polygamma(n, x) does not support negative n. (got n = ", n, ")");
  check(n <= 1000000, "polygamma: expected an order n of at most 1000000, got ", n);
  return with_grad("polygamma", Special::Polygamma, n, x,
                   [n](const Tensor& x, const Tensor&) { return polygamma(n + 1, x); });
}

Tensor i0(const Tensor& x) {
  return with_grad("i0", Special::I0, 0, x, [](const Tensor& x, const Tensor&) { return i1(x); });
}

}  // namespace sg
