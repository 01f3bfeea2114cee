// sg.onnx.importModel(bytes): an ONNX ModelProto as an nn.Module whose forward runs the graph's
// nodes with simdgrad's ops, so its float32 weights are Parameters that train (fine-tuning an ONNX
// model). The operator set is the one sg.onnx.export writes (io/onnx_ops.ts), read back; int64
// tensors that only carry shapes (Shape, Range, Concat of sizes, Reshape's target) are computed
// as JavaScript numbers, so dynamic sizes follow the inputs as they do under ONNX Runtime.
import { F } from '../nn/functional.js';
import { Module, Parameter } from '../nn/module.js';
import type * as OnnxProtoModule from 'onnx-proto';
import { onnxProto } from '../io/onnx.js';
import type { DType } from '../runtime/embind.js';
import { tidy } from '../runtime/memory.js';
import { describe } from '../runtime/options.js';
import { tensor } from '../tensor/creation.js';
import { functionOps } from '../tensor/ops.js';
import { Tensor } from '../tensor/tensor.js';

const FN = 'onnx.importModel';

/**
 * `name`, or `name_` (`name__`, …) where the module already has an attribute of that name that is
 * not one of `map`'s entries: an initializer named 'half', 'to' or 'forward' cannot shadow the
 * Module method (registerParameter refuses it, as PyTorch's does), so it is registered under the
 * first free name with trailing underscores; forward finds it by its ONNX name all the same.
 */
function unclashed(owner: Module, name: string, map: Map<string, unknown>): string {
  let n = name;
  while (n in owner && !map.has(n)) n += '_';
  return n;
}

/** ONNX TensorProto.DataType code → simdgrad dtype. */
const DTYPE_OF: Record<number, DType> = { 1: 'float32', 2: 'uint8', 3: 'int8', 6: 'int32', 7: 'int64', 9: 'bool', 10: 'float16', 11: 'float64', 16: 'bfloat16' };

/** An int64 tensor kept as JavaScript numbers (sizes, axes, index scalars). */
interface Ints {
  ints: number[];
  dims: number[];
}

type Val = Tensor | Ints;

const isInts = (v: Val | undefined): v is Ints => v !== undefined && !(v instanceof Tensor);

interface Attr {
  name: string;
  type: number;
  i?: number | { toNumber(): number };
  f?: number;
  s?: Uint8Array;
  ints?: (number | { toNumber(): number })[];
}

interface Node {
  opType: string;
  input: string[];
  output: string[];
  attribute: Attr[];
  name?: string;
}

interface TensorProtoLike {
  name: string;
  dataType: number;
  dims: (number | { toNumber(): number })[];
  rawData?: Uint8Array;
  floatData?: number[];
  int32Data?: number[];
  int64Data?: (number | { toNumber(): number })[];
  doubleData?: number[];
}

const num = (v: number | { toNumber(): number } | undefined): number => (v === undefined ? 0 : typeof v === 'number' ? v : v.toNumber());

/** A TensorProto's elements as numbers (float16/bfloat16 widened), from raw_data or the typed fields. */
function elements(t: TensorProtoLike, count: number): number[] {
  const raw = t.rawData;
  if (raw !== undefined && raw.length > 0) {
    const buf = raw.slice().buffer;
    switch (t.dataType) {
      case 1: return Array.from(new Float32Array(buf));
      case 11: return Array.from(new Float64Array(buf));
      case 6: return Array.from(new Int32Array(buf));
      case 7: return Array.from(new BigInt64Array(buf), Number);
      case 2: case 9: return Array.from(new Uint8Array(buf));
      case 3: return Array.from(new Int8Array(buf));
      case 10: return Array.from(new Uint16Array(buf), halfToFloat);
      case 16: return Array.from(new Uint16Array(buf), (h) => new Float32Array(new Uint32Array([h << 16]).buffer)[0]!);
      default: throw new Error(`${FN}: initializer '${t.name}' has ONNX data type ${t.dataType}, which simdgrad does not hold`);
    }
  }
  if (t.dataType === 1 && t.floatData?.length) return t.floatData.slice();
  if (t.dataType === 11 && t.doubleData?.length) return t.doubleData.slice();
  if (t.dataType === 7 && t.int64Data?.length) return t.int64Data.map(num);
  // int32, int8, uint8, bool, float16 and bfloat16 (as bits) live in int32_data
  if (t.int32Data?.length) return t.dataType === 10 ? t.int32Data.map(halfToFloat) : t.int32Data.slice();
  if (count === 0) return [];
  throw new Error(`${FN}: initializer '${t.name}' has no data (external data files are not read)`);
}

