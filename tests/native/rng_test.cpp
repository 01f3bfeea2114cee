// The Philox4x32-10 generator: Random123's published known-answer vectors, the stream layout,
// and the statistics of rand/randn/randint, bernoulli and multinomial (bounds loose enough to
// never flake: ≥ 5σ).
#include "core/rng.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "gradcheck.h"
#include "ops/ops.h"
#include "test_util.h"

using namespace sg;
using sgtest::from;
using sgtest::values;

TEST_CASE("rng: Philox4x32-10 matches Random123's known-answer vectors") {
  // From kat_vectors in the Random123 distribution (D. E. Shaw Research).
  CHECK(philox4x32_10({0, 0, 0, 0}, {0, 0}) ==
        Philox4x32Ctr{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u});
  CHECK(philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, {0xffffffffu, 0xffffffffu}) ==
        Philox4x32Ctr{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu});
  CHECK(philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, {0xa4093822u, 0x299f31d0u}) ==
        Philox4x32Ctr{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u});
}

TEST_CASE("rng: stream layout is (seed → key, word index → counter)") {
  uint64_t seed = 0x0123456789abcdefull;
  Philox g(seed);
  Philox4x32Key key{0x89abcdefu, 0x01234567u};
  Philox4x32Ctr b0 = philox4x32_10({0, 0, 0, 0}, key), b1 = philox4x32_10({1, 0, 0, 0}, key);
  for (int i = 0; i < 4; ++i) CHECK(g.next_u32() == b0[i]);
  for (int i = 0; i < 4; ++i) CHECK(g.next_u32() == b1[i]);
  CHECK(g.state().offset == 8);
  // resuming from a state continues the same stream; counters past 2^32 blocks carry into word 1
  Philox h;
  h.set_state({seed, 5});
  CHECK(h.next_u32() == b1[1]);
  h.set_state({seed, (uint64_t(1) << 34) + 2});
  CHECK(h.next_u32() == philox4x32_10({0, 1, 0, 0}, key)[2]);
}

TEST_CASE("rng: manual_seed reproduces rand, randn and randint; other seeds differ") {
  manual_seed(1234);
  Tensor a = rand({257}), an = randn({33}), ai = randint(-5, 5, {40});
  manual_seed(1234);
  Tensor b = rand({257}), bn = randn({33}), bi = randint(-5, 5, {40});
  for (int64_t i = 0; i < 257; ++i) CHECK(a.f32()[i] == b.f32()[i]);
  for (int64_t i = 0; i < 33; ++i) CHECK(an.f32()[i] == bn.f32()[i]);
  for (int64_t i = 0; i < 40; ++i) CHECK(ai.i32()[i] == bi.i32()[i]);
  manual_seed(1235);
  Tensor c = rand({257});
  int same = 0;
  for (int64_t i = 0; i < 257; ++i) same += a.f32()[i] == c.f32()[i];
  CHECK(same < 3);
  // saved state restores the stream
  RngState s = rng_state();
  Tensor d1 = randn({5});
  set_rng_state(s);
  Tensor d2 = randn({5});
  for (int64_t i = 0; i < 5; ++i) CHECK(d1.f32()[i] == d2.f32()[i]);
  // successive draws differ
  Tensor e1 = rand({8}), e2 = rand({8});
  CHECK(e1.f32()[0] != e2.f32()[0]);
}

TEST_CASE("rng: rand is the top 24 bits of each word times 2^-24") {
  manual_seed(42);
  Tensor r = rand({10});
  Philox g(42);
  for (int64_t i = 0; i < 10; ++i) CHECK(r.f32()[i] == float(double(g.next_u32() >> 8) / 16777216.0));
}

TEST_CASE("rng: rand statistics") {
  manual_seed(7);
  const int64_t n = 200000;
  Tensor r = rand({n});
  CHECK(r.shape() == Shape{n});
  double sum = 0, sum2 = 0;
  int64_t outside = 0, inexact = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = r.f32()[i];
    outside += !(v >= 0.0 && v < 1.0);
    double scaled = v * 16777216.0;
    inexact += scaled != std::floor(scaled);  // each value is an exact multiple of 2^-24
    sum += v;
    sum2 += v * v;
  }
  CHECK(outside == 0);
  CHECK(inexact == 0);
  double mean = sum / n, var = sum2 / n - mean * mean;
  CHECK(std::fabs(mean - 0.5) < 5 * std::sqrt(1.0 / 12 / n));
  CHECK(std::fabs(var - 1.0 / 12) < 0.002);  // sd of the variance estimate ≈ 1.9e-4
}

