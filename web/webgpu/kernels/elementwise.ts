// Elementwise kernels: float unary/binary math (broadcast through strides), int32 math,
// comparisons and selection, and the byte copy of unaligned transfers. Twins of
// src/kernels/reference/{elementwise,data_int}.cpp (fills and casting copies: casts.ts).
//
// Strided kernels share one parameter layout: word 0 the element count, 1 the dims, 2..15 the
// kernel's own scalars, 16..23 the shape, then 8 words of strides per operand from word 24.
import type { BufferLike } from '../gpu_types.js';
import { Params } from '../params.js';
import { BINARY, MATH, MATH_FN, MATH_MORE, MODULO_F32, MODULO_I32, MODULO_WGSL, UNARY } from './math.js';
import { BOOL, ENTRY, F32, I32, byteRead, byteWrite, load, prelude, wgslType } from './prelude.js';
import { coalesce, groupsFor, operand, pad8, STRIDED, type KernelFn } from './common.js';
import { attachBinary, attachUnary, flushGemm } from './gemm.js';

const bind = (i: number, name: string, type: string, write: boolean) =>
  `@group(0) @binding(${i}) var<storage, ${write ? 'read_write' : 'read'}> ${name}: array<${type}>;\n`;

/** WGSL storing `value` (f32, i32 or u32 0/1) at element `i` of OUT of `dtype`. */
const store = (dtype: number, i: string, value: string) =>
  dtype === BOOL ? `OUT_set_byte(${i}, ${value});` : `OUT[${i}] = ${value};`;

/** Bindings and helpers of a kernel reading `ins` (dtype per input, named IN0…) and writing OUT. */
function header(ins: number[], out: number, extra = ''): string {
  let s = '';
  ins.forEach((d, k) => {
    s += bind(k, `IN${k}`, wgslType(d), false);
    if (d === BOOL) s += byteRead(`IN${k}`);
  });
  s += bind(ins.length, 'OUT', wgslType(out, true), true);
  if (out === BOOL) s += byteWrite('OUT');
  return s + prelude(ins.length + 1) + MATH + extra + STRIDED + IPOW;
}

const access = (n: number) => [...new Array(n).fill('read'), 'write'] as const;

/** Element byte size of a dtype code. */
const bytesOf = (dtype: number) => (dtype === BOOL ? 1 : 4);

/** Dispatches a strided kernel: out (contiguous, element offset `outAt`) over `shape`. */
function strided(
  ctx: Parameters<KernelFn>[0],
  key: string,
  body: string,
  ins: { buffer: BufferLike; at: number; dtype: number; strides: number[] }[],
  out: { buffer: BufferLike; at: number; dtype: number; strides?: number[] },
  shape: number[],
  scalars: Params = new Params(),
  extra = '',
): void {
  const n = shape.reduce((p, s) => p * s, 1);
  if (n === 0) return;
  const lists = ins.map((x) => x.strides);
  if (out.strides) lists.push(out.strides);
  const c = coalesce(shape, lists);
  const p = new Params().u(n).u(c.shape.length);
  for (const x of ins) p.u(x.at);
  p.u(out.at);
  for (let k = 0; k < scalars.length; k++) p.u(scalars.words[k]);
  while (p.length < 16) p.u(0);
  p.ints(pad8(c.shape));
  for (const s of c.strides) p.ints(pad8(s));
  const dtypes = ins.map((x) => x.dtype);
  ctx.dispatch(
    {
      key: `${key}|${dtypes.join(',')}>${out.dtype}`,
      access: access(ins.length),
      code: () => header(dtypes, out.dtype, extra) + ENTRY(`  if (id >= pu(0u)) { return; }\n${body}`),
    },
    [...ins.map((x) => x.buffer), out.buffer],
    p,
    groupsFor(n),
  );
}

// Offsets of operand k inside a strided kernel: IN_k at word 2 + k, strides at 24 + 8k.
const off = (k: number) => `u32(i32(pu(${2 + k}u)) + strided(id, ${24 + 8 * k}u))`;

