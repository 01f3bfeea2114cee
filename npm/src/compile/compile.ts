// sg.compile(fn, { backend, async, cacheSize, fuse }): the first call for each input signature
// traces fn into a graph (C++ records every op it runs, src/graph) and compiles it (common
// subexpressions, dead code, elementwise fusion, buffer reuse); later calls with that signature
// replay the graph in C++: one call into wasm per stage, the stages separated by the jsCall
// callbacks, which run here in between (awaited with { async: true }).
//
// Devices (transfer.ts): a stage that needs GPU data on the host (a `t.to('cpu')` of a GPU
// tensor, or a callback whose inputs are on a GPU: it gets host copies, needsCopy below) cannot
// start before the bytes arrive. With { async: true } the call awaits them. A synchronous call
// enqueues the copy and goes on without waiting, as an eager `to('cpu')` does: it returns
// placeholders of the traced results at once (bindings/graph_pending.cpp), and the rest of the run happens in a host
// step of the device's queue (runAfterCopies below), which runs once the copies have landed and
// before any GPU work enqueued after the call, and fills them: a CPU result is pending until then
// (`await t.data()` or `await sg.sync()` first; dataSync before is the pending-data Error), a GPU
// one is usable at once (the device orders the fill before later work), and backward through
// either (after the data arrived) is the real results' backward. What the function does after
// the copy (a callback, an optimizer step) happens then too; an error in that part is reported
// by the next sg.sync() (or t.data()), naming the stage, and leaves its results pending.
//
// What a traced function reads from JavaScript besides its tensors (numbers, flags, a module's
// training mode) is a constant of the graph, as in JAX: another value needs another argument.
// Its tensor arguments are rebound on every call; other tensors it uses (parameters, optimizer
// state) are held by reference, so in-place updates are seen.
import { ensureGraphHost } from './host.js';
import { activeTrace, releaseEntries, withTrace, type TraceState } from './trace_state.js';
import { flattenArgs, flattenResult } from './arg_tree.js';
import * as G from './graph_binding.js';
import { batchHookActive, isGradEnabled, setGradEnabled } from '../runtime/handles.js';
import { freeMade, invokeAsync, invokeSync, type Result } from './jscall_invoke.js';
import { callbackOf, release, retain, type Callback } from './jscall_registry.js';
import { installTransfers, isTransfer, toDevice } from './transfer.js';
import { dispose, keep, tidy } from '../runtime/memory.js';
import { defaultDevice, hostStep, sync } from '../runtime/webgpu_device.js';
import { checkOptions, describe } from '../runtime/options.js';
import { Tensor, tensorSerial } from '../tensor/tensor.js';
import type { DType } from '../runtime/embind.js';

// t.to('cpu') of a GPU tensor inside a traced function: a stage boundary (transfer.ts).
installTransfers();

export interface CompileOptions {
  /** CPU kernels the graph runs with; default: the active backend at call time. */
  backend?: 'wasm' | 'reference' | 'auto';
  /** Callbacks may return Promises; the compiled function then returns a Promise. */
  async?: boolean;
  /** Signatures kept compiled (least recently used dropped first); default 8. */
  cacheSize?: number;
  /** Elementwise fusion (default true). */
  fuse?: boolean;
}

export interface CompiledStats {
  /** Traces (one per new signature). */
  compiles: number;
  calls: number;
  cacheHits: number;
  /** Of the graph the last call ran: its stages (callbacks + 1), callbacks, fused kernels. */
  stages: number;
  callbacks: number;
  fused: number;
  /** Ops inside the fused kernels, and nodes left after the passes. */
  fusedOps: number;
  nodes: number;
  /**
   * Backward runs through fused kernels, over every signature compiled: `fused` ran as one
   * fused gradient kernel each, `replayed` replayed the kernel's ops one by one (a gradient
   * being recorded for a higher derivative, or a GPU that cannot bind the gradient kernel).
   */
  fusedBackward: { fused: number; replayed: number };
}

