// The one table of sg.onnx.export: each op of the registry (as runtime/handles.ts's recorder hears
// it: name, attrs, operands, results with shapes and dtypes) → its standard ONNX nodes (opset 17).
// An op that is not here has no ONNX form, and exporting it is an Error naming it.
import type { Attrs, AttrValue, DType } from '../runtime/embind.js';
import { isExpr, type Dim, type Emitter } from './onnx_dynamic.js';

/** A value of the traced graph: its name in the ONNX graph, shape and dtype. */
export interface ValueRef {
  name: string;
  shape: number[];
  dtype: DType;
}

/** One op call as the recorder heard it (null: an absent optional operand). */
export interface RecordedOp {
  op: string;
  inputs: (ValueRef | null)[];
  attrs: Attrs;
  outputs: ValueRef[];
  /** Where the caller's code called it (ops with no ONNX form only). */
  where?: string;
}

// What a rule writes with (onnx.ts's Graph): declared in onnx_dynamic.ts, which uses it too.
export type { Emitter } from './onnx_dynamic.js';

/**
 * What a rule sees of its op across the traces of dynamicAxes (onnx.ts's OpDims): an attribute or
 * a dim as a number, or as an Expr of the symbolic dims when the traces disagree on it; and the
 * int64 nodes that compute such Dims at run time.
 */
export interface Dims {
  attr(key: string, index?: number): Dim;
  dim(v: ValueRef, i: number): Dim;
  shape(v: ValueRef): Dim[];
  /** d as an int64 tensor [1]. */
  scalar(d: Dim): string;
  /** A shape as an int64 tensor [dims.length]. */
  shapeOf(dims: Dim[]): string;
  add(a: Dim, b: Dim): Dim;
}

/** ONNX TensorProto.DataType codes. */
export const ONNX_DTYPE: Record<DType, number> = {
  float32: 1, uint8: 2, int8: 3, int32: 6, int64: 7, bool: 9, float16: 10, float64: 11, bfloat16: 16,
};

const FN = 'onnx.export';
const INT64_MAX = Number.MAX_SAFE_INTEGER;
const flt = (v: number): Float32Array => Float32Array.of(v);

type Rule = (g: Emitter, r: RecordedOp, dims: Dims) => string[];

const norm = (d: number, rank: number): number => (d < 0 ? d + rank : d);

function input(r: RecordedOp, i: number): ValueRef {
  const v = r.inputs[i];
  if (v === null || v === undefined) throw new Error(`${FN}: op '${r.op}' is missing operand ${i}`);
  return v;
}

const one = (g: Emitter, opType: string, ins: string[], attrs?: Record<string, number | number[] | string | Float32Array>): string => g.node(opType, ins, attrs)[0]!;

function cast(g: Emitter, v: ValueRef, dtype: DType): string {
  return v.dtype === dtype ? v.name : one(g, 'Cast', [v.name], { to: ONNX_DTYPE[dtype] });
}

/** A size attribute (number, [n], [a, b], null) as nd numbers. */
function tuple(v: AttrValue, nd: number, fallback: number | number[]): number[] {
  const a = v === null || v === undefined ? fallback : v;
  if (typeof a === 'number') return new Array<number>(nd).fill(a);
  if (Array.isArray(a)) return a.length === 1 ? new Array<number>(nd).fill(a[0]!) : a.slice();
  throw new Error(`${FN}: unexpected size attribute ${String(a)}`);
}

/** A constant of `dims` filled with value (LayerNorm/BatchNorm without weight or bias). */
function filled(g: Emitter, value: number, dtype: DType, dims: number[]): string {
  return one(g, 'Expand', [g.scalar(value, dtype), g.ints(dims)]);
}

const dimList = (v: AttrValue, rank: number): number[] | null =>
  v === null || v === undefined ? null : (typeof v === 'number' ? [v] : (v as number[])).map((d) => norm(d, rank));

// ---- activations ----

function gelu(g: Emitter, x: string, dtype: DType, approximate: AttrValue): string {
  const half = g.scalar(0.5, dtype);
  const onev = g.scalar(1, dtype);
  if (approximate === 'tanh') {
    const x3 = one(g, 'Mul', [x, one(g, 'Mul', [x, x])]);
    const inner = one(g, 'Mul', [one(g, 'Add', [x, one(g, 'Mul', [x3, g.scalar(0.044715, dtype)])]), g.scalar(Math.sqrt(2 / Math.PI), dtype)]);
    return one(g, 'Mul', [one(g, 'Mul', [x, one(g, 'Add', [one(g, 'Tanh', [inner]), onev])]), half]);
  }
  const erf = one(g, 'Erf', [one(g, 'Mul', [x, g.scalar(Math.SQRT1_2, dtype)])]);
  return one(g, 'Mul', [one(g, 'Mul', [x, one(g, 'Add', [erf, onev])]), half]);
}

