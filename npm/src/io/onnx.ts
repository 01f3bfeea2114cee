// sg.onnx.export: runs the model or function once eagerly (twice when dynamicAxes are given) with
// an op recorder on runtime/handles.ts's op calls, and writes what it heard as an ONNX ModelProto
// (IR version 8, opset 17) through onnx-proto's generated protobufjs code. Parameters and buffers
// become initializers, tensors made outside the recorded ops (numbers, masks, constants) become
// initializers too, and each recorded op is mapped to ONNX nodes by the table of onnx_ops.ts.
import type * as OnnxProtoModule from 'onnx-proto';
import type { DType, TensorHandle } from '../runtime/embind.js';
import * as H from '../runtime/handles.js';
import { describe, isInteger, isOptionsObject } from '../runtime/options.js';
import { run } from '../tensor/call.js';
import { Tensor } from '../tensor/tensor.js';
import { emitNode, ONNX_DTYPE, type Emitter, type RecordedOp } from './onnx_ops.js';

// onnx-proto (protobufjs code generated from onnx.proto) is an optional peer dependency: its
// protobufjs brings 22 MB that an install of simdgrad should not carry for everyone, and a bare
// import would stop the package from loading in a browser without a bundler. init() loads it
// when it is installed (preloadOnnxProto); sg.onnx.use(module) hands it over in a bundled app.
type OnnxNs = typeof OnnxProtoModule.onnx;
let onnx!: OnnxNs;
let loaded = false;
type NodeProto = InstanceType<OnnxNs['NodeProto']>;
type TensorProto = InstanceType<OnnxNs['TensorProto']>;

/** sg.onnx.use: the onnx-proto module (`await import('onnx-proto')`), for bundled apps. */
export function useOnnxProto(mod: unknown): void {
  // onnx-proto is CommonJS: from ESM its exports may sit under default.
  const m = mod as { onnx?: OnnxNs; default?: { onnx?: OnnxNs } } | null;
  const ns = m?.onnx ?? m?.default?.onnx;
  if (!ns || typeof ns.ModelProto?.encode !== 'function') {
    throw new Error(`onnx.use: expected the module of the npm package 'onnx-proto' (await import('onnx-proto')), got ${describe(mod)}`);
  }
  onnx = ns;
  loaded = true;
}

/** init(): loads onnx-proto if it is installed (a non-literal specifier, so bundlers leave it out); never throws. */
export async function preloadOnnxProto(): Promise<void> {
  if (loaded) return;
  const specifier = 'onnx-proto';
  try {
    useOnnxProto(await import(specifier));
  } catch {
    // Not installed (or not reachable, as in a browser without a bundler): export says what to do.
  }
}

const FN = 'onnx.export';

/** sg.onnx.export's options (PyTorch's torch.onnx.export names, in camelCase). */
export interface OnnxExportOptions {
  /** Graph input names, one per example argument (default input_0, input_1, ...). */
  inputNames?: string[];
  /** Graph output names, one per returned tensor (default output_0, ...). */
  outputNames?: string[];
  /** `{ inputOrOutputName: { dimIndex: 'label' } }` (or a list of dims, labelled `name_dim<i>`): symbolic dims. */
  dynamicAxes?: Record<string, Record<number, string> | number[]>;
  /** Only 17 (the default): LayerNormalization needs 17, and opset 18 moves the reduce axes. */
  opsetVersion?: number;
  /** false (default): a module is traced in eval mode; true: in its training mode (dropout with p > 0 and batch statistics have no ONNX form and are Errors). */
  training?: boolean;
}

/** A module as export sees it (nn.Module): forward, its named tensors and its mode. */
interface ModuleLike {
  forward(...args: unknown[]): unknown;
  namedParameters(): [string, Tensor][];
  namedBuffers(): [string, Tensor][];
  training: boolean;
  train(mode?: boolean): unknown;
}

const isModule = (m: unknown): m is ModuleLike =>
  (typeof m === 'object' || typeof m === 'function') && m !== null && typeof (m as ModuleLike).forward === 'function' && typeof (m as ModuleLike).namedParameters === 'function';


// ---- tensor bytes ----

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float32 value (one that float16 holds exactly: it was read from a float16 tensor) → its float16 bits. */
function halfBits(v: number): number {
  f32[0] = v;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    return sign | Math.round((mant | 0x800000) / 2 ** (14 - e));
  }
  return sign | (e << 10) | Math.round(mant / 8192);
}

