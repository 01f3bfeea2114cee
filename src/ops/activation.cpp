// Activation functions. Forward values come from the backend's Unary kernels; gradients use
// the fused Binary::*Backward kernels where one exists (relu, sigmoid, tanh, gelu, silu) and
// are composed from ops otherwise. int32/bool inputs compute in float32, except relu, which
// keeps int32 as PyTorch does.
#include <cmath>

#include "autograd/record.h"
#include "core/copy.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

using Grads = std::vector<Tensor>;

constexpr double kSeluAlpha = 1.6732632423543772;
constexpr double kSeluScale = 1.0507009873554805;
constexpr double kSoftplusKernelThreshold = 20.0;  // what Unary::Softplus switches to x at

// y = op(x); dy/dx applied by a fused backward kernel fed with x (or y when on_output).
Tensor fused(const char* name, Unary op, Binary backward_op, const Tensor& x, bool on_output) {
  Tensor out = unary_f32(op, x);
  const Tensor saved = on_output ? out : x;
  return record(name, out, {x}, [saved, backward_op, name](const Tensor& g) -> Grads {
    return {binary_f32(backward_op, saved, g, name)};
  });
}

}  // namespace

Tensor relu(const Tensor& x) {
  if (x.dtype() != DType::Float32) {
    const Tensor xi = as_contiguous(x, DType::Int32);
    Tensor out = Tensor::uninitialized(x.shape(), DType::Int32, x.device());
    if (out.numel() > 0) backend_for(x.device()).unary_i32(IntUnary::Relu, xi.dev_i32(), out.dev_i32(), out.numel());
    return out;
  }
  return fused("relu", Unary::Relu, Binary::ReluBackward, x, false);  // gradient 0 at 0
}

Tensor leaky_relu(const Tensor& x, double negative_slope) {
  Tensor out = unary_f32(Unary::LeakyRelu, x, static_cast<float>(negative_slope));
  return record("leakyRelu", out, {x}, [x, negative_slope](const Tensor& g) -> Grads {
    return {where(gt(x, f32_scalar(0)), g, mul(g, f32_scalar(negative_slope)))};
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
  const Tensor out = where(gt(xf, zero), xf.detach(), binary_f32(Binary::Mul, xf, wb, "prelu"));
  const Shape w_shape = weight.shape();
  const bool need_x = x.requires_grad(), need_w = weight.requires_grad();
  return record("prelu", out, {x, weight},
                [xf, wb, w_shape, need_x, need_w](const Tensor& g) -> Grads {
                  const Tensor zero = f32_scalar(0);
                  const Tensor pos = gt(xf, zero);
                  Tensor gx, gw;
                  if (need_x) gx = where(pos, g, mul(g, wb));
                  if (need_w) {
                    Tensor s = as_contiguous(sum_to(where(pos, zero, mul(g, xf)), wb.shape()));
                    gw = Tensor::view_of(s, w_shape, contiguous_strides(w_shape), s.offset());
                  }
                  return {gx, gw};
                });
}

Tensor elu(const Tensor& x, double alpha) {
  Tensor out = unary_f32(Unary::Elu, x, static_cast<float>(alpha));
  return record("elu", out, {x}, [x, out, alpha](const Tensor& g) -> Grads {
    // x ≤ 0: d/dx α(eˣ − 1) = αeˣ = out + α
    return {where(gt(x, f32_scalar(0)), g, mul(g, add(out, f32_scalar(alpha))))};
  });
}

Tensor selu(const Tensor& x) {
  Tensor out = unary_f32(Unary::Selu, x);
  return record("selu", out, {x}, [x, out](const Tensor& g) -> Grads {
    // x > 0: scale; x ≤ 0: scale·α·eˣ = out + scale·α
    return {where(gt(x, f32_scalar(0)), mul(g, f32_scalar(kSeluScale)),
                  mul(g, add(out, f32_scalar(kSeluScale * kSeluAlpha))))};
  });
}

Tensor gelu(const Tensor& x, const std::string& approximate) {
  if (approximate == "none") return fused("gelu", Unary::GeluErf, Binary::GeluErfBackward, x, false);
  if (approximate == "tanh")
    return fused("gelu", Unary::GeluTanh, Binary::GeluTanhBackward, x, false);
  fail("gelu: expected approximate to be 'none' or 'tanh', got '", approximate, "'");
}

Tensor sigmoid(const Tensor& x) {
  return fused("sigmoid", Unary::Sigmoid, Binary::SigmoidBackward, x, true);
}

Tensor tanh(const Tensor& x) { return fused("tanh", Unary::Tanh, Binary::TanhBackward, x, true); }

Tensor silu(const Tensor& x) { return fused("silu", Unary::Silu, Binary::SiluBackward, x, false); }

// softplus(x) = log(1 + e^(βx))/β, and x itself where βx > threshold (PyTorch). The kernel
// switches at 20; another threshold is applied on top (above 20 the two agree to float precision).
Tensor softplus(const Tensor& x, double beta, double threshold) {
  check(beta != 0 && std::isfinite(beta), "softplus: expected a finite nonzero beta, got ", beta);
  Tensor out = unary_f32(Unary::Softplus, x, static_cast<float>(beta));
  const Tensor xf = x.dtype() == DType::Float32 ? x : contiguous_copy(x, DType::Float32);
  if (threshold < kSoftplusKernelThreshold) {
    const Tensor linear = gt(binary_f32(Binary::Mul, xf, f32_scalar(beta), "softplus"),
                             f32_scalar(threshold));
    out = where(linear, xf.detach(), out);
  }
  return record("softplus", out, {x}, [xf, beta, threshold](const Tensor& g) -> Grads {
    // d/dx = sigmoid(βx) below the threshold, 1 above; sigmoid is exact at ±1e4.
    const Tensor bx = mul(xf, f32_scalar(beta));
    return {where(gt(bx, f32_scalar(threshold)), g, mul(g, sigmoid(bx)))};
  });
}

}  // namespace sg