function halfToFloat(h: number): number {
  const e = (h >> 10) & 31;
  const f = h & 1023;
  const s = h & 0x8000 ? -1 : 1;
  if (e === 31) return f ? Number.NaN : s * Infinity;
  return e === 0 ? s * f * 2 ** -24 : s * (1 + f / 1024) * 2 ** (e - 15);
}

const product = (dims: number[]) => dims.reduce((p, d) => p * d, 1);

/** ints as a tensor: int32 when every value fits (simdgrad's index dtype), else int64. */
function intsTensor(v: Ints): Tensor {
  const fits = v.ints.every((x) => x >= -(2 ** 31) && x < 2 ** 31);
  return fits
    ? tensor(Int32Array.from(v.ints), { shape: v.dims, dtype: 'int32' })
    : tensor(BigInt64Array.from(v.ints.map((x) => BigInt(x))), { shape: v.dims });
}

/** A node's attributes by name. */
function attrsOf(n: Node): Map<string, Attr> {
  return new Map(n.attribute.map((a) => [a.name, a]));
}

/** The module sg.onnx.importModel returns: the graph's nodes run by forward with simdgrad's ops. */
export class OnnxModule extends Module {
  declare graphNodes: Node[];
  declare inputNames: string[];
  declare outputNames: string[];
  /** int64 initializers, kept as numbers. */
  declare intConsts: Map<string, Ints>;
  /** initializer name → the Tensor (a Parameter, or a buffer) that holds it. */
  declare tensors: Map<string, Tensor>;

  constructor(bytes: Uint8Array) {
    super();
    if (!(bytes instanceof Uint8Array)) throw new Error(`${FN}: expected the bytes of an ONNX model (a Uint8Array), got ${describe(bytes)}`);
    const onnx = onnxProto(FN) as typeof OnnxProtoModule.onnx;
    let model: ReturnType<typeof onnx.ModelProto.decode>;
    try {
      model = onnx.ModelProto.decode(bytes);
    } catch (e) {
      throw new Error(`${FN}: the bytes are not an ONNX ModelProto (${(e as Error).message})`);
    }
    const graph = model.graph;
    if (!graph || !graph.node) throw new Error(`${FN}: the model has no graph`);
    const opset = model.opsetImport?.find((o) => !o.domain)?.version;
    if (opset !== undefined && opset !== null && (num(opset) < 13 || num(opset) > 17)) {
      throw new Error(`${FN}: opset ${num(opset)} is not supported (13 to 17: the forms sg.onnx.export writes)`);
    }
    this.graphNodes = graph.node as unknown as Node[];
    for (const n of this.graphNodes) {
      if (n.input.length > 0 && !RUN.has(n.opType)) throw new Error(`${FN}: ONNX op '${n.opType}' (node '${n.name ?? n.output[0]}') is not supported`);
      if (!RUN.has(n.opType)) throw new Error(`${FN}: ONNX op '${n.opType}' is not supported`);
    }
    this.intConsts = new Map();
    this.tensors = new Map();
    const inits = (graph.initializer ?? []) as unknown as TensorProtoLike[];
    const initNames = new Set(inits.map((t) => t.name));
    this.inputNames = (graph.input ?? []).map((v) => v.name as string).filter((n) => !initNames.has(n));
    this.outputNames = (graph.output ?? []).map((v) => v.name as string);
    // BatchNormalization's running statistics are state, not weights: buffers, as nn.BatchNorm's
    const stats = new Set(this.graphNodes.filter((n) => n.opType === 'BatchNormalization').flatMap((n) => n.input.slice(3, 5)));
    for (const t of inits) this.addInitializer(t, stats.has(t.name));
  }

