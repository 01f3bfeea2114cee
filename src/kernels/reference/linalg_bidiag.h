// Householder bidiagonalization of a tall matrix (LAPACK's dgebrd, upper bidiagonal): svd's first
// step (linalg_decomp.cpp) when the bidiagonal's vectors come from divide and conquer
// (linalg_bidiag_dc.h); its reflectors then turn them into A's (dormbr, linalg_reflectors.h).
#pragma once

#include <cstdint>

#include "kernels/reference/linalg_tridiag_dc.h"

namespace sg {

// a: m×n column-major (leading dimension m), m ≥ n ≥ 1, overwritten. On exit B = Qᵀ·A·P is upper
// bidiagonal with diagonal d [n] and superdiagonal e [n − 1] (e[i] at (i, i + 1)); Q = H_0⋯H_{n−1},
// H_i = I − tauq[i]·v·vᵀ with v's unit on row i and the rest in a's column i below it;
// P = G_0⋯G_{n−2}, G_i = I − taup[i]·w·wᵀ acting on rows i + 1.. of a vector, w's unit on row
// i + 1 and the rest in prow's column i below it (prow: n×n column-major). S = double, or float
// for a float32 svd (as LAPACK's sgebrd, which PyTorch's float32 svd runs); each reflector's
// norm, beta and tau are computed in double. Panels' trailing updates run through gemm.
template <class S>
void bidiagonalize(S* a, int64_t m, int64_t n, double* d, double* e, double* tauq, double* taup, S* prow,
                   const ColGemmOf<S>& gemm);

}  // namespace sg
