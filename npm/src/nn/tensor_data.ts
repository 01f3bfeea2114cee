// In-place writes into a tensor's storage through the wasm heap, and raw random draws from
// the library generator. This is how sg.nn.init and loadStateDict change parameters without
// recording a graph (PyTorch does the same under torch.no_grad()).
import type { TensorHandle } from '../embind.js';
import { mod, readHandle } from '../module.js';
import { describe } from '../options.js';
import { Tensor } from '../tensor.js';
import { activeTrace } from '../compile_state.js';

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
  // A compiled function would write only while it is traced, never on its calls.
  const trace = activeTrace();
  if (trace !== null && t.id <= trace.startSerial) {
    throw new Error(`${fn}: cannot write into an existing tensor inside sg.compile (the write would happen once, while tracing); do it outside the compiled function`);
  }
  const h = t.handle;
  const n = h.numel();
  if (values.length !== n) throw new Error(`${fn}: expected ${n} values for shape [${t.shape.join(', ')}], got ${values.length}`);
  if (n === 0) return;
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

/** n draws of 'rand' (U[0, 1)) or 'randn' (N(0, 1)) from the library generator (see sg.manualSeed). */
export function draw(op: 'rand' | 'randn', n: number): Float32Array {
  if (n === 0) return new Float32Array(0);
  const h: TensorHandle = mod().callOp(op, [], { shape: [n] })[0]!;
  try {
    return readHandle(h) as Float32Array;
  } finally {
    h.delete();
  }
}
