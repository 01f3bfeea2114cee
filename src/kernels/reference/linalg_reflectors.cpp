// Blocked application of Householder reflectors (linalg_reflectors.h): LAPACK's dormqr with
// dlarft's forward, column-wise compact WY form.
#include "kernels/reference/linalg_reflectors.h"

#include <algorithm>
#include <vector>

namespace sg {

namespace {
constexpr int64_t kBlock = 32;  // reflectors a block (dormqr's nb)
}  // namespace

template <class S>
void apply_reflectors(const S* v, int64_t ldv, int64_t m, int64_t nref, const double* tau, S* z, int64_t ldz,
                      int64_t cols, const ColGemmOf<S>& gemm) {
  // A block b0..b1−1 is I − V·T·Vᵀ: V's columns the reflectors on rows b0..m−1, T upper
  // triangular with T[j][j] = tau_j, T[0..j)[j] = −tau_j·T[0..j)[0..j)·(V[:, 0..j)ᵀ·v_j). The
  // three products (Vᵀ·Z, T·G, V·(T·G)) all go through the GEMM (T·G as scalar loops took a
  // quarter of eigh's back-transformation).
  if (nref <= 0 || cols <= 0) return;
  std::vector<double> vd, t(size_t(kBlock * kBlock)), s(kBlock);
  std::vector<S> vs, g, ts, tg;
  for (int64_t b1 = nref; b1 > 0; b1 -= kBlock) {
    const int64_t b0 = std::max<int64_t>(0, b1 - kBlock), nb = b1 - b0, rows = m - b0;
    vd.assign(size_t(rows * nb), 0.0);
    for (int64_t c = 0; c < nb; ++c) {
      const int64_t i = b0 + c;  // its unit entry on row i, local row c
      double* col = vd.data() + c * rows;
      col[c] = 1;
      for (int64_t r = i + 1; r < m; ++r) col[r - b0] = double(v[i * ldv + r]);
    }
    std::fill(t.begin(), t.end(), 0.0);
    for (int64_t j = 0; j < nb; ++j) {
      const double tj = tau[b0 + j];
      for (int64_t c = 0; c < j; ++c) s[size_t(c)] = linalg_vec::dot(vd.data() + c * rows, vd.data() + j * rows, rows);
      for (int64_t r = 0; r < j; ++r) {  // T[r][j] = −tau_j·Σ_{c≥r} T[r][c]·s[c]
        double acc = 0;
        for (int64_t c = r; c < j; ++c) acc += t[size_t(c * kBlock + r)] * s[size_t(c)];
        t[size_t(j * kBlock + r)] = -tj * acc;
      }
      t[size_t(j * kBlock + j)] = tj;
    }
    vs.assign(vd.begin(), vd.end());
    ts.assign(size_t(nb * nb), S(0));  // T in S, nb×nb (its lower part zero)
    for (int64_t c = 0; c < nb; ++c)
      for (int64_t r = 0; r <= c; ++r) ts[size_t(c * nb + r)] = S(t[size_t(c * kBlock + r)]);
    S* zb = z + b0;
    g.resize(size_t(nb * cols));
    tg.resize(size_t(nb * cols));
    gemm(true, false, nb, cols, rows, S(1), vs.data(), rows, zb, ldz, S(0), g.data(), nb);     // G = Vᵀ·Z
    gemm(false, false, nb, cols, nb, S(1), ts.data(), nb, g.data(), nb, S(0), tg.data(), nb);  // T·G
    gemm(false, false, rows, cols, nb, S(-1), vs.data(), rows, tg.data(), nb, S(1), zb, ldz);  // Z −= V·(T·G)
  }
}

template void apply_reflectors<double>(const double*, int64_t, int64_t, int64_t, const double*, double*, int64_t,
                                       int64_t, const ColGemmOf<double>&);
template void apply_reflectors<float>(const float*, int64_t, int64_t, int64_t, const double*, float*, int64_t, int64_t,
                                      const ColGemmOf<float>&);

}  // namespace sg