function activation(g: Emitter, name: AttrValue, x: string, dtype: DType, op: string): string {
  switch (name) {
    case undefined: case null: case '': case 'none': return x;
    case 'relu': return one(g, 'Relu', [x]);
    case 'gelu': return gelu(g, x, dtype, 'none');
    case 'gelu_tanh': return gelu(g, x, dtype, 'tanh');
    case 'tanh': return one(g, 'Tanh', [x]);
    case 'sigmoid': return one(g, 'Sigmoid', [x]);
    case 'silu': return one(g, 'Mul', [x, one(g, 'Sigmoid', [x])]);
    default: throw new Error(`${FN}: op '${op}' with activation '${String(name)}' has no ONNX form`);
  }
}

const unary = (opType: string): Rule => (g, r) => [one(g, opType, [input(r, 0).name])];

/** Elementwise op of two operands, each cast to the result's dtype (simdgrad promotes, ONNX does not). */
const binary = (opType: string): Rule => (g, r) => {
  const out = r.outputs[0]!.dtype;
  let b = cast(g, input(r, 1), out);
  const alpha = r.attrs.alpha;
  if (typeof alpha === 'number' && alpha !== 1) b = one(g, 'Mul', [b, g.scalar(alpha, out)]);
  return [one(g, opType, [cast(g, input(r, 0), out), b])];
};

/** Comparison: operands cast to a common dtype (the floating one, else the first's). */
const compare = (opType: string, negate = false): Rule => (g, r) => {
  const a = input(r, 0);
  const b = input(r, 1);
  const floating = (d: DType) => d.startsWith('float') || d === 'bfloat16';
  const common = floating(a.dtype) ? a.dtype : floating(b.dtype) ? b.dtype : a.dtype;
  const c = one(g, opType, [cast(g, a, common), cast(g, b, common)]);
  return [negate ? one(g, 'Not', [c]) : c];
};

const identity: Rule = (_g, r) => [input(r, 0).name];

// ---- layers ----

const linear: Rule = (g, r) => {
  const x = input(r, 0);
  const w = input(r, 1);
  const b = r.inputs[2] ?? null;
  let y: string;
  if (x.shape.length === 2) {
    y = one(g, 'Gemm', b === null ? [x.name, w.name] : [x.name, w.name, b.name], { transB: 1 });
  } else {
    y = one(g, 'MatMul', [x.name, one(g, 'Transpose', [w.name], { perm: [1, 0] })]);
    if (b !== null) y = one(g, 'Add', [y, b.name]);
  }
  return [activation(g, r.attrs.activation, y, r.outputs[0]!.dtype, r.op)];
};

function convNode(g: Emitter, r: RecordedOp, attrs: Attrs): string {
  const x = input(r, 0);
  const w = input(r, 1);
  const b = r.inputs[2] ?? null;
  const nd = w.shape.length - 2;
  const kernel = w.shape.slice(2);
  const dilations = tuple(attrs.dilation, nd, 1);
  let pads: number[];
  if (attrs.padding === 'valid') {
    pads = new Array<number>(2 * nd).fill(0);
  } else if (attrs.padding === 'same') {
    const total = kernel.map((k, i) => dilations[i]! * (k - 1));
    pads = [...total.map((t) => Math.floor(t / 2)), ...total.map((t) => t - Math.floor(t / 2))];
  } else {
    const p = tuple(attrs.padding, nd, 0);
    pads = [...p, ...p];
  }
  return one(g, 'Conv', b === null ? [x.name, w.name] : [x.name, w.name, b.name], {
    kernel_shape: kernel,
    strides: tuple(attrs.stride, nd, 1),
    pads,
    dilations,
    group: typeof attrs.groups === 'number' ? attrs.groups : 1,
  });
}

const conv: Rule = (g, r) => [activation(g, r.attrs.activation, convNode(g, r, r.attrs), r.outputs[0]!.dtype, r.op)];

function maxPoolNode(g: Emitter, x: string, nd: number, kernel: AttrValue, stride: AttrValue, padding: AttrValue, dilation: AttrValue, ceil: AttrValue): string {
  const k = tuple(kernel, nd, 1);
  const p = tuple(padding, nd, 0);
  return one(g, 'MaxPool', [x], {
    kernel_shape: k,
    strides: tuple(stride, nd, k),
    pads: [...p, ...p],
    dilations: tuple(dilation, nd, 1),
    ceil_mode: ceil === true ? 1 : 0,
  });
}

const maxPool = (nd: number): Rule => (g, r) => {
  if (r.outputs.length > 1) throw new Error(`${FN}: op '${r.op}' with returnIndices has no ONNX form here`);
  const a = r.attrs;
  return [maxPoolNode(g, input(r, 0).name, nd, a.kernelSize, a.stride, a.padding, a.dilation, a.ceilMode)];
};

const avgPool = (nd: number): Rule => (g, r) => {
  const a = r.attrs;
  const k = tuple(a.kernelSize, nd, 1);
  const p = tuple(a.padding, nd, 0);
  return [one(g, 'AveragePool', [input(r, 0).name], {
    kernel_shape: k,
    strides: tuple(a.stride, nd, k),
    pads: [...p, ...p],
    ceil_mode: a.ceilMode === true ? 1 : 0,
    count_include_pad: a.countIncludePad === false ? 0 : 1,
  })];
};

