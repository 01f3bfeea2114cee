// One trace of sg.onnx.export: runs the function eagerly with runtime/handles.ts's op recorder on
// and notes every op call (name, attributes, operands and results with shapes and dtypes), the
// tensors it read that no recorded op made (parameters by their state-dict names, constants), and
// where in the caller's code an op with no ONNX form, or a read of values, happened.
import type { DType, TensorHandle } from '../runtime/embind.js';
import * as H from '../runtime/handles.js';
import { tidy } from '../runtime/memory.js';
import { describe, isOptionsObject } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { hasOnnxRule, type RecordedOp } from './onnx_ops.js';
import { rawBytes } from './onnx_bytes.js';

const FN = 'onnx.export';

export interface Value {
  name: string;
  shape: number[];
  dtype: DType;
}

export interface Trace {
  /** The op calls in order; a creation op (no operands) has creation: true and its result in consts too. */
  ops: (RecordedOp & { creation: boolean })[];
  /** Initializers: parameters, buffers and constants, by value name. */
  consts: Map<string, { value: Value; bytes: Uint8Array; isParam: boolean }>;
  /** Every value by name (inputs, op results, constants): the other traces look dims up here. */
  values: Map<string, Value>;
  inputs: Value[];
  outputs: Value[];
  /** The returned object's keys (the default output names), when it returned an object. */
  keys: string[] | null;
}

/**
 * The first frame of the stack outside simdgrad's own code (its dist/esm, dist/cjs or npm/src
 * files): where the user's code made the call, for the messages of Errors; and the simdgrad
 * function it called there (the frame just inside), when the stack names one.
 */
