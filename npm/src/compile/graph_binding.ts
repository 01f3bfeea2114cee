// The graph compiler's part of the boundary (bindings/graph.cpp, graph_host.cpp), in one place:
// tracing, compiled programs, runs by stage, eager jsCall linking, and the host object through
// which C++ asks JavaScript for callback names, vjps and host steps. Above this file everything
// deals in Tensors; ids travel through the scratch area here, as for op calls (handles.ts).
import { DTYPES, dtypeCode } from '../runtime/dtypes.js';
import type { DType, Device, TensorHandle } from '../runtime/embind.js';
import * as H from '../runtime/handles.js';
import { ids, mod, moduleGeneration, takeError, words } from '../runtime/module.js';
import { Tensor } from '../tensor/tensor.js';

interface GraphExports {
  graph_trace_begin(n: number): number;
  graph_trace_callback(callback: number, nInputs: number, pure: number): number;
  graph_trace_host_step(id: number): number;
  graph_trace_end(n: number, options: number, backend: number): number;
  graph_trace_abort(): void;
  graph_free(program: number): void;
  graph_captured(program: number, n: number): number;
  graph_run(program: number, n: number): number;
  graph_resume(run: number, n: number): number;
  graph_abort(run: number): void;
  graph_live_runs(): number;
  graph_live_programs(): number;
  graph_backward_counts(program: number): number;
  graph_pending(program: number, nArgs: number): number;
  graph_fill_pending(id: number, n: number): number;
  graph_fail_pending(id: number, length: number): number;
  graph_live_pending(): number;
}

const NAMES: readonly (keyof GraphExports)[] = [
  'graph_trace_begin', 'graph_trace_callback', 'graph_trace_host_step', 'graph_trace_end', 'graph_trace_abort',
  'graph_free', 'graph_captured', 'graph_run', 'graph_resume', 'graph_abort', 'graph_live_runs', 'graph_live_programs',
  'graph_backward_counts', 'graph_pending', 'graph_fill_pending', 'graph_fail_pending', 'graph_live_pending',
];

interface GraphEmbind {
  setGraphHost(host: unknown): void;
  linkCallback(name: string, vjp: unknown, inputs: TensorHandle[], outputs: TensorHandle[]): TensorHandle[];
}

let resolved: GraphExports | null = null;
let resolvedFor = -1;

/** The plain exports, resolved to the wasm functions once per module (as module.ts does). */
function g(): GraphExports {
  if (resolved !== null && resolvedFor === moduleGeneration()) return resolved;
  const table = mod() as unknown as Record<string, (...args: number[]) => number>;
  const out: Record<string, unknown> = {};
  for (const name of NAMES) {
    const key = `_sg_${name}`;
    if (typeof table[key] !== 'function') throw new Error(`sg.compile: the wasm module lacks ${key} (rebuild it with scripts/build.sh wasm)`);
    out[name] = (...args: number[]) => {
      const r = table[key]!(...args);
      out[name] = table[key];
      return r;
    };
  }
  resolved = out as unknown as GraphExports;
  resolvedFor = moduleGeneration();
  return resolved;
}

function embind(): GraphEmbind {
  return mod() as unknown as GraphEmbind;
}

function ok(r: number): number {
  if (r < 0) throw takeError();
  return r;
}

const deviceCode = (d: Device | undefined): number => (d === undefined ? -1 : d === 'webgpu' ? 1 : 0);

/** Writes the tensors' ids to ids[0..). */
function putTensors(ts: readonly Tensor[]): void {
  const v = ids(ts.length);
  for (let i = 0; i < ts.length; i++) v[i] = ts[i]!.handle;
}

/** n new ids in ids[0..n), their dtype codes at ids[n..2n): Tensors owning them. */
function takeTensors(n: number): Tensor[] {
  const v = ids(2 * n);
  const got: [number, DType | undefined][] = [];
  for (let i = 0; i < n; i++) got.push([v[i]!, DTYPES[v[n + i]!]]);
  // Wrapped after reading: creating a Tensor may call into the module (and reuse the buffer).
  return got.map(([id, dtype]) => new Tensor(id, dtype));
}

// ---- tracing ----

export function traceBegin(args: readonly Tensor[]): void {
  putTensors(args);
  ok(g().graph_trace_begin(args.length));
}

