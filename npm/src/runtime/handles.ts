// The boundary between the JS layer and the wasm module, in one place (bindings/README.md).
// A tensor is a handle id (an integer); everything above this file (Tensor, ops, nn, optim)
// reaches the module through the functions here:
//   - op calls:       callOp / callOp1 (plain wasm export; ids and attributes via the scratch area)
//   - tensors:        emptyHandle, scalarHandle, releaseHandle, shareHandle, sameHandle
//   - metadata:       handleDType, handleShape, ...
//   - values:         readHandle, readItem, writeHandle (the only places JS touches tensor data)
//   - autograd:       handleGrad, setHandleGrad, backwardHandle, detachHandle, computeGradHandles, ...
// Reads, writes and the autograd entry points first tell the boundary observer (if one is set):
// a graph tracer (sg.compile) learns there that JS is reading values or calling handle methods.
import type { Attrs, Device, DType, TensorHandle } from './embind.js';
import { heapBuffer, ids, mod, moduleGeneration, raw, stringAt, takeError, words } from './module.js';
import { DTYPES, dtypeBytes, dtypeCode } from './dtypes.js';

// ---- codes shared with C++ (sg::Device order; dtypes: dtypes.ts) ----
const DEVICES: readonly Device[] = ['cpu', 'webgpu'];

/** A failed call returned a negative number: throw the message C++ recorded. */
function ok(r: number): number {
  if (r < 0) throw takeError();
  return r;
}

// ---- the boundary observer ----

/** What the observer hears about: JS touching tensor values, and handle methods with graph meaning. */
export type BoundaryEvent =
  | 'read'
  | 'write'
  | 'grad'
  | 'setGrad'
  | 'backward'
  | 'computeGrads'
  | 'detach'
  | 'retainGrad'
  | 'registerHook'
  | 'setRequiresGrad'
  | 'link'; // an input of a JavaScript node joined to the graph (sg.jsCall, autograd.Function)
export type BoundaryObserver = (event: BoundaryEvent, id: TensorHandle) => void;

let observer: BoundaryObserver | null = null;

/**
 * Installs fn (or none) as the observer of reads, writes and autograd handle calls, and returns
 * the previous one. It runs before the call; throwing from it cancels the call.
 */
export function setBoundaryObserver(fn: BoundaryObserver | null): BoundaryObserver | null {
  const prev = observer;
  observer = fn;
  return prev;
}

export function notify(event: BoundaryEvent, id: TensorHandle): void {
  if (observer !== null) observer(event, id);
}

// ---- the op recorder (sg.onnx.export's trace) ----

/** Hears every op call (after it ran, with all its result ids), and the ids released or shared. */
export interface OpRecorder {
  op(name: string, inputs: ArrayLike<number>, attrs: Attrs | null | undefined, outputs: readonly TensorHandle[]): void;
  release(id: TensorHandle): void;
  share(from: TensorHandle, to: TensorHandle): void;
}

let recorder: OpRecorder | null = null;

/** Installs r (or none) as the op recorder and returns the previous one. */
export function setOpRecorder(r: OpRecorder | null): OpRecorder | null {
  const prev = recorder;
  recorder = r;
  return prev;
}

function record(op: Op, inputs: ArrayLike<number>, attrs: Attrs | null | undefined, outputs: readonly TensorHandle[]): void {
  recorder!.op(typeof op === 'string' ? op : op.name, Array.from(inputs), attrs, outputs);
}

// ---- the batch hook (sg.func.vmap: func/batching.ts) ----

/**
 * vmap's batching rules see op calls here. call() returns the results when it handled the call
 * (an input is batched, or a random op ran under vmap), null to run it as usual; shape() gives
 * the shape the function sees of a batched id (null: not batched); the rest keep its table of
 * batched ids in step with releases and new ids on the same tensor. Installed only while a vmap
 * runs, so the door costs one null check otherwise.
 */
export interface BatchHook {
  call(op: string, inputs: ArrayLike<number>, attrs: Attrs | null | undefined): TensorHandle[] | null;
  shape(id: TensorHandle): number[] | null;
  read(id: TensorHandle): void;
  release(id: TensorHandle): void;
  derive(from: TensorHandle, to: TensorHandle): void;
}

let batchHook: BatchHook | null = null;

