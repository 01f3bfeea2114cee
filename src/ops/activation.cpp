// Activation functions. Forward values come from the backend's Unary kernels; gradients use
// the fused Binary::*Backward kernels where one exists (relu, sigmoid, tanh, gelu, silu) and
// are composed from ops otherwise, in float32 or float64 (the input's: formula constants are
// scalar_like it). int32/bool inputs compute in float32, except relu, which
// keeps int32 as PyTorch does. hardtanh is a clamp whose gradient stops at the bounds.
#include <cmath>

#include "autograd/record.h"
#include "core/copy.h"
#include "kernels/reference/scalar_math.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

using scalar::kSeluAlpha;
using scalar::kSeluScale;
constexpr double kSoftplusKernelThreshold = 20.0;  // what Unary::Softplus switches to x at

// dy/dx of an activation as differentiable ops, from x (or y when the op saves its output).
using Derivative = Tensor (*)(const Tensor& saved);

// y = op(x); dy/dx applied by a fused backward kernel fed with x (or y when on_output), or,
// while the gradient is recorded, as g ⊙ derivative(saved) through differentiable ops.
Tensor fused(const char* name, Unary op, Binary backward_op, const Tensor& x, bool on_output, Derivative derivative) {
  Tensor out = unary_float(op, x);
  return record(name, out, {x}, {on_output ? out : x},
                [backward_op, name, derivative](const Tensor& g, const SavedTensors& s) -> Grads {
                  if (recording_backward({g, s[0]})) return {mul(g, derivative(s[0]))};
                  return {binary_float(backward_op, s[0], g, name)};
                });
}

const double kSqrt1_2 = 0.70710678118654752;   // 1/√2
const double kInvSqrt2Pi = 0.3989422804014327;  // 1/√(2π)
const double kSqrt2OverPi = 0.7978845608028654;  // √(2/π)
const double kGeluTanhCubic = 0.044715;

Tensor relu_derivative(const Tensor& x) { return cast(gt(x, f32_scalar(0)), float_dtype(computes_f64(x))); }
// σ' = y (1 − y)
Tensor sigmoid_derivative(const Tensor& y) { return mul(y, sub(f32_scalar(1), y)); }
// tanh' = 1 − y²
Tensor tanh_derivative(const Tensor& y) { return sub(f32_scalar(1), square(y)); }
// silu' = σ(x) (1 + x (1 − σ(x)))
Tensor silu_derivative(const Tensor& x) {
  const Tensor s = sigmoid(x);
  return mul(s, add(f32_scalar(1), mul(x, sub(f32_scalar(1), s))));
}
// gelu' = Φ(x) + x φ(x)
Tensor gelu_erf_derivative(const Tensor& x) {
  const Tensor cdf = mul(add(erf(mul(x, scalar_like(kSqrt1_2, x))), f32_scalar(1)), f32_scalar(0.5));
  const Tensor pdf = mul(exp(mul(square(x), f32_scalar(-0.5))), scalar_like(kInvSqrt2Pi, x));
  return add(cdf, mul(x, pdf));
}
// tanh approximation, u = √(2/π)(x + 0.044715 x³): ½(1 + tanh u) + ½ x (1 − tanh² u) u'
Tensor gelu_tanh_derivative(const Tensor& x) {
  const Tensor x2 = square(x);
  const Tensor u = mul(add(x, mul(mul(x2, x), scalar_like(kGeluTanhCubic, x))), scalar_like(kSqrt2OverPi, x));
  const Tensor t = tanh(u);
  const Tensor du = mul(add(f32_scalar(1), mul(x2, scalar_like(3 * kGeluTanhCubic, x))), scalar_like(kSqrt2OverPi, x));
  const Tensor half = f32_scalar(0.5);
  return add(mul(add(f32_scalar(1), t), half), mul(mul(mul(x, half), sub(f32_scalar(1), square(t))), du));
}

}  // namespace

Tensor relu(const Tensor& x) {
  if (!is_floating(x.dtype())) {
    const Tensor xi = as_contiguous(x, DType::Int32);
    Tensor out = Tensor::uninitialized(x.shape(), DType::Int32, x.device());
    if (out.numel() > 0) backend_for(x.device()).unary_i32(IntUnary::Relu, xi.dev_i32(), out.dev_i32(), out.numel());
    return out;
  }
  // Saves its output, as PyTorch does (threshold_backward on the result): out > 0 exactly where
  // x > 0, and a compiled graph can then free x right after relu.
  return fused("relu", Unary::Relu, Binary::ReluBackward, x, true, relu_derivative);  // gradient 0 at 0
}

Tensor leaky_relu(const Tensor& x, double negative_slope) {
  Tensor out = unary_float(Unary::LeakyRelu, x, negative_slope);
  return record("leakyRelu", out, {x}, {x}, [negative_slope](const Tensor& g, const SavedTensors& s) -> Grads {
    return {where(gt(s[0], f32_scalar(0)), g, mul(g, scalar_like(negative_slope, g)))};
  });
}