export interface CallbackSpec {
  shape: readonly number[];
  dtype: DType;
  /** Where the results live; undefined: the default device (where new tensors go). */
  device: Device | undefined;
}

/**
 * Writes result specs to the scratch words, as graph_trace_callback and graph_pending read them:
 * their count, then per spec its rank, dims, dtype code and device code.
 */
function putSpecs(specs: readonly CallbackSpec[]): void {
  let size = 1;
  for (const s of specs) size += s.shape.length + 3;
  const w = words(size);
  let at = 0;
  w[at++] = specs.length;
  for (const s of specs) {
    w[at++] = s.shape.length;
    for (const d of s.shape) w[at++] = d;
    w[at++] = dtypeCode(s.dtype);
    w[at++] = deviceCode(s.device);
  }
}

/** The placeholder results of callback `id` while tracing. */
export function traceCallback(id: number, inputs: readonly Tensor[], specs: readonly CallbackSpec[], pure: boolean): Tensor[] {
  putTensors(inputs);
  putSpecs(specs);
  return takeTensors(ok(g().graph_trace_callback(id, inputs.length, pure ? 1 : 0)));
}

export function traceHostStep(id: number): void {
  ok(g().graph_trace_host_step(id));
}

export interface ProgramStats {
  nodes: number;
  stages: number;
  callbacks: number;
  fused: number;
  fusedOps: number;
}

/** Ends the trace returning `outputs` and compiles it: the program's id and what the passes made. */
export function traceEnd(outputs: readonly Tensor[], options: { fuse: boolean; backend: string | undefined }): { program: number; stats: ProgramStats } {
  putTensors(outputs);
  const flags = (options.fuse ? 1 : 0) | 2 | 4;  // fusion, common subexpressions, dead code
  const backend = options.backend === 'wasm' ? 1 : options.backend === 'reference' ? 2 : 0;
  const program = ok(g().graph_trace_end(outputs.length, flags, backend));
  const w = words(5);
  return { program, stats: { nodes: w[0]!, stages: w[1]!, callbacks: w[2]!, fused: w[3]!, fusedOps: w[4]! } };
}

export function traceAbort(): void {
  g().graph_trace_abort();
}

/** Those of `tensors` that `program` holds as externals (read by the traced function, made before it). */
export function capturedBy(program: number, tensors: readonly Tensor[]): Tensor[] {
  if (tensors.length === 0) return [];
  putTensors(tensors);
  ok(g().graph_captured(program, tensors.length));
  const w = words(tensors.length);
  return tensors.filter((_, i) => w[i] === 1);
}

export function freeProgram(program: number): void {
  g().graph_free(program);
}

// ---- runs ----

/** A run after a stage: done (callback 0; `tensors` are the results) or waiting for `callback` (its inputs). */
export interface Stage {
  run: number;
  callback: number;
  tensors: Tensor[];
}

function stage(r: number): Stage {
  const callback = ok(r);
  const w = words(2);
  const run = w[0]!;
  const n = w[1]!;
  return { run, callback, tensors: takeTensors(n) };
}

/** Starts a run of `program` and takes it to its first callback or its end: one call. */
export function runProgram(program: number, args: readonly Tensor[]): Stage {
  putTensors(args);
  return stage(g().graph_run(program, args.length));
}

/** Hands a callback's results to the run and takes it to the next callback or its end: one call. */
export function resumeRun(run: number, results: readonly Tensor[]): Stage {
  putTensors(results);
  return stage(g().graph_resume(run, results.length));
}

/** Drops a run (a callback failed): everything it made is freed. */
export function abortRun(run: number): void {
  g().graph_abort(run);
}

/** How backward went through the program's fused kernels: as one fused kernel each, or replaying their members. */
export function backwardCounts(program: number): { fused: number; replayed: number } {
  ok(g().graph_backward_counts(program));
  const w = words(2);
  return { fused: w[0]!, replayed: w[1]! };
}

export function liveCounts(): { programs: number; runs: number; pending: number } {
  return { programs: g().graph_live_programs(), runs: g().graph_live_runs(), pending: g().graph_live_pending() };
}

// ---- results that arrive later (bindings/graph_pending.cpp) ----

export interface ResultSpec {
  shape: readonly number[];
  dtype: DType;
  device: Device;
}

