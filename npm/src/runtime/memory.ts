// Lifetime of JS tensors: the live count, tidy scopes, keep(), and the FinalizationRegistry
// backstop that releases the handle of a tensor the program forgot to dispose. Tensor
// (tensor.ts) reports each creation and disposal here; this file never imports it.
//
// Each tensor has one owner that frees it if the program does not: the innermost tidy scope it
// was made in, else the FinalizationRegistry. A tensor made inside tidy() is not registered
// with the registry at all (registering and unregistering cost more than a small op): it is
// registered only if it outlives every scope (returned from the outermost tidy, or kept).
import type { TensorHandle } from './embind.js';
import { releaseHandle } from './handles.js';
import { heapBuffer, mod } from './module.js';

/**
 * A tidy scope: the tensors made in it, in creation order (an array: a push per op is cheaper
 * than a Set's add and delete). One that leaves before the scope ends (disposed, kept) stays in
 * the list with another owner; the list is compacted before such entries pile up.
 */
export class Scope {
  items: Owned[] = [];
  private gone = 0;
  private closed = false;

  add(t: Owned): void {
    this.items.push(t);
    t.owner = this;
  }

  /** Called once t.owner is no longer this scope. */
  left(): void {
    if (++this.gone > 1024 && this.gone * 2 > this.items.length && !this.closed) {
      this.items = this.items.filter((t) => t.owner === this);
      this.gone = 0;
    }
  }

  /** The tensors still owned; the scope is over (no more compaction). */
  close(): Owned[] {
    this.closed = true;
    return this.items;
  }
}

/** What this file needs of a tensor. */
export interface Owned {
  dispose(): void;
  readonly isDisposed: boolean;
  /** The handle id (read only while the tensor is alive). */
  readonly handle: TensorHandle;
  /** @internal Who frees it if the program forgets: a tidy scope, the registry, or nobody (disposed). */
  owner: Scope | 'registry' | null;
}

let live = 0;
const scopes: Scope[] = [];

// Held value: the id only (never the tensor, or the tensor could never be collected).
const registry =
  typeof FinalizationRegistry !== 'undefined'
    ? new FinalizationRegistry<TensorHandle>((id) => {
        live--;
        try {
          releaseHandle(id);
        } catch {
          // The module may be gone (e.g. at process exit): nothing left to free.
        }
      })
    : null;

function register(t: Owned): void {
  if (registry === null) {
    t.owner = null;
    return;
  }
  registry.register(t, t.handle, t);
  t.owner = 'registry';
}

/** Called when a tensor takes a new handle in place of its old one (Tensor._moveTo). */
export function onReplace(t: Owned): void {
  if (t.owner !== 'registry') return; // a scope disposes whatever handle it holds then
  registry!.unregister(t);
  registry!.register(t, t.handle, t);
}

/** Called by the Tensor constructor. */
export function onCreate(t: Owned): void {
  live++;
  const top = scopes[scopes.length - 1];
  if (top === undefined) register(t);
  else top.add(t);
}

/** Called once by Tensor.dispose(), before the handle is released. */
export function onDispose(t: Owned): void {
  live--;
  const owner = t.owner;
  t.owner = null;
  if (owner === 'registry') registry!.unregister(t);
  else if (owner !== null) owner.left();
}

/** Marks a tensor so that no enclosing tidy() disposes it (it leaves its scope for good). */
export function keep<T extends Owned>(t: T): T {
  const owner = t.owner;
  if (owner !== null && owner !== 'registry') {
    register(t);
    owner.left();
  }
  return t;
}

/** What a class instance that holds tensors (a PackedSequence) says of them: see {@link tensorHolder}. */
export interface HeldTensors {
  /** The tensors it holds, in a fixed order (no nulls). */
  tensors: Owned[];
  /** Its static part (sizes, flags), for sg.compile's cache key. */
  key: string;
  /** The same kind of object with these tensors (same order) in place of its own (sg.compile's results). */
  rebuild(tensors: readonly unknown[]): unknown;
}

/**
 * The method key under which a class instance lists the tensors it holds, so that tidy() keeps
 * them when the instance is returned, dispose() reaches them, and sg.compile passes them through
 * as graph inputs and results, as for a plain object.
 */
export const tensorHolder: unique symbol = Symbol('simdgrad.tensorHolder');

/** v[tensorHolder]() when v is such an instance, else null. */
export function heldTensorsOf(v: unknown): HeldTensors | null {
  if (v === null || typeof v !== 'object') return null;
  const f = (v as { [tensorHolder]?: () => HeldTensors })[tensorHolder];
  return typeof f === 'function' ? f.call(v) : null;
}

/** Every object reachable from `value` through arrays, plain objects, Maps, Sets and {@link tensorHolder} instances. */
function reachable(value: unknown, out: Set<unknown>): void {
  if (value === null || typeof value !== 'object' || out.has(value)) return;
  out.add(value);
  const held = heldTensorsOf(value);
  if (held !== null) for (const v of held.tensors) reachable(v, out);
  else if (Array.isArray(value)) for (const v of value) reachable(v, out);
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
  const scope = new Scope();
  scopes.push(scope);
  let result: T;
  try {
    result = fn();
  } catch (e) {
    scopes.pop();
    release(scope, null);
    throw e;
  }
  scopes.pop();
  if (isPromiseLike(result)) {
    release(scope, null);
    throw new Error('tidy: fn must be synchronous (it returned a Promise); in async code use dispose() and keep()');
  }
  const returned = new Set<unknown>();
  reachable(result, returned);
  release(scope, returned);
  return result;
}

/** Disposes the scope's tensors except those returned, which pass to the enclosing scope (or the registry). */
function release(scope: Scope, returned: Set<unknown> | null): void {
  const parent = scopes[scopes.length - 1];
  for (const t of scope.close()) {
    if (t.owner !== scope) continue;
    if (returned === null || !returned.has(t)) t.dispose();
    else if (parent === undefined) register(t);
    else parent.add(t);
  }
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
  /**
   * Live handle ids in the wasm module's table. Each Tensor holds exactly one, so this equals
   * `tensors` whenever no call is in progress: more would be an id leaked below the Tensor level.
   */
  handles: number;
}

export function memory(): MemoryInfo {
  const s = mod().memoryStats();
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
    handles: s.handles,
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

/** Sets memory().peakBytes to the bytes live now (PyTorch's reset_peak_memory_stats), to measure the peak of what follows. */
export function resetPeakMemory(): void {
  mod().resetPeakBytes();
}