Tensor prelu(const Tensor& x, const Tensor& weight) {
  check(weight.dtype() == DType::Float32, "prelu: expected weight of dtype float32, got ",
        dtype_name(weight.dtype()));
  check(weight.ndim() <= 1, "prelu: expected weight to be a scalar or 1-D tensor, got shape ",
        weight.shape());
  const int64_t c = weight.numel();
  const int64_t channels = x.ndim() >= 2 ? x.shape()[1] : 1;
  check(c == 1 || (x.ndim() >= 2 && c == channels), "prelu: weight has ", c,
        " elements but the input of shape ", x.shape(), " has ", channels,
        " channels (dim 1); expected 1 or ", channels, " elements");
  // The weight seen broadcast against x: 0-d, or [C, 1, ..., 1] aligned with x's dims 1...
  Shape wshape, wstrides;
  if (c != 1 || x.ndim() >= 2) {
    wshape.assign(static_cast<size_t>(std::max<int64_t>(x.ndim() - 1, 0)), 1);
    wstrides.assign(wshape.size(), 0);
    if (!wshape.empty()) {
      wshape[0] = c;
      wstrides[0] = weight.ndim() == 1 ? weight.strides()[0] : 0;
    }
  }
  const Tensor wb = Tensor::view_of(weight, wshape, wstrides, weight.offset());
  const Tensor xf = x.dtype() == DType::Float32 ? x : contiguous_copy(x, DType::Float32);
  const Tensor zero = f32_scalar(0);
  // Forward from detached operands so that only the "prelu" node below joins the graph.
  const Tensor out = where(gt(xf, zero), xf.detach(), binary_float(Binary::Mul, xf, wb, "prelu"));
  const Shape w_shape = weight.shape();
  const bool need_x = x.requires_grad(), need_w = weight.requires_grad();
  // The formula sees the weight through reshape (a recorded view), so that a recorded gradient
  // reaches the weight too.
  return record("prelu", out, {x, weight}, {xf, weight},
                [wshape, w_shape, need_x, need_w](const Tensor& g, const SavedTensors& s) -> Grads {
                  const Tensor &xf = s[0], wb = reshape(s[1], wshape);
                  const Tensor zero = f32_scalar(0);
                  const Tensor pos = gt(xf, zero);
                  Tensor gx, gw;
                  if (need_x) gx = where(pos, g, mul(g, wb));
                  if (need_w) gw = reshape(sum_to(where(pos, zero, mul(g, xf)), wb.shape()), w_shape);
                  return {gx, gw};
                });
}

Tensor elu(const Tensor& x, double alpha) {
  Tensor out = unary_float(Unary::Elu, x, alpha);
  return record("elu", out, {x}, {x, out}, [alpha](const Tensor& g, const SavedTensors& s) -> Grads {
    // x ≤ 0: d/dx α(eˣ − 1) = αeˣ = out + α
    return {where(gt(s[0], f32_scalar(0)), g, mul(g, add(s[1], scalar_like(alpha, g))))};
  });
}

Tensor selu(const Tensor& x) {
  Tensor out = unary_float(Unary::Selu, x);
  return record("selu", out, {x}, {x, out}, [](const Tensor& g, const SavedTensors& s) -> Grads {
    // x > 0: scale; x ≤ 0: scale·α·eˣ = out + scale·α
    return {where(gt(s[0], f32_scalar(0)), mul(g, scalar_like(kSeluScale, g)),
                  mul(g, add(s[1], scalar_like(kSeluScale * kSeluAlpha, g))))};
  });
}

Tensor gelu(const Tensor& x, const std::string& approximate) {
  if (approximate == "none")
    return fused("gelu", Unary::GeluErf, Binary::GeluErfBackward, x, false, gelu_erf_derivative);
  if (approximate == "tanh")
    return fused("gelu", Unary::GeluTanh, Binary::GeluTanhBackward, x, false, gelu_tanh_derivative);
  fail("gelu: expected approximate to be 'none' or 'tanh', got '", approximate, "'");
}

Tensor sigmoid(const Tensor& x) {
  return fused("sigmoid", Unary::Sigmoid, Binary::SigmoidBackward, x, true, sigmoid_derivative);
}

Tensor tanh(const Tensor& x) { return fused("tanh", Unary::Tanh, Binary::TanhBackward, x, true, tanh_derivative); }

Tensor silu(const Tensor& x) { return fused("silu", Unary::Silu, Binary::SiluBackward, x, false, silu_derivative); }

// softplus(x) = log(1 + e^(βx))/β, and x itself where βx > threshold (PyTorch). The kernel
// switches at 20; another threshold is applied on top (above 20 the two agree to float precision).
Tensor softplus(const Tensor& x, double beta, double threshold) {
  check(beta != 0 && std::isfinite(beta), "softplus: expected a finite nonzero beta, got ", beta);
  Tensor out = unary_float(Unary::Softplus, x, beta);
  const Tensor xf = is_floating(x.dtype()) ? x : contiguous_copy(x, DType::Float32);
  if (threshold < kSoftplusKernelThreshold) {
    const Tensor linear = gt(binary_float(Binary::Mul, xf, scalar_like(beta, xf), "softplus"),
                             scalar_like(threshold, xf));
    out = where(linear, xf.detach(), out);
  }
  return record("softplus", out, {x}, {xf}, [beta, threshold](const Tensor& g, const SavedTensors& s) -> Grads {
    // d/dx = sigmoid(βx) below the threshold, 1 above; sigmoid is exact at ±1e4.
    const Tensor bx = mul(s[0], scalar_like(beta, s[0]));
    return {where(gt(bx, scalar_like(threshold, bx)), g, mul(g, sigmoid(bx)))};
  });
}

Tensor hardtanh(const Tensor& x, double min_val, double max_val) {
  check(min_val <= max_val, "hardtanh: expected minVal <= maxVal, got minVal ", min_val, " and maxVal ", max_val);
  Tensor out = clamp(x.detach(), min_val, max_val);
  if (!is_floating(x.dtype())) return out;
  // PyTorch's hardtanh_backward: the gradient passes strictly inside (min, max) only.
  return record("hardtanh", out, {x}, [x, min_val, max_val](const Tensor& g) -> Grads {
    const Tensor inside = logical_and(gt(x, scalar_like(min_val, x)), lt(x, scalar_like(max_val, x)));
    return {where(inside, g, f32_scalar(0))};
  });
}

}  // namespace sg