const conv2dReluMaxPool2d: Rule = (g, r) => {
  const a = r.attrs;
  const c = one(g, 'Relu', [convNode(g, r, a)]);
  return [maxPoolNode(g, c, 2, a.poolKernelSize, a.poolStride, a.poolPadding, a.poolDilation, a.poolCeilMode)];
};

const batchNorm: Rule = (g, r) => {
  const x = input(r, 0);
  const [mean, variance, weight, bias] = r.inputs.slice(1);
  if (r.attrs.training === true || !mean || !variance) {
    throw new Error(`${FN}: op 'batchNorm' with batch statistics (training mode, or no running stats) has no ONNX inference form: export in eval mode ({ training: false })`);
  }
  const c = [x.shape[1] ?? 1];
  return [one(g, 'BatchNormalization', [
    x.name,
    weight?.name ?? filled(g, 1, x.dtype, c),
    bias?.name ?? filled(g, 0, x.dtype, c),
    mean.name,
    variance.name,
  ], { epsilon: flt(typeof r.attrs.eps === 'number' ? r.attrs.eps : 1e-5) })];
};

const layerNorm: Rule = (g, r) => {
  const x = input(r, 0);
  const shape = tuple(r.attrs.normalizedShape, 1, x.shape.slice(-1));
  const weight = r.inputs[1] ?? null;
  const bias = r.inputs[2] ?? null;
  const ins = [x.name, weight?.name ?? filled(g, 1, x.dtype, shape)];
  if (bias !== null) ins.push(bias.name);
  return [one(g, 'LayerNormalization', ins, { axis: -shape.length, epsilon: flt(typeof r.attrs.eps === 'number' ? r.attrs.eps : 1e-5) })];
};

const embedding: Rule = (g, r) => {
  const a = input(r, 0);
  const b = input(r, 1);
  const integral = (v: ValueRef) => v.dtype.startsWith('int') || v.dtype === 'uint8';
  const [w, idx] = integral(a) && !integral(b) ? [b, a] : [a, b];
  return [one(g, 'Gather', [w.name, idx.name], { axis: 0 })];
};

// ---- reductions ----

const reduce = (opType: string, axesInput: boolean): Rule => (g, r) => {
  const x = input(r, 0);
  const dims = dimList(r.attrs.dim, x.shape.length);
  const keepdims = r.attrs.keepdim === true ? 1 : 0;
  const attrs: Record<string, number | number[]> = { keepdims };
  const ins = [x.name];
  if (dims !== null && dims.length > 0) {
    if (axesInput) ins.push(g.ints(dims));
    else attrs.axes = dims;
  }
  const y = one(g, opType, ins, attrs);
  const outs = [r.outputs[0]!.dtype === x.dtype ? y : one(g, 'Cast', [y], { to: ONNX_DTYPE[r.outputs[0]!.dtype] })];
  if (r.outputs.length > 1) {
    // (values, indices): the indices by ArgMax / ArgMin over the one dim
    if (dims === null || dims.length !== 1) throw new Error(`${FN}: op '${r.op}' with indices over several dims has no ONNX form`);
    const arg = one(g, opType === 'ReduceMax' ? 'ArgMax' : 'ArgMin', [x.name], { axis: dims[0]!, keepdims, select_last_index: 0 });
    outs.push(r.outputs[1]!.dtype === 'int64' ? arg : one(g, 'Cast', [arg], { to: ONNX_DTYPE[r.outputs[1]!.dtype] }));
  }
  return outs;
};

// ---- shapes ----

/** Reshape to the result's shape: one dim that follows the dynamic axes becomes -1, several are computed from Shape. */
const reshape: Rule = (g, r, d) => {
  const x = input(r, 0);
  const target = d.shape(r.outputs[0]!);
  const dynamic = target.filter(isExpr).length;
  const shape = dynamic === 0 ? g.ints(target as number[]) : dynamic === 1 ? g.ints(target.map((t) => (isExpr(t) ? -1 : t))) : d.shapeOf(target);
  return [one(g, 'Reshape', [x.name, shape])];
};

const transpose: Rule = (g, r) => {
  const x = input(r, 0);
  const rank = x.shape.length;
  const perm = Array.from({ length: rank }, (_, i) => i);
  const d0 = norm(r.attrs.dim0 as number, rank);
  const d1 = norm(r.attrs.dim1 as number, rank);
  [perm[d0], perm[d1]] = [perm[d1]!, perm[d0]!];
  return [one(g, 'Transpose', [x.name], { perm })];
};

const permute: Rule = (g, r) => {
  const x = input(r, 0);
  return [one(g, 'Transpose', [x.name], { perm: (r.attrs.dims as number[]).map((d) => norm(d, x.shape.length)) })];
};

const unsqueeze: Rule = (g, r) => {
  const x = input(r, 0);
  return [one(g, 'Unsqueeze', [x.name, g.ints([norm(r.attrs.dim as number, x.shape.length + 1)])])];
};