export interface CompiledFunction<A extends unknown[], R> {
  (...args: A): R;
  stats(): CompiledStats;
  /** Frees every compiled graph (and what they hold: captured tensors, callbacks); the next call traces again. */
  clear(): void;
}

interface Entry {
  program: number;
  stats: G.ProgramStats;
  rebuild: (tensors: readonly Tensor[]) => unknown;
  ids: number[];
  /** Tensors from outside that the graph holds, with the handle each had when traced. */
  captured: { tensor: Tensor; handle: number; shape: number[] }[];
  /** The traced results' shapes, dtypes and devices: a deferred call's placeholders. */
  specs: G.ResultSpec[];
}

/**
 * Whether an entry's captured tensors are as traced: a disposed one is an Error (the graph would
 * go on with its old data, silently), one moved to another device (module.to) since makes the
 * entry stale: false, and the caller traces again.
 */
function capturedIntact(e: Entry): boolean {
  for (const c of e.captured) {
    if (c.tensor.isDisposed) {
      throw new Error(
        `compiled function: a tensor it uses from outside its arguments (shape [${c.shape.join(', ')}], captured when it was traced) ` +
          'has been disposed since; keep such tensors alive while the compiled function is used, or pass them as arguments',
      );
    }
    if (c.tensor.handle !== c.handle) return false;
  }
  return true;
}

function isPromiseLike(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';
}

function free(e: Entry): void {
  G.freeProgram(e.program);
  releaseEntries(e.ids);
}

// Graphs of compiled functions the program dropped without clear(): freed with them.
const finalizer =
  typeof FinalizationRegistry !== 'undefined'
    ? new FinalizationRegistry<Map<string, Entry>>((cache) => {
        try {
          for (const e of cache.values()) free(e);
        } catch {
          // The module may be gone.
        }
      })
    : null;

