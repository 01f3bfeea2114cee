// The float64 kernels (issue 27): the reference loops instantiated for double against closed
// forms computed here in long double, and the SIMD backend's Highway gemm_f64 against the
// reference on odd sizes (lane tails, partial 4-row tiles, more than one packed slice and block),
// every transpose, alpha/beta, and a C full of NaN under beta = 0, on every Highway target
// compiled in.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "hwy/targets.h"
#include "kernels/backend.h"
#include "kernels/simd/simd_kernels.h"

namespace {

const sg::Backend& R() { return sg::reference_backend(); }
const sg::Backend& S() { return sg::simd_backend(); }

// Deterministic values in [-1, 1) that use all 53 bits (no float32 value would equal them).
std::vector<double> values(int64_t n, uint64_t seed) {
  std::vector<double> v(static_cast<size_t>(n));
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (auto& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = double(s >> 11) / double(1ULL << 53) * 2.0 - 1.0;
  }
  return v;
}

}  // namespace

TEST_CASE("kernels f64 reference: unary, binary, reduce, softmax against long double closed forms") {
  const std::vector<double> x = values(37, 1);
  std::vector<double> y(x.size());
  R().unary_f64(sg::Unary::Exp, 0.0, x.data(), y.data(), int64_t(x.size()));
  for (size_t i = 0; i < x.size(); ++i) CHECK(y[i] == doctest::Approx(double(std::exp((long double)x[i]))).epsilon(1e-15));
  R().unary_f64(sg::Unary::LeakyRelu, 0.1, x.data(), y.data(), int64_t(x.size()));
  for (size_t i = 0; i < x.size(); ++i) CHECK(y[i] == (x[i] > 0 ? x[i] : 0.1 * x[i]));  // slope in double, not 0.1f

  const std::vector<double> b = values(37, 2);
  const sg::BroadcastPlan plan{{37}, {1}, {1}};
  R().binary_f64(sg::Binary::Div, plan, x.data(), b.data(), y.data());
  for (size_t i = 0; i < x.size(); ++i) CHECK(y[i] == x[i] / b[i]);

  // sum over [3, 37, 1]: a double accumulator, within 37 ulps of the long double sum.
  const std::vector<double> m = values(3 * 37, 3);
  std::vector<double> s(3);
  R().reduce_f64(sg::Reduce::Sum, m.data(), 3, 37, 1, s.data());
  for (int o = 0; o < 3; ++o) {
    long double want = 0;
    for (int i = 0; i < 37; ++i) want += m[size_t(o * 37 + i)];
    CHECK(std::fabs(s[size_t(o)] - double(want)) <= 37 * 1.2e-16 * 37);
  }

  std::vector<double> sm(m.size());
  R().softmax_rows_f64(m.data(), sm.data(), 3, 37, false);
  for (int o = 0; o < 3; ++o) {
    long double z = 0;
    for (int i = 0; i < 37; ++i) z += std::exp((long double)m[size_t(o * 37 + i)]);
    for (int i = 0; i < 37; ++i)
      CHECK(sm[size_t(o * 37 + i)] == doctest::Approx(double(std::exp((long double)m[size_t(o * 37 + i)]) / z)).epsilon(1e-14));
  }
}

TEST_CASE("kernels f64 simd gemm: equals the reference on odd sizes, transposes, alpha and beta") {
  struct Size { int64_t m, n, k; };
  const Size sizes[] = {{1, 1, 1}, {3, 5, 7}, {4, 8, 1}, {5, 3, 0}, {7, 13, 300}, {9, 270, 17}, {33, 65, 129}, {0, 4, 4}};
#ifndef __EMSCRIPTEN__
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    INFO("target " << sg::simd::target_name());
#endif
    for (const Size& z : sizes)
      for (int t = 0; t < 4; ++t)
        for (double beta : {0.0, 1.0, -0.75}) {
          const bool ta = t & 1, tb = t & 2;
          const int64_t lda = (ta ? z.m : z.k) + 2, ldb = (tb ? z.k : z.n) + 1, ldc = z.n + 3;
          const std::vector<double> a = values((ta ? z.k : z.m) * lda + 1, 10 + t);
          const std::vector<double> b = values((tb ? z.n : z.k) * ldb + 1, 20 + t);
          std::vector<double> c0 = values(z.m * ldc + 1, 30);
          if (beta == 0.0) std::fill(c0.begin(), c0.end(), std::numeric_limits<double>::quiet_NaN());
          std::vector<double> cr = c0, cs = c0;
          R().gemm_f64(ta, tb, z.m, z.n, z.k, 1.25, a.data(), lda, b.data(), ldb, beta, cr.data(), ldc);
          S().gemm_f64(ta, tb, z.m, z.n, z.k, 1.25, a.data(), lda, b.data(), ldb, beta, cs.data(), ldc);
          INFO("m " << z.m << " n " << z.n << " k " << z.k << " trans " << ta << tb << " beta " << beta);
          for (int64_t i = 0; i < z.m; ++i)
            for (int64_t j = 0; j < z.n; ++j) {
              // Sums in another order: within the γ_k bound, (k + 2)·1.2e-16·(Σ|a b| + |beta c|).
              double bound = std::fabs(beta * (beta == 0.0 ? 0.0 : c0[size_t(i * ldc + j)]));
              for (int64_t p = 0; p < z.k; ++p)
                bound += 1.25 * std::fabs((ta ? a[size_t(p * lda + i)] : a[size_t(i * lda + p)]) *
                                          (tb ? b[size_t(j * ldb + p)] : b[size_t(p * ldb + j)]));
              CHECK(std::fabs(cs[size_t(i * ldc + j)] - cr[size_t(i * ldc + j)]) <= double(z.k + 2) * 1.2e-16 * bound);
            }
          // Entries of C outside the m × n block (its row padding) are never written.
          for (int64_t i = 0; i < z.m; ++i)
            for (int64_t j = z.n; j < ldc; ++j) {
              const double before = c0[size_t(i * ldc + j)], after = cs[size_t(i * ldc + j)];
              CHECK((after == before || (std::isnan(after) && std::isnan(before))));
            }
        }
#ifndef __EMSCRIPTEN__
  }
  hwy::SetSupportedTargetsForTest(0);
#endif
}
