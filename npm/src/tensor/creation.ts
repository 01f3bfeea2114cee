// Tensor creation: sg.tensor from numbers, booleans, nested arrays and TypedArrays, and the
// factories (zeros, ones, full, arange, linspace, eye, rand, randn, randint, *Like), with
// logspace, empty and emptyLike made of them.
import type { DType, Device, TensorHandle } from '../runtime/embind.js';
import * as H from '../runtime/handles.js';
import { DTYPES, getDefaultDtype, isFloatingDType } from '../runtime/dtypes.js';
import { tidy } from '../runtime/memory.js';
import { ops } from './ops.js';
import { placeOn } from '../runtime/webgpu_device.js';
import { checkOptions, describe, isInteger, isOptionsObject, numberArg, shapeArgs, type Spec } from '../runtime/options.js';
import { Tensor } from './tensor.js';

export interface TensorOptions {
  dtype?: DType;
  /** 'cpu' or 'webgpu'; default: the default device (webgpu after init({ backend: 'webgpu' })). */
  device?: Device;
  requiresGrad?: boolean;
  /** Required for TypedArray data; for arrays it reshapes (same number of elements). */
  shape?: readonly number[];
}

export interface CreationOptions {
  dtype?: DType;
  /** 'cpu' or 'webgpu'; default: the default device (for *Like: the tensor's device). */
  device?: Device;
  requiresGrad?: boolean;
}

/** Nested arrays of numbers or booleans (rows may also be TypedArrays). */
export type NestedInput = number | boolean | ArrayLike<number> | readonly NestedInput[];
export type TensorData = NestedInput | Float32Array | Float64Array | Int32Array | Int16Array | Int8Array | Uint8Array | Uint16Array | Uint32Array | Uint8ClampedArray | BigInt64Array;

const isShape = { check: (v: unknown) => Array.isArray(v) && v.every((s) => isInteger(s) && s >= 0), expected: 'an array of non-negative integers' };
const DEVICES = ['cpu', 'webgpu'] as const;
const creationSpec: Spec = { dtype: DTYPES, requiresGrad: 'boolean', device: DEVICES };

function isTypedArray(v: unknown): v is ArrayLike<number> & ArrayBufferView {
  return ArrayBuffer.isView(v) && !(v instanceof DataView);
}

// The integer dtypes' ranges: a value outside is an Error, as PyTorch's "value cannot be
// converted to type int8_t without overflow" (never wrapped).
const INT_RANGE: Partial<Record<DType, [number, number]>> = {
  int32: [-2147483648, 2147483647],
  int8: [-128, 127],
  uint8: [0, 255],
};

/**
 * Converts values to what the heap holds for dtype: floats as they are (float16/bfloat16 are
 * rounded by C++ on the write), integers truncated and range-checked, int64 as bigints, bool 0/1.
 */
function convert(fn: string, values: ArrayLike<number | boolean | bigint>, dtype: DType): ArrayLike<number> | ArrayLike<bigint> {
  const n = values.length;
  if (isFloatingDType(dtype)) {
    if (values instanceof Float32Array || values instanceof Float64Array) return values;
    const out = dtype === 'float64' ? new Float64Array(n) : new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = Number(values[i]);
    return out;
  }
  if (dtype === 'bool') {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = values[i] ? 1 : 0;
    return out;
  }
  if (dtype === 'int64') {
    if (values instanceof BigInt64Array) return values;
    const out = new BigInt64Array(n);
    for (let i = 0; i < n; i++) {
      const v = values[i]!;
      if (typeof v === 'bigint') {
        if (v < -(2n ** 63n) || v >= 2n ** 63n) throw new Error(`${fn}: value ${v} does not fit in int64`);
        out[i] = v;
        continue;
      }
      const t = Math.trunc(Number(v));
      if (!Number.isFinite(t) || Math.abs(t) > Number.MAX_SAFE_INTEGER) {
        throw new Error(`${fn}: value ${String(v)} is not an integer a JS number holds exactly (|v| ≤ 2^53 − 1): pass int64 values beyond that as a BigInt64Array`);
      }
      out[i] = BigInt(t);
    }
    return out;
  }
  if (values instanceof Int32Array && dtype === 'int32') return values;
  const [lo, hi] = INT_RANGE[dtype]!;
  const out = dtype === 'int8' ? new Int8Array(n) : dtype === 'uint8' ? new Uint8Array(n) : new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const v = Math.trunc(Number(values[i]));
    if (!(v >= lo && v <= hi)) throw new Error(`${fn}: value ${String(values[i])} does not fit in ${dtype}`);
    out[i] = v;
  }
  return out;
}