  /** float32 weights become Parameters at their dotted path (submodules as needed); int64 ones numbers; the rest buffers. */
  private addInitializer(t: TensorProtoLike, state: boolean): void {
    const dims = t.dims.map(num);
    const dtype = DTYPE_OF[t.dataType];
    if (dtype === undefined) throw new Error(`${FN}: initializer '${t.name}' has ONNX data type ${t.dataType}, which simdgrad does not hold`);
    const values = elements(t, product(dims));
    if (values.length !== product(dims)) throw new Error(`${FN}: initializer '${t.name}' has ${values.length} elements for dims [${dims}]`);
    if (dtype === 'int64') {
      this.intConsts.set(t.name, { ints: values, dims });
      return;
    }
    const made = tidy(() => {
      const base = dtype === 'bool' ? tensor(Uint8Array.from(values), { shape: dims, dtype: 'bool' })
        : dtype === 'float16' || dtype === 'bfloat16' ? tensor(Float32Array.from(values), { shape: dims }).to(dtype)
          : tensor(values, { shape: dims, dtype });
      return base;
    });
    // the owner module of a dotted name ('0.weight', 'transformer.h.0.attn.c_attn.weight')
    const parts = t.name.split('.');
    const leaf = parts.pop()!;
    let owner: Module = this;
    const valid = parts.every((p) => p.length > 0) && leaf.length > 0 && /^[^\s]+$/.test(t.name);
    if (valid) {
      for (const p of parts) {
        const child = owner._modules.get(p) ?? owner._modules.get(unclashed(owner, p, owner._modules));
        if (child) owner = child;
        else {
          const m = new Module();
          owner.addModule(unclashed(owner, p, owner._modules), m);
          owner = m;
        }
      }
    }
    const name = unclashed(owner, valid ? leaf : t.name.replace(/\./g, '_'), owner._parameters);
    // constants the exporter made (const_N, const__N) are buffers outside the state dict; other
    // float32 initializers are weights (Parameters), the rest (other dtypes, running statistics) buffers
    const constant = /^const_/.test(t.name);
    if (dtype === 'float32' && !constant && !state) {
      const p = new Parameter(made);
      made.dispose();
      owner.registerParameter(name, p);
      this.tensors.set(t.name, p);
    } else {
      owner.registerBuffer(name, made, { persistent: !constant });
      this.tensors.set(t.name, made);
    }
  }

  /** The graph inputs in order (int64 inputs may be given as int32 Tensors); one output → a Tensor, several → an object by output name. */
  forward(...inputs: Tensor[]): Tensor | Record<string, Tensor> {
    if (inputs.length !== this.inputNames.length || !inputs.every((t) => t instanceof Tensor)) {
      throw new Error(`${FN}: forward expected ${this.inputNames.length} Tensors (${this.inputNames.join(', ')}), got ${inputs.length === 1 ? describe(inputs[0]) : `${inputs.length} arguments`}`);
    }
    return tidy(() => {
      const env = new Map<string, Val>();
      for (const [k, v] of this.intConsts) env.set(k, v);
      // a Parameter may have been replaced (loadStateDict keeps it, but to() moves): read the live ones
      for (const [k, p] of this.namedTensors()) env.set(k, p);
      this.inputNames.forEach((n, i) => env.set(n, inputs[i]!));
      for (const n of this.graphNodes) {
        const ins = n.input.map((name) => (name === '' ? undefined : env.get(name)));
        n.input.forEach((name, i) => {
          if (name !== '' && ins[i] === undefined) throw new Error(`${FN}: node '${n.name ?? n.opType}' reads '${name}', which nothing computed`);
        });
        let outs: Val[];
        try {
          outs = RUN.get(n.opType)!(ins, attrsOf(n), n);
        } catch (e) {
          throw new Error(`${FN}: ONNX node '${n.name ?? n.output[0]}' (${n.opType}): ${(e as Error).message}`);
        }
        n.output.forEach((name, i) => {
          if (outs[i] !== undefined) env.set(name, outs[i]!);
        });
      }
      const results = this.outputNames.map((name) => {
        const v = env.get(name);
        if (v === undefined) throw new Error(`${FN}: output '${name}' was not computed`);
        return isInts(v) ? intsTensor(v) : v;
      });
      return results.length === 1 ? results[0]! : Object.fromEntries(this.outputNames.map((k, i) => [k, results[i]!]));
    });
  }

