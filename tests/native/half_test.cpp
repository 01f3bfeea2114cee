// core/half.h: float32 → float16 / bfloat16 rounding against independent references. float16:
// the compiler's own _Float16 conversion (IEEE round to nearest even) where the compiler has it
// (g++ on x86; not Emscripten's clang 14), on every 65537th bit pattern plus the edges;
// bfloat16: a rounding written from the definition in double arithmetic (scale to an integer
// mantissa, std::nearbyint rounds half to even), on the same patterns.
#include <doctest/doctest.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <ios>
#include <vector>

#include "core/half.h"
#include "core/half_runs.h"

namespace {

std::vector<uint32_t> sample_bits() {
  std::vector<uint32_t> out;
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 65537) out.push_back(static_cast<uint32_t>(u));
  for (uint32_t edge : {0x00000000u, 0x80000000u, 0x00000001u, 0x007fffffu, 0x00800000u, 0x33000000u, 0x33000001u,
                        0x387fe000u, 0x38800000u, 0x477fe000u, 0x477fefffu, 0x477ff000u, 0x47800000u, 0x7f7fffffu,
                        0x7f800000u, 0xff800000u, 0x3f808000u, 0x3f818000u, 0x3f800fffu, 0x3f801000u, 0x3f803000u})
    out.push_back(edge);
  return out;
}

// bfloat16 by definition: the value rounded to 8 significant bits, half to even, in double
// (exact: a float's significand has 24 bits); overflow to infinity past bfloat16's largest.
float bf16_by_definition(float f) {
  if (std::isnan(f) || std::isinf(f) || f == 0.0f) return f;
  int e;
  std::frexp(f, &e);  // f = m · 2^e, 0.5 ≤ |m| < 1
  const int shift = 8 - e;  // keep 8 significant bits
  const int mode = std::fegetround();
  std::fesetround(FE_TONEAREST);
  double r = std::nearbyint(std::ldexp(double(f), shift));
  std::fesetround(mode);
  r = std::ldexp(r, -shift);
  // Below float32's normal range the bits kept are float32's own (bfloat16 shares its exponent).
  if (std::fabs(f) < 1.17549435e-38f) {
    const double step = std::ldexp(1.0, -133);  // bfloat16's subnormal step (2^-126 · 2^-7)
    std::fesetround(FE_TONEAREST);
    r = std::nearbyint(double(f) / step) * step;
    std::fesetround(mode);
  }
  return static_cast<float>(r);  // ±inf when it exceeds float32's range (the same in bfloat16)
}

}  // namespace

TEST_CASE("half: float32 to bfloat16 rounds to nearest even, as by definition; widening is exact") {
  for (uint32_t bits : sample_bits()) {
    const float f = sg::f32_from_bits(bits);
    const float got = sg::bf16_to_f32(sg::f32_to_bf16(f));
    if (std::isnan(f)) {
      CHECK(std::isnan(got));
      continue;
    }
    const float want = bf16_by_definition(f);
    if (sg::f32_bits(got) != sg::f32_bits(want)) FAIL_CHECK("bfloat16 of 0x" << std::hex << bits << ": got 0x" << sg::f32_bits(got) << ", want 0x" << sg::f32_bits(want));
  }
}

#if defined(__FLT16_MANT_DIG__) && !defined(__EMSCRIPTEN__)
TEST_CASE("half: float32 to float16 and back equal the compiler's _Float16 conversions") {
  for (uint32_t bits : sample_bits()) {
    const float f = sg::f32_from_bits(bits);
    const _Float16 ref = static_cast<_Float16>(f);
    const float want = static_cast<float>(ref);
    const float got = sg::f16_to_f32(sg::f32_to_f16(f));
    if (std::isnan(f)) {
      CHECK(std::isnan(got));
      continue;
    }
    if (sg::f32_bits(got) != sg::f32_bits(want)) FAIL_CHECK("float16 of 0x" << std::hex << bits << ": got 0x" << sg::f32_bits(got) << ", want 0x" << sg::f32_bits(want));
  }
}
#endif

