// tridiagonal_eigen_dc called directly, with a z that holds garbage on entry: eigh's kernel hands
// it a fresh zero matrix, so the doctests through the op registry cannot see whether the solver
// zeroes z itself, as its header promises (z "gets the eigenvectors"); a merge that deflates
// fully (a zero coupling) pads its blocks' vectors with those zeros. Expected values in closed
// form: the tridiagonal (2, −1) of size m has eigenvalues 2 − 2·cos(kπ/(m + 1)), k = 1..m.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/reference/linalg_tridiag_dc.h"

TEST_CASE("linalg_tridiag_dc: eigenpairs in closed form whatever z held on entry, with a fully deflated merge") {
  // Couplings −1 but e[4] = 0: blocks of 5 and 4 rows, each (2, −1).
  const int64_t n = 9;
  std::vector<double> d(n, 2.0), e(n - 1, -1.0);
  e[4] = 0;
  std::vector<double> z(size_t(n * n), std::numeric_limits<double>::quiet_NaN());
  const sg::ColGemm gemm = [](bool ta, bool tb, int64_t m, int64_t nn, int64_t k, double alpha, const double* a,
                              int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
    for (int64_t j = 0; j < nn; ++j)
      for (int64_t i = 0; i < m; ++i) {
        double t = 0;
        for (int64_t l = 0; l < k; ++l) t += (ta ? a[i * lda + l] : a[l * lda + i]) * (tb ? b[l * ldb + j] : b[j * ldb + l]);
        c[j * ldc + i] = alpha * t + (beta == 0 ? 0.0 : beta * c[j * ldc + i]);
      }
  };
  // Leaves of one row: their eigenvector is [1] (the rest of z is the solver's to fill).
  const sg::TridiagLeaf leaf = [](double*, double*, int64_t m, double* zz, int64_t) {
    if (m != 1) return false;
    zz[0] = 1;
    return true;
  };
  const std::vector<double> d0 = d;
  REQUIRE(sg::tridiagonal_eigen_dc(d.data(), e.data(), n, z.data(), n, 1, gemm, leaf));
  std::vector<double> expected;
  for (int64_t m : {5, 4})
    for (int64_t k = 1; k <= m; ++k) expected.push_back(2 - 2 * std::cos(double(k) * M_PI / double(m + 1)));
  std::sort(expected.begin(), expected.end());
  for (int64_t j = 0; j < n; ++j) CHECK(d[size_t(j)] == doctest::Approx(expected[size_t(j)]).epsilon(1e-12));
  // T·z_j = λ_j·z_j and zᵀz = I, every entry of z finite.
  for (int64_t j = 0; j < n; ++j) {
    const double* v = z.data() + j * n;
    for (int64_t i = 0; i < n; ++i) {
      REQUIRE(std::isfinite(v[i]));
      double tv = d0[size_t(i)] * v[i];
      if (i > 0) tv += e[size_t(i - 1)] * v[i - 1];
      if (i + 1 < n) tv += e[size_t(i)] * v[i + 1];
      CHECK(std::abs(tv - d[size_t(j)] * v[i]) < 1e-12);
    }
    for (int64_t k = 0; k < n; ++k) {
      double dot = 0;
      for (int64_t i = 0; i < n; ++i) dot += v[i] * z[size_t(k * n + i)];
      CHECK(std::abs(dot - (j == k ? 1.0 : 0.0)) < 1e-12);
    }
  }
}
