// A probe for relaxed SIMD, independent of simdgrad's build: a 56-byte module assembled by wabt's
// wat2wasm (--enable-relaxed-simd) from
//   (module (func (export "madd") (param f32 f32 f32) (result f32)
//     local.get 0 f32x4.splat local.get 1 f32x4.splat local.get 2 f32x4.splat
//     f32x4.relaxed_madd f32x4.extract_lane 0))
// WebAssembly.validate(RELAXED_MADD_MODULE) says whether this engine takes relaxed SIMD at all;
// relaxedMaddFuses() whether its relaxed_madd rounds once (an FMA) or twice (mul, then add).
export const RELAXED_MADD_MODULE = Uint8Array.from([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 96, 3, 125, 125, 125, 1, 125, 3, 2, 1, 0, 7, 8, 1, 4, 109, 97, 100, 100, 0, 0, 10,
  22, 1, 20, 0, 32, 0, 253, 19, 32, 1, 253, 19, 32, 2, 253, 19, 253, 133, 2, 253, 31, 0, 11,
]);

/**
 * a = 1 + 2^-12: a·a = 1 + 2^-11 + 2^-24 exactly, which float32 rounds (a tie, to even) to
 * 1 + 2^-11; so a·a − (1 + 2^-11) is 2^-24 fused and 0 when the product is rounded first.
 */
export function relaxedMaddFuses() {
  const { madd } = new WebAssembly.Instance(new WebAssembly.Module(RELAXED_MADD_MODULE)).exports;
  const a = 1 + 2 ** -12;
  return madd(a, a, -(1 + 2 ** -11)) !== 0;
}