namespace {

// binary16 bits by definition, in double: sign · m · 2^(e-25) rounded half to even to 11
// significant bits (10 below 2^-14, binary16's subnormal step 2^-24), infinity from 65520 on.
uint16_t f16_by_definition(float f) {
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  if (std::isnan(f)) return static_cast<uint16_t>(sign | 0x7e00);
  const double a = std::fabs(double(f));
  if (a >= 65520.0) return static_cast<uint16_t>(sign | 0x7c00);
  const int mode = std::fegetround();
  std::fesetround(FE_TONEAREST);
  uint16_t bits;
  if (a < std::ldexp(1.0, -14)) {
    bits = static_cast<uint16_t>(std::nearbyint(a / std::ldexp(1.0, -24)));  // 1024 is the smallest normal
  } else {
    int e;
    std::frexp(a, &e);  // a = m · 2^e, 0.5 ≤ m < 1
    double mant = std::nearbyint(std::ldexp(a, 11 - e));  // 11 significant bits: 1024 ≤ mant ≤ 2048
    if (mant == 2048.0) {
      mant = 1024.0;
      ++e;
    }
    bits = static_cast<uint16_t>(((e + 14) << 10) | (static_cast<int>(mant) - 1024));
  }
  std::fesetround(mode);
  return static_cast<uint16_t>(sign | bits);
}

}  // namespace

TEST_CASE("half: every float16 bit pattern widens to its value by definition (subnormals, infinities, NaN payloads)") {
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
    const double magnitude = e == 0 ? std::ldexp(double(m), -24) : std::ldexp(1.0 + m / 1024.0, int(e) - 15);
    const float got = sg::f16_to_f32(static_cast<uint16_t>(h));
    const bool negative = h & 0x8000;
    if (e == 0x1f && m != 0) {
      // NaN: the payload moves up 13 bits, the sign is kept.
      CHECK(sg::f32_bits(got) == ((negative ? 0x80000000u : 0u) | 0x7f800000u | (m << 13)));
      continue;
    }
    const double want = e == 0x1f ? INFINITY : magnitude;
    if (sg::f32_bits(got) != sg::f32_bits(static_cast<float>(negative ? -want : want)))
      FAIL_CHECK("float16 0x" << std::hex << h << ": got 0x" << sg::f32_bits(got));
  }
}

TEST_CASE("half: float32 to float16 rounds as by definition on every 257th bit pattern (any compiler)") {
  uint64_t wrong = 0;
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 257) {
    const float f = sg::f32_from_bits(static_cast<uint32_t>(u));
    const uint16_t got = sg::f32_to_f16(f), want = f16_by_definition(f);
    if (got != want && wrong++ < 8) FAIL_CHECK("float16 of 0x" << std::hex << u << ": got 0x" << got << ", want 0x" << want);
  }
  for (uint32_t bits : sample_bits()) {
    const float f = sg::f32_from_bits(bits);
    CHECK(sg::f32_to_f16(f) == f16_by_definition(f));
  }
  CHECK(wrong == 0);
}

TEST_CASE("half: the conversion runs (SIMD on wasm) equal the per-element conversions, tails included") {
  std::vector<uint16_t> h(65536 + 5);
  for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<uint16_t>(i);
  std::vector<float> wide(h.size());
  sg::f16_to_f32_run(h.data(), wide.data(), static_cast<int64_t>(h.size()));
  for (size_t i = 0; i < h.size(); ++i) CHECK(sg::f32_bits(wide[i]) == sg::f32_bits(sg::f16_to_f32(h[i])));
  std::vector<float> f;
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 4099) f.push_back(sg::f32_from_bits(static_cast<uint32_t>(u)));
  for (uint32_t bits : sample_bits()) f.push_back(sg::f32_from_bits(bits));
  std::vector<uint16_t> to16(f.size()), tobf(f.size());
  sg::f32_to_f16_run(f.data(), to16.data(), static_cast<int64_t>(f.size()));
  sg::f32_to_bf16_run(f.data(), tobf.data(), static_cast<int64_t>(f.size()));
  uint64_t wrong = 0;
  for (size_t i = 0; i < f.size(); ++i)
    wrong += (to16[i] != sg::f32_to_f16(f[i])) + (tobf[i] != sg::f32_to_bf16(f[i]));
  CHECK(wrong == 0);
}
