// svd with vectors past 32 columns natively (divide and conquer: src/kernels/reference/
// linalg_bidiag_dc.cpp, the bidiagonalization linalg_bidiag.cpp, the reflectors
// linalg_reflectors.cpp) against PyTorch 1.13: the cases of tests/data/linalg_svd_dc_ref.json
// (gen_linalg_svd_dc.py). Matrices from the generator's formulas (formula below is its twin);
// the singular values and y = U·diag(w)·Vh·x against PyTorch's, U and V orthonormal and
// U·diag(S)·Vh = A, on each CPU backend (the SIMD one's GEMM and the reference loops).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ops/linalg.h"
#include "ops/ops.h"
#include "linalg_dc_ref.h"
#include "pytorch_ref_replay.h"
#include "test_util.h"

using sgtest::Json;

namespace {

// gen_linalg_svd_dc.py's formula(m, n, kind), row-major, in double.
std::vector<double> formula(int64_t m, int64_t n, const std::string& kind) {
  std::vector<double> a(size_t(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const double mod = double((37 * i + 91 * j + 13 * i * j) % 1009) / 504 - 1;
      double v = 0;
      if (kind == "mod") v = mod;
      else if (kind == "bidiag") v = i == j ? double(i % 7 - 3) : j == i + 1 ? double(i % 5 - 2) / 2 : 0.0;
      else if (kind == "repeated") v = (i == j ? 2.0 : 0.0) + (i % 3 == 0 && j % 3 == 0 ? 1.0 : 0.0);
      else if (kind == "rank2") v = (double(i % 4) - 1.5) * double(j % 5 - 2) + double(i % 3 - 1) * (double(j % 2) - 0.5);
      else if (kind == "zerocols") v = j % 3 == 0 ? 0.0 : mod;
      else if (kind == "cluster") v = i == j ? (i < n / 2 ? 1 + 1e-7 * double(i) : double(i)) : j == i + 1 ? 1e-9 : 0.0;
      else if (kind == "graded") v = mod * std::ldexp(1.0, -int(j / 8));
      else FAIL("unknown formula ", kind);
      a[size_t(i * n + j)] = v;
    }
  return a;
}

}  // namespace

TEST_CASE("ops: svd by divide and conquer equals PyTorch 1.13 (linalg_svd_dc_ref.json)") {
  const Json ref = sgtest::parse_json(sgtest::read_test_data("linalg_svd_dc_ref.json"));
  sgtest::on_each_backend([&] {
    int run = 0;
    for (const Json& c : ref["cases"].array) {
      const std::string id = c["id"].string, kind = c["kind"].string;
      CAPTURE(id);
      const auto m = int64_t(c["m"].number), n = int64_t(c["n"].number), k = std::min(m, n);
      const bool f64 = c["dtype"].string == "float64", smooth = c["smooth"].boolean;
      std::vector<double> a = formula(m, n, kind);
      for (double& x : a) x = f64 ? x * c["scale"].number : double(float(x));
      sg::Tensor A = sg::Tensor::empty({m, n}, f64 ? sg::DType::Float64 : sg::DType::Float32);
      for (int64_t i = 0; i < m * n; ++i) {
        if (f64) A.f64()[i] = a[size_t(i)];
        else A.f32()[i] = float(a[size_t(i)]);
      }
      const sg::Svd r = sg::linalg_svd(A, false);
      const std::vector<double> U = sgtest::values(r.U), S = sgtest::values(r.S), Vh = sgtest::values(r.Vh);
      REQUIRE(int64_t(S.size()) == k);
      std::vector<double> w = smooth ? S : sgtest::formula_vector(k, 7);
      if (smooth)
        for (double& x : w) x = x * x * x;
      const std::vector<double> y = sgtest::low_rank_apply(U, m, k, w, Vh, n, sgtest::formula_vector(n, 5));
      // ops_linalg_eigh_dc_ref_test's tolerances (check_near_ref).
      sgtest::check_near_ref(S, c["outputs"].array[0], f64, "singular values");
      sgtest::check_near_ref(y, c["outputs"].array[1], f64, "y");
      for (int64_t p = 0; p + 1 < k; ++p) CHECK_MESSAGE(S[size_t(p)] >= S[size_t(p) + 1], "descending at ", p);
      CHECK(S[size_t(k) - 1] >= 0);
      // Vh's rows as columns: Vhᵀ (n × k).
      std::vector<double> V(size_t(n * k));
      for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < n; ++j) V[size_t(j * k + p)] = Vh[size_t(p * n + j)];
      double amax = 0, rec = 0;
      for (double v : a) amax = std::max(amax, std::abs(v));
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0;
          for (int64_t p = 0; p < k; ++p) s += U[size_t(i * k + p)] * S[size_t(p)] * Vh[size_t(p * n + j)];
          rec = std::max(rec, std::abs(s - a[size_t(i * n + j)]));
        }
      rec /= amax;
      const double orth_u = sgtest::column_orth(U, m, k), orth_v = sgtest::column_orth(V, n, k);
      // float32: within 1e-6 or 1.5 × PyTorch's own float32 svd's (the generator's torch32) + 1e-7:
      // the kernel works a float32 matrix in float32, as LAPACK's sgesdd does.
      auto bound = [&](const char* what) { return f64 ? 1e-13 : std::max(1e-6, 1.5 * c["torch32"][what].number + 1e-7); };
      CHECK_MESSAGE(orth_u < bound("orthU"), "max |UᵀU − I| ", orth_u);
      CHECK_MESSAGE(orth_v < bound("orthV"), "max |Vh·Vhᵀ − I| ", orth_v);
      CHECK_MESSAGE(rec < bound("rec"), "max |U·diag(S)·Vh − A| / max|A| ", rec);
      ++run;
    }
    CHECK(run == 12);
  });
}
