// sg.onnx.export: runs the model or function once eagerly (twice when dynamicAxes are given) with
// an op recorder on runtime/handles.ts's op calls, and writes what it heard as an ONNX ModelProto
// (IR version 8, opset 17) through onnx-proto's generated protobufjs code. Parameters and buffers
// become initializers, tensors made outside the recorded ops (numbers, masks, constants) become
// initializers too, and each recorded op is mapped to ONNX nodes by the table of onnx_ops.ts.
import type * as OnnxProtoModule from 'onnx-proto';
import type { DType, TensorHandle } from '../runtime/embind.js';
import { describe, isInteger, isOptionsObject } from '../runtime/options.js';
import { run } from '../tensor/call.js';
import type { Tensor } from '../tensor/tensor.js';
import { scalarBytes } from './onnx_bytes.js';
import { addDims, DimWriter, fit, isExpr, symbolOf, traceSizes, type Dim, type Sym } from './onnx_dynamic.js';
import { DYNAMIC_ATTRS, emitNode, ONNX_DTYPE, type Dims, type Emitter, type RecordedOp, type ValueRef } from './onnx_ops.js';
import { exampleArgsOf, trace, type Trace, type Value } from './onnx_trace.js';

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

/**
 * onnx-proto's namespace for a caller of `fn` (sg.onnx.importModel), or an Error saying how to install it.
 * Typed unknown on purpose: a declared return type of onnx-proto's would put `import('onnx-proto')` into
 * this file's .d.ts, which a consumer's tsc without the optional package then fails on (the consumer
 * test's typed.ts did); the caller casts to the type it imports for itself.
 */
export function onnxProto(fn: string): unknown {
  if (!loaded) {
    throw new Error(
      `${fn}: the npm package 'onnx-proto' is not loaded (an optional peer dependency of simdgrad, which reads and writes the protobuf): ` +
        "run `npm install onnx-proto` before init(); in a bundled browser app, call sg.onnx.use(await import('onnx-proto'))",
    );
  }
  return onnx;
}

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


// ---- options ----

interface Checked {
  inputNames: string[];
  outputNames: string[] | undefined;
  dynamic: Map<string, Map<number, string>>;
  training: boolean;
  trainingGiven: boolean;
}

function checkExportOptions(options: unknown, defaultNames: string[]): Checked {
  const nArgs = defaultNames.length;
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
  const inputNames = names('inputNames', o.inputNames) ?? defaultNames;
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
  for (const name of dynamic.keys()) {
    if (!inputNames.includes(name) && !(outputNames ?? []).includes(name)) {
      throw new Error(`${FN}: dynamicAxes names '${name}', which is neither an input nor an output name`);
    }
  }
  return { inputNames, outputNames, dynamic, training: o.training === true, trainingGiven: o.training !== undefined };
}

/** The symbolic dims of the inputs, one per label (inputs that share a label must agree on its size). */
function symbolsOf(o: Checked, tensors: Tensor[]): Sym[] {
  const syms: Sym[] = [];
  o.inputNames.forEach((name, i) => {
    const t = tensors[i]!;
    for (const [dim, label] of o.dynamic.get(name) ?? []) {
      if (dim >= t.shape.length) throw new Error(`${FN}: dynamicAxes dim ${dim} is out of range for input '${name}' of ${t.shape.length} dims`);
      const size = t.shape[dim]!;
      const same = syms.find((s) => s.label === label);
      if (same !== undefined) {
        if (same.size !== size) throw new Error(`${FN}: dynamic axis '${label}' is ${same.size} in input '${same.input}' but ${size} in input '${name}' (dim ${dim})`);
        continue;
      }
      if (size === 0) throw new Error(`${FN}: dynamic axis '${label}' (input '${name}', dim ${dim}) has size 0 in the example: give an example with at least one element there`);
      syms.push({ label, size, input: name, dim });
    }
  });
  return syms;
}

/** A copy of x `by` longer along dim (its first slice repeated): an input of the traces that vary the dynamic axes. */
function grow(x: Tensor, dim: number, by: number): Tensor {
  const head = run(FN, 'narrow', [['input', x]], { dim, start: 0, length: 1 });
  const parts: [string, Tensor][] = [['a', x], ...Array.from({ length: by }, (_, i): [string, Tensor] => [`b${i}`, head])];
  const next = run(FN, 'cat', parts, { dim });
  head.dispose();
  return next;
}

