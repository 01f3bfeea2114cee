// The causal softmax row kernels (Backend::softmax_causal_rows_f32: kernels/simd/softmax_causal.cpp
// and the reference's kernels/reference/softmax.cpp) against the definition evaluated here in
// double the way PyTorch's composed form does it: the mask materialised (−inf where j > i, i the
// row's query position r mod L), added, then a full softmax of the row. Odd widths 1–67 around
// the vector width, L < S, L = S, L > S (every entry of the later rows takes part), L = 1; the
// SIMD kernel's row ranges starting at any query position (how the threads split the rows);
// entries past i never read (a NaN there changes nothing); a row whose entries j ≤ i are all
// −inf gives NaN there, as softmax does. Natively once per Highway target.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/backend.h"
#include "kernels/simd/simd_kernels.h"
#include "test_util.h"

namespace {

using sgtest::each_target;

constexpr float kInf = std::numeric_limits<float>::infinity();

// softmax(x + mask) per row in double, the mask built as a matrix first.
std::vector<float> truth(const std::vector<float>& x, int64_t rows, int64_t cols, int64_t L) {
  std::vector<double> mask(size_t(L * cols));
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = 0; j < cols; ++j) mask[size_t(i * cols + j)] = j > i ? -double(kInf) : 0.0;
  std::vector<float> y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> z(static_cast<size_t>(cols));
    double m = -double(kInf);
    for (int64_t j = 0; j < cols; ++j) {
      z[size_t(j)] = double(x[size_t(r * cols + j)]) + mask[size_t((r % L) * cols + j)];
      m = std::max(m, z[size_t(j)]);
    }
    double s = 0;
    for (double v : z) s += std::exp(v - m);
    for (int64_t j = 0; j < cols; ++j) y[size_t(r * cols + j)] = float(std::exp(z[size_t(j)] - m) / s);
  }
  return y;
}

// |got − want| ≤ atol + rtol·|want|; NaN only where NaN is wanted; exact zeros where 0 is wanted
// past the diagonal.
void close(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  REQUIRE(got.size() == want.size());
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 3; ++i) {
    const bool ok = std::isnan(want[i]) ? std::isnan(got[i])
                    : want[i] == 0.0f   ? got[i] == 0.0f
                                        : std::fabs(double(got[i]) - double(want[i])) <= 1e-7 + 2e-6 * std::fabs(double(want[i]));
    if (!ok) {
      ++bad;
      INFO(what << "[" << i << "] got " << got[i] << " want " << want[i]);
      CHECK(ok);
    }
  }
  CHECK(bad == 0);
}

std::vector<float> run(const sg::Backend& be, const std::vector<float>& x, int64_t rows, int64_t cols, int64_t L) {
  std::vector<float> y(x.size(), 7.0f);  // every entry must be written
  be.softmax_causal_rows_f32(x.data(), y.data(), rows, cols, L);
  return y;
}

void check_case(int64_t B, int64_t L, int64_t S, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  const int64_t rows = B * L;
  std::vector<float> x(size_t(rows * S));
  for (float& v : x) v = u(rng);
  INFO("B " << B << " L " << L << " S " << S);
  const std::vector<float> want = truth(x, rows, S, L);
  const std::vector<float> ref = run(sg::reference_backend(), x, rows, S, L);
  close(ref, want, "reference");
  // Entries past the diagonal are never read: NaN there gives the same rows.
  std::vector<float> xn = x;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = r % L + 1; j < S; ++j) xn[size_t(r * S + j)] = std::numeric_limits<float>::quiet_NaN();
  CHECK(run(sg::reference_backend(), xn, rows, S, L) == ref);
  each_target([&] {
    const std::vector<float> simd = run(sg::simd_backend(), x, rows, S, L);
    close(simd, want, "simd");
    CHECK(run(sg::simd_backend(), xn, rows, S, L) == simd);
    // Row ranges starting at any query position (a thread's share) give the same rows.
    for (int64_t lo : {int64_t(1), rows / 2, rows - 1}) {
      if (lo <= 0 || lo >= rows) continue;
      std::vector<float> split(x.size(), 7.0f);
      sg::simd::softmax_causal_rows_f32(x.data(), split.data(), lo, S, L, 0);
      sg::simd::softmax_causal_rows_f32(x.data() + lo * S, split.data() + lo * S, rows - lo, S, L, lo % L);
      CHECK(split == simd);
    }
  });
}

}  // namespace

TEST_CASE("kernels causal softmax: SIMD and reference rows equal softmax(x + materialised causal mask)") {
  unsigned seed = 1;
  for (int64_t S = 1; S <= 67; ++S) check_case(2, S, S, seed++);         // square scores, every width
  for (int64_t S : {1, 5, 16, 17, 33, 67}) check_case(3, 1, S, seed++);  // L = 1: one position, sees key 0
  for (int64_t S : {7, 31, 64, 67}) check_case(2, 5, S, seed++);         // L < S: later keys never seen
  for (int64_t S : {1, 3, 9, 17}) check_case(2, 23, S, seed++);          // L > S: rows past S see every key
  check_case(1, 300, 300, 99);                                           // long rows, several vector blocks
}

TEST_CASE("kernels causal softmax: a row whose visible scores are all -inf is NaN there and 0 past i") {
  const int64_t L = 4, S = 21;
  std::vector<float> x(size_t(L * S), 0.25f);
  for (int64_t j = 0; j <= 2; ++j) x[size_t(2 * S + j)] = -kInf;  // row 2 sees j = 0..2: all −inf
  const std::vector<float> want = truth(x, L, S, L);
  auto check_rows = [&](const std::vector<float>& y) {
    for (int64_t j = 0; j < S; ++j) {
      if (j <= 2) CHECK(std::isnan(y[size_t(2 * S + j)]));
      else CHECK(y[size_t(2 * S + j)] == 0.0f);
    }
    for (int64_t r : {0, 1, 3})
      for (int64_t j = 0; j < S; ++j) CHECK(y[size_t(r * S + j)] == doctest::Approx(want[size_t(r * S + j)]).epsilon(1e-6));
  };
  check_rows(run(sg::reference_backend(), x, L, S, L));
  each_target([&] { check_rows(run(sg::simd_backend(), x, L, S, L)); });
}

TEST_CASE("kernels causal softmax: the float64 default (reference loop) equals the float32 reference in double") {
  const int64_t L = 6, S = 9;
  std::vector<double> x(size_t(2 * L * S));
  for (size_t k = 0; k < x.size(); ++k) x[k] = std::sin(double(k) * 1.7) * 3.0;
  std::vector<double> y(x.size(), 7.0);
  sg::simd_backend().softmax_causal_rows_f64(x.data(), y.data(), 2 * L, S, L);
  std::vector<float> xf(x.begin(), x.end());
  const std::vector<float> want = truth(xf, 2 * L, S, L);
  for (size_t k = 0; k < y.size(); ++k) CHECK(float(y[k]) == doctest::Approx(want[k]).epsilon(1e-6));
}
