// Divide and conquer for the SVD of an upper bidiagonal matrix, as LAPACK's dbdsdc (dlasd0–dlasd4)
// computes it: svd's kernel (linalg_decomp.cpp) gets the bidiagonal's singular vectors from it,
// instead of QR sweeps whose ~n² rotations each pass over U's and V's n rows.
#pragma once

#include <cstdint>
#include <functional>

#include "kernels/reference/linalg_tridiag_dc.h"

namespace sg {

// The SVD of a small upper bidiagonal B, r×c with c = r or r + 1: d [r] its diagonal, e [c − 1]
// its superdiagonal (e[i] at (i, i + 1)). d gets the r singular values in ascending order, u (r×r,
// leading dimension ldu) and v (c×c, ldv) the matching left and right vectors as columns; for
// c = r + 1, v's last column is B's null vector. Returns false if it does not converge.
using BidiagLeaf =
    std::function<bool(double* d, const double* e, int64_t r, int64_t c, double* u, int64_t ldu, double* v, int64_t ldv)>;

// B = U·diag(d)·Vᵀ for the n×n upper bidiagonal (d [n], e [n − 1]): d gets the singular values in
// ascending order, u and v (n×n column-major, leading dimensions ldu, ldv) the vectors.
// Subproblems of at most `leaf_size` rows go to `leaf`. Each merge's two products (U's and V's)
// run through gemm, or gemm32 when given (a float32 svd, as LAPACK's sbdsdc: float32 products;
// the secular equation and deflation stay in double). Returns false if a leaf does not converge.
bool bidiagonal_svd_dc(double* d, const double* e, int64_t n, double* u, int64_t ldu, double* v, int64_t ldv,
                       int64_t leaf_size, const ColGemm& gemm, const BidiagLeaf& leaf,
                       const ColGemmOf<float>* gemm32 = nullptr);

}  // namespace sg
