// Tensor elements as ONNX TensorProto raw_data (little-endian, as wasm stores them), for
// sg.onnx.export's initializers: float16 and bfloat16 from the float32 values simdgrad reads them as.
import type { DType, TensorHandle } from '../runtime/embind.js';
import * as H from '../runtime/handles.js';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float32 value (one that float16 holds exactly: it was read from a float16 tensor) → its float16 bits. */
export function halfBits(v: number): number {
  f32[0] = v;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    return sign | Math.round((mant | 0x800000) / 2 ** (14 - e));
  }
  return sign | (e << 10) | Math.round(mant / 8192);
}

/** float32 value (read from a bfloat16 tensor) → its bfloat16 bits. */
export function bfloatBits(v: number): number {
  f32[0] = v;
  return u32[0]! >>> 16;
}

/** A tensor's elements as raw_data. */
export function rawBytes(id: TensorHandle, dtype: DType): Uint8Array {
  const data = H.readHandle(id) as ArrayLike<number> | BigInt64Array;
  if (dtype === 'float16' || dtype === 'bfloat16') {
    const src = data as ArrayLike<number>;
    const out = new Uint16Array(src.length);
    for (let i = 0; i < src.length; i++) out[i] = dtype === 'bfloat16' ? bfloatBits(src[i]!) : halfBits(src[i]!);
    return new Uint8Array(out.buffer);
  }
  if (dtype === 'bool') return Uint8Array.from(data as ArrayLike<number>, (v) => (v ? 1 : 0));
  const view = data as unknown as ArrayBufferView;
  return new Uint8Array(view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength));
}

/** One value of dtype as raw_data (a 0-d initializer). */
export function scalarBytes(value: number, dtype: DType): Uint8Array {
  switch (dtype) {
    case 'float64': return new Uint8Array(Float64Array.of(value).buffer);
    case 'float16': return new Uint8Array(Uint16Array.of(halfBits(value)).buffer);
    case 'bfloat16': return new Uint8Array(Uint16Array.of(bfloatBits(value)).buffer);
    case 'int64': return new Uint8Array(BigInt64Array.of(BigInt(value)).buffer);
    case 'int32': return new Uint8Array(Int32Array.of(value).buffer);
    case 'int8': return new Uint8Array(Int8Array.of(value).buffer);
    case 'uint8': return Uint8Array.of(value);
    case 'bool': return Uint8Array.of(value ? 1 : 0);
    default: return new Uint8Array(Float32Array.of(value).buffer);
  }
}
