// In-place writes into a tensor's storage through the wasm heap, and raw random draws from
// the library generator. This is how sg.nn.init and loadStateDict change parameters without
// recording a graph (PyTorch does the same under torch.no_grad()).
import type { TensorHandle } from '../embind.js';
import { handleFrom, mod, readHandle } from '../module.js';
import { placeOn } from '../webgpu/device.js';
import { describe } from '../options.js';
import { Tensor } from '../tensor.js';

/** Throws unless `t` is a live, contiguous tensor (heap writes need one flat block). */
export function checkWritable(fn: string, t: unknown): Tensor {
  if (!(t instanceof Tensor) || t.isDisposed) throw new Error(`${fn}: expected a Tensor, got ${describe(t)}`);
  if (!t.handle.isContiguous()) {
    throw new Error(`${fn}: cannot write in place into a strided view of shape [${t.shape.join(', ')}] (use a contiguous tensor)`);
  }
  return t;
}

/** Copies `values` (row-major, converted to t's dtype) into t's storage. */
export function writeInto(fn: string, t: Tensor, values: ArrayLike<number>): void {
  checkWritable(fn, t);
  const h = t.handle;
  const n = h.numel();
  if (values.length !== n) throw new Error(`${fn}: expected ${n} values for shape [${t.shape.join(', ')}], got ${values.length}`);
  if (n === 0) return;
  const dtype0 = h.dtype();
  if (h.device() !== 'cpu') {
    // A device tensor: the values go up as a tensor of their own, then into t on the device.
    const values32 = dtype0 === 'float32' ? Float32Array.from(values) : dtype0 === 'int32' ? Int32Array.from(values) : Uint8Array.from(values, (v) => (v ? 1 : 0));
    const up = placeOn(handleFrom(values32, t.shape, dtype0), h.device());
    try {
      mod().copyInto(h, up);
    } finally {
      up.delete();
    }
    return;
  }
  const ptr = h.dataPtr();
  // The heap view is made right here: memory growth detaches older views.
  const buf = mod().HEAPU8.buffer as ArrayBuffer;
  const dtype = h.dtype();
  if (dtype === 'float32') new Float32Array(buf, ptr, n).set(values);
  else if (dtype === 'int32') new Int32Array(buf, ptr, n).set(values);
  else {
    const out = new Uint8Array(buf, ptr, n);
    for (let i = 0; i < n; i++) out[i] = values[i] ? 1 : 0;
  }
}

/** dst ← src in place on any devices (src moved to dst's device first). */
export function copyTensorInto(dst: Tensor, src: Tensor): void {
  const detached = src.handle.detach();
  const moved = placeOn(detached, dst.device);
  try {
    mod().copyInto(dst.handle, moved);
  } finally {
    moved.delete();
  }
}

/** n draws of 'rand' (U[0, 1)) or 'randn' (N(0, 1)) from the library generator (see sg.manualSeed). */
export function draw(op: 'rand' | 'randn', n: number): Float32Array {
  if (n === 0) return new Float32Array(0);
  const h: TensorHandle = mod().callOp(op, [], { shape: [n], device: 'cpu' })[0]!;
  try {
    return readHandle(h) as Float32Array;
  } finally {
    h.delete();
  }
}
