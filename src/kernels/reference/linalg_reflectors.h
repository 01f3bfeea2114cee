// Householder reflectors for the decompositions' reductions (linalg_tridiag_reduce.cpp for eigh,
// linalg_bidiag.cpp for svd): making one (LAPACK's dlarfg) and applying a sequence of them to a
// matrix by blocks (dormqr / dlarft's compact WY form), where the work is matrix products.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/reference/linalg_tridiag_dc.h"
#include "kernels/reference/linalg_vec.h"

namespace sg {

// LAPACK's dlarfg on (alpha, x[0..m−1)): H·(alpha, x) = (beta, 0) for H = I − tau·(1, v)·(1, v)ᵀ.
// alpha becomes beta and x becomes v. A zero x leaves H = I (tau 0). beta, tau and the scale
// are computed in double (for float x too).
template <class S>
double make_reflector(double& alpha, S* x, int64_t m) {
  const double xnorm = linalg_vec::norm2(x, m);
  if (xnorm == 0) return 0;
  const double beta = -std::copysign(std::hypot(alpha, xnorm), alpha);
  const double tau = (beta - alpha) / beta;
  const S scale = S(1 / (alpha - beta));
  for (int64_t i = 0; i < m; ++i) x[i] *= scale;
  alpha = beta;
  return tau;
}

// z (m×cols, column-major, leading dimension ldz) ← H_0·H_1⋯H_{nref−1}·z, H_j = I − tau_j·v_j·v_jᵀ
// with v_j = (0, …, 0, 1, v[j·ldv + j + 1 .. j·ldv + m)): its unit on row j (whatever v holds
// there and above is not read). By blocks of 32 reflectors from the last, each as I − V·T·Vᵀ
// (T from the reflectors in double, then rounded to S) applied by three GEMMs in S.
template <class S>
void apply_reflectors(const S* v, int64_t ldv, int64_t m, int64_t nref, const double* tau, S* z, int64_t ldz,
                      int64_t cols, const ColGemmOf<S>& gemm);

}  // namespace sg