function numelOf(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** Shape of nested arrays, checked rectangular; leaves collected into `out`. */
function flattenNested(data: readonly unknown[]): { shape: number[]; values: (number | boolean)[] } {
  const shape: number[] = [];
  for (let v: unknown = data; Array.isArray(v) || isTypedArray(v); v = (v as ArrayLike<unknown>)[0]) {
    shape.push((v as ArrayLike<unknown>).length);
    if ((v as ArrayLike<unknown>).length === 0) break;
  }
  const values: (number | boolean)[] = [];
  const walk = (v: unknown, d: number): void => {
    const isRow = Array.isArray(v) || isTypedArray(v);
    if (d === shape.length) {
      if (isRow) throw new Error(`tensor: expected a rectangular nested array, got a number and a row at depth ${d}`);
      if (typeof v !== 'number' && typeof v !== 'boolean') {
        throw new Error(`tensor: expected numbers or booleans, got ${describe(v)}`);
      }
      values.push(v);
      return;
    }
    if (!isRow) throw new Error(`tensor: expected a rectangular nested array, got a row and ${describe(v)} at depth ${d}`);
    const row = v as ArrayLike<unknown>;
    if (row.length !== shape[d]) {
      throw new Error(`tensor: expected a rectangular nested array, got rows of length ${shape[d]} and ${row.length}`);
    }
    for (let i = 0; i < row.length; i++) walk(row[i], d + 1);
  };
  walk(data, 0);
  return { shape, values };
}

/** Moves to `device` (default: the default device), sets requiresGrad, then wraps; the handle is released if that fails. */
function finish(h: TensorHandle, requiresGrad: boolean | undefined, dtype?: DType, device?: Device): Tensor {
  const t = new Tensor(placeOn(h, device), dtype);
  if (requiresGrad) {
    try {
      t.requiresGrad = true;
    } catch (e) {
      t.dispose();
      throw e;
    }
  }
  return t;
}

/** Casts h to dtype when it differs (releasing h). */
function castHandle(h: TensorHandle, dtype: DType | undefined): TensorHandle {
  if (dtype === undefined || H.handleDType(h) === dtype) return h;
  try {
    return H.callOp1('cast', [h], { dtype });
  } finally {
    H.releaseHandle(h);
  }
}

/**
 * A tensor from a number, a boolean, nested arrays (rectangular), or a TypedArray with
 * opts.shape. dtype defaults to float32 (bool for booleans, int32 for integer TypedArrays).
 */
export function tensor(data: TensorData | Tensor, opts?: TensorOptions): Tensor {
  const o = checkOptions<TensorOptions>('tensor', opts, { ...creationSpec, shape: isShape });
  if (data instanceof Tensor) {
    // A copy outside any graph, as torch.tensor(t).
    const detached = H.detachHandle(data.handle);
    let copy: TensorHandle;
    try {
      copy = H.callOp1('clone', [detached]);
    } finally {
      H.releaseHandle(detached);
    }
    const h = castHandle(copy, o.dtype);
    return finish(o.shape ? reshapeHandle(h, o.shape) : h, o.requiresGrad, undefined, o.device ?? data.device);
  }
  let shape: number[];
  let values: ArrayLike<number | boolean | bigint>;
  let dtype: DType;
  if (typeof data === 'number' || typeof data === 'boolean') {
    shape = [];
    values = [data];
    dtype = o.dtype ?? (typeof data === 'boolean' ? 'bool' : getDefaultDtype());
  } else if (isTypedArray(data)) {
    if (!o.shape) {
      throw new Error(`tensor: a ${data.constructor.name} needs opts.shape (e.g. { shape: [${data.length}] })`);
    }
    shape = o.shape.slice();
    values = data as ArrayLike<number> | BigInt64Array;
    dtype = o.dtype ?? typedDType(data);
  } else if (Array.isArray(data)) {
    const f = flattenNested(data);
    shape = f.shape;
    values = f.values;
    const allBool = f.values.length > 0 && f.values.every((v) => typeof v === 'boolean');
    dtype = o.dtype ?? (allBool ? 'bool' : getDefaultDtype());
  } else {
    throw new Error(`tensor: expected a number, a boolean, nested arrays or a TypedArray, got ${describe(data)}`);
  }
  if (o.shape) {
    if (numelOf(o.shape) !== values.length) {
      throw new Error(`tensor: shape [${o.shape.join(', ')}] needs ${numelOf(o.shape)} elements, got ${values.length}`);
    }
    shape = o.shape.slice();
  }
  return finish(H.handleFrom(convert('tensor', values, dtype), shape, dtype), o.requiresGrad, dtype, o.device);
}

/** The dtype a TypedArray brings (API.md: Float64Array → float64, BigInt64Array → int64, ...). */
function typedDType(data: ArrayBufferView): DType {
  if (data instanceof Float32Array) return 'float32';
  if (data instanceof Float64Array) return 'float64';
  if (data instanceof BigInt64Array) return 'int64';
  if (data instanceof Int8Array) return 'int8';
  if (data instanceof Uint8Array) return 'uint8';
  if (data instanceof BigUint64Array) {
    throw new Error('tensor: a BigUint64Array is not supported (PyTorch has no uint64): use a BigInt64Array');
  }
  return 'int32'; // Int32Array, Int16Array, Uint16Array, Uint32Array (range-checked), Uint8ClampedArray
}

function reshapeHandle(h: TensorHandle, shape: readonly number[]): TensorHandle {
  try {
    return H.callOp1('reshape', [h], { shape: shape.slice() });
  } finally {
    H.releaseHandle(h);
  }
}

/** Splits (…shape, opts?) or (shape[], opts?) into shape and options. */
function shapeAndOptions(fn: string, args: readonly unknown[], spec: Spec = creationSpec): [number[], Partial<CreationOptions>] {
  let opts: unknown;
  let rest = args;
  if (args.length > 0 && isOptionsObject(args[args.length - 1])) {
    opts = args[args.length - 1];
    rest = args.slice(0, -1);
  }
  const shape = shapeArgs(fn, rest);
  for (const s of shape) if (s < 0) throw new Error(`${fn}: expected a shape of non-negative integers, got [${shape.join(', ')}]`);
  return [shape, checkOptions<CreationOptions>(fn, opts, spec)];
}

function factory(op: string, shape: number[], o: Partial<CreationOptions>, attrs: Record<string, number | string | number[] | undefined> = {}): Tensor {
  const dtype = o.dtype ?? getDefaultDtype();
  return finish(H.callOp1(op, [], { shape, dtype, device: o.device, ...attrs }), o.requiresGrad, H.lastResultDType(), o.device);
}

type ShapeAndOpts = [shape: readonly number[], options?: CreationOptions] | number[] | [...number[], CreationOptions];

export function zeros(...args: ShapeAndOpts): Tensor {
  const [shape, o] = shapeAndOptions('zeros', args);
  return factory('zeros', shape, o);
}

export function ones(...args: ShapeAndOpts): Tensor {
  const [shape, o] = shapeAndOptions('ones', args);
  return factory('ones', shape, o);
}

export function full(shape: readonly number[] | number, value: number | boolean, opts?: CreationOptions): Tensor {
  const [s, o] = shapeAndOptions('full', [typeof shape === 'number' ? [shape] : shape, ...(opts === undefined ? [] : [opts])]);
  if (typeof value !== 'number' && typeof value !== 'boolean') throw new Error(`full: expected 'value' to be a number, got ${describe(value)}`);
  const dtype = o.dtype ?? (typeof value === 'boolean' ? 'bool' : undefined);
  if (Number.isNaN(value)) {
    // callOp's attributes reject NaN, but a NaN fill is valid for float32 (and true for bool).
    if (dtype !== undefined && dtype !== 'bool' && !isFloatingDType(dtype)) {
      throw new Error(`full: cannot store NaN in an ${dtype} tensor (expected a number that fits ${dtype})`);
    }
    if (dtype === 'bool') return factory('full', s, o, { value: 1 });
    const d = dtype ?? getDefaultDtype();
    const h = H.emptyHandle(s, d); // validates the size before anything is filled
    try {
      H.writeHandle(h, new Float64Array(numelOf(s)).fill(NaN));
    } catch (e) {
      H.releaseHandle(h);
      throw e;
    }
    return finish(h, o.requiresGrad, d, o.device);
  }
  return factory('full', s, { ...o, dtype }, { value: Number(value) });
}

/**
 * arange(end) or arange(start, end, step = 1). As PyTorch infers an integer dtype from integer
 * arguments: int32 when start, end and step are all integers, float32 otherwise; opts.dtype wins.
 */
export function arange(start: number, end?: number | CreationOptions, step?: number | CreationOptions, opts?: CreationOptions): Tensor {
  const args: unknown[] = [start, end, step, opts].filter((v) => v !== undefined);
  const o = checkOptions<CreationOptions>('arange', isOptionsObject(args[args.length - 1]) ? args.pop() : undefined, creationSpec);
  if (args.length === 0 || args.length > 3) throw new Error(`arange: expected (end) or (start, end, step?), got ${args.length} numbers`);
  args.forEach((v, i) => numberArg('arange', ['start', 'end', 'step'][i]!, v));
  const [s, e, st] = args.length === 1 ? [0, args[0] as number, 1] : [args[0] as number, args[1] as number, (args[2] as number | undefined) ?? 1];
  if (st === 0) throw new Error('arange: step must be nonzero');
  const dtype = o.dtype ?? ([s, e, st].every(Number.isInteger) ? 'int32' : getDefaultDtype());
  // Any floating dtype may require gradients (float64 too, as torch.arange(..., dtype=torch.float64, requires_grad=True)).
  if (o.requiresGrad && !isFloatingDType(dtype)) {
    throw new Error(
      o.dtype === undefined
        ? `arange: integer arguments give an int32 tensor (as in PyTorch), which cannot require gradients; pass { dtype: 'float32' }`
        : `arange: a ${dtype} tensor cannot require gradients (only floating point tensors can)`,
    );
  }
  return finish(H.callOp1('arange', [], { start: s, end: e, step: st, dtype, device: o.device }), o.requiresGrad, undefined, o.device);
}

export function linspace(start: number, end: number, steps: number, opts?: CreationOptions): Tensor {
  numberArg('linspace', 'start', start);
  numberArg('linspace', 'end', end);
  if (!isInteger(steps) || steps < 0) throw new Error(`linspace: expected 'steps' to be a non-negative integer, got ${describe(steps)}`);
  const o = checkOptions<CreationOptions>('linspace', opts, creationSpec);
  const dtype = o.dtype ?? getDefaultDtype();
  return finish(castHandle(H.callOp1('linspace', [], { start, end, steps, device: o.device, ...computedIn(dtype) }), dtype), o.requiresGrad, undefined, o.device);
}

export function eye(n: number, m?: number | CreationOptions, opts?: CreationOptions): Tensor {
  if (isOptionsObject(m)) {
    opts = m as CreationOptions;
    m = undefined;
  }
  if (!isInteger(n) || n < 0) throw new Error(`eye: expected 'n' to be a non-negative integer, got ${describe(n)}`);
  if (m !== undefined && (!isInteger(m) || m < 0)) throw new Error(`eye: expected 'm' to be a non-negative integer, got ${describe(m)}`);
  const o = checkOptions<CreationOptions>('eye', opts, creationSpec);
  return finish(castHandle(H.callOp1('eye', [], { n, m: m as number | undefined, device: o.device }), o.dtype ?? getDefaultDtype()), o.requiresGrad, undefined, o.device);
}

const randomSpec: Spec = { dtype: ['float32', 'float64', 'float16', 'bfloat16'], requiresGrad: 'boolean', device: DEVICES };

/**
 * The dtype attribute of the ops that compute their values in double and store them (linspace,
 * rand, randn): float64 is computed as float64 (not a widened float32 value); the other dtypes
 * are made in float32 and cast.
 */
const computedIn = (dtype: DType): { dtype?: DType } => (dtype === 'float64' ? { dtype } : {});

/**
 * Uniform [0, 1) samples from the global generator (see manualSeed). Drawn in float32 and cast
 * to float16/bfloat16 when asked; float64 is drawn in double (53 random bits a value).
 */
export function rand(...args: ShapeAndOpts): Tensor {
  const [shape, o] = shapeAndOptions('rand', args, randomSpec);
  const dtype = o.dtype ?? getDefaultDtype();
  return finish(castHandle(H.callOp1('rand', [], { shape, device: o.device, ...computedIn(dtype) }), dtype), o.requiresGrad, undefined, o.device);
}

/** Standard normal samples from the global generator (float32, or float64 drawn in double, as rand). */
export function randn(...args: ShapeAndOpts): Tensor {
  const [shape, o] = shapeAndOptions('randn', args, randomSpec);
  const dtype = o.dtype ?? getDefaultDtype();
  return finish(castHandle(H.callOp1('randn', [], { shape, device: o.device, ...computedIn(dtype) }), dtype), o.requiresGrad, undefined, o.device);
}

/** int32 samples in [low, high); randint(high, shape) means low = 0. */
export function randint(low: number, high: number | readonly number[], shape?: readonly number[] | CreationOptions, opts?: CreationOptions): Tensor {
  if (Array.isArray(high)) {
    // randint(high, shape, opts?)
    opts = shape as CreationOptions | undefined;
    shape = high;
    high = low;
    low = 0;
  }
  if (!isInteger(low)) throw new Error(`randint: expected 'low' to be an integer, got ${describe(low)}`);
  if (!isInteger(high)) throw new Error(`randint: expected 'high' to be an integer, got ${describe(high)}`);
  if (!Array.isArray(shape)) throw new Error(`randint: expected 'shape' to be an array of integers, got ${describe(shape)}`);
  const [s] = shapeAndOptions('randint', [shape]);
  const o = checkOptions<CreationOptions>('randint', opts, { dtype: DTYPES, device: DEVICES });
  return new Tensor(placeOn(castHandle(H.callOp1('randint', [], { low, high, shape: s, device: o.device }), o.dtype), o.device));
}

function likeOptions(fn: string, t: unknown, opts: unknown): [Tensor, Partial<CreationOptions>] {
  if (!(t instanceof Tensor)) throw new Error(`${fn}: expected a Tensor, got ${describe(t)}`);
  return [t, checkOptions<CreationOptions>(fn, opts, creationSpec)];
}

export function zerosLike(t: Tensor, opts?: CreationOptions): Tensor {
  const [x, o] = likeOptions('zerosLike', t, opts);
  return factory('zeros', x.shape, { ...o, dtype: o.dtype ?? x.dtype, device: o.device ?? x.device });
}

export function onesLike(t: Tensor, opts?: CreationOptions): Tensor {
  const [x, o] = likeOptions('onesLike', t, opts);
  return factory('ones', x.shape, { ...o, dtype: o.dtype ?? x.dtype, device: o.device ?? x.device });
}

export function fullLike(t: Tensor, value: number, opts?: CreationOptions): Tensor {
  const [x, o] = likeOptions('fullLike', t, opts);
  return full(x.shape, value, { ...o, dtype: o.dtype ?? x.dtype, device: o.device ?? x.device });
}

// torch.rand_like / randn_like keep a floating input's dtype (a float16 tensor's like is float16); an
// integer or bool input, which PyTorch refuses, gets float32 samples here as before.

export function randLike(t: Tensor, opts?: CreationOptions): Tensor {
  const [x, o] = likeOptions('randLike', t, opts);
  return rand(x.shape, { ...o, dtype: o.dtype ?? (isFloatingDType(x.dtype) ? x.dtype : undefined), device: o.device ?? x.device });
}

export function randnLike(t: Tensor, opts?: CreationOptions): Tensor {
  const [x, o] = likeOptions('randnLike', t, opts);
  return randn(x.shape, { ...o, dtype: o.dtype ?? (isFloatingDType(x.dtype) ? x.dtype : undefined), device: o.device ?? x.device });
}

// ---- made of the factories ----

/** base^linspace(start, end, steps). */
export function logspace(start: number, end: number, steps: number, options?: CreationOptions & { base?: number }): Tensor {
  const { base, ...rest } = options ?? {};
  if (base !== undefined && (typeof base !== 'number' || Number.isNaN(base))) throw new Error(`logspace: expected 'base' to be a number, got ${describe(base)}`);
  if (!isInteger(steps) || steps < 0) throw new Error(`logspace: expected 'steps' to be an integer >= 0, got ${describe(steps)}`);
  return tidy(() => ops.pow(base ?? 10, linspace(start, end, steps, rest)));
}
/** zeros (PyTorch's empty leaves memory uninitialized; zeros is one of its possible contents). */
export const empty = (...args: Parameters<typeof zeros>): Tensor => zeros(...args);
export const emptyLike = (t: Tensor, opts?: CreationOptions): Tensor => zerosLike(t, opts);
