// Elements of every dtype in GPU buffers, and the casts between them, bit for bit as the CPU's
// (core/half.h, core/dtype_dispatch.h). WGSL has no 8-, 16- or 64-bit storage types (16-bit only
// with shader-f16), so every buffer is an array of u32 words: 1-byte elements (bool, int8, uint8)
// are packed four to a word, 2-byte ones (float16, bfloat16) two to a word, an int64 takes two
// words (low, high). A kernel that writes sub-word elements either owns whole words (casts.ts'
// packed path) or writes its element's bits with atomicAnd/atomicOr on the shared word, so
// neighbouring invocations never lose each other's bytes.
//
// Values in flight: a floating element is carried as the u32 bits of a float32 (exact for the
// 16-bit floats), an integer one as vec2<u32> (its int64 two's complement, low word first).
// Every conversion is done on those bits with integer arithmetic, so GPU float rounding modes,
// flushed subnormals and canonicalised NaNs never enter a cast.

// dtype codes of the C++ side (core/dtype.h: append-only).
export const F32 = 0;
export const I32 = 1;
export const BOOL = 2;
export const F16 = 3;
export const BF16 = 4;
export const F64 = 5;
export const I64 = 6;
export const I8 = 7;
export const U8 = 8;

export const DTYPE_NAMES = ['float32', 'int32', 'bool', 'float16', 'bfloat16', 'float64', 'int64', 'int8', 'uint8'];

/** Bytes of one element of `dtype` on the GPU (float64 has no GPU storage: WGSL has no f64). */
export function bytesOf(dtype: number): number {
  if (dtype === BOOL || dtype === I8 || dtype === U8) return 1;
  if (dtype === F16 || dtype === BF16) return 2;
  if (dtype === I64) return 8;
  if (dtype === F64) throw new Error('webgpu: float64 has no GPU storage (WGSL has no 64-bit floats)');
  return 4;
}

export const isFloatCode = (dtype: number) => dtype === F32 || dtype === F16 || dtype === BF16;

/**
 * WGSL reading element `i` (elements of `bytes` bytes) of the u32 array `buf` as raw bits:
 * `${buf}_get(i)` (u32, the element's bits in the low end) or, for 8 bytes, vec2<u32>.
 */
export function rawRead(buf: string, bytes: number): string {
  if (bytes === 1) return `fn ${buf}_get(i: u32) -> u32 { return (${buf}[i >> 2u] >> ((i & 3u) * 8u)) & 0xffu; }\n`;
  if (bytes === 2) return `fn ${buf}_get(i: u32) -> u32 { return (${buf}[i >> 1u] >> ((i & 1u) * 16u)) & 0xffffu; }\n`;
  if (bytes === 8) return `fn ${buf}_get(i: u32) -> vec2<u32> { return vec2<u32>(${buf}[2u * i], ${buf}[2u * i + 1u]); }\n`;
  return `fn ${buf}_get(i: u32) -> u32 { return ${buf}[i]; }\n`;
}

/**
 * WGSL writing raw bits to element `i` of array `buf`: `${buf}_put(i, v)`. Sub-word elements go
 * through atomics on their word (the array is array<atomic<u32>>), so only that element's bits
 * change; 4- and 8-byte elements are plain stores (array<u32>).
 */
export function rawWrite(buf: string, bytes: number): string {
  if (bytes === 1 || bytes === 2) {
    const per = 4 / bytes, bits = 8 * bytes, mask = bytes === 1 ? '0xffu' : '0xffffu';
    return /* wgsl */ `fn ${buf}_put(i: u32, v: u32) {
  let w = i / ${per}u;
  let sh = (i % ${per}u) * ${bits}u;
  atomicAnd(&${buf}[w], ~(${mask} << sh));
  atomicOr(&${buf}[w], (v & ${mask}) << sh);
}
`;
  }
  if (bytes === 8) return `fn ${buf}_put(i: u32, v: vec2<u32>) { ${buf}[2u * i] = v.x; ${buf}[2u * i + 1u] = v.y; }\n`;
  return `fn ${buf}_put(i: u32, v: u32) { ${buf}[i] = v; }\n`;
}

/** The WGSL element type of a buffer of `bytes`-byte elements (written: atomics below 4 bytes). */
export const wordType = (bytes: number, write: boolean) => (write && bytes < 4 ? 'atomic<u32>' : 'u32');

