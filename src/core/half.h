// float16 and bfloat16 as storage formats: conversions to and from float32, rounding to nearest
// even once, as PyTorch's CPU kernels do (c10::Half uses the FP16 library's
// fp16_ieee_from_fp32_value; c10::BFloat16 round_to_nearest_even). Kernels widen on load, compute
// in float32 and round on store. These scalar functions are the reference every vectorized or
// WGSL twin is compared with, bit for bit.
#pragma once
#include <cstdint>
#include <cstring>

namespace sg {

inline uint32_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float f32_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// bfloat16 is float32's upper half: widening is exact.
inline float bf16_to_f32(uint16_t h) { return f32_from_bits(uint32_t(h) << 16); }

inline uint16_t f32_to_bf16(float f) {
  const uint32_t u = f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;  // NaN: a quiet NaN (sign dropped, as c10)
  const uint32_t rounding_bias = ((u >> 16) & 1u) + 0x7fffu;
  return static_cast<uint16_t>((u + rounding_bias) >> 16);
}

// IEEE binary16: 1 sign, 5 exponent, 10 mantissa bits.
inline float f16_to_f32(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return f32_from_bits(sign | 0x7f800000u | (mant << 13));  // inf / NaN
  if (exp != 0) return f32_from_bits(sign | ((exp + 112) << 23) | (mant << 13));
  if (mant == 0) return f32_from_bits(sign);  // ±0
  // Subnormal: normalise the mantissa.
  int e = -1;
  do {
    ++e;
    mant <<= 1;
  } while ((mant & 0x400u) == 0);
  return f32_from_bits(sign | uint32_t(112 - e) << 23 | ((mant & 0x3ffu) << 13));
}

inline uint16_t f32_to_f16(float f) {
  const uint32_t u = f32_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN: quiet, sign kept
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to ±inf (≥ 65520)
  if (abs < 0x38800000u) {
    // Below the smallest normal (2^-14): a subnormal or zero. Adding 0.5 makes the FPU round the
    // value to a multiple of 2^-24 (binary16's subnormal step) to nearest even, exactly.
    const float r = f32_from_bits(abs) + 0.5f;
    return static_cast<uint16_t>(sign | (f32_bits(r) - 0x3f000000u));
  }
  // Normal: rebias the exponent (127 → 15) and round the 13 dropped bits to nearest even.
  const uint32_t odd = (abs >> 13) & 1u;
  const uint32_t rounded = abs + 0xfffu + odd;
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

}  // namespace sg