const squeeze: Rule = (g, r, d) => {
  const x = input(r, 0);
  // a dim squeezes when it is 1 in every trace (not a dynamic axis that was 1 in the example)
  const dims = (dimList(r.attrs.dim, x.shape.length) ?? x.shape.map((_, i) => i)).filter((k) => d.dim(x, k) === 1);
  return dims.length === 0 ? [x.name] : [one(g, 'Squeeze', [x.name, g.ints(dims)])];
};

const concat: Rule = (g, r) => {
  const out = r.outputs[0]!;
  const ins = r.inputs.filter((v): v is ValueRef => v !== null);
  return [one(g, 'Concat', ins.map((v) => cast(g, v, out.dtype)), { axis: norm(r.attrs.dim as number ?? 0, out.shape.length) })];
};

const stack: Rule = (g, r) => {
  const out = r.outputs[0]!;
  const axis = norm((r.attrs.dim as number) ?? 0, out.shape.length);
  const ins = r.inputs.filter((v): v is ValueRef => v !== null).map((v) => one(g, 'Unsqueeze', [cast(g, v, out.dtype), g.ints([axis])]));
  return [one(g, 'Concat', ins, { axis })];
};

function slice(g: Emitter, d: Dims, x: ValueRef, dim: number, start: Dim, end: Dim, step: number): string {
  const axis = norm(dim, x.shape.length);
  return one(g, 'Slice', [x.name, d.scalar(start), d.scalar(end), g.ints([axis]), g.ints([step])]);
}

/** narrow: start and length may follow the dynamic axes (GPT's last position, T − 1); a negative start counts from the runtime end. */
const narrow: Rule = (g, r, d) => {
  const x = input(r, 0);
  const dim = norm(r.attrs.dim as number, x.shape.length);
  let start = d.attr('start');
  if (!isExpr(start) && start < 0) start = d.add(start, d.dim(x, dim));
  return [slice(g, d, x, dim, start, d.add(start, d.attr('length')), 1)];
};

const sliceRule: Rule = (g, r, d) => {
  const x = input(r, 0);
  const a = r.attrs;
  const start = typeof a.start === 'number' ? d.attr('start') : 0;
  const end = typeof a.end === 'number' ? d.attr('end') : INT64_MAX;
  return [slice(g, d, x, a.dim as number ?? 0, start, end, typeof a.step === 'number' ? a.step : 1)];
};

/** split / chunk / splitWithSizes / unbind: the sizes are the traced results' along the dim. */
const split = (squeezeOut: boolean): Rule => (g, r, d) => {
  const x = input(r, 0);
  const dim = norm((r.attrs.dim as number) ?? 0, x.shape.length);
  const sizes = r.outputs.map((o) => (squeezeOut ? 1 : o.shape[dim]!));
  if (!squeezeOut && r.outputs.some((o) => isExpr(d.dim(o, dim)))) {
    throw new Error(`${FN}: op '${r.op}' into parts whose size follows a dynamic axis has no ONNX form here (opset 17's Split takes fixed sizes)`);
  }
  const outs = g.node('Split', [x.name, g.ints(sizes)], { axis: dim }, sizes.length);
  return squeezeOut ? outs.map((o) => one(g, 'Squeeze', [o, g.ints([dim])])) : outs;
};

/** select(dim, index): Gather of a 0-d index (the index may follow a dynamic axis, as T − 1). */
const select: Rule = (g, r, d) => {
  const x = input(r, 0);
  const index = d.attr('index');
  const idx = isExpr(index) ? one(g, 'Squeeze', [d.scalar(index), g.ints([0])]) : g.scalar(index, 'int64');
  return [one(g, 'Gather', [x.name, idx], { axis: norm(r.attrs.dim as number, x.shape.length) })];
};

const expand: Rule = (g, r, d) => [one(g, 'Expand', [input(r, 0).name, d.shapeOf(d.shape(r.outputs[0]!))])];

const castRule: Rule = (g, r) => [cast(g, input(r, 0), r.outputs[0]!.dtype)];

const dropout: Rule = (g, r) => {
  if (r.attrs.training === true && r.attrs.p !== 0) {
    throw new Error(`${FN}: op '${r.op}' in training mode (p = ${String(r.attrs.p)}) has no ONNX inference form: export in eval mode ({ training: false })`);
  }
  return [input(r, 0).name];
};

const softmax = (opType: string): Rule => (g, r) => {
  const x = input(r, 0);
  return [one(g, opType, [x.name], { axis: norm((r.attrs.dim as number) ?? -1, x.shape.length) })];
};

/**
 * causalSoftmax (attention's causal softmax, no mask tensor in simdgrad): in ONNX the nodes causalMask
 * makes (−inf over the runtime [L, S], Trilu above the diagonal), Add, then Softmax.
 */
const causalSoftmax: Rule = (g, r, d) => {
  const x = input(r, 0);
  const n = x.shape.length;
  const filled = one(g, 'Expand', [g.scalar(-Infinity, x.dtype), d.shapeOf([d.dim(x, n - 2), d.dim(x, n - 1)])]);
  const mask = one(g, 'Trilu', [filled, g.scalar(1, 'int64')], { upper: 1 });
  return [one(g, 'Softmax', [one(g, 'Add', [x.name, mask])], { axis: n - 1 })];
};

