// Basic linear algebra, as PyTorch 1.13's torch.linalg (ops/linalg.cpp): float32 matrices
// [..., n, n], batched over the leading dims, computed in double by the kernels of
// kernels/reference/data_linalg.cpp and rounded once. Errors (sg::Error) carry PyTorch's
// messages for singular and non-positive-definite inputs, and say what was expected and got
// for bad shapes and dtypes. Ops are named by their JS names (linalg.inv, ...).
#pragma once
#include <optional>
#include <string>

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

// ---- decompositions (ops/linalg_decomp.cpp): float32 or float64 A [..., m, n], results in A's
// dtype, computed in double; gradients are PyTorch 1.13's formulas (repeated singular values or
// eigenvalues give inf/NaN in the singular/eigen-vector terms, as PyTorch's).
struct Svd {
  Tensor U, S, Vh;
};
// A = U·diag(S)·Vh; S descending [..., k] (k = min(m, n)); U [..., m, m or k], Vh [..., n or k, n].
Svd linalg_svd(const Tensor& a, bool full_matrices = true);
Tensor linalg_svdvals(const Tensor& a);
struct Eigh {
  Tensor eigenvalues, eigenvectors;
};
// Symmetric A read from its lower (uplo "L") or upper ("U") triangle; eigenvalues ascending.
Eigh linalg_eigh(const Tensor& a, const std::string& uplo = "L");
Tensor linalg_eigvalsh(const Tensor& a, const std::string& uplo = "L");
struct QR {
  Tensor Q, R;
};
// mode "reduced" (Q [..., m, k], R [..., k, n]), "complete" (Q [..., m, m], R [..., m, n]) or "r"
// (Q empty, R as reduced; not differentiable, as PyTorch's).
QR linalg_qr(const Tensor& a, const std::string& mode = "reduced");
// X with A·X = B (left) or X·A = B, A triangular (upper or lower, only that triangle read;
// unitriangular: its diagonal read as ones); batch dims broadcast.
Tensor linalg_solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left = true,
                               bool unitriangular = false);
struct LUFactor {
  Tensor LU, pivots;
};
// P·L·U = A packed into LU, int32 pivots 1-based; a zero pivot is PyTorch's Error. The gradient
// (of LU) exists for square A.
LUFactor linalg_lu_factor(const Tensor& a);
Tensor linalg_matrix_exp(const Tensor& a);
// A⁺ from the SVD, singular values ≤ max(atol, rtol·σ_max) dropped (PyTorch 1.13's defaults).
Tensor linalg_pinv(const Tensor& a, std::optional<double> atol = std::nullopt,
                   std::optional<double> rtol = std::nullopt);

}  // namespace sg
