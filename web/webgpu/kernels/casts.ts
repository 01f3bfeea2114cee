// Strided copies with a cast between any two GPU dtypes, and fills: the twins of
// src/kernels/reference/data_copy.cpp (DataKernels::copy_strided, fill), bit for bit
// (elements.ts has the element access and the conversions).
//
// A destination of 1- or 2-byte elements that is contiguous and starts on a word takes the packed
// path: one invocation per destination word, which computes the word's 4 (or 2) elements and
// stores it whole; only a last, partial word is merged with atomics (it may hold a neighbour's
// elements). Any other destination is written one element per invocation (atomics on the word).
import type { BufferLike } from '../gpu_types.js';
import { Params } from '../params.js';
import { ENTRY, prelude } from './prelude.js';
import { coalesce, contiguousStrides, declare, groupsFor, operand, pad8, STRIDED, type KernelContext, type KernelFn } from './common.js';
import { BOOL, CONVERT, I64, U8, bytesOf, castRaw, isFloatCode, narrow, rawRead, rawWrite, wordType } from './elements.js';

/** A tensor operand: its buffer, element offset, dtype code and strides. */
interface Strided {
  buffer: BufferLike;
  at: number;
  dtype: number;
  strides: number[];
}

/**
 * Writes dst[e] = cast(source(e)) for every flat index e of `shape`. The source is a tensor or,
 * for fills, a value in flight held in parameter words 4–5 (`constant`: float32 bits, or an int64
 * as low and high words).
 */
function castCopy(ctx: KernelContext, shape: number[], dst: Strided, src: Strided | { constant: 'f' | 'l'; words: [number, number] }): void {
  const n = shape.reduce((p, s) => p * s, 1);
  if (n === 0) return;
  const db = bytesOf(dst.dtype);
  const fromTensor = 'buffer' in src;
  const lists = fromTensor ? [src.strides, dst.strides] : [dst.strides];
  const c = coalesce(shape, lists);
  if (c.shape.length === 0) c.shape.push(1), c.strides.forEach((s) => s.push(0));
  const dstStrides = c.strides[c.strides.length - 1];
  const per = 4 / db;
  const packed = db < 4 && dst.at % per === 0 && sameList(dstStrides, contiguousStrides(c.shape));
  const p = new Params().u(n).u(c.shape.length).u(fromTensor ? src.at : 0).u(dst.at);
  p.u(fromTensor ? 0 : src.words[0]).u(fromTensor ? 0 : src.words[1]).u(Math.ceil(n / per));
  while (p.length < 16) p.u(0);
  p.ints(pad8(c.shape)).ints(pad8(fromTensor ? c.strides[0] : [])).ints(pad8(dstStrides));

  // The element at flat index `e` as raw bits of dst's dtype.
  let value: (e: string) => string;
  let inputs = '';
  if (fromTensor) {
    const sb = bytesOf(src.dtype);
    inputs = declare([{ name: 'IN', type: 'u32' }, { name: 'OUT', type: wordType(db, true), write: true }]) + rawRead('IN', sb);
    value = (e) => castRaw(src.dtype, dst.dtype, `IN_get(u32(i32(pu(2u)) + strided(${e}, 24u)))`);
  } else {
    inputs = declare([{ name: 'OUT', type: wordType(db, true), write: true }]);
    const v = src.constant === 'f' ? 'pu(4u)' : 'vec2<u32>(pu(4u), pu(5u))';
    value = () => narrow(src.constant === 'f', dst.dtype, v);
  }
  const bits = 8 * db;
  const body = packed
    ? /* wgsl */ `
  if (id >= pu(6u)) { return; }
  let first = id * ${per}u;
  let count = min(${per}u, pu(0u) - first);
  var word = 0u;
  for (var j = 0u; j < count; j++) {
    word = word | (${value('first + j')} << (j * ${bits}u));
  }
  let w = pu(3u) / ${per}u + id;
  if (count == ${per}u) { atomicStore(&OUT[w], word); }
  else {
    let mask = (1u << (count * ${bits}u)) - 1u;
    atomicAnd(&OUT[w], ~mask);
    atomicOr(&OUT[w], word);
  }`
    : /* wgsl */ `
  if (id >= pu(0u)) { return; }
  OUT_put(u32(i32(pu(3u)) + strided(id, 32u)), ${value('id')});`;
  const key = `cast|${fromTensor ? src.dtype : src.constant}>${dst.dtype}|${packed ? 'packed' : 'each'}`;
  const nBindings = fromTensor ? 2 : 1;
  ctx.dispatch(
    {
      key,
      access: fromTensor ? ['read', 'write'] : ['write'],
      code: () => inputs + rawWrite('OUT', db) + prelude(nBindings) + CONVERT + STRIDED + ENTRY(body),
    },
    fromTensor ? [src.buffer, dst.buffer] : [dst.buffer],
    p,
    groupsFor(packed ? Math.ceil(n / per) : n),
  );
}