// The conversions. Names: f = float32 bits (u32), l = int64 as vec2<u32> (low, high).
export const CONVERT = /* wgsl */ `
// core/half.h's f16_to_f32 (exact; subnormals normalised).
fn cv_f16_to_f(h: u32) -> u32 {
  let sign = (h & 0x8000u) << 16u;
  let e = (h >> 10u) & 0x1fu;
  let m = h & 0x3ffu;
  if (e == 0x1fu) { return sign | 0x7f800000u | (m << 13u); }
  if (e != 0u) { return sign | ((e + 112u) << 23u) | (m << 13u); }
  if (m == 0u) { return sign; }
  let s = countLeadingZeros(m) - 21u; // shifts that bring the leading bit to bit 10
  return sign | ((113u - s) << 23u) | (((m << s) & 0x3ffu) << 13u);
}
// core/half.h's f32_to_f16: round to nearest even once; NaN quiet with its sign, ≥ 65520 to inf.
fn cv_f_to_f16(u: u32) -> u32 {
  let sign = (u >> 16u) & 0x8000u;
  let a = u & 0x7fffffffu;
  if (a > 0x7f800000u) { return sign | 0x7e00u; }
  if (a >= 0x477ff000u) { return sign | 0x7c00u; }
  if (a < 0x38800000u) {
    // Below 2^-14: a multiple of 2^-24 (binary16's subnormal step), to nearest even. The value
    // is m·2^(e−150), so the multiple is m / 2^(126−e); below e = 102 it rounds to 0.
    let e = a >> 23u;
    if (e < 102u) { return sign; }
    let m = (a & 0x7fffffu) | 0x800000u;
    let sh = 126u - e;
    var q = m >> sh;
    let rem = m & ((1u << sh) - 1u);
    let half = 1u << (sh - 1u);
    if (rem > half || (rem == half && (q & 1u) == 1u)) { q += 1u; }
    return sign | q;
  }
  let odd = (a >> 13u) & 1u;
  return sign | ((a + 0xfffu + odd - 0x38000000u) >> 13u);
}
fn cv_bf16_to_f(h: u32) -> u32 { return h << 16u; }
// core/half.h's f32_to_bf16: NaN becomes 0x7fc0 (sign dropped, as c10).
fn cv_f_to_bf16(u: u32) -> u32 {
  if ((u & 0x7fffffffu) > 0x7f800000u) { return 0x7fc0u; }
  return (u + ((u >> 16u) & 1u) + 0x7fffu) >> 16u;
}
fn l_from_i32(v: i32) -> vec2<u32> { return vec2<u32>(bitcast<u32>(v), select(0u, 0xffffffffu, v < 0)); }
fn l_neg(v: vec2<u32>) -> vec2<u32> {
  let lo = ~v.x + 1u;
  return vec2<u32>(lo, ~v.y + select(0u, 1u, lo == 0u));
}
fn l_shr(v: vec2<u32>, s: u32) -> vec2<u32> {
  if (s == 0u) { return v; }
  if (s >= 64u) { return vec2<u32>(0u, 0u); }
  if (s >= 32u) { return vec2<u32>(v.y >> (s - 32u), 0u); }
  return vec2<u32>((v.x >> s) | (v.y << (32u - s)), v.y >> s);
}
fn l_shl(v: vec2<u32>, s: u32) -> vec2<u32> {
  if (s == 0u) { return v; }
  if (s >= 64u) { return vec2<u32>(0u, 0u); }
  if (s >= 32u) { return vec2<u32>(0u, v.x << (s - 32u)); }
  return vec2<u32>(v.x << s, (v.y << s) | (v.x >> (32u - s)));
}
// static_cast<float>(int64): round to nearest even (exact below 2^24).
fn cv_l_to_f(v: vec2<u32>) -> u32 {
  let neg = (v.y >> 31u) == 1u;
  let m = select(v, l_neg(v), neg); // |v| as unsigned (2^63 for INT64_MIN)
  let sign = select(0u, 0x80000000u, neg);
  if (m.x == 0u && m.y == 0u) { return 0u; }
  var p: u32; // the leading bit's position
  if (m.y != 0u) { p = 63u - countLeadingZeros(m.y); } else { p = 31u - countLeadingZeros(m.x); }
  if (p <= 23u) { return sign | ((p + 127u) << 23u) | ((m.x << (23u - p)) & 0x7fffffu); }
  let sh = p - 23u;
  var q = l_shr(m, sh).x;
  let upto_half = l_shr(m, sh - 1u);
  let half = (upto_half.x & 1u) == 1u;
  let back = l_shl(upto_half, sh - 1u);
  let sticky = back.x != m.x || back.y != m.y;
  if (half && (sticky || (q & 1u) == 1u)) { q += 1u; }
  if (q == 0x1000000u) { q = q >> 1u; p += 1u; }
  return sign | ((p + 127u) << 23u) | (q & 0x7fffffu);
}
// static_cast<intN_t>(float) as the wasm build computes it (no non-trapping conversions):
// truncation toward zero while |x| < 2^lim (lim 31: int32 and, through int32, int8; 63: int64),
// else INT_MIN of that width (NaN too).
fn cv_f_to_l(u: u32, lim: u32) -> vec2<u32> {
  let a = u & 0x7fffffffu;
  if (a >= ((lim + 127u) << 23u)) {
    if (lim == 31u) { return l_from_i32(-2147483647 - 1); }
    return vec2<u32>(0u, 0x80000000u);
  }
  let e = a >> 23u;
  if (e < 127u) { return vec2<u32>(0u, 0u); }
  let m = vec2<u32>((a & 0x7fffffu) | 0x800000u, 0u);
  var mag: vec2<u32>;
  if (e >= 150u) { mag = l_shl(m, e - 150u); } else { mag = l_shr(m, 150u - e); }
  return select(mag, l_neg(mag), (u >> 31u) == 1u);
}
// static_cast<uint8_t>(float) there: an unsigned conversion, truncation while 0 ≤ x < 2^32, else
// 0 (negative values and NaN too), then the low byte.
fn cv_f_to_u8(u: u32) -> u32 {
  if ((u >> 31u) == 1u || (u & 0x7fffffffu) >= 0x4f800000u) { return 0u; }
  return cv_f_to_l(u, 63u).x & 0xffu;
}
`;