/** A tensor's elements as ONNX raw_data (little-endian, as wasm stores them). */
function rawBytes(id: TensorHandle, dtype: DType): Uint8Array {
  const data = H.readHandle(id) as ArrayLike<number> | BigInt64Array;
  if (dtype === 'float16' || dtype === 'bfloat16') {
    const src = data as ArrayLike<number>;
    const out = new Uint16Array(src.length);
    for (let i = 0; i < src.length; i++) {
      if (dtype === 'bfloat16') {
        f32[0] = src[i]!;
        out[i] = u32[0]! >>> 16;
      } else {
        out[i] = halfBits(src[i]!);
      }
    }
    return new Uint8Array(out.buffer);
  }
  if (dtype === 'bool') return Uint8Array.from(data as ArrayLike<number>, (v) => (v ? 1 : 0));
  const view = data as unknown as ArrayBufferView;
  return new Uint8Array(view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength));
}

// ---- the trace ----

interface Value {
  name: string;
  shape: number[];
  dtype: DType;
}

interface Trace {
  ops: RecordedOp[];
  /** Initializers: parameters, buffers and constants, by value name. */
  consts: Map<string, { value: Value; bytes: Uint8Array; isParam: boolean }>;
  inputs: Value[];
  outputs: Value[];
  /** The returned object's keys (the default output names), when it returned an object. */
  keys: string[] | null;
}

/** Runs fn(args) with the op recorder on; every op call, and the tensors it read, are noted. */
function trace(fn: (...a: Tensor[]) => unknown, args: Tensor[], inputNames: string[], params: Map<TensorHandle, string>): Trace {
  const names = new Map<TensorHandle, Value>();
  const consts: Trace['consts'] = new Map();
  const ops: RecordedOp[] = [];
  let counter = 0;
  let reading = false;
  const valueOf = (id: TensorHandle, name: string): Value => ({ name, shape: H.handleShape(id), dtype: H.handleDType(id) });
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
      throw new Error(`${FN}: a tensor was computed outside the recorded ops (by sg.jsCall, a JavaScript callback, or a custom autograd function; its grad_fn is '${gradFn}'): it has no ONNX form`);
    }
    return constant(id, `const_${counter++}`, false);
  };
  const inputs = args.map((a, i) => {
    const v = valueOf(a.handle, inputNames[i]!);
    names.set(a.handle, v);
    return v;
  });
  const recorder: H.OpRecorder = {
    op(name, ins, attrs, outs) {
      if (reading) return;
      if (ins.length === 0 || Array.from(ins).every((id) => id === 0)) {
        // a creation op (arange, zeros, ...): its result is a constant of the graph
        outs.forEach((id) => constant(id, `const_${counter++}`, false));
        return;
      }
      const inputValues = Array.from(ins, resolve);
      const outputValues = outs.map((id) => {
        const v = valueOf(id, `${name}_${counter++}`);
        names.set(id, v);
        return v;
      });
      ops.push({ op: name, inputs: inputValues, attrs: attrs ?? {}, outputs: outputValues });
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
      throw new Error(
        `${FN}: the function reads a tensor's values while it is traced (nonzero, masked selection, item, toArray, dataSync, a JavaScript callback such as sg.jsCall): data-dependent code has no ONNX form`,
      );
    }
  };
  for (const [pid, pname] of params) {
    if (!names.has(pid)) constant(pid, pname, true);
  }
  // floating leaf inputs require grad while traced (see resolve); restored afterwards
  const marked = args.filter((t) => /^(float|bfloat)/.test(t.dtype) && H.isLeafHandle(t.handle) && !H.requiresGradHandle(t.handle));
  const grad = H.isGradEnabled();
  H.setGradEnabled(true);
  for (const t of marked) H.setRequiresGradHandle(t.handle, true);
  const prevRecorder = H.setOpRecorder(recorder);
  const prevObserver = H.setBoundaryObserver(observer);
  let result: unknown;
  try {
    result = fn(...args);
  } finally {
    H.setBoundaryObserver(prevObserver);
    H.setOpRecorder(prevRecorder);
    for (const t of marked) H.setRequiresGradHandle(t.handle, false);
    H.setGradEnabled(grad);
  }
  // a Tensor, an array of Tensors, or an object of them (GPT's { logits, loss: null }: the Tensors, by key)
  let keys: string[] | null = null;
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
  const outputs = (list as Tensor[]).map((t) => {
    const v = names.get(t.handle);
    if (v === undefined) throw new Error(`${FN}: an output was not computed by the traced ops (return a function of the inputs)`);
    return v;
  });
  for (const t of list as Tensor[]) if (!args.includes(t)) t.dispose();
  return { ops, consts, inputs, outputs, keys };
}

