// Distances in units in the last place of float16/bfloat16, for the tests that compare 16-bit
// results with PyTorch's float32 computation rounded once (where one ulp is a rounding the other
// way of a float32 result that differs from PyTorch's in its last bits).
import assert from 'node:assert/strict';

/** Units in the last place of `dtype` (float16 or bfloat16) between got and want (0 where equal). */
export function ulps16(dtype, got, want) {
  if (got === want) return 0;
  const [mant, minExp] = dtype === 'float16' ? [10, -14] : [7, -126];
  const m = Math.max(Math.abs(got), Math.abs(want));
  return Math.abs(got - want) / 2 ** (Math.max(Math.floor(Math.log2(m)), minExp) - mant);
}

/** Asserts each of got is within one ulp of want's value (a reference spec: dtype, values). */
export function withinOneUlp(what, got, want) {
  got.forEach((v, k) => assert.ok(ulps16(want.dtype, v, want.values[k]) <= 1, `${what}[${k}]: got ${v}, want ${want.values[k]}`));
}
