// Contiguous runs of float16/bfloat16 <-> float32 conversions (the casts of core/copy.cpp's
// contiguous runs: every 16-bit operand widened at the dispatch point, every result narrowed).
// On wasm, eight elements a step in SIMD128 with the arithmetic of core/half.h's scalar functions
// lane by lane (so bit for bit theirs: checked on every float32 and float16 bit pattern); the
// tails, and other targets, use the scalar functions.
#pragma once
#include <cstdint>

#include "core/half.h"
#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace sg {

// Measured in a standalone wasm loop (2^20 elements, V8's optimizing tier, the best of 30 rounds
// interleaved with the former branchy scalar code, load ~4): float32 -> float16 0.86 -> 0.66 ms,
// float16 -> float32 1.28 -> 0.83 ms, float32 -> bfloat16 0.38 -> 0.26 ms (a float32 copy: ~0.1 ms).
// clang already vectorized part of the scalar loops, so the gain is 1.3-1.5x, not more.
#ifdef __wasm_simd128__
namespace half_simd {
inline v128_t u32(uint32_t v) { return wasm_u32x4_splat(v); }

// Four binary16 values (zero-extended to 32 bits) → float32 bits.
inline v128_t f16x4_to_f32x4(v128_t h) {
  const v128_t sign = wasm_i32x4_shl(wasm_v128_and(h, u32(0x8000u)), 16);
  const v128_t nonsign = wasm_v128_and(h, u32(0x7fffu));
  const v128_t shifted = wasm_i32x4_shl(nonsign, 13);
  const v128_t normal = wasm_i32x4_add(shifted, u32(0x38000000u));
  const v128_t special = wasm_v128_or(shifted, u32(0x7f800000u));
  const v128_t subnormal = wasm_f32x4_sub(wasm_v128_or(nonsign, u32(0x3f000000u)), wasm_f32x4_splat(0.5f));
  v128_t bits = wasm_v128_bitselect(normal, subnormal, wasm_u32x4_ge(nonsign, u32(0x0400u)));
  bits = wasm_v128_bitselect(special, bits, wasm_u32x4_ge(nonsign, u32(0x7c00u)));
  return wasm_v128_or(sign, bits);
}

// Four float32 values → binary16 bits (in the low halves of the lanes).
inline v128_t f32x4_to_f16x4(v128_t u) {
  const v128_t sign = wasm_v128_and(wasm_u32x4_shr(u, 16), u32(0x8000u));
  const v128_t abs = wasm_v128_and(u, u32(0x7fffffffu));
  const v128_t odd = wasm_v128_and(wasm_u32x4_shr(abs, 13), u32(1u));
  const v128_t normal =
      wasm_u32x4_shr(wasm_i32x4_sub(wasm_i32x4_add(wasm_i32x4_add(abs, u32(0xfffu)), odd), u32(0x38000000u)), 13);
  const v128_t subnormal = wasm_i32x4_sub(wasm_f32x4_add(abs, wasm_f32x4_splat(0.5f)), u32(0x3f000000u));
  v128_t bits = wasm_v128_bitselect(subnormal, normal, wasm_u32x4_lt(abs, u32(0x38800000u)));
  bits = wasm_v128_bitselect(u32(0x7c00u), bits, wasm_u32x4_ge(abs, u32(0x477ff000u)));
  bits = wasm_v128_bitselect(u32(0x7e00u), bits, wasm_u32x4_gt(abs, u32(0x7f800000u)));
  return wasm_v128_or(sign, bits);
}

// Four float32 values → bfloat16 bits (in the low halves of the lanes).
inline v128_t f32x4_to_bf16x4(v128_t u) {
  const v128_t lsb = wasm_v128_and(wasm_u32x4_shr(u, 16), u32(1u));
  const v128_t rounded = wasm_u32x4_shr(wasm_i32x4_add(wasm_i32x4_add(u, u32(0x7fffu)), lsb), 16);
  const v128_t nan = wasm_u32x4_gt(wasm_v128_and(u, u32(0x7fffffffu)), u32(0x7f800000u));
  return wasm_v128_bitselect(u32(0x7fc0u), rounded, nan);
}
}  // namespace half_simd
#endif

inline void f16_to_f32_run(const uint16_t* __restrict__ s, float* __restrict__ d, int64_t n) {
  int64_t j = 0;
#ifdef __wasm_simd128__
  for (; j + 8 <= n; j += 8) {
    const v128_t h = wasm_v128_load(s + j);
    wasm_v128_store(d + j, half_simd::f16x4_to_f32x4(wasm_u32x4_extend_low_u16x8(h)));
    wasm_v128_store(d + j + 4, half_simd::f16x4_to_f32x4(wasm_u32x4_extend_high_u16x8(h)));
  }
#endif
  for (; j < n; ++j) d[j] = f16_to_f32(s[j]);
}

// float32 → float16 (F16) or bfloat16 bits; the signed-saturating narrow of the SIMD path keeps
// every lane as it is (each is at most 0xffff).
template <bool F16>
inline void f32_to_16bit_run(const float* __restrict__ s, uint16_t* __restrict__ d, int64_t n) {
  int64_t j = 0;
#ifdef __wasm_simd128__
  const auto lanes = [](v128_t u) { return F16 ? half_simd::f32x4_to_f16x4(u) : half_simd::f32x4_to_bf16x4(u); };
  for (; j + 8 <= n; j += 8)
    wasm_v128_store(d + j, wasm_u16x8_narrow_i32x4(lanes(wasm_v128_load(s + j)), lanes(wasm_v128_load(s + j + 4))));
#endif
  for (; j < n; ++j) d[j] = F16 ? f32_to_f16(s[j]) : f32_to_bf16(s[j]);
}

inline void f32_to_f16_run(const float* __restrict__ s, uint16_t* __restrict__ d, int64_t n) {
  f32_to_16bit_run<true>(s, d, n);
}
inline void f32_to_bf16_run(const float* __restrict__ s, uint16_t* __restrict__ d, int64_t n) {
  f32_to_16bit_run<false>(s, d, n);
}

}  // namespace sg
