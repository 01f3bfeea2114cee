// The fused cross-entropy kernels (kernels/simd/cross_entropy.cpp) against their scalar twin,
// the reference backend's (kernels/reference/layer_loss.cpp), and both against the definition
// evaluated here in double: loss_r = −Σ_c w_c·q_rc·log softmax(x_r)_c with
// q_r = (1 − ε)·onehot(t_r) + ε/C, dx_r = s_r·(a_r·softmax(x_r) − q_r ⊙ w), a_r = Σ_c w_c·q_rc.
// Odd class counts around the vector width (tails of 1–15 lanes), ignored rows, class weights,
// label smoothing; the SIMD gradient written over its own input (dx = x) equals the out-of-place
// one. Natively once per Highway target.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/backend.h"
#include "test_util.h"

namespace {

using sgtest::each_target;

struct Case {
  int64_t R, C;
  bool weighted;
  double eps;
  float scale;   // logits spread
  float offset;  // added to every logit (large: the max shift must keep small differences)
};

struct Out {
  std::vector<float> loss, wt, dx;
};

constexpr int64_t kIgnore = -100;

Out run(const sg::Backend& be, const std::vector<float>& x, const std::vector<int32_t>& t,
        const std::vector<float>& w, const std::vector<float>& s, const Case& c) {
  Out o{std::vector<float>(size_t(c.R), -1.0f), std::vector<float>(size_t(c.R), -1.0f),
        std::vector<float>(x.size(), 7.0f)};
  const float* wp = c.weighted ? w.data() : nullptr;
  be.cross_entropy_f32(x.data(), t.data(), wp, c.R, c.C, kIgnore, c.eps, o.loss.data(), o.wt.data());
  be.cross_entropy_backward_f32(x.data(), t.data(), wp, c.R, c.C, kIgnore, c.eps, s.data(), o.dx.data());
  return o;
}

// The definition in double.
Out truth(const std::vector<float>& x, const std::vector<int32_t>& t, const std::vector<float>& w,
          const std::vector<float>& s, const Case& c) {
  Out o{std::vector<float>(size_t(c.R)), std::vector<float>(size_t(c.R)), std::vector<float>(x.size())};
  for (int64_t r = 0; r < c.R; ++r) {
    const float* xr = x.data() + r * c.C;
    if (t[size_t(r)] == kIgnore) {
      for (int64_t j = 0; j < c.C; ++j) o.dx[size_t(r * c.C + j)] = 0.0f;
      o.loss[size_t(r)] = o.wt[size_t(r)] = 0.0f;
      continue;
    }
    double m = xr[0];
    for (int64_t j = 1; j < c.C; ++j) m = std::max(m, double(xr[j]));
    double se = 0;
    for (int64_t j = 0; j < c.C; ++j) se += std::exp(double(xr[j]) - m);
    const double lse = m + std::log(se);
    double loss = 0, a = 0;
    for (int64_t j = 0; j < c.C; ++j) {
      const double q = (1.0 - c.eps) * (j == t[size_t(r)] ? 1.0 : 0.0) + c.eps / double(c.C);
      const double wc = c.weighted ? double(w[size_t(j)]) : 1.0;
      loss -= wc * q * (double(xr[j]) - lse);
      a += wc * q;
    }
    for (int64_t j = 0; j < c.C; ++j) {
      const double q = (1.0 - c.eps) * (j == t[size_t(r)] ? 1.0 : 0.0) + c.eps / double(c.C);
      const double wc = c.weighted ? double(w[size_t(j)]) : 1.0;
      o.dx[size_t(r * c.C + j)] = float(double(s[size_t(r)]) * (a * std::exp(double(xr[j]) - lse) - q * wc));
    }
    o.loss[size_t(r)] = float(loss);
    o.wt[size_t(r)] = float(c.weighted ? double(w[size_t(t[size_t(r)])]) : 1.0);
  }
  return o;
}

// |got − want| ≤ atol + rtol·|want| elementwise; NaN only where NaN is wanted.
void close(const std::vector<float>& got, const std::vector<float>& want, double rtol, double atol,
           const char* what) {
  REQUIRE(got.size() == want.size());
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 3; ++i) {
    const bool ok = std::isnan(want[i]) ? std::isnan(got[i])
                                        : std::fabs(double(got[i]) - double(want[i])) <= atol + rtol * std::fabs(double(want[i]));
    if (!ok) {
      ++bad;
      INFO(what << "[" << i << "] got " << got[i] << " want " << want[i]);
      CHECK(ok);
    }
  }
  CHECK(bad == 0);
}

