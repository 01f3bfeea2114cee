// Lifetime of JS tensors: the live count, tidy scopes, keep(), and the FinalizationRegistry
// backstop that deletes the handle of a tensor the program forgot to dispose. Tensor
// (tensor.ts) reports each creation and disposal here; this file never imports it at run time.
import type { TensorHandle } from './embind.js';
import { heapBuffer, mod } from './module.js';

/** What this file needs of a tensor. */
export interface Owned {
  dispose(): void;
  readonly isDisposed: boolean;
}

let live = 0;
const scopes: Set<Owned>[] = [];
const kept = new WeakSet<Owned>();

// Held value: the handle only (never the tensor, or the tensor could never be collected).
const registry =
  typeof FinalizationRegistry !== 'undefined'
    ? new FinalizationRegistry<TensorHandle>((h) => {
        live--;
        try {
          h.delete();
        } catch {
          // The module may be gone (e.g. at process exit): nothing left to free.
        }
      })
    : null;

/** Called by the Tensor constructor. */
export function onCreate(t: Owned, h: TensorHandle): void {
  live++;
  registry?.register(t, h, t);
  const top = scopes[scopes.length - 1];
  if (top) top.add(t);
}

/** Called when a tensor takes a new handle in place of its old one (Tensor._moveTo). */
export function onReplace(t: Owned, h: TensorHandle): void {
  registry?.unregister(t);
  registry?.register(t, h, t);
}

/** Called once by Tensor.dispose(), before the handle is deleted. */
export function onDispose(t: Owned): void {
  live--;
  registry?.unregister(t);
  for (const s of scopes) s.delete(t);
}

/** Marks a tensor so that no enclosing tidy() disposes it. */
export function keep<T extends Owned>(t: T): T {
  kept.add(t);
  return t;
}

/** Every object reachable from `value` through arrays, plain objects, Maps and Sets. */
function reachable(value: unknown, out: Set<unknown>): void {
  if (value === null || typeof value !== 'object' || out.has(value)) return;
  out.add(value);
  if (Array.isArray(value)) for (const v of value) reachable(v, out);
  else if (value instanceof Map) for (const v of value.values()) reachable(v, out);
  else if (value instanceof Set) for (const v of value) reachable(v, out);
  else if (Object.getPrototypeOf(value) === Object.prototype) for (const v of Object.values(value)) reachable(v, out);
}

function isPromiseLike(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';
}

/**
 * Runs fn and disposes every tensor created during it, except those it returns (found in
 * arrays, plain objects, Maps and Sets) and those passed to keep(). Returned tensors join the
 * enclosing scope, so nested tidies compose. fn must be synchronous.
 */
export function tidy<T>(fn: () => T): T;
export function tidy<T>(name: string, fn: () => T): T;
export function tidy<T>(a: string | (() => T), b?: () => T): T {
  const fn = typeof a === 'function' ? a : b;
  if (typeof fn !== 'function') throw new Error(`tidy: expected a function (or a name and a function), got ${typeof a === 'string' ? typeof b : typeof a}`);
  const scope = new Set<Owned>();
  scopes.push(scope);
  let result: T;
  try {
    result = fn();
  } catch (e) {
    scopes.pop();
    release(scope, new Set());
    throw e;
  }
  scopes.pop();
  if (isPromiseLike(result)) {
    release(scope, new Set());
    throw new Error('tidy: fn must be synchronous (it returned a Promise); in async code use dispose() and keep()');
  }
  const returned = new Set<unknown>();
  reachable(result, returned);
  release(scope, returned);
  const parent = scopes[scopes.length - 1];
  if (parent) for (const t of scope) if (returned.has(t) && !t.isDisposed) parent.add(t);
  return result;
}

function release(scope: Set<Owned>, returned: Set<unknown>): void {
  for (const t of scope) if (!returned.has(t) && !kept.has(t)) t.dispose();
}

/** Disposes every tensor reachable from value (a tensor, or arrays/objects of tensors). */
export function dispose(value: unknown): void {
  const all = new Set<unknown>();
  reachable(value, all);
  for (const v of all) {
    const o = v as Partial<Owned>;
    if (typeof o.dispose === 'function' && 'isDisposed' in o) o.dispose();
  }
}

export interface MemoryInfo {
  /** Bytes of live WebGPU tensor storage (not in `bytes`; sg.webgpuStats() has the GPU buffers). */
  gpuBytes: number;
  /** Live WebGPU storages (not in `storages`). */
  gpuStorages: number;
  /** Live JS Tensor objects (created and not yet disposed or collected). */
  tensors: number;
  /** Bytes of live C++ storage (views share their base's storage). */
  bytes: number;
  /** Live C++ storages. */
  storages: number;
  /** Highest `bytes` seen so far. */
  peakBytes: number;
  /**
   * Size of the whole wasm heap (linear memory) in bytes. It grows on demand and never
   * shrinks: flat across a long loop means no leak below the tensor level (graphs, caches).
   */
  heapBytes: number;
  /**
   * Bytes of the heap in use by malloc (tensors, autograd graphs, the allocator's cache,
   * everything): flat = no leak.
   */
  heapUsed: number;
  /**
   * Bytes of freed tensor buffers the caching allocator keeps for reuse (not counted in
   * `bytes`, counted in `heapUsed`). A training loop reuses them step after step instead of
   * going to malloc; the cache is capped (256 MiB) and released by {@link emptyCache}.
   */
  cachedBytes: number;
}

export function memory(): MemoryInfo {
  const m = mod();
  const s = m.memoryStats();
  return {
    tensors: live,
    bytes: s.bytes,
    storages: s.storages,
    peakBytes: s.peakBytes,
    heapBytes: heapBuffer().byteLength,
    heapUsed: s.heapUsed,
    cachedBytes: s.cachedBytes,
    gpuBytes: s.deviceBytes ?? 0,
    gpuStorages: s.deviceStorages ?? 0,
  };
}

/**
 * Gives every buffer the caching allocator keeps for reuse back to malloc (as PyTorch's
 * `torch.cuda.empty_cache()`): `memory().cachedBytes` drops to 0 and `heapUsed` by as much.
 * Live tensors are untouched. The wasm heap itself never shrinks, but the freed space serves
 * later allocations of any size. Only needed after a phase with large temporaries that will
 * not recur; an allocation that fails empties the cache and retries on its own.
 */
export function emptyCache(): void {
  mod().emptyCache();
}
