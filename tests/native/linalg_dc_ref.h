// What the divide-and-conquer reference tests (ops_linalg_eigh_dc_ref_test.cpp,
// ops_linalg_svd_dc_ref_test.cpp) share: their generators' probe vectors, y = L·diag(w)·R·x (a
// quantity that does not depend on the vectors' signs), orthogonality and the comparison with
// PyTorch's values.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "pytorch_ref_replay.h"

namespace sgtest {

// The generators' vector(n, mod): (i mod m)/m − 0.5.
inline std::vector<double> formula_vector(int64_t n, int mod) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = double(i % mod) / mod - 0.5;
  return v;
}

// y = L·diag(w)·R·x for row-major L (rows × k) and R (k × cols).
inline std::vector<double> low_rank_apply(const std::vector<double>& l, int64_t rows, int64_t k, const std::vector<double>& w,
                                          const std::vector<double>& r, int64_t cols, const std::vector<double>& x) {
  std::vector<double> t(size_t(k), 0.0), y(size_t(rows), 0.0);
  for (int64_t p = 0; p < k; ++p) {
    for (int64_t j = 0; j < cols; ++j) t[size_t(p)] += r[size_t(p * cols + j)] * x[size_t(j)];
    t[size_t(p)] *= w[size_t(p)];
  }
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t p = 0; p < k; ++p) y[size_t(i)] += l[size_t(i * k + p)] * t[size_t(p)];
  return y;
}

// max |XᵀX − I| over the k columns of row-major X (rows × k).
inline double column_orth(const std::vector<double>& x, int64_t rows, int64_t k) {
  double worst = 0;
  for (int64_t p = 0; p < k; ++p)
    for (int64_t q = p; q < k; ++q) {
      double o = 0;
      for (int64_t r = 0; r < rows; ++r) o += x[size_t(r * k + p)] * x[size_t(r * k + q)];
      worst = std::max(worst, std::abs(o - (p == q ? 1.0 : 0.0)));
    }
  return worst;
}

// got against PyTorch's `want` ({ data }): float32 within 1e-5 + 2e-6·(|want| + max|want|),
// float64 within 1e-12·(|want| + max|want|).
inline void check_near_ref(const std::vector<double>& got, const Json& want, bool f64, const char* what) {
  const std::vector<Json>& data = want["data"].array;
  REQUIRE(data.size() == got.size());
  double scale = 0;
  for (const Json& v : data) scale = std::max(scale, std::abs(v.number));
  for (size_t i = 0; i < got.size(); ++i) {
    const double tol = f64 ? 1e-12 * (std::abs(data[i].number) + scale) : 1e-5 + 2e-6 * (std::abs(data[i].number) + scale);
    CHECK_MESSAGE(std::abs(got[i] - data[i].number) <= tol, what, "[", i, "]: PyTorch ", data[i].number, ", got ", got[i]);
  }
}

}  // namespace sgtest