  /** Every initializer tensor by its ONNX name (parameters and buffers at their dotted paths). */
  private namedTensors(): [string, Tensor][] {
    const byPath = new Map<string, Tensor>([...this.namedParameters(), ...this.namedBuffers()]);
    return [...this.tensors.keys()].map((k) => [k, byPath.get(k) ?? byPath.get(k.replace(/\./g, '_')) ?? this.tensors.get(k)!]);
  }
}

// ---- the ops ----

type Run = (ins: (Val | undefined)[], a: Map<string, Attr>, n: Node) => Val[];

const int = (a: Map<string, Attr>, k: string, d: number): number => (a.has(k) ? num(a.get(k)!.i) : d);
const ints = (a: Map<string, Attr>, k: string): number[] | null => (a.has(k) ? a.get(k)!.ints!.map(num) : null);
const flt = (a: Map<string, Attr>, k: string, d: number): number => (a.has(k) ? a.get(k)!.f! : d);
const str = (a: Map<string, Attr>, k: string, d: string): string => (a.has(k) ? new TextDecoder().decode(a.get(k)!.s) : d);

function T(v: Val | undefined): Tensor {
  if (v === undefined) throw new Error('a required input is missing');
  return isInts(v) ? intsTensor(v) : v;
}

function I(v: Val | undefined): Ints {
  if (v === undefined) throw new Error('a required input is missing');
  if (isInts(v)) return v;
  // a small integer tensor computed by ops (rare in exported graphs): read it
  if (!v.dtype.startsWith('int')) throw new Error(`expected int64 sizes, got a ${v.dtype} tensor`);
  return { ints: Array.from(v.dataSync() as ArrayLike<number>, Number), dims: v.shape.slice() };
}

const norm = (d: number, rank: number) => (d < 0 ? d + rank : d);

/** Elementwise on numbers when both sides are numbers (shape arithmetic), else on tensors. */
const arith = (f: (x: number, y: number) => number, op: (x: Tensor, y: Tensor) => Tensor): Run => ([a, b]) => {
  if (isInts(a) && isInts(b)) {
    const n = Math.max(a.ints.length, b.ints.length);
    return [{ ints: Array.from({ length: n }, (_, i) => f(a.ints[a.ints.length === 1 ? 0 : i]!, b.ints[b.ints.length === 1 ? 0 : i]!)), dims: a.ints.length >= b.ints.length ? a.dims : b.dims }];
  }
  return [op(T(a), T(b))];
};

const unary = (m: (x: Tensor) => Tensor): Run => ([x]) => [m(T(x))];

function padsOf(a: Map<string, Attr>, nd: number): number[] {
  const p = ints(a, 'pads') ?? new Array<number>(2 * nd).fill(0);
  const begin = p.slice(0, nd);
  if (begin.some((v, i) => v !== p[nd + i])) throw new Error(`asymmetric pads [${p}] are not supported`);
  return begin;
}

const reduce = (m: (x: Tensor, dims: number[] | undefined, keep: boolean) => Tensor): Run => ([x, axesIn], a) => {
  const t = T(x);
  const axes = axesIn !== undefined ? I(axesIn).ints : ints(a, 'axes');
  const keep = int(a, 'keepdims', 1) === 1;
  const dims = axes === null || axes.length === 0 ? undefined : axes.map((d) => norm(d, t.ndim));
  return [m(t, dims, keep)];
};