// ---- recurrent layers ----

/**
 * rnnLayer (one layer and direction of nn.RNN / LSTM / GRU over the whole sequence; nn/rnn.ts):
 * unrolled over the traced sequence length in PyTorch's gate order, into the op's one flat result
 * (the outputs [T, B, P], then the LSTM's cell states [T, B, H], each flattened).
 */
const rnnLayer: Rule = (g, r, d) => {
  const [x, h0, c0, wIh, wHh, bIh, bHh, wHr] = r.inputs;
  const mode = r.attrs.mode as string;
  if (!x || !wIh || !wHh) throw new Error(`${FN}: op 'rnnLayer' is missing operands`);
  if (wHr) throw new Error(`${FN}: op 'rnnLayer' with projections (LSTM projSize) has no ONNX form here`);
  const gates = mode === 'lstm' ? 4 : mode === 'gru' ? 3 : 1;
  const [T] = x.shape as [number, number];
  if (isExpr(d.dim(x, 0))) {
    throw new Error(`${FN}: op 'rnnLayer' (nn.RNN / LSTM / GRU) is unrolled over the traced sequence length: a dynamic sequence length has no ONNX form here (a dynamic batch has)`);
  }
  const B = d.dim(x, 1);
  const H = wIh.shape[0]! / gates;
  const dtype = x.dtype;
  const zeroState = () => one(g, 'Expand', [g.scalar(0, dtype), d.shapeOf([B, H])]);
  let xw = one(g, 'MatMul', [x.name, one(g, 'Transpose', [wIh.name], { perm: [1, 0] })]);
  if (bIh) xw = one(g, 'Add', [xw, bIh.name]);
  const steps = T === 1 ? [xw] : g.node('Split', [xw, g.ints(new Array<number>(T).fill(1))], { axis: 0 }, T);
  const xs = steps.map((s) => one(g, 'Squeeze', [s, g.ints([0])]));
  const whhT = one(g, 'Transpose', [wHh.name], { perm: [1, 0] });
  let h = h0?.name ?? zeroState();
  let c = mode === 'lstm' ? (c0?.name ?? zeroState()) : '';
  const hs: string[] = new Array<string>(T);
  const cs: string[] = new Array<string>(T);
  const split = (v: string): string[] => g.node('Split', [v, g.ints(new Array<number>(gates).fill(H))], { axis: 1 }, gates);
  const order = Array.from({ length: T }, (_, i) => (r.attrs.reverse === true ? T - 1 - i : i));
  for (const t of order) {
    let hh = one(g, 'MatMul', [h, whhT]);
    if (bHh) hh = one(g, 'Add', [hh, bHh.name]);
    if (mode === 'lstm') {
      const [i, f, gg, o] = split(one(g, 'Add', [xs[t]!, hh]));
      c = one(g, 'Add', [one(g, 'Mul', [one(g, 'Sigmoid', [f!]), c]), one(g, 'Mul', [one(g, 'Sigmoid', [i!]), one(g, 'Tanh', [gg!])])]);
      h = one(g, 'Mul', [one(g, 'Sigmoid', [o!]), one(g, 'Tanh', [c])]);
      cs[t] = c;
    } else if (mode === 'gru') {
      const [xr, xz, xn] = split(xs[t]!);
      const [hr, hz, hn] = split(hh);
      const rg = one(g, 'Sigmoid', [one(g, 'Add', [xr!, hr!])]);
      const z = one(g, 'Sigmoid', [one(g, 'Add', [xz!, hz!])]);
      const n = one(g, 'Tanh', [one(g, 'Add', [xn!, one(g, 'Mul', [rg, hn!])])]);
      h = one(g, 'Add', [n, one(g, 'Mul', [z, one(g, 'Sub', [h, n])])]);
    } else if (mode === 'rnn_tanh' || mode === 'rnn_relu') {
      h = one(g, mode === 'rnn_tanh' ? 'Tanh' : 'Relu', [one(g, 'Add', [xs[t]!, hh])]);
    } else {
      throw new Error(`${FN}: op 'rnnLayer' with mode '${mode}' has no ONNX form`);
    }
    hs[t] = h;
  }
  const flat = (seq: string[]) => one(g, 'Reshape', [one(g, 'Concat', seq.map((v) => one(g, 'Unsqueeze', [v, g.ints([0])])), { axis: 0 }), g.ints([-1])]);
  return [mode === 'lstm' ? one(g, 'Concat', [flat(hs), flat(cs)], { axis: 0 }) : flat(hs)];
};

// ---- more activations and layers ----

const num = (v: AttrValue, d: number): number => (typeof v === 'number' ? v : d);

/** prelu: PRelu with the slope [C] shaped to broadcast over dim 1 (PyTorch's channel dim). */
const prelu: Rule = (g, r) => {
  const x = input(r, 0);
  const w = input(r, 1);
  const numel = w.shape.reduce((p, d) => p * d, 1);
  const slope = numel === 1 || x.shape.length < 2 ? w.name : one(g, 'Reshape', [w.name, g.ints([numel, ...new Array<number>(x.shape.length - 2).fill(1)])]);
  return [one(g, 'PRelu', [x.name, slope])];
};

