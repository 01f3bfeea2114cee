// The graph compiler's part of the wasm module (bindings/graph.cpp), in one place: tracing,
// compiled programs, runs by stage, eager jsCall linking, and the host object through which C++
// asks JavaScript for callback names, vjps and host steps. Everything above this file deals in
// Tensors; the conversion to and from the module's handles happens here.
import type { DType, Device, TensorHandle } from './embind.js';
import { mod } from './module.js';
import { Tensor } from './tensor.js';

interface GraphModule {
  graphTraceBegin(args: TensorHandle[]): void;
  graphTraceCallback(id: number, inputs: TensorHandle[], specs: CallbackSpec[], pure: boolean): TensorHandle[];
  graphTraceHostStep(id: number): void;
  graphTraceEnd(outputs: TensorHandle[], fuse: boolean, backend: string): ProgramStats & { program: number };
  graphTraceAbort(): void;
  graphFree(program: number): void;
  graphRun(program: number, args: TensorHandle[]): RawStage;
  graphResume(run: number, results: TensorHandle[]): RawStage;
  graphAbort(run: number): void;
  graphLiveCounts(): { programs: number; runs: number };
  setGraphHost(host: unknown): void;
  linkCallback(name: string, vjp: unknown, inputs: TensorHandle[], outputs: TensorHandle[]): TensorHandle[];
}

interface RawStage {
  run: number;
  callback: number;
  tensors: TensorHandle[];
}

function g(): GraphModule {
  const m = mod() as unknown as Partial<GraphModule>;
  if (typeof m.graphRun !== 'function') throw new Error('sg.compile: this build of the wasm module has no graph compiler (rebuild with scripts/build.sh)');
  return m as GraphModule;
}

const handles = (ts: readonly Tensor[]): TensorHandle[] => ts.map((t) => t.handle);
const wrap = (hs: TensorHandle[]): Tensor[] => hs.map((h) => new Tensor(h));

// ---- tracing ----

export function traceBegin(args: readonly Tensor[]): void {
  g().graphTraceBegin(handles(args));
}

export interface CallbackSpec {
  shape: readonly number[];
  dtype: DType;
  device: Device;
}

/** The placeholder results of callback `id` while tracing. */
export function traceCallback(id: number, inputs: readonly Tensor[], specs: readonly CallbackSpec[], pure: boolean): Tensor[] {
  return wrap(g().graphTraceCallback(id, handles(inputs), specs.slice(), pure));
}

export function traceHostStep(id: number): void {
  g().graphTraceHostStep(id);
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
  const r = g().graphTraceEnd(handles(outputs), options.fuse, options.backend ?? '');
  const { program, ...stats } = r;
  return { program, stats };
}

export function traceAbort(): void {
  g().graphTraceAbort();
}

export function freeProgram(program: number): void {
  g().graphFree(program);
}

// ---- runs ----

/** A run after a stage: done (callback 0; `tensors` are the results) or waiting for `callback` (its inputs). */
export interface Stage {
  run: number;
  callback: number;
  tensors: Tensor[];
}

const stage = (r: RawStage): Stage => ({ run: r.run, callback: r.callback, tensors: wrap(r.tensors) });

export function runProgram(program: number, args: readonly Tensor[]): Stage {
  return stage(g().graphRun(program, handles(args)));
}

export function resumeRun(run: number, results: readonly Tensor[]): Stage {
  return stage(g().graphResume(run, handles(results)));
}

/** Drops a run (a callback failed): everything it made is freed. */
export function abortRun(run: number): void {
  g().graphAbort(run);
}

export function liveCounts(): { programs: number; runs: number } {
  return g().graphLiveCounts();
}

// ---- JavaScript called from C++ ----

/** A vjp: the callback's inputs, outputs and output gradients (null: none) → input gradients (null: none). */
export type TensorVjp = (inputs: Tensor[], outputs: Tensor[], grads: (Tensor | null)[]) => (Tensor | null)[];

/**
 * The form C++ calls: the tensors it passes are wrapped (and freed once the vjp returns, with
 * its temporaries), the gradients are handed back as new handles C++ takes; an exception comes
 * back as `describeError(e)`.
 */
function handleVjp(vjp: TensorVjp, tidy: <T>(f: () => T) => T, describeError: (e: unknown) => string) {
  return (ins: TensorHandle[], outs: TensorHandle[], grads: (TensorHandle | null)[]): (TensorHandle | null)[] | string => {
    try {
      return tidy(() => {
        const gs = vjp(wrap(ins), wrap(outs), grads.map((h) => (h === null ? null : new Tensor(h))));
        return gs.map((t) => (t === null ? null : t.handle.share()));
      });
    } catch (e) {
      return describeError(e);
    }
  };
}

/** What C++ asks of JavaScript; none of these may throw. */
export interface GraphHost {
  describe(id: number): string;
  hasVjp(id: number): boolean;
  /** The vjp of callback id, or undefined. */
  vjpOf(id: number): { vjp: TensorVjp; describeError: (e: unknown) => string } | undefined;
  /** Runs host step id; an error comes back as its message. */
  hostStep(id: number): string | undefined;
  tidy<T>(f: () => T): T;
}

let installedIn: unknown = null;

/** Installs the host in the current module (once per module). */
export function ensureHost(host: GraphHost): void {
  const m = mod();
  if (installedIn === m) return;
  g().setGraphHost({
    describe: (id: number) => host.describe(id),
    hasVjp: (id: number) => host.hasVjp(id),
    vjp: (id: number, ins: TensorHandle[], outs: TensorHandle[], grads: (TensorHandle | null)[]) => {
      const v = host.vjpOf(id);
      if (v === undefined) {
        for (const h of [...ins, ...outs, ...grads]) h?.delete();
        return `jsCall: callback #${id} has no vjp`;
      }
      return handleVjp(v.vjp, host.tidy, v.describeError)(ins, outs, grads);
    },
    hostStep: (id: number) => host.hostStep(id),
  });
  installedIn = m;
}

/** An eager jsCall's results joined to autograd (a vjp, or null for an error node). */
export function linkCallback(
  name: string,
  vjp: { vjp: TensorVjp; describeError: (e: unknown) => string; tidy: <T>(f: () => T) => T } | null,
  inputs: readonly Tensor[],
  outputs: readonly Tensor[],
): Tensor[] {
  const v = vjp === null ? null : handleVjp(vjp.vjp, vjp.tidy, vjp.describeError);
  return wrap(g().linkCallback(name, v, handles(inputs), handles(outputs)));
}
