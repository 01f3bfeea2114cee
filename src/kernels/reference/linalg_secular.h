// The secular equation of a rank-one update of a diagonal, shared by the two divide-and-conquer
// solvers: eigh's tridiagonal one (linalg_tridiag_dc.cpp, LAPACK's dlaed4) and svd's bidiagonal
// one (linalg_bidiag_dc.cpp, dlasd4). Both solve 1/ρ + Σ z_i²/(p_i − λ) = 0 over poles p_i: the
// eigenvalues d_i themselves, or for svd the squares d_i² of singular values, whose differences
// p_i − p_j are then formed as (d_i − d_j)·(d_i + d_j), without the cancellation of d_i² − d_j².
#pragma once

#include <cstdint>
#include <vector>

namespace sg {

// d: k values ascending and distinct (after deflation; for `squared`, non-negative), z: no
// negligible entry, ρ > 0. lam gets the k roots λ_j (in the pole variable: eigenvalues, or
// squared singular values), one in (p_j, p_{j+1}) and the last past p_{k−1}. delta (k×k,
// column-major) gets p_i − λ_j, each from its root's nearer pole and offset (no cancellation);
// zh Gu and Eisenstat's ẑ, the z for which the computed roots are exact (vectors built from it,
// ẑ_i/(p_i − λ_j), are orthogonal to working precision however close the roots).
void secular_solve(const std::vector<double>& d, const std::vector<double>& z, double rho, bool squared,
                   std::vector<double>& lam, std::vector<double>& delta, std::vector<double>& zh);

}  // namespace sg