// ---- options ----

interface Checked {
  inputNames: string[];
  outputNames: string[] | undefined;
  dynamic: Map<string, Map<number, string>>;
  training: boolean;
}

function checkExportOptions(options: unknown, nArgs: number): Checked {
  if (options !== undefined && !isOptionsObject(options)) throw new Error(`${FN}: options must be an object, got ${describe(options)}`);
  const o = (options ?? {}) as Record<string, unknown>;
  const known = ['inputNames', 'outputNames', 'dynamicAxes', 'opsetVersion', 'training'];
  for (const k of Object.keys(o)) {
    if (!known.includes(k)) throw new Error(`${FN}: unknown option '${k}' (expected one of ${known.join(', ')})`);
  }
  const names = (key: string, v: unknown): string[] | undefined => {
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || !v.every((s) => typeof s === 'string' && s.length > 0)) {
      throw new Error(`${FN}: ${key} must be an array of non-empty strings, got ${describe(v)}`);
    }
    if (new Set(v).size !== v.length) throw new Error(`${FN}: ${key} has a name twice`);
    return v as string[];
  };
  const inputNames = names('inputNames', o.inputNames) ?? Array.from({ length: nArgs }, (_, i) => `input_${i}`);
  if (inputNames.length !== nArgs) throw new Error(`${FN}: inputNames has ${inputNames.length} names for ${nArgs} example arguments`);
  const outputNames = names('outputNames', o.outputNames);
  if (outputNames?.some((n) => inputNames.includes(n))) throw new Error(`${FN}: an output name is also an input name`);
  if (o.opsetVersion !== undefined && o.opsetVersion !== 17) {
    throw new Error(`${FN}: opsetVersion ${describe(o.opsetVersion)} is not supported (only 17)`);
  }
  if (o.training !== undefined && typeof o.training !== 'boolean') throw new Error(`${FN}: training must be a boolean, got ${describe(o.training)}`);
  const dynamic = new Map<string, Map<number, string>>();
  if (o.dynamicAxes !== undefined) {
    if (!isOptionsObject(o.dynamicAxes)) throw new Error(`${FN}: dynamicAxes must be an object, got ${describe(o.dynamicAxes)}`);
    for (const [name, spec] of Object.entries(o.dynamicAxes as Record<string, unknown>)) {
      const axes = new Map<number, string>();
      if (Array.isArray(spec)) {
        for (const d of spec) {
          if (!isInteger(d) || d < 0) throw new Error(`${FN}: dynamicAxes['${name}'] has ${describe(d)}, expected dim indices`);
          axes.set(d, `${name}_dim${d}`);
        }
      } else if (isOptionsObject(spec)) {
        for (const [k, label] of Object.entries(spec)) {
          if (!/^\d+$/.test(k)) throw new Error(`${FN}: dynamicAxes['${name}'] has key '${k}', expected a dim index`);
          if (typeof label !== 'string' || label.length === 0) throw new Error(`${FN}: dynamicAxes['${name}'][${k}] must be a non-empty string label`);
          axes.set(Number(k), label);
        }
      } else {
        throw new Error(`${FN}: dynamicAxes['${name}'] must be { dimIndex: 'label' } or a list of dims, got ${describe(spec)}`);
      }
      dynamic.set(name, axes);
    }
  }
  return { inputNames, outputNames, dynamic, training: o.training === true };
}

// ---- the graph ----