const RUN = new Map<string, Run>([
  ['Identity', ([x]) => [x!]],
  ['Gemm', ([A, B, C], a) => {
    let x = T(A);
    let w = T(B);
    if (int(a, 'transA', 0)) x = x.transpose(0, 1);
    const alpha = flt(a, 'alpha', 1);
    const beta = flt(a, 'beta', 1);
    if (int(a, 'transB', 0) && alpha === 1 && beta === 1) return [F.linear(x, w, C === undefined ? null : T(C))];
    if (int(a, 'transB', 0)) w = w.transpose(0, 1);
    let y = x.matmul(w);
    if (alpha !== 1) y = y.mul(alpha);
    if (C !== undefined) y = y.add(beta === 1 ? T(C) : T(C).mul(beta));
    return [y];
  }],
  ['MatMul', ([x, y]) => [T(x).matmul(T(y))]],
  ['Add', arith((x, y) => x + y, (x, y) => x.add(y))],
  ['Sub', arith((x, y) => x - y, (x, y) => x.sub(y))],
  ['Mul', arith((x, y) => x * y, (x, y) => x.mul(y))],
  ['Div', arith((x, y) => Math.trunc(x / y), (x, y) => x.div(y))],
  ['Pow', ([x, y]) => [T(x).pow(T(y))]],
  ['Max', ([x, y]) => [T(x).maximum(T(y))]],
  ['Min', ([x, y]) => [T(x).minimum(T(y))]],
  ['Equal', ([x, y]) => [T(x).eq(T(y))]],
  ['Less', ([x, y]) => [T(x).lt(T(y))]],
  ['LessOrEqual', ([x, y]) => [T(x).le(T(y))]],
  ['Greater', ([x, y]) => [T(x).gt(T(y))]],
  ['GreaterOrEqual', ([x, y]) => [T(x).ge(T(y))]],
  ['Not', ([x]) => [T(x).logicalNot()]],
  ['Where', ([c, x, y]) => [functionOps.where(T(c), T(x), T(y))]],
  ['Neg', unary((x) => x.neg())], ['Exp', unary((x) => x.exp())], ['Log', unary((x) => x.log())],
  ['Sqrt', unary((x) => x.sqrt())], ['Abs', unary((x) => x.abs())], ['Erf', unary((x) => x.erf())],
  ['Sin', unary((x) => x.sin())], ['Cos', unary((x) => x.cos())], ['Reciprocal', unary((x) => x.reciprocal())],
  ['Floor', unary((x) => x.floor())], ['Ceil', unary((x) => x.ceil())], ['Sign', unary((x) => x.sign())],
  ['Relu', unary((x) => x.relu())], ['Sigmoid', unary((x) => x.sigmoid())], ['Tanh', unary((x) => x.tanh())],
  ['LeakyRelu', ([x], a) => [T(x).leakyRelu(flt(a, 'alpha', 0.01))]],
  ['Elu', ([x], a) => [T(x).elu(flt(a, 'alpha', 1))]],
  ['Selu', ([x], a) => {
    if (a.has('alpha') || a.has('gamma')) throw new Error('Selu with its own alpha or gamma is not supported');
    return [T(x).selu()];
  }],
  ['PRelu', ([x, slope]) => [T(x).prelu(T(slope).reshape([-1]))]],
  ['Softplus', ([x]) => [F.softplus(T(x))]],
  // without min and max (both optional inputs) Clip is the identity, as the ONNX spec's numeric-limit defaults make it
  ['Clip', ([x, lo, hi]) => [lo === undefined && hi === undefined ? T(x) : T(x).clamp(lo === undefined ? null : T(lo), hi === undefined ? null : T(hi))]],
  ['GlobalAveragePool', ([x]) => {
    const t = T(x);
    return [t.mean(t.shape.map((_, i) => i).slice(2), true)];
  }],
  ['InstanceNormalization', ([x, scale, bias], a) => [F.instanceNorm(T(x), null, null, T(scale), T(bias), { useInputStats: true, eps: flt(a, 'epsilon', 1e-5) })]],
  ['ConvTranspose', ([x, w, b], a) => {
    const weight = T(w);
    const nd = weight.ndim - 2;
    if (a.has('output_shape') || (a.has('auto_pad') && str(a, 'auto_pad', 'NOTSET') !== 'NOTSET')) throw new Error('ConvTranspose with output_shape or auto_pad is not supported');
    const o = { stride: ints(a, 'strides') ?? 1, padding: padsOf(a, nd), outputPadding: ints(a, 'output_padding') ?? 0, dilation: ints(a, 'dilations') ?? 1, groups: int(a, 'group', 1) };
    const bias = b === undefined ? null : T(b);
    if (nd === 1) return [F.convTranspose1d(T(x), weight, bias, o)];
    if (nd === 2) return [F.convTranspose2d(T(x), weight, bias, o)];
    throw new Error(`a ${nd}-d transposed convolution is not supported`);
  }],
  ['Softmax', ([x], a) => [T(x).softmax(int(a, 'axis', -1))]],
  ['LogSoftmax', ([x], a) => [T(x).logSoftmax(int(a, 'axis', -1))]],
  ['Conv', ([x, w, b], a) => {
    const weight = T(w);
    const nd = weight.ndim - 2;
    const o = { stride: ints(a, 'strides') ?? 1, padding: padsOf(a, nd), dilation: ints(a, 'dilations') ?? 1, groups: int(a, 'group', 1) };
    const bias = b === undefined ? null : T(b);
    if (nd === 1) return [F.conv1d(T(x), weight, bias, o)];
    if (nd === 2) return [F.conv2d(T(x), weight, bias, o)];
    if (nd === 3) return [F.conv3d(T(x), weight, bias, o)];
    throw new Error(`a ${nd}-d convolution is not supported`);
  }],
  ['MaxPool', ([x], a) => {
    const k = ints(a, 'kernel_shape')!;
    const o = { stride: ints(a, 'strides') ?? 1, padding: padsOf(a, k.length), dilation: ints(a, 'dilations') ?? 1, ceilMode: int(a, 'ceil_mode', 0) === 1 };
    if (k.length === 1) return [F.maxPool1d(T(x), k, o) as Tensor];
    if (k.length === 2) return [F.maxPool2d(T(x), k, o) as Tensor];
    throw new Error(`a ${k.length}-d MaxPool is not supported`);
  }],
  ['AveragePool', ([x], a) => {
    const k = ints(a, 'kernel_shape')!;
    const o = { stride: ints(a, 'strides') ?? 1, padding: padsOf(a, k.length), ceilMode: int(a, 'ceil_mode', 0) === 1, countIncludePad: int(a, 'count_include_pad', 0) === 1 };
    if (k.length === 1) return [F.avgPool1d(T(x), k, o)];
    if (k.length === 2) return [F.avgPool2d(T(x), k, o)];
    throw new Error(`a ${k.length}-d AveragePool is not supported`);
  }],
  ['BatchNormalization', ([x, scale, bias, mean, variance], a) => [F.batchNorm(T(x), T(mean), T(variance), T(scale), T(bias), { training: false, eps: flt(a, 'epsilon', 1e-5) })]],
  ['LayerNormalization', ([x, scale, bias], a) => {
    const t = T(x);
    const axis = norm(int(a, 'axis', -1), t.ndim);
    return [F.layerNorm(t, t.shape.slice(axis), T(scale), bias === undefined ? null : T(bias), { eps: flt(a, 'epsilon', 1e-5) })];
  }],
  ['Gather', ([data, idx], a) => {
    const axis = int(a, 'axis', 0);
    if (isInts(data)) {
      const i = I(idx);
      if (data.dims.length !== 1 || axis !== 0) throw new Error('Gather of a multi-dimensional int64 constant is not supported');
      return [{ ints: i.ints.map((k) => data.ints[norm(k, data.ints.length)]!), dims: i.dims }];
    }
    const x = T(data);
    const ax = norm(axis, x.ndim);
    if (isInts(idx) && idx.dims.length === 0) return [x.select(ax, norm(idx.ints[0]!, x.shape[ax]!))];
    const index = T(idx);
    const flat = x.indexSelect(ax, index.reshape([-1]).to('int32'));
    return [flat.reshape([...x.shape.slice(0, ax), ...index.shape, ...x.shape.slice(ax + 1)])];
  }],
  ['Reshape', ([x, shape]) => {
    const t = T(x);
    const target = I(shape).ints.map((d, i) => (d === 0 ? t.shape[i]! : d));
    return [t.reshape(target)];
  }],
  ['Transpose', ([x], a) => {
    const t = T(x);
    return [t.permute(ints(a, 'perm') ?? t.shape.map((_, i) => t.ndim - 1 - i))];
  }],
  ['Unsqueeze', ([x, axes]) => {
    const ax = I(axes).ints;
    if (isInts(x)) {
      const rank = x.dims.length + ax.length;
      const dims = x.dims.slice();
      for (const d of ax.map((d) => norm(d, rank)).sort((p, q) => p - q)) dims.splice(d, 0, 1);
      return [{ ints: x.ints, dims }];
    }
    let t = T(x);
    const rank = t.ndim + ax.length;
    for (const d of ax.map((d) => norm(d, rank)).sort((p, q) => p - q)) t = t.unsqueeze(d);
    return [t];
  }],
  ['Squeeze', ([x, axes]) => {
    if (isInts(x)) {
      const ax = axes === undefined ? x.dims.map((_, i) => i).filter((i) => x.dims[i] === 1) : I(axes).ints.map((d) => norm(d, x.dims.length));
      return [{ ints: x.ints, dims: x.dims.filter((_, i) => !ax.includes(i)) }];
    }
    let t = T(x);
    const ax = axes === undefined ? t.shape.map((_, i) => i).filter((i) => t.shape[i] === 1) : I(axes).ints.map((d) => norm(d, t.ndim));
    for (const d of ax.sort((p, q) => q - p)) t = t.squeeze(d);
    return [t];
  }],
  ['Concat', (ins, a) => {
    const vals = ins.filter((v): v is Val => v !== undefined);
    if (vals.every(isInts)) return [{ ints: vals.flatMap((v) => v.ints), dims: [vals.reduce((s, v) => s + v.ints.length, 0)] }];
    const ts = vals.map(T);
    return [functionOps.cat(ts, norm(int(a, 'axis', 0), ts[0]!.ndim))];
  }],
  ['Slice', ([x, starts, ends, axesIn, stepsIn]) => {
    const s = I(starts).ints;
    const e = I(ends).ints;
    const rankOf = isInts(x) ? x.dims.length : T(x).ndim;
    const axes = axesIn === undefined ? s.map((_, i) => i) : I(axesIn).ints.map((d) => norm(d, rankOf));
    const steps = stepsIn === undefined ? s.map(() => 1) : I(stepsIn).ints;
    const clamp = (v: number, size: number, step: number) => {
      const w = v < 0 ? v + size : v;
      return step > 0 ? Math.min(Math.max(w, 0), size) : Math.min(Math.max(w, -1), size - 1);
    };
    if (isInts(x)) {
      if (x.dims.length !== 1 || steps[0] !== 1) throw new Error('Slice of an int64 constant with steps or several dims is not supported');
      return [{ ints: x.ints.slice(clamp(s[0]!, x.ints.length, 1), clamp(e[0]!, x.ints.length, 1)), dims: [Math.max(0, clamp(e[0]!, x.ints.length, 1) - clamp(s[0]!, x.ints.length, 1))] }];
    }
    let t = T(x);
    axes.forEach((ax, i) => {
      const size = t.shape[ax]!;
      const step = steps[i]!;
      if (step <= 0) throw new Error('Slice with a negative step is not supported');
      t = t.slice(ax, clamp(s[i]!, size, step), clamp(e[i]!, size, step), step);
    });
    return [t];
  }],
  ['Split', ([x, split], a, n) => {
    const t = T(x);
    const ax = norm(int(a, 'axis', 0), t.ndim);
    const sizes = split !== undefined ? I(split).ints : new Array<number>(n.output.length).fill(t.shape[ax]! / n.output.length);
    let at = 0;
    return sizes.map((len) => {
      const part = t.narrow(ax, at, len);
      at += len;
      return part;
    });
  }],
  ['Expand', ([x, shape]) => {
    const t = T(x);
    const target = I(shape).ints;
    const rank = Math.max(t.ndim, target.length);
    const pad = (d: number[]) => [...new Array<number>(rank - d.length).fill(1), ...d];
    const [p, q] = [pad(t.shape), pad(target)];
    return [t.expand(p.map((d, i) => (d === 1 ? q[i]! : d)))];
  }],
  ['Cast', ([x], a) => {
    const to = DTYPE_OF[int(a, 'to', 1)];
    if (to === undefined) throw new Error(`Cast to ONNX data type ${int(a, 'to', 1)} is not supported`);
    if (isInts(x) && to === 'int64') return [x];
    return [T(x).to(to)];
  }],
  ['Trilu', ([x, k], a) => {
    const diag = k === undefined ? 0 : I(k).ints[0]!;
    return [int(a, 'upper', 1) ? T(x).triu(diag) : T(x).tril(diag)];
  }],
  ['ReduceSum', reduce((x, d, k) => x.sum(d, k))],
  ['ReduceMean', reduce((x, d, k) => x.mean(d, k))],
  ['ReduceMax', reduce((x, d, k) => x.amax(d ?? x.shape.map((_, i) => i), k))],
  ['ReduceMin', reduce((x, d, k) => x.amin(d ?? x.shape.map((_, i) => i), k))],
  ['ReduceProd', reduce((x, d, k) => {
    if (d === undefined || d.length !== 1) throw new Error('ReduceProd over several axes is not supported');
    return x.prod(d[0]!, k);
  })],
  ['ArgMax', ([x], a) => [T(x).argmax(int(a, 'axis', 0), int(a, 'keepdims', 1) === 1)]],
  ['ArgMin', ([x], a) => [T(x).argmin(int(a, 'axis', 0), int(a, 'keepdims', 1) === 1)]],
  ['Shape', ([x], a) => {
    const shape = isInts(x) ? x.dims : T(x).shape;
    const r = shape.length;
    const start = norm(int(a, 'start', 0), r);
    const end = a.has('end') ? norm(int(a, 'end', r), r) : r;
    const dims = shape.slice(start, end);
    return [{ ints: dims, dims: [dims.length] }];
  }],
  ['Range', ([s, l, d]) => {
    const [start, limit, delta] = [s, l, d].map((v) => I(v).ints[0]!) as [number, number, number];
    const n = Math.max(0, Math.ceil((limit - start) / delta));
    return [{ ints: Array.from({ length: n }, (_, i) => start + i * delta), dims: [n] }];
  }],
  ['SoftmaxCrossEntropyLoss', ([x, target, weight], a) => {
    const o: Record<string, unknown> = { reduction: str(a, 'reduction', 'mean') };
    if (a.has('ignore_index')) o.ignoreIndex = int(a, 'ignore_index', -100);
    if (weight !== undefined) o.weight = T(weight);
    return [F.crossEntropy(T(x), T(target).to('int32'), o)];
  }],
  ['NegativeLogLikelihoodLoss', ([x, target, weight], a) => {
    const o: Record<string, unknown> = { reduction: str(a, 'reduction', 'mean') };
    if (a.has('ignore_index')) o.ignoreIndex = int(a, 'ignore_index', -100);
    if (weight !== undefined) o.weight = T(weight);
    return [F.nllLoss(T(x), T(target).to('int32'), o)];
  }],
]);

/** sg.onnx.importModel(bytes) → an OnnxModule (nn.Module) whose forward runs the graph; its float32 weights are Parameters. */
export function importOnnx(bytes: unknown): OnnxModule {
  return new OnnxModule(bytes as Uint8Array);
}
