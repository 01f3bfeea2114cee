// Fully connected layers with PyTorch's semantics (F.linear, F.bilinear).
#pragma once
#include <string>

#include "core/tensor.h"

namespace sg {

// y = act(x·wᵀ + b) for x [..., in] (any number of leading dims, or 1-D [in]), w [out, in],
// b [out] or undefined → [..., out]. One gemm reading w transposed in place, with the bias and
// the activation applied as it writes y. activation: "none", "relu", "gelu" (erf form) or
// "gelu_tanh", with the values of the separate activation ops. Differentiable in x, w, b.
Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b = Tensor(), const std::string& activation = "none");

// y[..., o] = Σ_ij x1[..., i] w[o, i, j] x2[..., j] + b[o] for x1 [..., in1], x2 [..., in2]
// (same leading dims), w [out, in1, in2], b [out] or undefined. Composed from matmul, so
// differentiable in every input.
Tensor bilinear(const Tensor& x1, const Tensor& x2, const Tensor& w, const Tensor& b = Tensor());

}  // namespace sg