class Graph implements Emitter {
  nodes: NodeProto[] = [];
  inits: TensorProto[] = [];
  private n = 0;
  fresh(prefix: string): string {
    return `${prefix}__${this.n++}`;
  }
  node(opType: string, inputs: string[], attrs: Record<string, number | number[] | string | Float32Array> = {}, nOut = 1): string[] {
    const outputs = Array.from({ length: nOut }, () => this.fresh(opType));
    const attribute = Object.entries(attrs).map(([name, v]) => {
      const T = onnx.AttributeProto.AttributeType;
      if (typeof v === 'string') return { name, type: T.STRING, s: new TextEncoder().encode(v) };
      if (v instanceof Float32Array) return { name, type: T.FLOAT, f: v[0]! };
      if (Array.isArray(v)) return { name, type: T.INTS, ints: v };
      return { name, type: T.INT, i: v };
    });
    this.nodes.push(onnx.NodeProto.create({ opType, input: inputs, output: outputs, name: outputs[0], attribute }));
    return outputs;
  }
  tensor(name: string, dtype: DType, dims: number[], bytes: Uint8Array): void {
    this.inits.push(onnx.TensorProto.create({ name, dataType: ONNX_DTYPE[dtype], dims, rawData: bytes }));
  }
  ints(values: number[]): string {
    const name = this.fresh('const');
    this.tensor(name, 'int64', [values.length], new Uint8Array(BigInt64Array.from(values.map((v) => BigInt(v))).buffer));
    return name;
  }
  scalar(value: number, dtype: DType): string {
    const name = this.fresh('const');
    let bytes: Uint8Array;
    switch (dtype) {
      case 'float64': bytes = new Uint8Array(Float64Array.of(value).buffer); break;
      case 'float16': bytes = new Uint8Array(Uint16Array.of(halfBits(value)).buffer); break;
      case 'bfloat16': f32[0] = value; bytes = new Uint8Array(Uint16Array.of(u32[0]! >>> 16).buffer); break;
      case 'int64': bytes = new Uint8Array(BigInt64Array.of(BigInt(value)).buffer); break;
      case 'int32': bytes = new Uint8Array(Int32Array.of(value).buffer); break;
      default: bytes = new Uint8Array(Float32Array.of(value).buffer);
    }
    this.tensor(name, dtype, [], bytes);
    return name;
  }
}

/** ValueInfoProto of a graph input or output, with dim_param where the dim is symbolic. */
function valueInfo(name: string, v: Value, symbolic: Map<number, string>) {
  return onnx.ValueInfoProto.create({
    name,
    type: {
      tensorType: {
        elemType: ONNX_DTYPE[v.dtype],
        shape: { dim: v.shape.map((d, i) => (symbolic.has(i) ? { dimParam: symbolic.get(i)! } : { dimValue: d })) },
      },
    },
  });
}

/** A copy of x one longer along each of `dims` (its first slice appended): the second trace's input. */
function grow(x: Tensor, dims: number[]): Tensor {
  let t = x;
  for (const d of dims) {
    if (d >= t.shape.length) throw new Error(`${FN}: dynamicAxes dim ${d} is out of range for an input of ${t.shape.length} dims`);
    const head = run(FN, 'narrow', [['input', t]], { dim: d, start: 0, length: 1 });
    const next = run(FN, 'cat', [['a', t], ['b', head]], { dim: d });
    head.dispose();
    if (t !== x) t.dispose();
    t = next;
  }
  return t;
}

/**
 * sg.onnx.export(modelOrFn, exampleArgs, options) → the bytes of an ONNX ModelProto (IR version
 * 8, opset 17): the ops the function ran on exampleArgs as ONNX nodes, with the weights as
 * initializers in their own dtypes.
 */
