// Fully connected layers with PyTorch's semantics (F.linear, F.bilinear).
#pragma once
#include "core/tensor.h"

namespace sg {

// y = x·wᵀ + b for x [..., in] (any number of leading dims, or 1-D [in]), w [out, in],
// b [out] or undefined → [..., out]. One gemm reading w transposed in place, with the bias
// added in the same pass (C starts as the bias rows, beta = 1). Differentiable in x, w, b.
Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b = Tensor());

// y[..., o] = Σ_ij x1[..., i] w[o, i, j] x2[..., j] + b[o] for x1 [..., in1], x2 [..., in2]
// (same leading dims), w [out, in1, in2], b [out] or undefined. Composed from matmul, so
// differentiable in every input.
Tensor bilinear(const Tensor& x1, const Tensor& x2, const Tensor& w, const Tensor& b = Tensor());

}  // namespace sg