export const elementwise: Record<string, KernelFn> = {
  unary_f32(ctx, a) {
    const op = a.num();
    const param = a.num();
    const x = operand(ctx, a);
    const y = operand(ctx, a);
    const n = a.num();
    // After a product writing x: fused into its write-back (the runtime held the product back).
    if (attachUnary(ctx, op, param, x, y, n)) return;
    flushGemm(ctx);
    strided(ctx, `unary${op}`, `  let x = IN0[${off(0)}];\n  let p = pf(4u);\n  OUT[pu(3u) + id] = ${UNARY[op]};`,
      [{ ...x, dtype: F32, strides: [1] }], { ...y, dtype: F32 }, [n], new Params().f(param));
  },

  binary_f32(ctx, a) {
    const op = a.num();
    const shape = a.list(), as = a.list(), bs = a.list();
    const x = operand(ctx, a), y = operand(ctx, a), out = operand(ctx, a);
    // One side the output of a product just before: fused into its write-back (gemm.ts).
    if (attachBinary(ctx, op, shape, as, bs, x, y, out)) return;
    flushGemm(ctx);
    strided(ctx, `binary${op}`, `  let a = IN0[${off(0)}];\n  let b = IN1[${off(1)}];\n  OUT[pu(4u) + id] = ${BINARY[op]};`,
      [{ ...x, dtype: F32, strides: as }, { ...y, dtype: F32, strides: bs }], { ...out, dtype: F32 }, shape);
  },

  math_f32(ctx, a) {
    const fn = a.num();
    const x = operand(ctx, a);
    const y = operand(ctx, a);
    const n = a.num();
    strided(ctx, `math${fn}`, `  let x = IN0[${off(0)}];\n  OUT[pu(3u) + id] = ${MATH_FN[fn]};`,
      [{ ...x, dtype: F32, strides: [1] }], { ...y, dtype: F32 }, [n], new Params(), MATH_MORE);
  },

  atan2_f32(ctx, a) {
    const shape = a.list(), as = a.list(), bs = a.list();
    const x = operand(ctx, a), y = operand(ctx, a), out = operand(ctx, a);
    strided(ctx, 'atan2', `  let a = IN0[${off(0)}];\n  let b = IN1[${off(1)}];\n  OUT[pu(4u) + id] = atan2_f(a, b);`,
      [{ ...x, dtype: F32, strides: as }, { ...y, dtype: F32, strides: bs }], { ...out, dtype: F32 }, shape, new Params(), MATH_MORE);
  },

  modulo(ctx, a) {
    const op = a.num(), dtype = a.num();
    const shape = a.list(), as = a.list(), bs = a.list();
    const x = operand(ctx, a), y = operand(ctx, a), out = operand(ctx, a);
    const expr = (dtype === F32 ? MODULO_F32 : MODULO_I32)[op];
    strided(ctx, `modulo${op}`, `  let a = IN0[${off(0)}];\n  let b = IN1[${off(1)}];\n  OUT[pu(4u) + id] = ${expr};`,
      [{ ...x, dtype, strides: as }, { ...y, dtype, strides: bs }], { ...out, dtype }, shape, new Params(), MODULO_WGSL);
  },

  /** Byte copy for unaligned transfers (runtime.copyBytes): args srcOffset, dstOffset, bytes. */
  copy_bytes_raw(ctx, a, raw) {
    const [src, dst] = raw!;
    const srcAt = a.num(), dstAt = a.num(), n = a.num();
    strided(ctx, 'bytes', `  ${store(BOOL, 'pu(3u) + id', load(BOOL, 'IN0', 'pu(2u) + id'))}`,
      [{ buffer: src, at: srcAt, dtype: BOOL, strides: [1] }], { buffer: dst, at: dstAt, dtype: BOOL }, [n]);
  },

  unary_i32(ctx, a) {
    const op = a.num();
    const x = operand(ctx, a), y = operand(ctx, a);
    const n = a.num();
    const expr = ['-x', 'abs(x)', 'sign(x)', 'x * x', 'max(x, 0)', '~x'][op];
    strided(ctx, `iunary${op}`, `  let x = IN0[pu(2u) + id];\n  OUT[pu(3u) + id] = ${expr};`,
      [{ ...x, dtype: I32, strides: [1] }], { ...y, dtype: I32 }, [n]);
  },

  binary_i32(ctx, a) {
    const op = a.num();
    const shape = a.list(), as = a.list(), bs = a.list();
    const x = operand(ctx, a), y = operand(ctx, a);
    const outType = a.num();
    const out = operand(ctx, a, bytesOf(outType));
    // In the order of IntBinary (kernels/data_kernels.h).
    const expr = ['a + b', 'a - b', 'a * b', 'ipow(a, b)', 'max(a, b)', 'min(a, b)', 'a & b', 'a | b', 'a ^ b',
      'ishl(a, b)', 'ishr(a, b)', 'igcd(a, b)', 'ilcm(a, b)'][op];
    const v = outType === BOOL ? `select(0u, 1u, ${expr} != 0)` : expr;
    strided(ctx, `ibinary${op}`,
      `  let a = IN0[${off(0)}];\n  let b = IN1[${off(1)}];\n  ${store(outType, 'pu(4u) + id', v)}`,
      [{ ...x, dtype: I32, strides: as }, { ...y, dtype: I32, strides: bs }], { ...out, dtype: outType }, shape);
  },

  compare(ctx, a) {
    const op = a.num(), dtype = a.num();
    const shape = a.list(), as = a.list(), bs = a.list();
    const x = operand(ctx, a, bytesOf(dtype)), y = operand(ctx, a, bytesOf(dtype));
    const out = operand(ctx, a, 1);
    const cmp = ['==', '!=', '<', '<=', '>', '>='][op];
    const nanCase = dtype === F32 ? `if (is_nan(a) || is_nan(b)) { r = ${op === 1 ? 'true' : 'false'}; }` : '';
    strided(ctx, `compare${op}`,
      `  let a = ${load(dtype, 'IN0', off(0))};\n  let b = ${load(dtype, 'IN1', off(1))};\n` +
        `  var r = a ${cmp} b;\n  ${nanCase}\n  ${store(BOOL, 'pu(4u) + id', 'select(0u, 1u, r)')}`,
      [{ ...x, dtype, strides: as }, { ...y, dtype, strides: bs }], { ...out, dtype: BOOL }, shape);
  },

  select(ctx, a) {
    const dtype = a.num();
    const shape = a.list(), cs = a.list(), as = a.list(), bs = a.list();
    const c = operand(ctx, a, 1), x = operand(ctx, a, bytesOf(dtype)), y = operand(ctx, a, bytesOf(dtype));
    const out = operand(ctx, a, bytesOf(dtype));
    strided(ctx, 'select',
      `  let c = ${load(BOOL, 'IN0', off(0))};\n  let a = ${load(dtype, 'IN1', off(1))};\n  let b = ${load(dtype, 'IN2', off(2))};\n` +
        `  ${store(dtype, 'pu(5u) + id', 'select(b, a, c != 0u)')}`,
      [{ ...c, dtype: BOOL, strides: cs }, { ...x, dtype, strides: as }, { ...y, dtype, strides: bs }],
      { ...out, dtype }, shape);
  },
};