/** softplus(x) = log(1 + exp(βx))/β, x where βx > threshold (PyTorch's), from ONNX's Softplus. */
const softplus: Rule = (g, r) => {
  const x = input(r, 0);
  const beta = num(r.attrs.beta, 1);
  const threshold = num(r.attrs.threshold, 20);
  const bx = beta === 1 ? x.name : one(g, 'Mul', [x.name, g.scalar(beta, x.dtype)]);
  let y = one(g, 'Softplus', [bx]);
  if (beta !== 1) y = one(g, 'Div', [y, g.scalar(beta, x.dtype)]);
  return [one(g, 'Where', [one(g, 'Greater', [bx, g.scalar(threshold, x.dtype)]), x.name, y])];
};

/** clamp / hardtanh: Clip with the bounds as 0-d inputs ('' for an absent one). */
const clip = (lo: string, hi: string, dlo: number | null, dhi: number | null): Rule => (g, r) => {
  const x = input(r, 0);
  const bound = (k: string, d: number | null): string => {
    const v = typeof r.attrs[k] === 'number' ? (r.attrs[k] as number) : d;
    return v === null ? '' : g.scalar(v, x.dtype);
  };
  const ins = [x.name, bound(lo, dlo), bound(hi, dhi)];
  while (ins[ins.length - 1] === '') ins.pop();
  return [one(g, 'Clip', ins)];
};

/** weight / bias of a norm over C channels as [C, 1, ...] to broadcast over x [N, C, ...]. */
function channelwise(g: Emitter, v: ValueRef, rank: number): string {
  return one(g, 'Reshape', [v.name, g.ints([v.shape[0]!, ...new Array<number>(rank - 2).fill(1)])]);
}

/** groupNorm: opset 17 has no GroupNormalization: mean and variance over [N, G, rest] by reductions. */
const groupNorm: Rule = (g, r) => {
  const x = input(r, 0);
  const [, w, b] = r.inputs;
  const G = r.attrs.numGroups as number;
  const eps = num(r.attrs.eps, 1e-5);
  const grouped = one(g, 'Reshape', [x.name, g.ints([0, G, -1])]);
  const mean = one(g, 'ReduceMean', [grouped], { axes: [2], keepdims: 1 });
  const centered = one(g, 'Sub', [grouped, mean]);
  const variance = one(g, 'ReduceMean', [one(g, 'Mul', [centered, centered])], { axes: [2], keepdims: 1 });
  const normed = one(g, 'Div', [centered, one(g, 'Sqrt', [one(g, 'Add', [variance, g.scalar(eps, x.dtype)])])]);
  let y = one(g, 'Reshape', [normed, one(g, 'Shape', [x.name])]);
  if (w) y = one(g, 'Mul', [y, channelwise(g, w, x.shape.length)]);
  if (b) y = one(g, 'Add', [y, channelwise(g, b, x.shape.length)]);
  return [y];
};

/** instanceNorm: InstanceNormalization with the input's statistics; with running statistics (eval, tracked) as BatchNormalization. */
const instanceNorm: Rule = (g, r) => {
  const x = input(r, 0);
  const [, mean, variance, w, b] = r.inputs;
  const c = [x.shape[1]!];
  const eps = flt(num(r.attrs.eps, 1e-5));
  const scale = w?.name ?? filled(g, 1, x.dtype, c);
  const shift = b?.name ?? filled(g, 0, x.dtype, c);
  if (r.attrs.useInputStats === false) {
    if (!mean || !variance) throw new Error(`${FN}: op 'instanceNorm' without input statistics needs running statistics`);
    return [one(g, 'BatchNormalization', [x.name, scale, shift, mean.name, variance.name], { epsilon: eps })];
  }
  return [one(g, 'InstanceNormalization', [x.name, scale, shift], { epsilon: eps })];
};

/** convTranspose2d (and convTranspose1d, which runs it over a height of 1): ConvTranspose; weights [Cin, Cout/groups, k...] as ONNX's. */
const convTranspose: Rule = (g, r) => {
  const x = input(r, 0);
  const w = input(r, 1);
  const b = r.inputs[2] ?? null;
  const nd = w.shape.length - 2;
  const p = tuple(r.attrs.padding, nd, 0);
  return [one(g, 'ConvTranspose', b === null ? [x.name, w.name] : [x.name, w.name, b.name], {
    kernel_shape: w.shape.slice(2),
    strides: tuple(r.attrs.stride, nd, 1),
    pads: [...p, ...p],
    output_padding: tuple(r.attrs.outputPadding, nd, 0),
    dilations: tuple(r.attrs.dilation, nd, 1),
    group: typeof r.attrs.groups === 'number' ? r.attrs.groups : 1,
  })];
};

