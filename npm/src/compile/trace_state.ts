// Whether a compiled function is being traced, and what the JS layer does differently then:
// reading tensor values is an Error (the graph would bake in this call's values), host steps are
// recorded instead of run, and the registry ids the trace used are collected for its program.
import * as G from './graph_binding.js';
import { registerHostStep, release, retain } from './jscall_registry.js';
import type { Tensor } from '../tensor/tensor.js';
import { setTraceReader, setTracing } from '../runtime/trace_flag.js';

export interface TraceState {
  /** Tensors with a larger id were made during the trace. */
  startSerial: number;
  /** Callback and host-step ids the graph uses (retained; the program releases them). */
  ids: number[];
  /** Tensors made before the trace whose handles it read: those the graph may hold (captured). */
  read: Set<Tensor>;
  /** The function is compiled with { async: true } (its calls may await between stages). */
  async?: boolean;
}

let active: TraceState | null = null;
// readsDuring's collectors: every tensor made before the trace whose handle is read while one is open.
const collectors: Set<Tensor>[] = [];

export function activeTrace(): TraceState | null {
  return active;
}

/** Runs fn with `state` as the active trace. */
export function withTrace<T>(state: TraceState, fn: () => T): T {
  if (active !== null) throw new Error('sg.compile: a function is already being traced');
  active = state;
  setTracing(true);
  setTraceReader((t) => {
    if ((t as Tensor).id > state.startSerial) return;
    state.read.add(t as Tensor);
    for (const c of collectors) c.add(t as Tensor);
  });
  try {
    return fn();
  } finally {
    active = null;
    setTracing(false);
    setTraceReader(null);
  }
}

/**
 * Runs f while a function is traced and returns, with f's result, the tensors made before the
 * trace that f's ops read (parameters and other captured tensors f uses). Outside a trace f just
 * runs and nothing is collected.
 */
export function readsDuring<T>(f: () => T): { value: T; read: Tensor[] } {
  const mine = new Set<Tensor>();
  collectors.push(mine);
  try {
    return { value: f(), read: [...mine] };
  } finally {
    collectors.splice(collectors.indexOf(mine), 1);
  }
}

/** Keeps registry entry `id` for the program being traced. */
export function useEntry(state: TraceState, id: number): void {
  retain(id);
  state.ids.push(id);
}

export function releaseEntries(ids: readonly number[]): void {
  for (const id of ids) release(id);
}

/**
 * Library code with effects the graph cannot see into (an optimizer's step, gradient clipping,
 * a scheduler's step) calls this first: while tracing it records `run` to be called in its place
 * on every compiled call and returns true (the caller then does nothing now); otherwise it
 * returns false and the caller runs as usual.
 */
export function recordHostStep(label: string, run: () => void): boolean {
  if (active === null) return false;
  const step = registerHostStep(label, run);
  useEntry(active, step.id);
  G.traceHostStep(step.id);
  return true;
}
