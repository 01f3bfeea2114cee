// In-place writes into a tensor's storage through the wasm heap, and raw random draws from
// the library generator. This is how sg.nn.init and loadStateDict change parameters without
// recording a graph (PyTorch does the same under torch.no_grad()).
import * as H from '../runtime/handles.js';
import { mod } from '../runtime/module.js';
import { placeOn } from '../runtime/webgpu_device.js';
import { describe } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { activeTrace } from '../compile/trace_state.js';

/** Throws unless `t` is a live, contiguous tensor (heap writes need one flat block). */
export function checkWritable(fn: string, t: unknown): Tensor {
  if (!(t instanceof Tensor) || t.isDisposed) throw new Error(`${fn}: expected a Tensor, got ${describe(t)}`);
  if (!H.isContiguousHandle(t.handle)) {
    throw new Error(`${fn}: cannot write in place into a strided view of shape [${t.shape.join(', ')}] (use a contiguous tensor)`);
  }
  return t;
}

/** Throws when `t` existed before the sg.compile trace now running: a compiled function would write it only while it is traced, never on its calls. */
export function refuseTracedWrite(fn: string, t: Tensor): void {
  const trace = activeTrace();
  if (trace !== null && t.id <= trace.startSerial) {
    throw new Error(`${fn}: cannot write into an existing tensor inside sg.compile (the write would happen once, while tracing); do it outside the compiled function`);
  }
}

/** A value as a bool element: true unless it is zero (NaN is true, as PyTorch's bool(nan)). */
const truthy = (v: number | bigint): number => (v === 0 || v === 0n ? 0 : 1);

/** Copies `values` (row-major, converted to t's dtype) into t's storage. */
export function writeInto(fn: string, t: Tensor, values: ArrayLike<number> | ArrayLike<bigint>): void {
  checkWritable(fn, t);
  refuseTracedWrite(fn, t);
  const n = t.numel;
  if (values.length !== n) throw new Error(`${fn}: expected ${n} values for shape [${t.shape.join(', ')}], got ${values.length}`);
  if (t.device !== 'cpu') {
    // A device tensor: the values go up as a tensor of their own, then into t on the device.
    const dtype = t.dtype;
    const nums = values as ArrayLike<number>; // only float32, int32 and bool live on a device
    const typed = dtype === 'float32' ? Float32Array.from(nums) : dtype === 'int32' ? Int32Array.from(nums) : Uint8Array.from(nums, truthy);
    const up = placeOn(H.handleFrom(typed, t.shape, dtype), t.device);
    try {
      mod().copyInto(t.handle, up);
    } finally {
      H.releaseHandle(up);
    }
    return;
  }
  if (t.dtype === 'bool') {
    const bits = new Uint8Array(n);
    for (let i = 0; i < n; i++) bits[i] = truthy(values[i]!);
    H.writeHandle(t.handle, bits);
  } else {
    H.writeHandle(t.handle, values);
  }
}

/** dst ← src in place on any devices (src moved to dst's device first). */
export function copyTensorInto(dst: Tensor, src: Tensor): void {
  refuseTracedWrite('copy', dst);
  const moved = placeOn(H.detachHandle(src.handle), dst.device);
  try {
    mod().copyInto(dst.handle, moved);
  } finally {
    H.releaseHandle(moved);
  }
}

/** n draws of 'rand' (U[0, 1)) or 'randn' (N(0, 1)) from the library generator (see sg.manualSeed). */
export function draw(op: 'rand' | 'randn', n: number, dtype: 'float32' | 'float64' = 'float32'): Float32Array | Float64Array {
  if (n === 0) return dtype === 'float64' ? new Float64Array(0) : new Float32Array(0);
  const h = H.callOp1(op, [], { shape: [n], device: 'cpu', dtype });
  try {
    return H.readHandle(h) as Float32Array | Float64Array;
  } finally {
    H.releaseHandle(h);
  }
}