/** adaptiveAvgPool2d: GlobalAveragePool for 1×1, else AveragePool when each input size is a multiple of its output size. */
const adaptiveAvgPool2d: Rule = (g, r, d) => {
  const x = input(r, 0);
  const rank = x.shape.length;
  const inSize = x.shape.slice(rank - 2);
  const out = r.outputs[0]!.shape.slice(rank - 2);
  if (isExpr(d.dim(x, rank - 1)) || isExpr(d.dim(x, rank - 2))) throw new Error(`${FN}: op 'adaptiveAvgPool2d' over spatial dims that follow a dynamic axis has no ONNX form here`);
  if (out.every((o) => o === 1)) return [one(g, 'GlobalAveragePool', [x.name])];
  if (inSize.some((s, i) => s % out[i]! !== 0)) {
    throw new Error(`${FN}: op 'adaptiveAvgPool2d' from [${inSize}] to [${out}] (sizes that are not multiples) has no ONNX form here`);
  }
  const k = inSize.map((s, i) => s / out[i]!);
  return [one(g, 'AveragePool', [x.name], { kernel_shape: k, strides: k, pads: [0, 0, 0, 0] })];
};

/** indexSelect(dim, index): Gather along dim (index int32 or int64, 1-d). */
const indexSelect: Rule = (g, r) => {
  const x = input(r, 0);
  return [one(g, 'Gather', [x.name, input(r, 1).name], { axis: norm(r.attrs.dim as number, x.shape.length) })];
};

// ---- losses ----

/** crossEntropy / nllLoss over class indices: SoftmaxCrossEntropyLoss / NegativeLogLikelihoodLoss (ignore_index, reduction). */
const classLoss = (opType: string): Rule => (g, r) => {
  const x = input(r, 0);
  const t = input(r, 1);
  const w = r.inputs[2] ?? null;
  if (!t.dtype.startsWith('int') && t.dtype !== 'uint8') throw new Error(`${FN}: op '${r.op}' with class probabilities (a floating target) has no ONNX form here (class indices have)`);
  if (typeof r.attrs.labelSmoothing === 'number' && r.attrs.labelSmoothing !== 0) throw new Error(`${FN}: op '${r.op}' with labelSmoothing has no ONNX form here`);
  if (x.shape.length < 2) throw new Error(`${FN}: op '${r.op}' on unbatched input [C] has no ONNX form here (give [N, C])`);
  const attrs: Record<string, number | string> = { reduction: typeof r.attrs.reduction === 'string' ? r.attrs.reduction : 'mean' };
  if (typeof r.attrs.ignoreIndex === 'number') attrs.ignore_index = r.attrs.ignoreIndex;
  const ins = [x.name, cast(g, t, 'int64')];
  if (w !== null) ins.push(w.name);
  return [one(g, opType, ins, attrs)];
};

// ---- creation ops whose attributes follow a dynamic axis (others are stored as initializers) ----

/** zeros / ones / full of a shape that follows the dynamic axes (an RNN's zero initial state [B, H], BERT's zero token types). */
const filledOf = (value: (r: RecordedOp) => number): Rule => (g, r, d) => {
  const shape = (r.attrs.shape as number[]).map((_, i) => d.attr('shape', i));
  return [one(g, 'Expand', [g.scalar(value(r), r.outputs[0]!.dtype), d.shapeOf(shape)])];
};

/** arange whose end (or start) follows a dynamic axis: positions 0..T−1 as Range, in int64 when start and step are integers. */
const arangeRule: Rule = (g, r, d) => {
  const out = r.outputs[0]!.dtype;
  const integral = Number.isInteger(r.attrs.start) && Number.isInteger(r.attrs.step);
  const dtype: DType = integral ? 'int64' : 'float32';
  const scalar = (key: string): string => {
    const v = d.attr(key);
    // a fractional end of an integer range: its ceiling ends the range at the same element
    if (!isExpr(v)) return g.scalar(integral ? Math.ceil(v) : v, dtype);
    const n = one(g, 'Squeeze', [d.scalar(v), g.ints([0])]);
    return integral ? n : one(g, 'Cast', [n], { to: ONNX_DTYPE.float32 });
  };
  const y = one(g, 'Range', [scalar('start'), scalar('end'), scalar('step')]);
  return [out === dtype ? y : one(g, 'Cast', [y], { to: ONNX_DTYPE[out] })];
};