const sameList = (a: number[], b: number[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/** A double as the value in flight a fill of `dtype` stores (DataKernels::fill's narrow_to). */
function fillValue(dtype: number, v: number): { constant: 'f' | 'l'; words: [number, number] } {
  if (isFloatCode(dtype)) {
    // float32 and the 16-bit floats round the double once through float (as PyTorch's fill_).
    return { constant: 'f', words: [new Uint32Array(new Float32Array([v]).buffer)[0]!, 0] };
  }
  if (dtype === BOOL) return { constant: 'l', words: [v !== 0 ? 1 : 0, 0] }; // NaN is nonzero: true
  // static_cast<intN_t>(double) as the wasm build computes it: truncation while |v| < 2^31 (2^63
  // for int64), else INT_MIN of that width; int8 wraps from int32; uint8 converts unsigned (0 ≤ v
  // < 2^32, else 0) and keeps the low byte.
  const lim = dtype === I64 ? 2 ** 63 : 2 ** 31;
  let t = Math.abs(v) < lim ? BigInt(Math.trunc(v)) : dtype === I64 ? -(2n ** 63n) : -(2n ** 31n);
  if (dtype === U8) t = v >= 0 && v < 2 ** 32 ? BigInt(Math.trunc(v)) : 0n;
  const u = BigInt.asUintN(64, t);
  return { constant: 'l', words: [Number(u & 0xffffffffn), Number(u >> 32n)] };
}

export const casts: Record<string, KernelFn> = {
  copy_strided(ctx, a) {
    const shape = a.list(), dstStrides = a.list(), srcStrides = a.list();
    const dstType = a.num(), srcType = a.num();
    const src = operand(ctx, a, bytesOf(srcType));
    const dst = operand(ctx, a, bytesOf(dstType));
    const n = shape.reduce((p, s) => p * s, 1);
    const eb = bytesOf(dstType);
    const contiguous = (s: number[]) => {
      const c = coalesce(shape, [s]);
      return sameList(c.strides[0], contiguousStrides(c.shape));
    };
    // Same dtype, both contiguous, distinct buffers: a buffer copy (runtime.copyBytes).
    if (srcType === dstType && src.buffer !== dst.buffer && n > 0 && contiguous(srcStrides) && contiguous(dstStrides)) {
      ctx.copy(src.buffer, src.at * eb, dst.buffer, dst.at * eb, n * eb);
      return;
    }
    castCopy(ctx, shape, { ...dst, dtype: dstType, strides: dstStrides }, { ...src, dtype: srcType, strides: srcStrides });
  },

  fill(ctx, a) {
    const dtype = a.num();
    const value = a.num();
    const dst = operand(ctx, a, bytesOf(dtype));
    const n = a.num();
    castCopy(ctx, [n], { ...dst, dtype, strides: [1] }, fillValue(dtype, value));
  },
};
