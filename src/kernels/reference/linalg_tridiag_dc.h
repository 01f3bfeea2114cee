// Cuppen's divide and conquer for the symmetric tridiagonal eigenproblem, as LAPACK's dstedc
// (dlaed0–dlaed4) computes it: used by eigh's kernel (linalg_decomp.cpp) for the eigenvectors of
// matrices past a few dozen rows, where QL's rotations (≈0.7·n² of them, each a pass over n rows)
// cost more than the merges' matrix products.
#pragma once

#include <cstdint>
#include <functional>

namespace sg {

// Column-major C (m×n, ldc) = alpha·op(A)·op(B) + beta·C, op(A) m×k, op(B) k×n (beta = 0
// ignores C's old contents), in S = double or float (the backend's gemm_f64 or gemm_f32).
template <class S>
using ColGemmOf = std::function<void(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, S alpha, const S* a,
                                     int64_t lda, const S* b, int64_t ldb, S beta, S* c, int64_t ldc)>;
using ColGemm = ColGemmOf<double>;

// The eigenvalues (d, ascending) and eigenvectors (z's columns) of a small tridiagonal: d [n] the
// diagonal, e [n] the couplings (e[i] between i and i + 1, e[n−1] = 0; overwritten), z n×n
// column-major with leading dimension ldz. Returns false if it does not converge.
using TridiagLeaf = std::function<bool(double* d, double* e, int64_t n, double* z, int64_t ldz)>;

// d [n]: the diagonal on entry, the eigenvalues in ascending order on exit. e [n − 1]: the
// couplings (e[i] between i and i + 1), unchanged. z: n×n column-major (leading dimension ldz),
// gets the eigenvectors as columns. Subproblems of at most `leaf_size` rows go to `leaf`.
// Returns false if a leaf does not converge. With gemm32, the merges' products Q·V run in float32
// (for a float32 eigh, as LAPACK's sstedc computes them: twice float64's speed), everything else
// in double.
bool tridiagonal_eigen_dc(double* d, const double* e, int64_t n, double* z, int64_t ldz, int64_t leaf_size,
                          const ColGemm& gemm, const TridiagLeaf& leaf, const ColGemmOf<float>* gemm32 = nullptr);

}  // namespace sg