/** The table: registry op name → its ONNX nodes. */
const RULES: Record<string, Rule> = {
  // elementwise
  add: binary('Add'), sub: binary('Sub'), mul: binary('Mul'), div: binary('Div'), pow: binary('Pow'),
  maximum: binary('Max'), minimum: binary('Min'),
  eq: compare('Equal'), ne: compare('Equal', true), lt: compare('Less'), le: compare('LessOrEqual'),
  gt: compare('Greater'), ge: compare('GreaterOrEqual'),
  where: (g, r) => {
    const out = r.outputs[0]!.dtype;
    return [one(g, 'Where', [cast(g, input(r, 0), 'bool'), cast(g, input(r, 1), out), cast(g, input(r, 2), out)])];
  },
  maskedFill: (g, r) => {
    const x = input(r, 0);
    const out = r.outputs[0]!.dtype;
    return [one(g, 'Where', [cast(g, input(r, 1), 'bool'), g.scalar(r.attrs.value as number, out), cast(g, x, out)])];
  },
  neg: unary('Neg'), exp: unary('Exp'), log: unary('Log'), sqrt: unary('Sqrt'), abs: unary('Abs'),
  erf: unary('Erf'), sin: unary('Sin'), cos: unary('Cos'), reciprocal: unary('Reciprocal'), floor: unary('Floor'),
  ceil: unary('Ceil'), sign: unary('Sign'),
  rsqrt: (g, r) => [one(g, 'Reciprocal', [one(g, 'Sqrt', [input(r, 0).name])])],
  relu: unary('Relu'), sigmoid: unary('Sigmoid'), tanh: unary('Tanh'),
  silu: (g, r) => [activation(g, 'silu', input(r, 0).name, r.outputs[0]!.dtype, r.op)],
  gelu: (g, r) => [gelu(g, input(r, 0).name, r.outputs[0]!.dtype, r.attrs.approximate)],
  softmax: softmax('Softmax'), logSoftmax: softmax('LogSoftmax'), causalSoftmax,
  matmul: (g, r) => [one(g, 'MatMul', [input(r, 0).name, input(r, 1).name])],
  mm: (g, r) => [one(g, 'MatMul', [input(r, 0).name, input(r, 1).name])],
  bmm: (g, r) => [one(g, 'MatMul', [input(r, 0).name, input(r, 1).name])],
  // layers
  linear, conv1d: conv, conv2d: conv, conv3d: conv, conv2dReluMaxPool2d,
  maxPool1d: maxPool(1), maxPool2d: maxPool(2), avgPool1d: avgPool(1), avgPool2d: avgPool(2),
  batchNorm, layerNorm, embedding, dropout, dropout2d: dropout, rnnLayer,
  leakyRelu: (g, r) => [one(g, 'LeakyRelu', [input(r, 0).name], { alpha: flt(num(r.attrs.negativeSlope, 0.01)) })],
  elu: (g, r) => [one(g, 'Elu', [input(r, 0).name], { alpha: flt(num(r.attrs.alpha, 1)) })],
  selu: unary('Selu'), prelu, softplus,
  hardtanh: clip('minVal', 'maxVal', -1, 1), clamp: clip('min', 'max', null, null),
  groupNorm, instanceNorm, convTranspose2d: convTranspose, adaptiveAvgPool2d, indexSelect,
  crossEntropy: classLoss('SoftmaxCrossEntropyLoss'), nllLoss: classLoss('NegativeLogLikelihoodLoss'),
  // reductions
  sum: reduce('ReduceSum', true), mean: reduce('ReduceMean', false), max: reduce('ReduceMax', false),
  min: reduce('ReduceMin', false), amax: reduce('ReduceMax', false), amin: reduce('ReduceMin', false),
  prod: reduce('ReduceProd', false),
  // shapes and copies
  reshape, view: reshape, flatten: reshape, unflatten: reshape,
  transpose, permute, unsqueeze, squeeze, cat: concat, stack, narrow, slice: sliceRule, select,
  split: split(false), chunk: split(false), splitWithSizes: split(false), unbind: split(true),
  expand, contiguous: identity, clone: identity, detach: identity, alias: identity,
  cast: castRule, to: castRule,
  triu: (g, r) => [one(g, 'Trilu', [input(r, 0).name, g.scalar(typeof r.attrs.diagonal === 'number' ? r.attrs.diagonal : 0, 'int64')], { upper: 1 })],
  tril: (g, r) => [one(g, 'Trilu', [input(r, 0).name, g.scalar(typeof r.attrs.diagonal === 'number' ? r.attrs.diagonal : 0, 'int64')], { upper: 0 })],
  // creation ops (only when their attributes follow a dynamic axis)
  zeros: filledOf(() => 0), ones: filledOf(() => 1), full: filledOf((r) => (typeof r.attrs.value === 'number' ? r.attrs.value : Number(r.attrs.value))),
  arange: arangeRule,
};

/** Whether op has an ONNX form (the trace notes where an op without one was called). */
export function hasOnnxRule(op: string): boolean {
  return Object.hasOwn(RULES, op);
}

/** Ops whose attributes may differ between the traces of dynamicAxes (their rules compute them from Shape). */
export const DYNAMIC_ATTRS = new Set(['reshape', 'view', 'flatten', 'unflatten', 'narrow', 'slice', 'select', 'expand', 'zeros', 'ones', 'full', 'arange']);

/** The ONNX nodes of one recorded op; returns the names of its results. */
export function emitNode(g: Emitter, r: RecordedOp, dims: Dims): string[] {
  const rule = RULES[r.op];
  if (rule === undefined) throw new Error(`${FN}: op '${r.op}'${r.inputs.length === 0 ? ' (a creation op, with a shape that follows a dynamic axis)' : ''} has no ONNX form${r.where === undefined ? '' : ` (called at ${r.where})`}`);
  return rule(g, r, dims);
}