// Integer power by squaring, wrapping as the reference's int64 arithmetic truncated to 32 bits.
// (Negative exponents are rejected before the kernel runs: checks.ts.)
export const IPOW = /* wgsl */ `
fn ipow(base0: i32, e0: i32) -> i32 {
  var r = 1; var b = base0; var e = e0;
  if (e < 0) { return 0; }
  loop { if (e <= 0) { break; } if ((e & 1) == 1) { r = r * b; } b = b * b; e = e >> 1; }
  return r;
}
// Shifts by an amount outside [0, 32) give 0 (left) or the sign fill (right), as the reference
// (WGSL itself would take the amount mod 32).
fn ishl(a: i32, s: i32) -> i32 {
  if (s < 0 || s >= 32) { return 0; }
  return a << u32(s);
}
fn ishr(a: i32, s: i32) -> i32 {
  if (s < 0 || s >= 32) { return select(0, -1, a < 0); }
  return a >> u32(s);
}
// c10's calc_gcd in wrapping int32 (abs(INT32_MIN) stays INT32_MIN, as there) and lcm from it.
fn igcd(a0: i32, b0: i32) -> i32 {
  var a = abs(a0); var b = abs(b0);
  loop { if (a == 0) { break; } let c = a; a = b % a; b = c; }
  return b;
}
fn ilcm(a: i32, b: i32) -> i32 {
  let g = igcd(a, b);
  if (g == 0) { return 0; }
  return abs((a / g) * b);
}
`;