TEST_CASE("rng: fill_uniform and fill_normal with parameters") {
  manual_seed(3);
  std::vector<float> u(50000), z(50001);
  fill_uniform(u.data(), int64_t(u.size()), -2.0f, 3.0f);
  double s = 0;
  int64_t outside = 0;
  for (float v : u) {
    outside += !(v >= -2.0f && v < 3.0f);
    s += v;
  }
  CHECK(outside == 0);
  CHECK(std::fabs(s / u.size() - 0.5) < 5 * 5 / std::sqrt(12.0 * u.size()));
  fill_normal(z.data(), int64_t(z.size()), 10.0f, 0.5f);
  double m = 0, m2 = 0;
  for (float v : z) m += v;
  m /= z.size();
  for (float v : z) m2 += (v - m) * (v - m);
  CHECK(std::fabs(m - 10.0) < 5 * 0.5 / std::sqrt(double(z.size())));
  CHECK(std::fabs(std::sqrt(m2 / z.size()) - 0.5) < 0.01);
  // a tiny interval stays half-open even when lo + span·u rounds up
  std::vector<float> t(1000);
  fill_uniform(t.data(), 1000, 1.0f, std::nextafter(1.0f, 2.0f));
  CHECK(std::count(t.begin(), t.end(), 1.0f) == 1000);
}

TEST_CASE("rng: randn statistics") {
  manual_seed(11);
  const int64_t n = 200001;  // odd: the last pair's second value is dropped
  RngState before = rng_state();
  Tensor z = randn({n});
  CHECK(rng_state().offset - before.offset == uint64_t(n + 1));
  double sum = 0, sum2 = 0, sum4 = 0;
  int64_t within1 = 0, nonfinite = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = z.f32()[i];
    nonfinite += !std::isfinite(v);
    sum += v;
    sum2 += v * v;
    sum4 += v * v * v * v;
    within1 += std::fabs(v) < 1.0;
  }
  CHECK(nonfinite == 0);
  double mean = sum / n, var = sum2 / n - mean * mean;
  CHECK(std::fabs(mean) < 5 / std::sqrt(double(n)));
  CHECK(std::fabs(std::sqrt(var) - 1.0) < 0.01);
  CHECK(std::fabs(sum4 / n - 3.0) < 0.1);  // the kurtosis of a normal
  // P(|z| < 1) = erf(1/√2) ≈ 0.682689
  CHECK(std::fabs(double(within1) / n - std::erf(1 / std::sqrt(2.0))) < 0.006);
}

TEST_CASE("rng: randint range and uniformity") {
  manual_seed(5);
  const int64_t n = 70000;
  Tensor r = randint(-3, 4, {n});
  CHECK(r.dtype() == DType::Int32);
  std::vector<int64_t> counts(7, 0);
  int64_t outside = 0;
  for (int64_t i = 0; i < n; ++i) {
    int32_t v = r.i32()[i];
    if (v < -3 || v >= 4)
      ++outside;
    else
      counts[v + 3]++;
  }
  CHECK(outside == 0);
  double expected = double(n) / 7, chi2 = 0;
  for (int64_t c : counts) chi2 += (c - expected) * (c - expected) / expected;
  CHECK(chi2 < 40);  // 6 degrees of freedom: P(χ² > 40) ≈ 5e-7

  // a bound that is not a power of two and large: modulo bias would show in the halves
  Philox g(9);
  const uint32_t bound = 3000000000u;  // 2^32 mod bound is large: a plain % would skew low values
  int64_t low_half = 0, above = 0, draws = 40000;
  for (int64_t i = 0; i < draws; ++i) {
    uint32_t v = g.next_below(bound);
    above += v >= bound;
    low_half += v < bound / 2;
  }
  CHECK(above == 0);
  CHECK(std::fabs(double(low_half) / draws - 0.5) < 5 * 0.5 / std::sqrt(double(draws)));

  // the full int32 range and single-value ranges work
  Tensor full_range = randint(-2147483648LL, 2147483648LL, {1000});
  std::set<int32_t> distinct(full_range.i32(), full_range.i32() + 1000);
  CHECK(distinct.size() > 990);
  Tensor one = randint(7, 8, {20});
  for (int64_t i = 0; i < 20; ++i) CHECK(one.i32()[i] == 7);
  CHECK(randint(0, 3, {}).shape() == Shape{});

  CHECK_ERROR(randint(5, 5, {2}), "randint: expected low < high, got low 5 and high 5");
  CHECK_ERROR(randint(0, 3000000000LL, {2}), "does not fit in int32");
  CHECK_ERROR(rand({-1}), "sizes must be non-negative");
}