/** Whether a vmap is running (a compiled function then runs its JS eagerly, through the rules). */
export function batchHookActive(): boolean {
  return batchHook !== null;
}

/** Installs h (or none) as the batch hook and returns the previous one. */
export function setBatchHook(h: BatchHook | null): BatchHook | null {
  const prev = batchHook;
  batchHook = h;
  return prev;
}

// ---- the autocast hook (sg.autocast: amp/autocast.ts) ----

/**
 * While sg.autocast runs, every op call's inputs pass through this hook first: it returns the
 * ids to run the op on (some cast to the autocast dtype, as PyTorch's op lists say) and the ids
 * it made, released after the call; null leaves the call as it is. The hook is off during its own
 * casts and the op. Installed only inside sg.autocast, so the door costs one null check otherwise.
 */
export type AutocastHook = (op: string, inputs: ArrayLike<number>) => { inputs: number[]; temps: TensorHandle[] } | null;

let autocastHook: AutocastHook | null = null;

/** Installs h (or none) as the autocast hook and returns the previous one. */
export function setAutocastHook(h: AutocastHook | null): AutocastHook | null {
  const prev = autocastHook;
  autocastHook = h;
  return prev;
}

function autocastCall<R>(op: Op, inputs: ArrayLike<number>, attrs: Attrs | null | undefined,
  call: (op: Op, inputs: ArrayLike<number>, attrs?: Attrs | null) => R): R {
  const hook = autocastHook!;
  autocastHook = null;
  try {
    const cast = hook(typeof op === 'string' ? op : op.name, inputs);
    if (cast === null) return call(op, inputs, attrs);
    try {
      return call(op, cast.inputs, attrs);
    } finally {
      for (const t of cast.temps) releaseHandle(t);
    }
  } finally {
    autocastHook = hook;
  }
}

// ---- op calls ----

let namesGeneration = -1;
let opIds = new Map<string, number>();
let keyIds = new Map<string, number>();

/** Op and attribute-name ids are per module: rebuilt when another module is loaded. */
function refreshNames(): void {
  if (namesGeneration === moduleGeneration()) return;
  opIds = new Map(mod().opNames().map((name, i) => [name, i]));
  keyIds = new Map();
  namesGeneration = moduleGeneration();
}

function opId(name: string): number {
  refreshNames();
  const id = opIds.get(name);
  if (id === undefined) throw new Error(`unknown op '${name}'`);
  return id;
}

/** An op name with its id cached: hot call sites make one once and skip the name lookup. */
export class OpRef {
  private id = -1;
  private generation = -1;
  constructor(readonly name: string) {}

  /** @internal */
  resolve(): number {
    if (this.generation !== moduleGeneration()) {
      this.id = opId(this.name);
      this.generation = moduleGeneration();
    }
    return this.id;
  }
}

/** An op, by name or by a prepared OpRef. */
export type Op = string | OpRef;

/** Writes s as [length, UTF-16 code units...] at words[at]; returns the end. */
function writeString(s: string, at: number): number {
  const w = words(at + 1 + s.length);
  w[at] = s.length;
  for (let i = 0; i < s.length; i++) w[at + 1 + i] = s.charCodeAt(i);
  return at + 1 + s.length;
}

/** The id C++ gave attribute name `key` (asked once; the name is written past `at`, unused space). */
function keyId(key: string, at: number): number {
  let id = keyIds.get(key);
  if (id === undefined) {
    id = ok(raw().intern(at, writeString(key, at)));
    keyIds.set(key, id);
  }
  return id;
}

// Attribute value tags (bindings/op_call.cpp).
const NUMBER = 0;
const BOOL = 1;
const STRING = 2;
const LIST = 3;

/** Encodes attrs into words[0..): [key id, tag, value...] per attribute; returns the count of words. */
function writeAttrs(op: string, attrs: Attrs): number {
  let at = 0;
  for (const key in attrs) {
    const v = attrs[key];
    if (v === undefined || v === null) continue;
    const k = keyId(key, at);
    if (typeof v === 'number' || typeof v === 'boolean') {
      const w = words(at + 3);
      w[at] = k;
      w[at + 1] = typeof v === 'number' ? NUMBER : BOOL;
      w[at + 2] = +v;
      at += 3;
    } else if (typeof v === 'string') {
      const w = words(at + 2);
      w[at] = k;
      w[at + 1] = STRING;
      at = writeString(v, at + 2);
    } else if (Array.isArray(v) && v.every((x) => typeof x === 'number')) {
      const w = words(at + 3 + v.length);
      w[at] = k;
      w[at + 1] = LIST;
      w[at + 2] = v.length;
      for (let i = 0; i < v.length; i++) w[at + 3 + i] = v[i]!;
      at += 3 + v.length;
    } else {
      throw new Error(`${op}: attribute '${key}' has an unsupported type`);
    }
  }
  return at;
}

