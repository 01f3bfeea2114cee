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
// Both directions are branch-free: every case is computed and the right one selected, so that a
// loop of conversions (a cast run, a GEMM operand widened) compiles to vector selects instead of
// a branch per element (the branchy float16 rounding made a float16 GEMM 1.19x float32's time
// against 1.03x for bfloat16, whose rounding was branch-free already).
inline float f16_to_f32(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t nonsign = h & 0x7fffu;
  // Normal: rebias the exponent (15 → 127) by adding 112 << 23 under the shifted bits.
  const uint32_t normal = (nonsign << 13) + 0x38000000u;
  // Inf / NaN: exponent all ones, the mantissa (NaN payload, quiet bit) kept.
  const uint32_t special = (nonsign << 13) | 0x7f800000u;
  // Subnormal or zero: mant · 2^-24, exactly: 0.5 + mant · 2^-24 has the bits 126 << 23 | mant,
  // and subtracting 0.5 is exact (Sterbenz).
  const uint32_t subnormal = f32_bits(f32_from_bits(0x3f000000u | nonsign) - 0.5f);
  const uint32_t bits = nonsign >= 0x7c00u ? special : nonsign >= 0x0400u ? normal : subnormal;
  return f32_from_bits(sign | bits);
}

inline uint16_t f32_to_f16(float f) {
  const uint32_t u = f32_bits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t abs = u & 0x7fffffffu;
  // Normal: rebias the exponent (127 → 15) and round the 13 dropped bits to nearest even (a
  // carry out of the mantissa steps the exponent, correctly).
  const uint32_t normal = (abs + 0xfffu + ((abs >> 13) & 1u) - 0x38000000u) >> 13;
  // Below the smallest normal (2^-14): a subnormal or zero. Adding 0.5 makes the FPU round the
  // value to a multiple of 2^-24 (binary16's subnormal step) to nearest even, exactly; the sum's
  // low bits are then the float16 bits. (Computed for every lane, used only for these.)
  const uint32_t subnormal = f32_bits(f32_from_bits(abs) + 0.5f) - 0x3f000000u;
  uint32_t bits = abs < 0x38800000u ? subnormal : normal;
  bits = abs >= 0x477ff000u ? 0x7c00u : bits;  // rounds to ±inf (≥ 65520)
  bits = abs > 0x7f800000u ? 0x7e00u : bits;   // NaN: quiet, sign kept
  return static_cast<uint16_t>(sign | bits);
}

}  // namespace sg
