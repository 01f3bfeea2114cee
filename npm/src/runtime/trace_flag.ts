// Whether sg.compile is tracing a function right now, for the layers below it that must refuse
// what a graph cannot replay (reading tensor values, registering hooks). No imports, so that
// every layer may use it without an import cycle; compile/trace_state.ts sets it.
let tracing = false;

export function isTracing(): boolean {
  return tracing;
}

/** @internal compile/trace_state.ts only. */
export function setTracing(on: boolean): void {
  tracing = on;
}

let reader: ((t: object) => void) | null = null;

/** @internal compile/trace_state.ts only: called with every tensor whose handle is read while tracing. */
export function setTraceReader(r: ((t: object) => void) | null): void {
  reader = r;
}

/** @internal tensor.ts: a tensor's handle was read (an op is about to use it). */
export function noteTraceRead(t: object): void {
  if (reader !== null) reader(t);
}

/** Throws while tracing: `what` reads tensor values, which a graph cannot depend on. */
export function checkReadable(what: string): void {
  if (!tracing) return;
  throw new Error(
    `${what}: cannot read tensor values while sg.compile traces the function (the graph would keep this call's values). ` +
      'Return the tensor and read it after the call, or read it in a callback with sg.jsCall',
  );
}

/**
 * A device move while a function is traced: compile/transfer.ts turns a GPU → CPU `to()` into a
 * stage boundary. Given the tensor and the `to()` argument, it returns the traced result, or
 * undefined to let `to()` run as usual.
 */
export type TracedMove = (t: object, target: unknown) => object | undefined;
let tracedMove: TracedMove | null = null;

/** @internal compile/transfer.ts only. */
export function setTracedMove(f: TracedMove | null): void {
  tracedMove = f;
}

/** @internal tensor.ts's to(): the traced form of this move, if the tracer wants one. */
export function traceMove(t: object, target: unknown): object | undefined {
  return tracing && tracedMove !== null ? tracedMove(t, target) : undefined;
}