void check_case(const Case& c, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(size_t(c.R * c.C)), w(size_t(c.C)), s(size_t(c.R));
  for (float& v : x) v = c.offset + c.scale * u(rng);
  for (float& v : w) v = 0.25f + std::fabs(u(rng));
  for (float& v : s) v = u(rng);
  std::vector<int32_t> t(size_t(c.R));
  for (int64_t r = 0; r < c.R; ++r) t[size_t(r)] = int32_t(rng() % uint32_t(c.C));
  if (c.R > 2) t[1] = int32_t(kIgnore);  // an ignored row between others
  INFO("R " << c.R << " C " << c.C << (c.weighted ? " weighted" : "") << " eps " << c.eps << " offset "
            << c.offset);
  const Out want = truth(x, t, w, s, c);
  const Out ref = run(sg::reference_backend(), x, t, w, s, c);
  // Absolute error of a log-softmax entry is ~ulp(max |x|); the gradient's entries are ≤ |s|·(1 + w).
  const double latol = 4e-7 * (std::fabs(c.offset) + c.scale + 1.0) * (c.weighted ? 2.0 : 1.0);
  close(ref.loss, want.loss, 1e-5, latol, "reference loss");
  close(ref.dx, want.dx, 1e-4, 1e-6, "reference dx");
  CHECK(ref.wt == want.wt);
  each_target([&] {
    const Out simd = run(sg::simd_backend(), x, t, w, s, c);
    close(simd.loss, want.loss, 1e-5, latol, "simd loss");
    close(simd.loss, ref.loss, 1e-5, latol, "simd loss vs reference");
    close(simd.dx, ref.dx, 1e-4, 1e-6, "simd dx vs reference");
    CHECK(simd.wt == ref.wt);
    // In place: the gradient written over the logits.
    std::vector<float> xi = x;
    sg::simd_backend().cross_entropy_backward_f32(xi.data(), t.data(), c.weighted ? w.data() : nullptr, c.R, c.C,
                                                  kIgnore, c.eps, s.data(), xi.data());
    CHECK(xi == simd.dx);
  });
}

}  // namespace

TEST_CASE("kernels simd cross_entropy: fused rows equal the reference and the definition on odd class counts") {
  unsigned seed = 1;
  for (int64_t C : {1, 2, 3, 5, 7, 9, 15, 17, 31, 33, 1023, 1031, 4099})
    for (bool weighted : {false, true})
      for (double eps : {0.0, 0.15}) check_case({5, C, weighted, eps, 4.0f, 0.0f}, seed++);
  // Logits far from 0 (the shift by the row max keeps their differences) and a wide spread.
  check_case({3, 1031, false, 0.0, 2.0f, 3.0e3f}, 99);
  check_case({3, 37, true, 0.1, 40.0f, -500.0f}, 100);
  // The language-model head's width, one row.
  check_case({2, 50257, false, 0.0, 6.0f, 0.0f}, 101);
}

TEST_CASE("kernels simd cross_entropy: a NaN logit makes its row's loss and gradient NaN, other rows untouched") {
  const int64_t R = 2, C = 13;
  std::vector<float> x(size_t(R * C), 0.5f);
  x[3] = NAN;
  const std::vector<int32_t> t{4, 6};
  const std::vector<float> s{1.0f, 1.0f};
  const std::vector<float> w;
  const Case c{R, C, false, 0.0, 1.0f, 0.0f};
  const Out ref = run(sg::reference_backend(), x, t, w, s, c);
  each_target([&] {
    const Out simd = run(sg::simd_backend(), x, t, w, s, c);
    CHECK(std::isnan(simd.loss[0]));
    CHECK(std::isnan(ref.loss[0]));
    CHECK(simd.loss[1] == doctest::Approx(std::log(13.0)).epsilon(1e-6));
    for (int64_t j = 0; j < C; ++j) {
      CHECK(std::isnan(simd.dx[size_t(j)]));
      CHECK(simd.dx[size_t(C + j)] == doctest::Approx(ref.dx[size_t(C + j)]).epsilon(1e-6));
    }
  });
}
