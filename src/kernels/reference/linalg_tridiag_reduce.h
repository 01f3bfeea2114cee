// Householder reduction of a symmetric matrix to tridiagonal form, blocked as LAPACK's dsytrd
// (lower): eigh's first step (linalg_decomp.cpp), and Q's application to the tridiagonal's
// eigenvectors (dormtr) by blocks of reflectors.
#pragma once

#include <cstdint>

#include "kernels/reference/linalg_tridiag_dc.h"

namespace sg {

// a: n×n column-major (leading dimension n), the symmetric matrix (its lower triangle is read).
// On exit T = Qᵀ·A·Q has diagonal d [n] and couplings e [n − 1] (e[i] between i and i + 1), and
// Q = H_0·H_1⋯H_{n−2} is held as reflectors H_i = I − tau[i]·v_i·v_iᵀ, v_i = (0, …, 0, 1,
// a(i+2.., i)) with its 1 at row i + 1. tau [n − 1]. S = double, or float for a float32 eigh
// (as LAPACK's ssytrd: the symmetric products and the rank-2k updates, in four float lanes, take
// about half float64's time); each reflector's norm, beta and tau are computed in double.
template <class S>
void tridiagonal_reduce(S* a, int64_t n, double* d, double* e, double* tau, const ColGemmOf<S>& gemm);

// z (n×cols, column-major, leading dimension n) ← Q·z for tridiagonal_reduce's Q (a its output),
// in S: float for a float32 eigh, whose vectors PyTorch (LAPACK's ssyevd) also transforms back in
// float32; the GEMMs then run at float32's speed (twice float64's lanes).
template <class S>
void tridiagonal_apply_q(const S* a, int64_t n, const double* tau, S* z, int64_t cols, const ColGemmOf<S>& gemm);

}  // namespace sg