export function callSiteInfo(): { where: string; entry: string | null } {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 64;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  const frames = stack.split('\n').slice(1).map((l) => l.trim()).filter((l) => l.startsWith('at '));
  const own = /[\\/](dist[\\/](esm|cjs|mt)|npm[\\/]src)[\\/]|node:internal|<anonymous>|^at new Promise/;
  const i = frames.findIndex((f) => !own.test(f));
  if (i < 0) return { where: 'an unknown place (no stack frame outside simdgrad)', entry: null };
  // the outermost named simdgrad frame, past wrappers (the keyword-argument 'value' functions, tidy)
  let entry: string | null = null;
  for (let j = i - 1; j >= 0 && entry === null; j--) {
    const name = /^at (?:Object\.|Function\.|Module\.)?([\w$.]+) \(/.exec(frames[j]!)?.[1];
    if (name !== undefined && !/(^|\.)(value|tidy|run)$/.test(name)) entry = name;
  }
  return { where: frames[i]!.replace(/^at /, ''), entry };
}

export const callSite = (): string => callSiteInfo().where;

/**
 * The example arguments as the tensors that become graph inputs: positional Tensors, and the
 * Tensor values of a plain object given last (PyTorch's kwargs dict: BERT's { attentionMask }),
 * whose keys are their default input names; rebuild makes the argument list from other tensors.
 */
export interface Args {
  tensors: Tensor[];
  defaultNames: string[];
  rebuild(tensors: Tensor[]): unknown[];
}

export function exampleArgsOf(exampleArgs: unknown): Args {
  const list = exampleArgs instanceof Tensor ? [exampleArgs] : exampleArgs;
  const bad = () => new Error(`${FN}: exampleArgs must be a Tensor or a non-empty array of live Tensors (the last may be an object of named Tensors), got ${describe(exampleArgs)}`);
  if (!Array.isArray(list) || list.length === 0) throw bad();
  const last = list[list.length - 1];
  const named = list.length > 0 && isOptionsObject(last) && !(last instanceof Tensor) ? Object.entries(last as Record<string, unknown>) : null;
  const positional = named === null ? list : list.slice(0, -1);
  const live = (t: unknown): t is Tensor => t instanceof Tensor && !t.isDisposed;
  if (!positional.every(live)) throw bad();
  const namedTensors = (named ?? []).filter(([, v]) => v instanceof Tensor) as [string, Tensor][];
  if (!namedTensors.every(([, t]) => live(t))) throw bad();
  const tensors = [...(positional as Tensor[]), ...namedTensors.map(([, t]) => t)];
  if (tensors.length === 0) throw bad();
  return {
    tensors,
    defaultNames: [...positional.map((_, i) => `input_${i}`), ...namedTensors.map(([k]) => k)],
    rebuild(ts) {
      const out: unknown[] = ts.slice(0, positional.length);
      if (named !== null) {
        let i = positional.length;
        out.push(Object.fromEntries(named.map(([k, v]) => [k, v instanceof Tensor ? ts[i++] : v])));
      }
      return out;
    },
  };
}

/** Runs fn(args) with the op recorder on; every op call, and the tensors it read, are noted. */
export function trace(fn: (...a: unknown[]) => unknown, args: Args, tensors: Tensor[], inputNames: string[], params: Map<TensorHandle, string>): Trace {
  const names = new Map<TensorHandle, Value>();
  const values = new Map<string, Value>();
  const consts: Trace['consts'] = new Map();
  const ops: Trace['ops'] = [];
  let counter = 0;
  let reading = false;
  const valueOf = (id: TensorHandle, name: string): Value => {
    const v = { name, shape: H.handleShape(id), dtype: H.handleDType(id) };
    values.set(name, v);
    return v;
  };
  const constant = (id: TensorHandle, name: string, isParam: boolean): Value => {
    const value = valueOf(id, name);
    // read without recording (float16 is read through a cast op) and without autograd
    reading = true;
    const grad = H.isGradEnabled();
    H.setGradEnabled(false);
    try {
      consts.set(name, { value, bytes: rawBytes(id, value.dtype), isParam });
    } finally {
      H.setGradEnabled(grad);
      reading = false;
    }
    names.set(id, value);
    return value;
  };
  const resolve = (id: TensorHandle): Value | null => {
    if (id === 0) return null;
    const known = names.get(id);
    if (known !== undefined) return known;
    // a parameter whose id was not registered (a share of it): match by tensor identity
    for (const [pid, pname] of params) {
      if (H.sameHandle(pid, id)) return constant(id, pname, true);
    }
    // Inputs require grad while traced: a tensor computed from them by anything but the recorded
    // ops (a JavaScript callback, sg.jsCall, linked into autograd) has a grad_fn; a constant has none.
    const gradFn = H.handleGradFn(id);
    if (gradFn !== null) {
      throw new Error(`${FN}: a tensor was computed outside the recorded ops (by sg.jsCall, a JavaScript callback, or a custom autograd function; its grad_fn is '${gradFn}') and used at ${callSite()}: it has no ONNX form`);
    }
    return constant(id, `const_${counter++}`, false);
  };
  const inputs = tensors.map((a, i) => {
    const v = valueOf(a.handle, inputNames[i]!);
    names.set(a.handle, v);
    return v;
  });
  const recorder: H.OpRecorder = {
    op(name, ins, attrs, outs) {
      if (reading) return;
      if (ins.length === 0 || Array.from(ins).every((id) => id === 0)) {
        // a creation op (arange, zeros, ...): a constant of the graph, unless its attributes follow a dynamic axis
        const outputs = outs.map((id) => constant(id, `const_${counter++}`, false));
        ops.push({ op: name, inputs: [], attrs: attrs ?? {}, outputs, creation: true });
        return;
      }
      const inputValues = Array.from(ins, resolve);
      const outputValues = outs.map((id) => {
        const v = valueOf(id, `${name}_${counter++}`);
        names.set(id, v);
        return v;
      });
      // where an op with no ONNX form was called, for the Error that writing the graph raises
      const where = hasOnnxRule(name) ? undefined : callSite();
      ops.push({ op: name, inputs: inputValues, attrs: attrs ?? {}, outputs: outputValues, creation: false, where });
    },
    release(id) {
      if (!reading) names.delete(id);
    },
    share(from, to) {
      const v = names.get(from);
      if (v !== undefined) names.set(to, v);
    },
  };
  const observer: H.BoundaryObserver = (event) => {
    if (reading) return;
    if (event === 'read') {
      const { where, entry } = callSiteInfo();
      throw new Error(
        `${FN}: the function reads a tensor's values while it is traced${entry === null ? '' : ` (in ${entry})`}, at ${where} ` +
          '(nonzero, masked selection, item, toArray, dataSync, a JavaScript callback such as sg.jsCall): data-dependent code has no ONNX form',
      );
    }
  };
  for (const [pid, pname] of params) {
    if (!names.has(pid)) constant(pid, pname, true);
  }
  // floating leaf inputs require grad while traced (see resolve); restored afterwards
  const marked = tensors.filter((t) => /^(float|bfloat)/.test(t.dtype) && H.isLeafHandle(t.handle) && !H.requiresGradHandle(t.handle));
  const grad = H.isGradEnabled();
  H.setGradEnabled(true);
  for (const t of marked) H.setRequiresGradHandle(t.handle, true);
  const prevRecorder = H.setOpRecorder(recorder);
  const prevObserver = H.setBoundaryObserver(observer);
  let outputs: Value[] = [];
  let keys: string[] | null = null;
  try {
    // in a tidy scope: every tensor the function made (results included) is released after the
    // results are looked up, also when it throws; the graph keeps only what the recorder noted
    tidy(() => {
      const result = fn(...args.rebuild(tensors));
      // a Tensor, an array of Tensors, or an object of them (GPT's { logits, loss: null }: the Tensors, by key)
      // nested arrays (LSTM's [output, [h, c]]) are flattened in order, as torch.onnx does
      const flatten = (v: unknown[]): unknown[] => v.flatMap((e) => (Array.isArray(e) ? flatten(e) : [e]));
      let list: unknown[] | null = result instanceof Tensor ? [result] : Array.isArray(result) ? flatten(result) : null;
      if (list === null && isOptionsObject(result)) {
        const entries = Object.entries(result).filter(([, v]) => v !== null && v !== undefined);
        keys = entries.map(([k]) => k);
        list = entries.map(([, v]) => v);
      }
      if (list === null || list.length === 0 || !list.every((t) => t instanceof Tensor)) {
        throw new Error(`${FN}: the function must return a Tensor, an array of Tensors or an object of Tensors, got ${describe(result)}`);
      }
      outputs = (list as Tensor[]).map((t) => {
        const v = names.get(t.handle);
        if (v === undefined) throw new Error(`${FN}: an output was not computed by the traced ops (return a function of the inputs)`);
        return v;
      });
    });
  } finally {
    H.setBoundaryObserver(prevObserver);
    H.setOpRecorder(prevRecorder);
    for (const t of marked) H.setRequiresGradHandle(t.handle, false);
    H.setGradEnabled(grad);
  }
  return { ops, consts, values, inputs, outputs, keys };
}