export function exportOnnx(modelOrFn: unknown, exampleArgs: unknown, options?: OnnxExportOptions): Uint8Array {
  if (!loaded) {
    throw new Error(
      `${FN}: the npm package 'onnx-proto' is not loaded (an optional peer dependency of simdgrad, which writes the protobuf): ` +
        "run `npm install onnx-proto` before init(); in a bundled browser app, call sg.onnx.use(await import('onnx-proto'))",
    );
  }
  const module = isModule(modelOrFn) ? modelOrFn : null;
  if (module === null && typeof modelOrFn !== 'function') {
    throw new Error(`${FN}: expected an nn.Module or a function, got ${describe(modelOrFn)}`);
  }
  const args = exampleArgs instanceof Tensor ? [exampleArgs] : exampleArgs;
  if (!Array.isArray(args) || args.length === 0 || !args.every((a) => a instanceof Tensor && !a.isDisposed)) {
    throw new Error(`${FN}: exampleArgs must be a Tensor or a non-empty array of live Tensors, got ${describe(exampleArgs)}`);
  }
  const o = checkExportOptions(options, args.length);
  const fn = module !== null ? (...a: Tensor[]) => module.forward(...a) : (modelOrFn as (...a: Tensor[]) => unknown);
  const params = new Map<TensorHandle, string>();
  if (module !== null) {
    for (const [name, t] of [...module.namedParameters(), ...module.namedBuffers()]) if (!params.has(t.handle)) params.set(t.handle, name);
  }
  for (const name of o.dynamic.keys()) {
    if (!o.inputNames.includes(name) && !(o.outputNames ?? []).includes(name)) {
      throw new Error(`${FN}: dynamicAxes names '${name}', which is neither an input nor an output name`);
    }
  }
  const wasTraining = module?.training;
  if (module !== null && module.training !== o.training) module.train(o.training);
  let a: Trace;
  let b: Trace | null = null;
  try {
    a = trace(fn, args as Tensor[], o.inputNames, params);
    const growDims = o.inputNames.map((n) => [...(o.dynamic.get(n)?.keys() ?? [])]);
    if (growDims.some((d) => d.length > 0)) {
      const grown = (args as Tensor[]).map((t, i) => (growDims[i]!.length > 0 ? grow(t, growDims[i]!) : t));
      try {
        b = trace(fn, grown, o.inputNames, params);
      } finally {
        grown.forEach((t, i) => t !== args[i] && t.dispose());
      }
    }
  } finally {
    if (module !== null && wasTraining !== undefined && module.training !== wasTraining) module.train(wasTraining);
  }
  const outputNames = o.outputNames ?? a.keys ?? a.outputs.map((_, i) => `output_${i}`);
  if (outputNames.length !== a.outputs.length) {
    throw new Error(`${FN}: outputNames has ${outputNames.length} names for ${a.outputs.length} outputs`);
  }
  if (b !== null) checkSameGraph(a, b);

  const g = new Graph();
  for (const { value, bytes } of a.consts.values()) g.tensor(value.name, value.dtype, value.shape, bytes);
  a.ops.forEach((rec, i) => {
    const start = g.nodes.length;
    const outNames = emitNode(g, rec, b?.ops[i]);
    rec.outputs.forEach((v, k) => {
      const produced = outNames[k];
      if (produced === undefined) throw new Error(`${FN}: op '${rec.op}' gave no ONNX output ${k}`);
      renameOutput(g, start, produced, v.name);
    });
  });
  const outDynamic = a.outputs.map((v, i) => {
    const m = new Map(o.dynamic.get(outputNames[i]!) ?? []);
    if (b !== null) {
      const s = b.outputs[i]!.shape;
      v.shape.forEach((d, k) => {
        if (s[k] !== d && !m.has(k)) m.set(k, `${outputNames[i]}_dim${k}`);
      });
    }
    return m;
  });
  a.outputs.forEach((v, i) => g.nodes.push(onnx.NodeProto.create({ opType: 'Identity', input: [v.name], output: [outputNames[i]!], name: `output_identity_${i}` })));
  const graph = onnx.GraphProto.create({
    name: 'simdgrad',
    node: g.nodes,
    initializer: g.inits,
    input: a.inputs.map((v) => valueInfo(v.name, v, o.dynamic.get(v.name) ?? new Map())),
    output: a.outputs.map((v, i) => valueInfo(outputNames[i]!, v, outDynamic[i]!)),
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'simdgrad',
    producerVersion: '0.1.0',
    opsetImport: [{ domain: '', version: 17 }],
    graph,
  });
  return new Uint8Array(onnx.ModelProto.encode(model).finish());
}

/** Renames output `from` of a node emitted from index `start` on to `to`, the recorded value's name. */
function renameOutput(g: Graph, start: number, from: string, to: string): void {
  for (let i = g.nodes.length - 1; i >= start; i--) {
    const out = g.nodes[i]!.output;
    const k = out.indexOf(from);
    if (k >= 0) {
      out[k] = to;
      for (let j = start; j < g.nodes.length; j++) {
        const ins = g.nodes[j]!.input;
        for (let m = 0; m < ins.length; m++) if (ins[m] === from) ins[m] = to;
      }
      return;
    }
  }
  // the op's result is an existing value (an identity op on an input): copy it
  g.nodes.push(onnx.NodeProto.create({ opType: 'Identity', input: [from], output: [to], name: to }));
}

/** The two traces (example and grown dynamic axes) must run the same ops on constants of the same shape. */
function checkSameGraph(a: Trace, b: Trace): void {
  if (a.ops.length !== b.ops.length || a.ops.some((r, i) => r.op !== b.ops[i]!.op)) {
    const i = a.ops.findIndex((r, k) => r.op !== b.ops[k]?.op);
    throw new Error(`${FN}: the ops run depend on the dynamic axes' sizes (op ${i}: '${a.ops[i]?.op}' vs '${b.ops[i]?.op}'): such control flow has no ONNX form here`);
  }
  for (const [name, c] of a.consts) {
    const d = b.consts.get(name);
    if (d !== undefined && d.value.shape.join() !== c.value.shape.join()) {
      throw new Error(`${FN}: a constant tensor of shape [${c.value.shape}] made by the function depends on a dynamic axis: make it from the input's ops instead`);
    }
  }
}