/**
 * Placeholders for the results of a run of `program` on `args` whose rest goes on after a
 * download: CPU ones pending until filled, floating ones (with grad on and a tensor the run uses
 * requiring grad) joined to the real results' gradients. The set's id, for fillPending / failPending.
 */
export function pendingResults(program: number, args: readonly Tensor[], specs: readonly ResultSpec[]): { id: number; tensors: Tensor[] } {
  putTensors(args);
  putSpecs(specs);
  const n = ok(g().graph_pending(program, args.length));
  const id = words(1)[0]!;
  return { id, tensors: takeTensors(n) };
}

/** Copies a deferred run's results into its placeholders (CPU ones stop being pending). */
export function fillPending(id: number, results: readonly Tensor[]): void {
  putTensors(results);
  ok(g().graph_fill_pending(id, results.length));
}

/** The deferred part failed: the placeholders stay pending and their backward names `message`. */
export function failPending(id: number, message: string): void {
  const bytes = new TextEncoder().encode(message);
  const w = words(bytes.length);
  for (let i = 0; i < bytes.length; i++) w[i] = bytes[i]!;
  ok(g().graph_fail_pending(id, bytes.length));
}

// ---- JavaScript called from C++ ----

/** A vjp: the callback's inputs, outputs and output gradients (null: none) → input gradients (null: none). */
export type TensorVjp = (inputs: Tensor[], outputs: Tensor[], grads: (Tensor | null)[]) => (Tensor | null)[];

export interface VjpAdapter {
  vjp: TensorVjp;
  describeError: (e: unknown) => string;
  tidy: <T>(f: () => T) => T;
}

/**
 * The form C++ calls: the ids it passes are wrapped (and freed with the vjp's temporaries), the
 * gradients handed back as new ids C++ takes over (0: none); an exception comes back as text.
 */
function idVjp(a: VjpAdapter) {
  return (ins: TensorHandle[], outs: TensorHandle[], grads: (TensorHandle | null)[]): TensorHandle[] | string => {
    try {
      return a.tidy(() => {
        const wrap = (id: TensorHandle | null) => (id === null || id === 0 ? null : new Tensor(id));
        const gs = a.vjp(ins.map((id) => new Tensor(id)), outs.map((id) => new Tensor(id)), grads.map(wrap));
        return gs.map((t) => (t === null ? 0 : H.shareHandle(t.handle)));
      });
    } catch (e) {
      return a.describeError(e);
    }
  };
}

/** What C++ asks of JavaScript; none of these may throw. */
export interface GraphHost {
  describe(id: number): string;
  hasVjp(id: number): boolean;
  /** The vjp of callback id, or undefined. */
  vjpOf(id: number): VjpAdapter | undefined;
  /** Runs host step id; an error comes back as its message. */
  hostStep(id: number): string | undefined;
}

let hostFor = -1;

/** Installs the host in the current module (once per module). */
export function ensureHost(host: GraphHost): void {
  if (hostFor === moduleGeneration()) return;
  embind().setGraphHost({
    describe: (id: number) => host.describe(id),
    hasVjp: (id: number) => host.hasVjp(id),
    vjp: (id: number, ins: TensorHandle[], outs: TensorHandle[], grads: (TensorHandle | null)[]) => {
      const a = host.vjpOf(id);
      if (a === undefined) {
        for (const h of [...ins, ...outs, ...grads]) if (h) H.releaseHandle(h);
        return `jsCall: callback #${id} has no vjp`;
      }
      return idVjp(a)(ins, outs, grads);
    },
    hostStep: (id: number) => host.hostStep(id),
  });
  hostFor = moduleGeneration();
}

/** An eager jsCall's results joined to autograd (through the vjp, or an error node without one). */
export function linkCallback(name: string, vjp: VjpAdapter | null, inputs: readonly Tensor[], outputs: readonly Tensor[]): Tensor[] {
  for (const t of inputs) H.notify('link', t.handle); // forward-mode jvp cannot follow JavaScript's results
  const linked = embind().linkCallback(
    name,
    vjp === null ? null : idVjp(vjp),
    inputs.map((t) => t.handle),
    outputs.map((t) => t.handle),
  );
  return linked.map((id) => new Tensor(id));
}