/** Runs an op; returns the count of results, whose ids and dtype codes are in ids()[0..2n). */
function invoke(op: Op, inputs: ArrayLike<number>, attrs: Attrs | null | undefined): number {
  const id = typeof op === 'string' ? opId(op) : op.resolve();
  const nWords = attrs === null || attrs === undefined ? 0 : writeAttrs(typeof op === 'string' ? op : op.name, attrs);
  const n = inputs.length;
  const v = ids(n);
  for (let i = 0; i < n; i++) v[i] = inputs[i]!;
  return ok(raw().call_op(id, n, nWords));
}

/**
 * Runs an op (by its registry name, bindings/README.md, or an OpRef) on tensor ids (0 passes an
 * absent optional tensor) with its attributes; returns the result ids, owned by the caller.
 */
export function callOp(op: Op, inputs: ArrayLike<number>, attrs?: Attrs | null): TensorHandle[] {
  if (autocastHook !== null) return autocastCall(op, inputs, attrs, callOp);
  if (batchHook !== null) {
    const b = batchHook.call(typeof op === 'string' ? op : op.name, inputs, attrs);
    if (b !== null) return b;
  }
  const n = invoke(op, inputs, attrs);
  const v = ids(n);
  const out: TensorHandle[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = v[i]!;
  if (recorder !== null) record(op, inputs, attrs, out);
  return out;
}

/**
 * callOp for the first result only (any others are released): its id, owned by the caller. Its
 * dtype is then lastResultDType(), until the next call.
 */
export function callOp1(op: Op, inputs: ArrayLike<number>, attrs?: Attrs | null): TensorHandle {
  if (autocastHook !== null) return autocastCall(op, inputs, attrs, callOp1);
  if (batchHook !== null) {
    const b = batchHook.call(typeof op === 'string' ? op : op.name, inputs, attrs);
    if (b !== null) {
      for (let i = 1; i < b.length; i++) if (b[i]) releaseHandle(b[i]!);
      if (!b[0]) throw new Error(`${typeof op === 'string' ? op : op.name}: the op returned no tensor`);
      lastDType = handleDType(b[0]);
      return b[0];
    }
  }
  const n = invoke(op, inputs, attrs);
  const v = ids(2 * n);
  const id = n > 0 ? v[0]! : 0;
  if (recorder !== null) {
    // the recorder may call into wasm (reusing the scratch area and lastDType): copy first
    const outs = Array.from(v.subarray(0, n));
    const dtype = DTYPES[v[n]!];
    record(op, inputs, attrs, outs);
    lastDType = dtype;
    for (let i = 1; i < n; i++) if (outs[i]) releaseHandle(outs[i]!);
  } else {
    lastDType = DTYPES[v[n]!];
    for (let i = 1; i < n; i++) if (v[i]) releaseHandle(v[i]!);
  }
  if (id === 0) throw new Error(`${typeof op === 'string' ? op : op.name}: the op returned no tensor`);
  return id;
}

/** A state entry an optimizer step created: parameter i's entry for key k, a new id the caller owns. */
export interface CreatedState {
  param: number;
  key: number;
  id: TensorHandle;
}

/**
 * One optimizer step over one param group (bindings/optim_call.cpp): `algorithm` ('Adam', ...),
 * the state keys the optimizer knows, the parameters' ids, and stateIds[i·keys.length + k] =
 * param i's entry for key k (0 for none yet). Parameters are updated in place from their .grad;
 * returns the state entries the step created.
 */
/**
 * Prepares a param group for stepping by id (bindings/optim_call.cpp): the algorithm, its state
 * keys, the parameters, each one's state entry per key (0: none yet) and the hyper-parameters.
 * Returns the group id; free it with freeOptimGroup.
 */
export function prepareOptimGroup(algorithm: string, keys: readonly string[], params: ArrayLike<number>, stateIds: ArrayLike<number>, attrs: Attrs): number {
  const nWords = writeAttrs(algorithm, attrs);
  const algo = keyId(algorithm, nWords);
  const nk = keys.length, np = params.length;
  const keyIdsOf = keys.map((k) => keyId(k, nWords));
  const v = ids(nk + np * (1 + nk));
  for (let k = 0; k < nk; k++) v[k] = keyIdsOf[k]!;
  for (let i = 0; i < np; i++) v[nk + i] = params[i]!;
  for (let j = 0; j < np * nk; j++) v[nk + np + j] = stateIds[j]!;
  return ok(raw().optim_prepare(algo, nk, np, nWords));
}

/** Replaces a prepared group's hyper-parameters. */
export function setOptimGroupAttrs(group: number, algorithm: string, attrs: Attrs): void {
  ok(raw().optim_group_set_attrs(group, writeAttrs(algorithm, attrs)));
}

/** One step of a prepared group; the state entries it created (new ids, owned by the caller). */
export function stepOptimGroup(group: number): CreatedState[] {
  const c = ok(raw().optim_group_step(group));
  if (c === 0) return NO_STATE;
  const r = ids(3 * c);
  const out: CreatedState[] = new Array(c);
  for (let j = 0; j < c; j++) out[j] = { param: r[3 * j]!, key: r[3 * j + 1]!, id: r[3 * j + 2]! };
  return out;
}
const NO_STATE: CreatedState[] = [];

export function freeOptimGroup(group: number): void {
  ok(raw().optim_group_free(group));
}

let lastDType: DType | undefined;
/** The dtype of the result callOp1 returned last (C++ sends it with the id: no extra call). */
export function lastResultDType(): DType | undefined {
  return lastDType;
}

// ---- creating and releasing handles ----

/** A new zero-filled contiguous tensor (errors name `fn`'s shape check as 'empty'). */
export function emptyHandle(shape: readonly number[], dtype: DType): TensorHandle {
  const w = words(shape.length);
  for (let i = 0; i < shape.length; i++) w[i] = shape[i]!;
  return ok(raw().empty(shape.length, dtypeCode(dtype)));
}

/** A 0-d tensor holding value (NaN included; an int32 value must fit int32). */
export function scalarHandle(value: number | boolean, dtype: DType): TensorHandle {
  return ok(raw().scalar(+value, dtypeCode(dtype)));
}

/** Drops the handle's reference to its tensor; the id is dead afterwards. */
export function releaseHandle(id: TensorHandle): void {
  ok(raw().release(id));
  if (recorder !== null) recorder.release(id);
  if (batchHook !== null) batchHook.release(id);
}

/** A second id on the same tensor. */
export function shareHandle(id: TensorHandle): TensorHandle {
  const to = ok(raw().share(id));
  if (recorder !== null) recorder.share(id, to);
  if (batchHook !== null) batchHook.derive(id, to);
  return to;
}

/** Whether two ids hold the same tensor. */
export function sameHandle(a: TensorHandle, b: TensorHandle): boolean {
  return ok(raw().same(a, b)) === 1;
}

// ---- metadata ----

export function handleDType(id: TensorHandle): DType {
  return DTYPES[ok(raw().dtype(id))]!;
}

export function handleDevice(id: TensorHandle): Device {
  return DEVICES[ok(raw().device(id))]!;
}

function dims(n: number): number[] {
  const w = words(n);
  const out: number[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = w[i]!;
  return out;
}

export function handleShape(id: TensorHandle): number[] {
  if (batchHook !== null) {
    const s = batchHook.shape(id);
    if (s !== null) return s;
  }
  return dims(ok(raw().shape(id)));
}

/** Strides in elements. */
export function handleStrides(id: TensorHandle): number[] {
  return dims(ok(raw().strides(id)));
}

export function isContiguousHandle(id: TensorHandle): boolean {
  return ok(raw().is_contiguous(id)) === 1;
}

/** Name of the op that made the tensor, null for a leaf. */
export function handleGradFn(id: TensorHandle): string | null {
  const ptr = ok(raw().grad_fn_name(id));
  return ptr === 0 ? null : stringAt(ptr);
}

// ---- values ----

/** A tensor's values as JS reads them (float16 and bfloat16 widened to float32, exactly). */
export type TypedData = Float32Array | Float64Array | Int32Array | BigInt64Array | Int8Array | Uint8Array;

/** The heap's elements as stored (float16 / bfloat16: their bits, as a Uint16Array). */
function heapView(dtype: DType, ptr: number, n: number): TypedData | Uint16Array {
  const buf = heapBuffer();
  switch (dtype) {
    case 'float32': return new Float32Array(buf, ptr, n);
    case 'int32': return new Int32Array(buf, ptr, n);
    case 'float64': return new Float64Array(buf, ptr, n);
    case 'int64': return new BigInt64Array(buf, ptr, n);
    case 'int8': return new Int8Array(buf, ptr, n);
    case 'float16':
    case 'bfloat16': return new Uint16Array(buf, ptr, n);
    default: return new Uint8Array(buf, ptr, n); // bool, uint8
  }
}

/** 16-bit floats are read and written through float32, converted by C++'s one rounding (core/half.h). */
const isHalf = (d: DType): boolean => d === 'float16' || d === 'bfloat16';


function numelOf(shape: readonly number[]): number {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

/**
 * A copy of the tensor's elements in row-major order: Float32Array, Int32Array or Uint8Array
 * (bool). The one path by which tensor values reach JS (a device with asynchronous memory hooks
 * in here).
 */
export function readHandle(id: TensorHandle): TypedData {
  notify('read', id);
  if (batchHook !== null) batchHook.read(id);
  const dtype = handleDType(id);
  const n = numelOf(handleShape(id));
  if (isHalf(dtype) || !isContiguousHandle(id)) {
    // Strided views are read through a contiguous copy, 16-bit floats through a float32 one
    // (exact), released right after.
    const c = isHalf(dtype) ? callOp1('cast', [id], { dtype: 'float32' }) : callOp1('contiguous', [id]);
    try {
      return heapView(isHalf(dtype) ? 'float32' : dtype, n === 0 ? 0 : ok(raw().data_ptr(c)), n).slice() as TypedData;
    } finally {
      releaseHandle(c);
    }
  }
  if (n === 0) return heapView(dtype, 0, 0).slice() as TypedData;
  return heapView(dtype, ok(raw().data_ptr(id)), n).slice() as TypedData;
}

/** The only element of a one-element tensor (bool gives 0/1; int64 beyond ±(2^53 − 1) is an Error). */
export function readItem(id: TensorHandle): number {
  if (handleDType(id) === 'int64') return int64Number('item', (readHandle(id) as BigInt64Array)[0]!);
  notify('read', id);
  if (batchHook !== null) batchHook.read(id);
  ok(raw().item(id));
  return words()[0]!;
}

/** An int64 value as a JS number, or an Error when it is beyond what a number holds exactly. */
export function int64Number(fn: string, v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(-Number.MAX_SAFE_INTEGER)) {
    throw new Error(`${fn}: the int64 value ${v} is beyond ±(2^53 − 1), where JS numbers are exact: read it with dataSync() (a BigInt64Array)`);
  }
  return Number(v);
}

/**
 * The byte address of a contiguous tensor's element 0 in the wasm heap, for library code that
 * works on the data in place (heap views made right away: growth kills them). Announced to the
 * observer as a write.
 */
export function handleDataPtr(id: TensorHandle): number {
  notify('write', id);
  return ok(raw().data_ptr(id));
}

/**
 * Copies `values` (row-major, already converted: numbers for the floats and int32/int8/uint8,
 * bigints for int64, 0/1 for bool) into a contiguous tensor's storage. ArrayLike so that
 * number[] and TypedArrays copy directly. 16-bit floats go through a float32 tensor and C++'s
 * rounding (core/half.h), never a second rounding written here.
 */
export function writeHandle(id: TensorHandle, values: ArrayLike<number> | ArrayLike<bigint>): void {
  const n = values.length;
  if (n === 0) return;
  const dtype = handleDType(id);
  if (isHalf(dtype)) {
    const f = handleFrom(values as ArrayLike<number>, handleShape(id), 'float32');
    try {
      mod().copyInto(id, f);
    } finally {
      releaseHandle(f);
    }
    return;
  }
  (heapView(dtype, handleDataPtr(id), n) as { set(v: ArrayLike<number> | ArrayLike<bigint>): void }).set(values);
}

/**
 * Copies raw little-endian bytes of the tensor's own dtype (a safetensors tensor's data) into a
 * contiguous cpu tensor's storage: the bits as they are, no float32 detour for 16-bit floats
 * (sg.models.fromPretrained). Bool bytes are stored as 0/1, as sg.load does.
 */
export function writeHandleBytes(id: TensorHandle, bytes: Uint8Array): void {
  const dtype = handleDType(id);
  const n = numelOf(handleShape(id)) * dtypeBytes(dtype);
  if (bytes.length !== n) throw new Error(`writeHandleBytes: expected ${n} bytes for a ${dtype} tensor of shape [${handleShape(id).join(', ')}], got ${bytes.length}`);
  if (n === 0) return;
  if (!isContiguousHandle(id)) throw new Error('writeHandleBytes: expected a contiguous tensor');
  const dst = new Uint8Array(heapBuffer(), handleDataPtr(id), n);
  if (dtype === 'bool') for (let i = 0; i < n; i++) dst[i] = bytes[i] ? 1 : 0;
  else dst.set(bytes);
}

/** A new contiguous tensor of `shape`/`dtype` holding `values` (see writeHandle). */
export function handleFrom(values: ArrayLike<number> | ArrayLike<bigint>, shape: readonly number[], dtype: DType): TensorHandle {
  const id = emptyHandle(shape, dtype);
  try {
    writeHandle(id, values);
    return id;
  } catch (e) {
    releaseHandle(id);
    throw e;
  }
}

// ---- autograd ----

export function requiresGradHandle(id: TensorHandle): boolean {
  return ok(raw().requires_grad(id)) === 1;
}

export function setRequiresGradHandle(id: TensorHandle, on: boolean): void {
  notify('setRequiresGrad', id);
  ok(raw().set_requires_grad(id, on ? 1 : 0));
}

export function isLeafHandle(id: TensorHandle): boolean {
  return ok(raw().is_leaf(id)) === 1;
}

/** A new id on the tensor's .grad, or 0 when it has none. */
export function handleGrad(id: TensorHandle): TensorHandle {
  notify('grad', id);
  return ok(raw().grad(id));
}

/** Sets .grad (0 clears it); C++ checks shape and dtype. */
export function setHandleGrad(id: TensorHandle, grad: TensorHandle): void {
  notify('setGrad', id);
  ok(raw().set_grad(id, grad));
}

export function retainGradHandle(id: TensorHandle): void {
  notify('retainGrad', id);
  ok(raw().retain_grad(id));
}

/** A new leaf id sharing the data, cut from the graph. */
export function detachHandle(id: TensorHandle): TensorHandle {
  notify('detach', id);
  const to = ok(raw().detach(id));
  if (batchHook !== null) batchHook.derive(id, to);
  return to;
}

/** Runs backward from `id` (grad 0: implicit one for a one-element tensor); hooks may run JS. */
export function backwardHandle(id: TensorHandle, grad: TensorHandle, retainGraph: boolean, createGraph = false): void {
  notify('backward', id);
  mod().backward(id, grad, retainGraph, createGraph);
}

/** torch.autograd.grad: new ids on d root / d inputs[i] (recorded themselves with createGraph). */
export function computeGradHandles(
  root: TensorHandle,
  grad: TensorHandle,
  inputs: TensorHandle[],
  retainGraph: boolean,
  createGraph = false,
): TensorHandle[] {
  notify('computeGrads', root);
  return mod().computeGrads(root, grad, inputs, retainGraph, createGraph);
}

/**
 * Registers fn as a gradient hook. fn gets a new id on the gradient (it must release it) and
 * returns a replacement id (still owned by JS), undefined, or an error message; it must not throw.
 */
export function registerHookHandle(id: TensorHandle, fn: (grad: TensorHandle) => TensorHandle | undefined | string): void {
  notify('registerHook', id);
  mod().registerHook(id, fn);
}

export function isGradEnabled(): boolean {
  return raw().is_grad_enabled() === 1;
}

export function setGradEnabled(on: boolean): void {
  raw().set_grad_enabled(on ? 1 : 0);
}