TEST_CASE("rng: bernoulli: seeded, exact at 0 and 1, frequencies, gradient zero") {
  manual_seed(5);
  const Tensor p = full({20000}, 0.3);
  const Tensor a = bernoulli(p);
  manual_seed(5);
  const Tensor b = bernoulli(p);
  CHECK(values(a) == values(b));
  double ones = 0;
  for (double v : values(a)) {
    CHECK((v == 0 || v == 1));
    ones += v;
  }
  // Binomial(20000, 0.3): sd ≈ 64.8; 5 sd.
  CHECK(std::fabs(ones - 6000) < 325);
  CHECK(values(bernoulli(from({4}, {0, 1, 0, 1}))) == std::vector<double>{0, 1, 0, 1});
  double with_p = 0;
  for (double v : values(bernoulli(zeros({10000}), 0.75))) with_p += v;
  CHECK(std::fabs(with_p - 7500) < 5 * 43.3);
  Tensor q = from({3}, {0.2f, 0.5f, 0.9f}, true);
  const Tensor draw = bernoulli(q);
  CHECK(draw.requires_grad());
  sum(draw).backward();
  CHECK(values(q.grad()) == std::vector<double>{0, 0, 0});
  CHECK(sgtest::error_of([] { bernoulli(from({2}, {0.5f, 1.5f})); }) ==
        "bernoulli: expected probabilities in [0, 1], got 1.5");
}

TEST_CASE("rng: multinomial: seeded, frequencies, zero weights, without replacement") {
  const Tensor w = from({2, 4}, {1, 0, 3, 4, 0, 0, 5, 0});
  manual_seed(9);
  const Tensor a = multinomial(w, 6000, true);
  manual_seed(9);
  CHECK(values(multinomial(w, 6000, true)) == values(a));
  CHECK(a.shape() == Shape{2, 6000});
  CHECK(a.dtype() == DType::Int32);
  std::map<int, int> row0;
  for (int64_t i = 0; i < 6000; ++i) {
    ++row0[int(a.at(i))];
    CHECK(a.at(6000 + i) == 2);  // the only category with weight in row 1
  }
  CHECK(row0.count(1) == 0);
  // Expected 750, 2250, 3000 (weights 1:3:4 of 8): within 5 binomial sds.
  CHECK(std::fabs(row0[0] - 750) < 5 * 25.6);
  CHECK(std::fabs(row0[2] - 2250) < 5 * 37.5);
  CHECK(std::fabs(row0[3] - 3000) < 5 * 38.7);
  // Without replacement: distinct, nonzero-weight categories; over many draws the first pick
  // follows the weights.
  std::map<int, int> first;
  for (int rep = 0; rep < 4000; ++rep) {
    const Tensor d = multinomial(from({4}, {1, 0, 3, 4}), 3, false);
    std::set<int> seen;
    for (int64_t i = 0; i < 3; ++i) seen.insert(int(d.at(i)));
    CHECK(seen == std::set<int>{0, 2, 3});
    ++first[int(d.at(0))];
  }
  CHECK(std::fabs(first[3] - 2000) < 5 * 31.6);
  CHECK(std::fabs(first[0] - 500) < 5 * 20.9);
}
