// The loaded wasm module and its memory: the module object, its plain exports resolved to the
// wasm functions themselves, the heap buffer, and the scratch area through which handles.ts
// passes a call's arguments and results (bindings/README.md). Everything that concerns a tensor
// goes through handles.ts; the rest of the JS layer calls only the module-wide Embind functions
// here (mod(): backends, seeds, memory stats, threads, optimizer steps, safetensors).
import type { RawExports, SimdgradModule } from './embind.js';
import { sharedHeapBuffer } from './threads.js';

let loaded: SimdgradModule | null = null;
let exportsOf: RawExports | null = null;

/** The plain exports the JS layer calls, by their names without the `_sg_` prefix. */
const RAW_NAMES: readonly (keyof RawExports)[] = [
  'take_error', 'scratch', 'scratch_size', 'intern', 'call_op', 'optim_prepare', 'optim_group_set_attrs',
  'optim_group_step', 'optim_group_free', 'empty', 'scalar',
  'release', 'share', 'same', 'live_handles', 'dtype', 'promote_types', 'device', 'shape', 'strides', 'is_contiguous',
  'data_ptr', 'item', 'requires_grad', 'set_requires_grad', 'is_leaf', 'grad_fn_name', 'grad', 'set_grad',
  'retain_grad', 'detach', 'is_grad_enabled', 'set_grad_enabled',
];

/**
 * Emscripten 3.1.6 installs each export as a trampoline that replaces itself with the wasm
 * function on its first call (Module._sg_x = asm["minified name"]). Each entry here does that
 * first call, then points at the wasm function, so the hot path calls wasm directly.
 */
function resolveExports(m: SimdgradModule): RawExports {
  const out: Record<string, unknown> = {};
  const table = m as unknown as Record<string, (...args: number[]) => number>;
  for (const name of RAW_NAMES) {
    const key = `_sg_${name}`;
    if (typeof table[key] !== 'function') throw new Error(`simdgrad: the wasm module lacks ${key} (rebuild it with scripts/build.sh wasm)`);
    out[name] = (...args: number[]) => {
      const r = table[key]!(...args);
      out[name] = table[key];
      return r;
    };
  }
  return out as unknown as RawExports;
}

export function setModule(m: SimdgradModule): void {
  if (m === loaded) return;
  loaded = m;
  exportsOf = resolveExports(m);
  idsView = wordsView = null;
  generation++;
}

export function mod(): SimdgradModule {
  if (!loaded) throw new Error('simdgrad is not initialized: call `await init()` first');
  return loaded;
}

/** The plain wasm exports (numbers in, numbers out). */
export function raw(): RawExports {
  if (!exportsOf) throw new Error('simdgrad is not initialized: call `await init()` first');
  return exportsOf;
}

export function isLoaded(): boolean {
  return loaded !== null;
}

let generation = 0;
/** Changes when another module is loaded: caches of module-specific numbers (op ids) compare it. */
export function moduleGeneration(): number {
  return generation;
}

/**
 * The heap's buffer now. In the threaded module it is read from the memory itself: a worker
 * thread that grows the heap replaces the buffer, and HEAPU8 on this thread still shows the old
 * one until the Emscripten glue next refreshes it.
 */
export function heapBuffer(): ArrayBuffer {
  const m = mod();
  return (sharedHeapBuffer(m) ?? m.HEAPU8.buffer) as ArrayBuffer;
}

// ---- the scratch area ----
// Views on the two C++ scratch buffers (bindings/op_call.cpp). A view dies with the buffer it
// was made on: when the (non-shared) heap grows, every older view has length 0, so each access
// checks that and makes a new one. Shared heaps never detach; the buffers sit low in memory.
let idsView: Int32Array | null = null;
let wordsView: Float64Array | null = null;

function view<T>(which: 0 | 1, min: number, make: (buf: ArrayBuffer, ptr: number, n: number) => T): T {
  const r = raw();
  const ptr = r.scratch(which, min);
  if (ptr < 0) throw takeError();
  return make(heapBuffer(), ptr, r.scratch_size(which));
}

/** The ids buffer (int32: handle ids in, result ids and dtype codes out), at least `min` long. */
export function ids(min = 0): Int32Array {
  let v = idsView;
  if (v === null || v.length < min || v.length === 0) {
    v = idsView = view(0, min, (b, p, n) => new Int32Array(b, p, n));
  }
  return v;
}

/** The words buffer (float64: attributes, shapes, values), at least `min` long. */
export function words(min = 0): Float64Array {
  let v = wordsView;
  if (v === null || v.length < min || v.length === 0) {
    v = wordsView = view(1, min, (b, p, n) => new Float64Array(b, p, n));
  }
  return v;
}

/** The NUL-terminated UTF-8 string at `ptr` in the heap. */
export function stringAt(ptr: number): string {
  const heap = new Uint8Array(heapBuffer());
  let end = ptr;
  while (heap[end] !== 0) end++;
  // A copy: TextDecoder refuses views on a SharedArrayBuffer (the threaded module's heap).
  return new TextDecoder().decode(heap.slice(ptr, end));
}

/** The Error of the call that just failed (its message was recorded by C++, set_pending_error). */
export function takeError(): Error {
  const ptr = raw().take_error();
  return new Error(ptr ? stringAt(ptr >>> 0) : 'simdgrad: a wasm call failed without a message');
}
