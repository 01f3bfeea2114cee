// Basic linear algebra, as PyTorch 1.13's torch.linalg (ops/linalg.cpp): float32 matrices
// [..., n, n], batched over the leading dims, computed in double by the kernels of
// kernels/reference/data_linalg.cpp and rounded once. Errors (sg::Error) carry PyTorch's
// messages for singular and non-positive-definite inputs, and say what was expected and got
// for bad shapes and dtypes. Ops are named by their JS names (linalg.inv, ...).
#pragma once
#include "core/tensor.h"

namespace sg {

// A⁻¹; an exactly singular A is an Error. Gradient −A⁻ᵀ·G·A⁻ᵀ (differentiable again).
Tensor linalg_inv(const Tensor& a);
// det(A) [...]; 0 for a singular A. Gradient G·adj(A)ᵀ (the cofactor matrix, which is
// det·A⁻ᵀ when A is invertible and stays finite and exact when it is not); while that gradient
// is itself differentiated it is G·det·A⁻ᵀ through ops, which needs an invertible A.
Tensor linalg_det(const Tensor& a);
// (sign, log|det|); (0, −inf) for a singular A. Only logabsdet has a gradient: G·A⁻ᵀ.
struct SignLogDet {
  Tensor sign, logabsdet;
};
SignLogDet linalg_slogdet(const Tensor& a);
// log det(A): NaN where det < 0, −inf where det = 0 (torch.logdet).
Tensor logdet(const Tensor& a);
// X with A·X = B. B is [..., n, k], or a vector [n] / [..., n] by PyTorch 1.13's rule (B 1-D,
// or B's shape is A's without the last dim), which gives X B's shape; batch dims broadcast.
// Gradients: gB = A⁻ᵀ·G (a solve), gA = −gB·Xᵀ.
Tensor linalg_solve(const Tensor& a, const Tensor& b);
// L lower-triangular with L·Lᵀ = A (upper: U = Lᵀ), reading one triangle of A only.
// Gradient: PyTorch's (Murray 2016), symmetrized.
Tensor linalg_cholesky(const Tensor& a, bool upper = false);

}  // namespace sg
