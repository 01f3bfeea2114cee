// Holds the loaded wasm Module and the raw heap access: copying a handle's elements out
// of the heap and into a fresh handle. Heap views are taken right before each copy because
// memory growth detaches every view made earlier (TOOLCHAIN.md).
import type { DType, SimdgradModule, TensorHandle } from './embind.js';
import { sharedHeapBuffer } from './threads.js';

let loaded: SimdgradModule | null = null;

export function setModule(m: SimdgradModule): void {
  loaded = m;
}

export function mod(): SimdgradModule {
  if (!loaded) throw new Error('simdgrad is not initialized: call `await init()` first');
  return loaded;
}

export function isLoaded(): boolean {
  return loaded !== null;
}

export type TypedData = Float32Array | Int32Array | Uint8Array;

/**
 * The heap's buffer now. In the threaded module it is read from the memory itself: a worker
 * thread that grows the heap replaces the buffer, and HEAPU8 on this thread still shows the old
 * one until the Emscripten glue next refreshes it.
 */
export function heapBuffer(): ArrayBuffer {
  const m = mod();
  return (sharedHeapBuffer(m) ?? m.HEAPU8.buffer) as ArrayBuffer;
}

/** A copy of a handle's elements in row-major order: Float32Array, Int32Array or Uint8Array (bool). */
export function readHandle(h: TensorHandle): TypedData {
  const dtype = h.dtype();
  const n = h.numel();
  if (n === 0) return emptyOf(dtype);
  if (!h.isContiguous()) {
    // Strided views are read through a contiguous copy, deleted right after.
    const c = mod().callOp('contiguous', [h], {})[0]!;
    try {
      return readContiguous(c, dtype, n);
    } finally {
      c.delete();
    }
  }
  return readContiguous(h, dtype, n);
}

function readContiguous(h: TensorHandle, dtype: DType, n: number): TypedData {
  const ptr = h.dataPtr();
  const buf = heapBuffer();
  if (dtype === 'float32') return new Float32Array(buf, ptr, n).slice();
  if (dtype === 'int32') return new Int32Array(buf, ptr, n).slice();
  return new Uint8Array(buf, ptr, n).slice();
}

function emptyOf(dtype: DType): TypedData {
  if (dtype === 'float32') return new Float32Array(0);
  if (dtype === 'int32') return new Int32Array(0);
  return new Uint8Array(0);
}

/**
 * A new contiguous handle of `shape`/`dtype` holding `values` (already converted: numbers
 * for float32/int32, 0/1 for bool). ArrayLike so both number[] and TypedArrays copy directly.
 */
export function handleFrom(values: ArrayLike<number>, shape: number[], dtype: DType): TensorHandle {
  const h = mod().empty(shape, dtype);
  try {
    const n = values.length;
    if (n > 0) {
      const ptr = h.dataPtr();
      const buf = heapBuffer();
      if (dtype === 'float32') new Float32Array(buf, ptr, n).set(values);
      else if (dtype === 'int32') new Int32Array(buf, ptr, n).set(values);
      else new Uint8Array(buf, ptr, n).set(values);
    }
    return h;
  } catch (e) {
    h.delete();
    throw e;
  }
}