/** The inputs of trace j: each dynamic dim grown to that trace's size of its symbol. */
function grownInputs(o: Checked, tensors: Tensor[], syms: Sym[], sizes: Map<string, number>): Tensor[] {
  return tensors.map((x, i) => {
    let t = x;
    for (const [dim, label] of o.dynamic.get(o.inputNames[i]!) ?? []) {
      const by = sizes.get(label)! - syms.find((s) => s.label === label)!.size;
      if (by === 0) continue;
      const next = grow(t, dim, by);
      if (t !== x) t.dispose();
      t = next;
    }
    return t;
  });
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
    this.tensor(name, dtype, [], scalarBytes(value, dtype));
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

/** What the rules see of one op across the traces: its attributes and the dims of its values as Dims. */
class OpDims implements Dims {
  constructor(
    private readonly recs: RecordedOp[],
    private readonly traces: Trace[],
    private readonly sizes: Map<string, number>[],
    private readonly syms: Sym[],
    private readonly writer: DimWriter,
  ) {}

  private fitted(values: number[], what: string): Dim {
    const d = fit(values, this.sizes, this.syms);
    if (d === null) {
      throw new Error(
        `${FN}: op '${this.recs[0]!.op}': ${what} is ${values.join(', ')} in the traces with the dynamic axes at ${this.sizes.map((s) => `{${[...s].map(([k, v]) => `${k}: ${v}`).join(', ')}}`).join(', ')}: ` +
          'it follows them in no form the graph can compute (a linear function of one axis, a product or a sum of axes)',
      );
    }
    return d;
  }

  attr(key: string, index?: number): Dim {
    const values = this.recs.map((r) => {
      const v = r.attrs[key];
      return index === undefined ? v : Array.isArray(v) ? v[index] : undefined;
    });
    // an entry of a list attribute (a creation op's shape): the lists must be as long in every trace,
    // or the entries past the first trace's length are lost (a shape [2] at one size, [2, 3] at another)
    const lengths = index === undefined ? [] : this.recs.map((r) => (Array.isArray(r.attrs[key]) ? (r.attrs[key] as unknown[]).length : -1));
    const sameLength = lengths.every((n) => n === lengths[0]);
    if (!sameLength || !values.every((v) => typeof v === 'number')) {
      if (sameLength && values.every((v) => v === values[0])) return values[0] as unknown as number;
      throw new Error(`${FN}: op '${this.recs[0]!.op}': attribute '${key}' differs between the traces of the dynamic axes${sameLength ? '' : ` (its length is ${lengths.join(', ')})`}`);
    }
    return this.fitted(values as number[], `attribute '${key}'${index === undefined ? '' : `[${index}]`}`);
  }

  dim(v: ValueRef, i: number): Dim {
    const values = this.traces.map((t) => t.values.get(v.name)?.shape[i] ?? Number.NaN);
    return this.fitted(values, `dim ${i} of '${v.name}'`);
  }

  shape(v: ValueRef): Dim[] {
    return v.shape.map((_, i) => this.dim(v, i));
  }

  get attrsVary(): boolean {
    const a = JSON.stringify(this.recs[0]!.attrs);
    return this.recs.some((r) => JSON.stringify(r.attrs) !== a);
  }

  scalar(d: Dim): string {
    return this.writer.scalar(d);
  }

  shapeOf(dims: Dim[]): string {
    return this.writer.shape(dims);
  }

  add(a: Dim, b: Dim): Dim {
    return addDims(a, b);
  }
}

let warnedTraining = false;

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
  const args = exampleArgsOf(exampleArgs);
  const o = checkExportOptions(options, args.defaultNames);
  const fn = module !== null ? (...a: unknown[]) => module.forward(...a) : (modelOrFn as (...a: unknown[]) => unknown);
  const params = new Map<TensorHandle, string>();
  if (module !== null) {
    for (const [name, t] of [...module.namedParameters(), ...module.namedBuffers()]) if (!params.has(t.handle)) params.set(t.handle, name);
  }
  const syms = symbolsOf(o, args.tensors);
  const sizes = traceSizes(syms);
  const wasTraining = module?.training;
  if (module !== null && module.training && !o.trainingGiven && !warnedTraining) {
    warnedTraining = true;
    console.warn(`${FN}: the module is in training mode; it is exported with eval semantics (dropout off, BatchNorm's running statistics), as { training: false }, the default. Pass { training: false } to say so, or call model.eval() (this warning is shown once)`);
  }
  if (module !== null && module.training !== o.training) module.train(o.training);
  const traces: Trace[] = [];
  try {
    sizes.forEach((s, j) => {
      const inputs = j === 0 ? args.tensors : grownInputs(o, args.tensors, syms, s);
      try {
        traces.push(trace(fn, args, inputs, o.inputNames, params));
      } catch (e) {
        if (j === 0 || (e as Error).message.startsWith(FN)) throw e;
        // the model refused a grown size (a position limit): say why export tried it
        const at = [...s].map(([k, v]) => `${k}: ${v}`).join(', ');
        throw new Error(`${FN}: dynamicAxes trace the function again with the symbolic dims 1 and 2 larger than the example's; at {${at}} it failed: ${(e as Error).message} (give an example at least 2 below such a limit)`);
      } finally {
        inputs.forEach((t, i) => t !== args.tensors[i] && t.dispose());
      }
    });
  } finally {
    if (module !== null && wasTraining !== undefined && module.training !== wasTraining) module.train(wasTraining);
  }
  const a = traces[0]!;
  const outputNames = o.outputNames ?? a.keys ?? a.outputs.map((_, i) => `output_${i}`);
  if (outputNames.length !== a.outputs.length) {
    throw new Error(`${FN}: outputNames has ${outputNames.length} names for ${a.outputs.length} outputs`);
  }
  checkSameGraph(traces);

  const g = new Graph();
  const writer = new DimWriter(g, syms);
  const dimsOf = (i: number) => new OpDims(traces.map((t) => t.ops[i]!), traces, sizes, syms, writer);
  // creation ops whose attributes follow a dynamic axis are computed in the graph, not stored
  const computed = new Set<string>();
  a.ops.forEach((rec, i) => {
    if (rec.creation && dimsOf(i).attrsVary) rec.outputs.forEach((v) => computed.add(v.name));
  });
  for (const { value, bytes } of a.consts.values()) if (!computed.has(value.name)) g.tensor(value.name, value.dtype, value.shape, bytes);
  a.ops.forEach((rec, i) => {
    if (rec.creation && !computed.has(rec.outputs[0]!.name)) return;
    const dims = dimsOf(i);
    if (dims.attrsVary && !DYNAMIC_ATTRS.has(rec.op)) {
      throw new Error(`${FN}: op '${rec.op}' has attributes that depend on a dynamic axis (${JSON.stringify(rec.attrs)} vs ${JSON.stringify(traces.find((t) => JSON.stringify(t.ops[i]!.attrs) !== JSON.stringify(rec.attrs))!.ops[i]!.attrs)})`);
    }
    const start = g.nodes.length;
    const outNames = emitNode(g, rec, dims);
    rec.outputs.forEach((v, k) => {
      const produced = outNames[k];
      if (produced === undefined) throw new Error(`${FN}: op '${rec.op}' gave no ONNX output ${k}`);
      renameOutput(g, start, produced, v.name);
    });
  });
  const outDims = new OpDims([], traces, sizes, syms, writer);
  const outDynamic = a.outputs.map((v, i) => {
    const m = new Map(o.dynamic.get(outputNames[i]!) ?? []);
    v.shape.forEach((_, k) => {
      const d = outDims.dim(v, k);
      if (isExpr(d) && !m.has(k)) m.set(k, symbolOf(d) ?? `${outputNames[i]}_dim${k}`);
    });
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

const sameBytes = (x: Uint8Array, y: Uint8Array) => x.length === y.length && x.every((v, i) => v === y[i]);

/** Every trace must run the same ops, on the same constants (those of creation ops aside, which may follow the axes). */
function checkSameGraph(traces: Trace[]): void {
  const a = traces[0]!;
  for (const b of traces.slice(1)) {
    if (a.ops.length !== b.ops.length || a.ops.some((r, i) => r.op !== b.ops[i]!.op)) {
      // the first op that differs, or the first past the shorter run (one trace ran more ops)
      const k = a.ops.findIndex((r, j) => r.op !== b.ops[j]?.op);
      const i = k < 0 ? a.ops.length : k;
      const opAt = (t: Trace) => (t.ops[i] === undefined ? 'no op' : `'${t.ops[i]!.op}'`);
      throw new Error(`${FN}: the ops run depend on the dynamic axes' sizes (op ${i}: ${opAt(a)} vs ${opAt(b)}): such control flow has no ONNX form here`);
    }
    if (a.outputs.length !== b.outputs.length) throw new Error(`${FN}: the number of outputs depends on the dynamic axes' sizes`);
    const created = new Set(a.ops.filter((r) => r.creation).flatMap((r) => r.outputs.map((v) => v.name)));
    for (const [name, c] of a.consts) {
      const d = b.consts.get(name);
      if (d === undefined || c.isParam || created.has(name)) continue;
      if (d.value.shape.join() !== c.value.shape.join()) {
        throw new Error(`${FN}: a constant tensor of shape [${c.value.shape}] made by the function (sg.tensor of JavaScript data) depends on a dynamic axis: make it with ops (arange, zeros, comparisons...) or slice a fixed table by the input's size`);
      }
      if (!sameBytes(c.bytes, d.bytes)) {
        throw new Error(`${FN}: a constant tensor of shape [${c.value.shape}] made by the function (sg.tensor of JavaScript data) has other values when the dynamic axes change: compute it with ops from the inputs`);
      }
    }
  }
}