export function compile<A extends unknown[], R>(fn: (...args: A) => R, options: CompileOptions & { async: true }): CompiledFunction<A, Promise<R>>;
export function compile<A extends unknown[], R>(fn: (...args: A) => R, options?: CompileOptions): CompiledFunction<A, R>;
export function compile<A extends unknown[], R>(fn: (...args: A) => R, options?: CompileOptions): CompiledFunction<A, R | Promise<R>> {
  if (typeof fn !== 'function') throw new Error(`compile: expected fn to be a function, got ${describe(fn)}`);
  const o = checkOptions<CompileOptions>('compile', options, {
    backend: { check: (v) => v === 'wasm' || v === 'reference' || v === 'auto', expected: "'wasm', 'reference' or 'auto'" },
    async: 'boolean',
    cacheSize: { check: (v) => typeof v === 'number' && Number.isInteger(v) && v >= 1, expected: 'a positive integer' },
    fuse: 'boolean',
  });
  const isAsync = o.async === true;
  const cacheSize = o.cacheSize ?? 8;
  const backend = o.backend === 'auto' ? undefined : o.backend;
  const cache = new Map<string, Entry>();  // in order of last use
  const counts = { compiles: 0, calls: 0, cacheHits: 0 };
  let last: G.ProgramStats = { nodes: 0, stages: 0, callbacks: 0, fused: 0, fusedOps: 0 };
  let arity = -1;
  let lastKey: string | undefined;  // the key of the entry used last (the newest in `cache`)

  const trace = (args: A, tensors: Tensor[]): Entry => {
    ensureGraphHost();
    const state: TraceState = { startSerial: tensorSerial(), ids: [], read: new Set(), async: isAsync };
    G.traceBegin(tensors);
    let value: unknown;
    try {
      value = withTrace(state, () =>
        tidy(() => {
          const r = fn(...args);
          if (isPromiseLike(r)) {
            throw new Error('compile: fn returned a Promise; a traced function must be synchronous (async work goes in an sg.jsCall callback, with { async: true })');
          }
          return r;
        }),
      );
      const result = flattenResult(value);
      result.tensors.forEach((t, i) => {
        if (t.isDisposed) throw new Error(`compile: result tensor ${i} of fn is disposed`);
      });
      const { program, stats } = G.traceEnd(result.tensors, { fuse: o.fuse !== false, backend });
      const candidates = [...state.read].filter((t) => !t.isDisposed && !tensors.includes(t));
      const captured = G.capturedBy(program, candidates).map((tensor) => ({ tensor, handle: tensor.handle, shape: tensor.shape }));
      const specs = result.tensors.map((t) => ({ shape: t.shape, dtype: t.dtype as DType, device: t.device }));
      return { program, stats, rebuild: result.rebuild, ids: state.ids, captured, specs };
    } catch (e) {
      G.traceAbort();
      releaseEntries(state.ids);
      throw e;
    } finally {
      // The trace's own results were placeholders of this run: the graph makes the real ones.
      for (const t of flattenResult(value).tensors) if (t.id > state.startSerial) t.dispose();
    }
  };

  const entryFor = (args: A): { entry: Entry; tensors: Tensor[] } => {
    if (arity < 0) arity = args.length;
    else if (args.length !== arity) {
      throw new Error(`compiled function: expected ${arity} argument${arity === 1 ? '' : 's'} (as in its first call), got ${args.length}`);
    }
    const flat = flattenArgs(args);
    // The grad mode at the call is part of the signature: the trace records what fn sets it to
    // (sg.noGrad inside fn) from the mode it started in.
    const key = (isGradEnabled() ? 'g ' : 'n ') + flat.key;
    let entry = cache.get(key);
    if (entry !== undefined && !capturedIntact(entry)) {
      cache.delete(key);
      free(entry);
      entry = undefined;
    }
    if (entry !== undefined) {
      counts.cacheHits++;
      if (key === lastKey) return { entry, tensors: flat.tensors };  // already the most recently used
      cache.delete(key);  // back to most recently used
    } else {
      entry = trace(args, flat.tensors);
      counts.compiles++;
      while (cache.size >= cacheSize) {
        const [oldest, e] = cache.entries().next().value as [string, Entry];
        cache.delete(oldest);
        free(e);
      }
    }
    cache.set(key, entry);
    lastKey = key;
    last = entry.stats;
    return { entry, tensors: flat.tensors };
  };

  const finish = (entry: Entry, stage: G.Stage): unknown => entry.rebuild(stage.tensors);

  // One callback stage: run it on the run's current inputs, hand its results to C++, go on.
  const afterCallback = (stage: G.Stage, call: (inputs: Tensor[]) => Result | Promise<Result>): G.Stage | Promise<G.Stage> => {
    const inputs = stage.tensors;
    let r: Result | undefined;
    const resume = (res: Result): G.Stage => {
      r = res;
      return G.resumeRun(stage.run, res.outputs);
    };
    const cleanup = (): void => {
      for (const t of inputs) t.dispose();
      freeMade(r);
    };
    const fail = (e: unknown): never => {
      G.abortRun(stage.run);
      throw e;
    };
    let pending: Result | Promise<Result>;
    try {
      pending = call(inputs);
    } catch (e) {
      cleanup();
      return fail(e);
    }
    if (!isPromiseLike(pending)) {
      try {
        return resume(pending);
      } catch (e) {
        return fail(e);
      } finally {
        cleanup();
      }
    }
    return Promise.resolve(pending)
      .then(resume, fail)
      .finally(cleanup);
  };

  // The callback a stage waits for; an unknown id (its entry gone) aborts the run, freeing it.
  const callbackFor = (stage: G.Stage) => {
    try {
      return callbackOf(stage.callback);
    } catch (e) {
      for (const t of stage.tensors) t.dispose();
      G.abortRun(stage.run);
      throw e;
    }
  };

  // A run holds the registry entries its program uses until it ends, so that clear() (or the
  // compiled function being dropped) while a call is in flight lets that call finish.
  const holding = <T>(entry: Entry, run: () => T): T => {
    for (const id of entry.ids) retain(id);
    let async = false;
    try {
      const r = run();
      if (isPromiseLike(r)) {
        async = true;
        return Promise.resolve(r).finally(() => entry.ids.forEach(release)) as T;
      }
      return r;
    } finally {
      if (!async) entry.ids.forEach(release);
    }
  };

  const syncHint = 'compile the function with sg.compile(fn, { async: true }) to await it';
  const onGpu = (ts: readonly Tensor[]): boolean => ts.some((t) => t.device !== 'cpu');
  // Where a call must wait for a copy from the GPU: a callback (a move to the CPU, transfer.ts, or
  // a user's callback) with inputs on a GPU gets host copies of them, so that it reads them as on
  // the CPU (dataSync included) and the same function gives the same results on every device.
  // Library callbacks that compute with GPU tensors they read from outside
  // (sg.penalties.gradientPenalty's stage) keep their inputs where they are.
  const needsCopy = (stage: G.Stage, cb: Callback): boolean => !cb.keepOnDevice && onGpu(stage.tensors);
  // Where a callback's results go (its placeholders, jscall.ts / transfer.ts): the CPU for a
  // move, else where its first input is, else the default device.
  const placeholdersOn = (cb: Callback, inputs: readonly Tensor[]): string =>
    isTransfer(cb.fn) ? 'cpu' : inputs.length > 0 ? inputs[0]!.device : defaultDevice();
  // Whether a callback's results must be read back before the run goes on: some made on a GPU
  // for CPU placeholders (C++ would find no data in them yet).
  const resultsNeedCopy = (cb: Callback, inputs: readonly Tensor[], r: Result): boolean =>
    placeholdersOn(cb, inputs) === 'cpu' && onGpu(r.outputs);

  // A synchronous callback on the stage's inputs as they are; a failure ends the run.
  const invokeOnStage = (stage: G.Stage, cb: Callback): Result => {
    try {
      return invokeSync(cb, stage.tensors, syncHint);
    } catch (e) {
      for (const t of stage.tensors) t.dispose();
      G.abortRun(stage.run);
      throw e;
    }
  };

  // A synchronous call: stage after stage until one needs GPU data on the host; from there the
  // run goes on later (runAfterCopies) and the call returns placeholders. The entries the
  // program uses are held until the run ends, deferred part included.
  const runSync = (entry: Entry, tensors: Tensor[]): unknown => {
    for (const id of entry.ids) retain(id);
    let deferred = false;
    try {
      let stage = G.runProgram(entry.program, tensors);
      while (stage.callback !== 0) {
        const cb = callbackFor(stage);
        if (needsCopy(stage, cb)) {
          const r = runAfterCopies(entry, tensors, stage, cb);
          deferred = true;
          return r;
        }
        const r = invokeOnStage(stage, cb);
        if (resultsNeedCopy(cb, stage.tensors, r)) {
          const out = runAfterCopies(entry, tensors, stage, cb, r);
          deferred = true;
          return out;
        }
        stage = afterCallback(stage, () => r) as G.Stage;
      }
      return finish(entry, stage);
    } finally {
      if (!deferred) entry.ids.forEach(release);
    }
  };

  // The deferred part of a synchronous call (see the header): placeholders now; the copies of the
  // waiting stage's GPU inputs enqueued now; the stage and the ones after it in a host step
  // once they have landed (again for each later stage that needs GPU data), under the grad mode
  // of the call; the results copied into the placeholders at the end.
  // `ran`: the first stage's callback has run already and made GPU results for CPU placeholders:
  // their downloads are what the rest waits for.
  const runAfterCopies = (entry: Entry, args: Tensor[], first: G.Stage, firstCb: Callback, ran?: Result): unknown => {
    // What the host steps use outlives the call, and so any tidy() around it (which would free
    // it first): the waiting stage's inputs, what its callback made, the host copies (below).
    for (const t of first.tensors) keep(t);
    if (ran !== undefined) for (const t of ran.made) keep(t);
    let pending: { id: number; tensors: Tensor[] };
    try {
      pending = G.pendingResults(entry.program, args, entry.specs);
    } catch (e) {
      for (const t of first.tensors) t.dispose();
      freeMade(ran);
      G.abortRun(first.run);
      throw e;
    }
    const gradMode = isGradEnabled();
    let ended = false;
    const end = (): void => {
      if (!ended) entry.ids.forEach(release);
      ended = true;
    };
    // Named by the deferred part's errors: the move it waited for last, and the stage it was at.
    let after = firstCb.label;
    let label = firstCb.label;

    // Runs `body` as a host step; an error fails the pending results and goes to the next sync.
    const later = (body: () => void): void => {
      hostStep(() => {
        const prev = isGradEnabled();
        setGradEnabled(gradMode);
        try {
          body();
        } catch (e) {
          end();
          const msg = e instanceof Error ? e.message : String(e);
          const at = label === after ? '' : ` in ${label}`;
          const err = new Error(`compiled function: the part of the call after ${after} failed${at}: ${msg}`, { cause: e });
          try {
            G.failPending(pending.id, err.message);
          } catch {
            // The module is gone: nothing left to mark.
          }
          throw err;
        } finally {
          setGradEnabled(prev);
        }
      });
    };

    // Host copies of a stage's GPU inputs (downloads enqueued now), in `made`.
    const hostCopies = (ts: readonly Tensor[], made: Tensor[]): Tensor[] =>
      ts.map((t) => {
        if (t.device === 'cpu') return t;
        const c = keep(toDevice(t, 'cpu'));
        made.push(c);
        return c;
      });

    // Hands a callback's results to the run, frees the stage's inputs and what it made, goes on.
    const resume = (stage: G.Stage, r: Result): void => {
      let next: G.Stage;
      try {
        next = G.resumeRun(stage.run, r.outputs);
      } catch (e) {
        G.abortRun(stage.run);
        throw e;
      } finally {
        for (const t of stage.tensors) t.dispose();
        freeMade(r);
      }
      proceed(next);
    };

    // Calls the stage's callback (a transfer: the identity) on the host copies, landed now.
    const callOnHost = (stage: G.Stage, cb: Callback, list: Tensor[], copies: Tensor[]): void => {
      let r: Result;
      try {
        r = invokeSync(cb, list, syncHint);
      } catch (e) {
        dispose(copies);
        for (const t of stage.tensors) t.dispose();
        G.abortRun(stage.run);
        throw e;
      }
      for (const c of copies) if (!r.made.includes(c)) r.made.push(c);
      settle(stage, cb, r);
    };

    // Goes on with a callback's results, once those it made on a GPU for CPU placeholders have
    // been read back (their downloads enqueued now, the rest in a host step after them).
    const settle = (stage: G.Stage, cb: Callback, r: Result): void => {
      if (!resultsNeedCopy(cb, stage.tensors, r)) return resume(stage, r);
      label = after = cb.label;
      let onHost: Result;
      try {
        onHost = { outputs: hostCopies(r.outputs, r.made), made: r.made };
      } catch (e) {
        freeMade(r);
        for (const t of stage.tensors) t.dispose();
        G.abortRun(stage.run);
        throw e;
      }
      later(() => resume(stage, onHost));
    };

    // Enqueues the copies of a waiting stage's GPU inputs and the host step that goes on.
    const defer = (stage: G.Stage, cb: Callback): void => {
      after = label = cb.label;
      const copies: Tensor[] = [];
      let list: Tensor[];
      try {
        list = hostCopies(stage.tensors, copies);
        later(() => callOnHost(stage, cb, list, copies));
      } catch (e) {
        dispose(copies);
        for (const t of stage.tensors) t.dispose();
        G.abortRun(stage.run);
        throw e;
      }
    };

    // Runs the stages from `stage` on, deferring again at the next that needs GPU data.
    const proceed = (stage: G.Stage): void => {
      while (stage.callback !== 0) {
        const cb = callbackFor(stage);
        if (needsCopy(stage, cb)) {
          defer(stage, cb);
          return;
        }
        label = cb.label;
        const r = invokeOnStage(stage, cb);
        if (resultsNeedCopy(cb, stage.tensors, r)) {
          settle(stage, cb, r);
          return;
        }
        stage = afterCallback(stage, () => r) as G.Stage;
      }
      try {
        G.fillPending(pending.id, stage.tensors);
      } finally {
        for (const t of stage.tensors) t.dispose();
      }
      end();
    };

    try {
      if (ran === undefined) defer(first, firstCb);
      else settle(first, firstCb, ran);
    } catch (e) {
      try {
        G.failPending(pending.id, e instanceof Error ? e.message : String(e));
      } finally {
        dispose(pending.tensors);
      }
      throw e;
    }
    return entry.rebuild(pending.tensors);
  };

  // A callback of an async function gets host copies of its GPU inputs (read back and awaited
  // here; not a keepOnDevice one, needsCopy), so that it reads them as on the CPU, synchronously
  // or not, on every backend. Its results go to the placeholders' device (placeholdersOn):
  // results it made on a GPU for CPU placeholders are read back here too, so the next stage finds
  // their data. The copies are freed with what it made.
  const invokeOnHost = async (stage: G.Stage, cb: Callback): Promise<Result> => {
    const inputs = stage.tensors;
    const copies: Tensor[] = [];
    const host = (t: Tensor): Tensor => {
      if (t.device === 'cpu') return t;
      const c = toDevice(t, 'cpu');
      copies.push(c);
      return c;
    };
    let r: Result;
    try {
      const list = needsCopy(stage, cb) ? inputs.map(host) : inputs;
      if (copies.length > 0) await sync();
      r = await invokeAsync(cb, list);
      if (resultsNeedCopy(cb, inputs, r)) {
        r = { outputs: r.outputs.map(host), made: r.made };
        await sync();
      }
    } catch (e) {
      dispose(copies);
      throw e;
    }
    for (const c of copies) if (!r.made.includes(c)) r.made.push(c);
    return r;
  };

  const runAsync = (entry: Entry, tensors: Tensor[]): Promise<unknown> =>
    holding(entry, async () => {
      let stage = G.runProgram(entry.program, tensors);
      while (stage.callback !== 0) {
        const cb = callbackFor(stage);
        const waiting = stage;
        stage = await afterCallback(stage, () => invokeOnHost(waiting, cb));
      }
      return finish(entry, stage);
    });

  const compiled = (...args: A): unknown => {
    // Called while another function is traced: its ops join that trace (inlined, as in JAX).
    // Called inside sg.func.vmap: its ops run eagerly through the batching rules (the program
    // knows nothing of the batch dims in front of its inputs).
    if (activeTrace() !== null || batchHookActive()) return fn(...args);
    if (isAsync) {
      try {
        const { entry, tensors } = entryFor(args);
        counts.calls++;
        return runAsync(entry, tensors);
      } catch (e) {
        return Promise.reject(e);
      }
    }
    const { entry, tensors } = entryFor(args);
    counts.calls++;
    return runSync(entry, tensors);
  };

  const f = compiled as CompiledFunction<A, R | Promise<R>>;
  const fusedBackward = () => {
    const sum = { fused: 0, replayed: 0 };
    for (const e of cache.values()) {
      const c = G.backwardCounts(e.program);
      sum.fused += c.fused;
      sum.replayed += c.replayed;
    }
    return sum;
  };
  f.stats = () => ({
    ...counts, stages: last.stages, callbacks: last.callbacks, fused: last.fused, fusedOps: last.fusedOps, nodes: last.nodes,
    fusedBackward: fusedBackward(),
  });
  f.clear = () => {
    for (const e of cache.values()) free(e);
    cache.clear();
    lastKey = undefined;
  };
  finalizer?.register(f, cache, f);
  return f;
}
