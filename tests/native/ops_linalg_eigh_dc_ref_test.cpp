// eigh past 32 rows natively (divide and conquer: src/kernels/reference/linalg_tridiag_dc.cpp,
// the blocked reduction linalg_tridiag_reduce.cpp) against PyTorch 1.13: the cases of
// tests/data/linalg_eigh_dc_ref.json (gen_linalg_eigh_dc.py), which tests/js/linalg_eigh_dc.test.mjs
// compares through the wasm build. Matrices from the generator's formulas (formula below is its
// twin); the eigenvalues and y = V·diag(w)·Vᵀ·x against PyTorch's, and V orthonormal, on each CPU
// backend (the SIMD one's GEMM and the reference loops).
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

// gen_linalg_eigh_dc.py's formula(n, kind), row-major, in double.
std::vector<double> formula(int64_t n, const std::string& kind) {
  std::vector<double> a(size_t(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      double v = 0;
      if (kind == "mod") v = double((37 * i + 91 * j + 13 * i * j) % 1009) / 504 - 1;
      else if (kind == "diagonal") v = i == j ? double(i % 3 - 1) : 0.0;
      else if (kind == "wilkinson") v = i == j ? std::abs(10.0 - double(i % 21)) : i == j + 1 ? (i % 21 == 0 ? 1e-8 : 1.0) : 0.0;
      else if (kind == "repeated") v = (i == j ? 2.0 : 0.0) + (i % 3 == 0 && j % 3 == 0 ? 1.0 : 0.0);
      else if (kind == "cluster") v = i == j ? (i < n / 2 ? 1 + 1e-7 * double(i) : double(i)) : i == j + 1 ? 1e-9 : 0.0;
      else FAIL("unknown formula ", kind);
      a[size_t(i * n + j)] = a[size_t(j * n + i)] = v;
    }
  return a;
}

}  // namespace

TEST_CASE("ops: eigh by divide and conquer equals PyTorch 1.13 (linalg_eigh_dc_ref.json)") {
  const Json ref = sgtest::parse_json(sgtest::read_test_data("linalg_eigh_dc_ref.json"));
  sgtest::on_each_backend([&] {
    int run = 0;
    for (const Json& c : ref["cases"].array) {
      const std::string id = c["id"].string, kind = c["kind"].string;
      CAPTURE(id);
      const auto n = int64_t(c["n"].number);
      const bool f64 = c["dtype"].string == "float64", smooth = c["smooth"].boolean;
      std::vector<double> a = formula(n, kind);
      for (double& x : a) x = f64 ? x * c["scale"].number : double(float(x));
      sg::Tensor A = sg::Tensor::empty({n, n}, f64 ? sg::DType::Float64 : sg::DType::Float32);
      for (int64_t i = 0; i < n * n; ++i) {
        if (f64) A.f64()[i] = a[size_t(i)];
        else A.f32()[i] = float(a[size_t(i)]);
      }
      const sg::Eigh r = sg::linalg_eigh(A);
      const std::vector<double> lam = sgtest::values(r.eigenvalues), V = sgtest::values(r.eigenvectors);
      std::vector<double> w = smooth ? lam : sgtest::formula_vector(n, 7);
      if (smooth)
        for (double& x : w) x = x * x * x;
      std::vector<double> vt(size_t(n * n));  // Vᵀ, row-major
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) vt[size_t(j * n + i)] = V[size_t(i * n + j)];
      const std::vector<double> y = sgtest::low_rank_apply(V, n, n, w, vt, n, sgtest::formula_vector(n, 5));
      sgtest::check_near_ref(lam, c["outputs"].array[0], f64, "eigenvalues");
      sgtest::check_near_ref(y, c["outputs"].array[1], f64, "y");
      const double orth = sgtest::column_orth(V, n, n);
      // float32: within 1e-6 or PyTorch's own float32 eigh's (the generator's torch32): the
      // kernel multiplies a float32 matrix's vectors in float32, as LAPACK's ssyevd does.
      const double orth_tol = f64 ? 1e-13 : std::max(1e-6, 1.5 * c["torch32"]["orth"].number + 1e-7);
      CHECK_MESSAGE(orth < orth_tol, "max |VᵀV − I| ", orth);
      ++run;
    }
    CHECK(run == 10);
  });
}
