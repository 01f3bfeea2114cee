// Threads: which wasm module is loaded (the default single-threaded one, or the threaded one
// built with -pthread, dist/mt/simdgrad-mt.mjs), and the checks and steps init({ threads })
// takes before the C++ pool (src/core/parallel.h) may start threads.
import type { SimdgradModule } from './embind.js';
import { isInteger } from './options.js';

/** The most threads init({ threads }) accepts (the C++ pool's kMaxThreads). */
export const MAX_THREADS = 16;

/** A valid `threads` option: an integer from 1 to MAX_THREADS. */
export function isThreadCount(n: unknown): n is number {
  return isInteger(n) && n >= 1 && n <= MAX_THREADS;
}

/**
 * Why threads cannot run here, or null when they can. Threads share the wasm memory through a
 * SharedArrayBuffer, which browsers only provide on cross-origin isolated pages.
 */
export function threadsUnavailableReason(): string | null {
  const g = globalThis as { crossOriginIsolated?: boolean; SharedArrayBuffer?: unknown; document?: unknown };
  if (g.crossOriginIsolated === false) {
    return (
      'this page is not cross-origin isolated (crossOriginIsolated is false), so SharedArrayBuffer is unavailable; ' +
      "serve it with the headers 'Cross-Origin-Opener-Policy: same-origin' and 'Cross-Origin-Embedder-Policy: require-corp'"
    );
  }
  if (typeof g.SharedArrayBuffer !== 'function') {
    return 'SharedArrayBuffer is missing in this environment (browsers provide it only on cross-origin isolated pages: COOP/COEP headers)';
  }
  return null;
}

/** The extra functions of the threaded module (web/emscripten/mt-post.js). */
interface ThreadControl {
  ensureIdleWorkers(count: number): Promise<void>;
  unrefWorkers(): void;
  terminateWorkers(): void;
  memory(): { buffer: ArrayBufferLike };
}

function control(m: SimdgradModule): ThreadControl | null {
  return (m as unknown as { sgThreads?: ThreadControl }).sgThreads ?? null;
}

export function isThreadedModule(m: SimdgradModule): boolean {
  return control(m) !== null && m.threadsSupported();
}

/**
 * Runs the C++ pool with n threads (the caller included). Loads the Web Workers the new threads
 * need first: each must have instantiated the module before a thread can start on it, and that
 * happens asynchronously. In Node the workers are then unref'd, so that a script ends by itself.
 */
export async function startThreads(m: SimdgradModule, n: number): Promise<void> {
  const c = control(m);
  if (c === null) throw new Error('init: internal error: the threaded module lacks its thread control');
  const needed = n - 1 - m.workerThreads();
  if (needed > 0) await c.ensureIdleWorkers(needed);
  m.setNumThreads(n);
  c.unrefWorkers();
}

/** Joins the C++ threads and terminates their workers; the module then runs on one thread. */
export function stopThreads(m: SimdgradModule): void {
  const c = control(m);
  if (c === null) return;
  m.shutdownThreads();
  c.terminateWorkers();
}

/** The buffer behind the heap right now (see mt-post.js memory()). */
export function sharedHeapBuffer(m: SimdgradModule): ArrayBufferLike | null {
  const c = control(m);
  return c === null ? null : c.memory().buffer;
}