/** WGSL turning the raw bits `raw` of a `dtype` element into its value in flight (f or l). */
export function widen(dtype: number, raw: string): string {
  switch (dtype) {
    case F32: return raw;
    case F16: return `cv_f16_to_f(${raw})`;
    case BF16: return `cv_bf16_to_f(${raw})`;
    case I32: return `l_from_i32(bitcast<i32>(${raw}))`;
    case I8: return `l_from_i32(bitcast<i32>(${raw} << 24u) >> 24u)`;
    case BOOL: case U8: return `vec2<u32>(${raw}, 0u)`;
    case I64: return raw;
  }
  throw new Error(`webgpu: internal error: no GPU storage for dtype code ${dtype}`);
}

/**
 * WGSL turning a value in flight `v` (f when `fromFloat`, else l) into the raw bits of a `to`
 * element, as core/dtype_dispatch.h's narrow_to: to bool nonzero (NaN too), to the 16-bit floats
 * through float32 (rounded once), to an integer by truncation (wrapping to the width).
 */
export function narrow(fromFloat: boolean, to: number, v: string): string {
  if (fromFloat) {
    switch (to) {
      case F32: return v;
      case F16: return `cv_f_to_f16(${v})`;
      case BF16: return `cv_f_to_bf16(${v})`;
      case BOOL: return `select(0u, 1u, (${v} & 0x7fffffffu) != 0u)`;
      case I32: return `cv_f_to_l(${v}, 31u).x`;
      case I8: return `(cv_f_to_l(${v}, 31u).x & 0xffu)`;
      case U8: return `cv_f_to_u8(${v})`;
      case I64: return `cv_f_to_l(${v}, 63u)`;
    }
  } else {
    switch (to) {
      case F32: return `cv_l_to_f(${v})`;
      case F16: return `cv_f_to_f16(cv_l_to_f(${v}))`;
      case BF16: return `cv_f_to_bf16(cv_l_to_f(${v}))`;
      case BOOL: return `select(0u, 1u, (${v}.x | ${v}.y) != 0u)`;
      case I32: return `${v}.x`;
      case I8: case U8: return `(${v}.x & 0xffu)`;
      case I64: return v;
    }
  }
  throw new Error(`webgpu: internal error: no GPU storage for dtype code ${to}`);
}

/** WGSL of a cast of raw `from` bits to raw `to` bits (identical dtypes: the bits as they are). */
export function castRaw(from: number, to: number, raw: string): string {
  if (from === to) return raw;
  return narrow(isFloatCode(from), to, widen(from, raw));
}
