// Householder bidiagonalization (linalg_bidiag.h), LAPACK's dgebd2 for m ≥ n. Column-major
// throughout: the column reflector H_i is one pass over the trailing columns (each column's dot
// with v and its update, while it is in cache); the row reflector G_i acts on a row, which is
// strided, so it is copied out, and its application A·G_i = A − taup·(A·w)·wᵀ is two passes
// (y = A·w as a sum of columns, then each column's update).
#include "kernels/reference/linalg_bidiag.h"

#include <algorithm>
#include <vector>

#include "kernels/reference/linalg_reflectors.h"
#include "kernels/reference/linalg_vec.h"

namespace sg {

using namespace linalg_vec;

template <class S>
void bidiagonalize(S* a, int64_t m, int64_t n, double* d, double* e, double* tauq, double* taup, S* prow) {
  auto col = [a, m](int64_t j) { return a + j * m; };
  std::vector<S> w(static_cast<size_t>(n)), y(static_cast<size_t>(m));
  for (int64_t i = 0; i < n; ++i) {
    // H_i on column i, rows i..m−1.
    double alpha = double(col(i)[i]);
    tauq[i] = make_reflector(alpha, col(i) + i + 1, m - i - 1);
    d[i] = alpha;
    if (tauq[i] != 0) {
      col(i)[i] = S(1);
      const S* v = col(i) + i;
      const S t = S(tauq[i]);
      for (int64_t j = i + 1; j < n; ++j) axpy(-t * dot(v, col(j) + i, m - i), v, col(j) + i, m - i);
    }
    if (i + 1 >= n) break;
    // G_i on row i, columns i+1..n−1 (copied out: w).
    const int64_t len = n - i - 1, rows = m - i - 1;
    for (int64_t j = 0; j < len; ++j) w[size_t(j)] = col(i + 1 + j)[i];
    alpha = double(w[0]);
    taup[i] = make_reflector(alpha, w.data() + 1, len - 1);
    e[i] = alpha;
    w[0] = S(1);
    S* pc = prow + i * n;  // w on rows i+1..n−1 of prow's column i
    for (int64_t j = 0; j < len; ++j) pc[i + 1 + j] = w[size_t(j)];
    if (taup[i] != 0 && rows > 0) {
      std::fill(y.begin(), y.begin() + rows, S(0));
      for (int64_t j = 0; j < len; ++j) axpy(w[size_t(j)], col(i + 1 + j) + i + 1, y.data(), rows);
      const S t = S(taup[i]);
      for (int64_t j = 0; j < len; ++j) axpy(-t * w[size_t(j)], y.data(), col(i + 1 + j) + i + 1, rows);
    }
  }
}

template void bidiagonalize<double>(double*, int64_t, int64_t, double*, double*, double*, double*, double*);
template void bidiagonalize<float>(float*, int64_t, int64_t, double*, double*, double*, double*, float*);

}  // namespace sg
