// The Tensor class: owns exactly one handle id (dispose() releases it) and exposes the
// properties, reading and handle-level autograd state of API.md (grad, requiresGrad, isLeaf,
// detach, retainGrad). The layers above add the rest to the prototype and merge in its types:
// ops.ts every op (a.add(b)), autograd/backward.ts backward and registerHook. This file imports nothing
// above handles.ts and memory.ts.
import type { DType, Device, TensorHandle } from '../runtime/embind.js';
import * as H from '../runtime/handles.js';
import { toTarget, type ToTarget } from '../runtime/dtypes.js';
import { onCreate, onDispose, onReplace, type Owned } from '../runtime/memory.js';
import { movedLeaf, readAsync } from '../runtime/webgpu_device.js';
import { describe, intArg } from '../runtime/options.js';
import { consoleRef } from '../runtime/env.js';
import { checkReadable, isTracing, noteTraceRead, traceMove } from '../runtime/trace_flag.js';

export type { TypedData } from '../runtime/handles.js';

/** Nested arrays as returned by toArray(): numbers, or booleans for bool tensors. */
export type NestedArray = number | boolean | NestedArray[];

// Symbol.dispose typed without requiring lib "esnext.disposable" (here or in projects that
// use these typings); identical to the declarations of that lib and of @types/node.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

// Engines without explicit resource management still get the well-known key (the one
// TypeScript's `using` falls back to), so t[Symbol.dispose]() works everywhere.
if (typeof Symbol.dispose !== 'symbol') {
  Object.defineProperty(Symbol, 'dispose', { value: Symbol.for('Symbol.dispose') });
}

let serial = 0;

/** The id the last Tensor created got: tensors with a larger id were made after this call. */
export function tensorSerial(): number {
  return serial;
}

export class Tensor implements Owned {
  private _h: TensorHandle;
  private _shape: number[] | undefined;
  private _dtype: DType | undefined;
  /** JS wrapper of the C++ .grad, reused while the C++ grad tensor stays the same. */
  private _grad: Tensor | null = null;
  /** @internal Who frees this tensor if the program forgets to (memory.ts). */
  owner: Owned['owner'] = null;
  /** Creation order; lets hooks tell tensors they created from older ones. */
  readonly id: number;

  /**
   * @internal Wraps (and takes ownership of) a handle id; user code creates tensors with
   * sg.tensor() etc. `dtype`, when the caller knows it, saves asking the module.
   */
  constructor(handle: TensorHandle, dtype?: DType) {
    this._h = handle;
    this._dtype = dtype;
    this.id = ++serial;
    onCreate(this);
  }

  /** @internal The handle id; throws once disposed. */
  get handle(): TensorHandle {
    if (this._h === 0) throw new Error('Tensor is disposed');
    if (isTracing()) noteTraceRead(this);  // sg.compile: which outside tensors the graph may hold
    return this._h;
  }

  get isDisposed(): boolean {
    return this._h === 0;
  }

  get shape(): number[] {
    if (this._shape === undefined) this._shape = H.handleShape(this.handle);
    else if (this._h === 0) throw new Error('Tensor is disposed');
    return this._shape.slice();
  }

  get ndim(): number {
    return this.shape.length;
  }

  get numel(): number {
    return this.shape.reduce((a, b) => a * b, 1);
  }

  get dtype(): DType {
    if (this._dtype === undefined) this._dtype = H.handleDType(this.handle);
    else if (this._h === 0) throw new Error('Tensor is disposed');
    return this._dtype;
  }

  get device(): Device {
    return H.handleDevice(this.handle);
  }

  get requiresGrad(): boolean {
    return H.requiresGradHandle(this.handle);
  }

  set requiresGrad(b: boolean) {
    if (typeof b !== 'boolean') throw new Error(`requiresGrad: expected a boolean, got ${describe(b)}`);
    H.setRequiresGradHandle(this.handle, b);
  }

  get isLeaf(): boolean {
    return H.isLeafHandle(this.handle);
  }

  /** Name of the op that made this tensor (null for leaves). */
  get gradFn(): string | null {
    return H.handleGradFn(this.handle);
  }

  /**
   * The accumulated gradient, or null. Reading it twice gives the same Tensor while the
   * gradient is unchanged, so reading does not leak; inside tidy() the wrapper is tracked
   * like any tensor (disposing it leaves the gradient on this tensor).
   */
  get grad(): Tensor | null {
    const g = H.handleGrad(this.handle);
    if (g === 0) {
      this._grad = null;
      return null;
    }
    const cached = this._grad;
    if (cached !== null && !cached.isDisposed && H.sameHandle(cached.handle, g)) {
      H.releaseHandle(g);
      return cached;
    }
    this._grad = new Tensor(g);
    return this._grad;
  }

  set grad(g: Tensor | null) {
    if (g === null || g === undefined) {
      H.setHandleGrad(this.handle, 0);
      this._grad = null;
      return;
    }
    if (!(g instanceof Tensor)) throw new Error(`grad: expected a Tensor or null, got ${describe(g)}`);
    H.setHandleGrad(this.handle, g.handle);
    this._grad = g;
  }

  /** 2-D transpose (PyTorch's t.T for matrices). */
  get T(): Tensor {
    if (this.ndim !== 2) throw new Error(`T: expected a 2-D tensor, got shape [${this.shape.join(', ')}] (use permute or transpose)`);
    return new Tensor(H.callOp1('transpose', [this.handle], { dim0: 0, dim1: 1 }), this._dtype);
  }

  /** Whether the elements lie in memory in row-major order without gaps (PyTorch's is_contiguous); views may not. */
  isContiguous(): boolean {
    return H.isContiguousHandle(this.handle);
  }

  /** The shape, or one size (dim may be negative). */
  size(): number[];
  size(dim: number): number;
  size(dim?: number): number | number[] {
    const s = this.shape;
    if (dim === undefined) return s;
    intArg('size', 'dim', dim);
    const d = dim < 0 ? dim + s.length : dim;
    if (d < 0 || d >= s.length) throw new Error(`size: dim ${dim} is out of range for a ${s.length}-D tensor`);
    return s[d]!;
  }

  // ---- reading ----

  /**
   * A copy of the elements (row-major): Float32Array (float32, and float16 / bfloat16 widened
   * exactly), Float64Array, Int32Array, BigInt64Array (int64), Int8Array, or Uint8Array (uint8
   * and bool).
   */
  dataSync(): H.TypedData {
    checkReadable('dataSync');
    this.readableHere('dataSync');
    return H.readHandle(this.handle);
  }

  /** Same as dataSync() on every device: the only way to read a GPU tensor (it waits for the GPU). */
  async data(): Promise<H.TypedData> {
    checkReadable('data');
    return readAsync(this.handle);
  }

  /** Same as toArray() on every device: the only way to read a GPU tensor that way. */
  async array(): Promise<NestedArray> {
    return nest(await this.data(), this.shape, this.dtype === 'bool');
  }

  /** Synchronous reads need the data in wasm memory: a GPU tensor's is read with await. */
  private readableHere(fn: string): void {
    const d = H.handleDevice(this.handle);
    if (d !== 'cpu') {
      throw new Error(
        `${fn}: this tensor is on '${d}', whose data can only be read asynchronously: ` +
          `use \`await t.data()\` or \`await t.array()\` (or move it with t.to('cpu') and await sg.sync())`,
      );
    }
  }

  /** The single element of a one-element tensor (bool gives 0/1). */
  item(): number {
    checkReadable('item');
    const h = this.handle;
    if (this.numel !== 1) throw new Error(`item: expected a tensor with one element, got shape [${this.shape.join(', ')}]`);
    this.readableHere('item');
    return H.readItem(h);
  }

  /** Nested arrays of numbers (booleans for bool tensors); a 0-d tensor gives a number. */
  toArray(): NestedArray {
    checkReadable('toArray');
    this.readableHere('toArray');
    return nest(this.dataSync(), this.shape, this.dtype === 'bool');
  }

  toString(): string {
    if (this._h === 0) return 'Tensor(disposed)';
    const grad = this.requiresGrad ? ', requiresGrad=true' : '';
    if (this.device !== 'cpu') return `Tensor(shape=[${this.shape.join(', ')}], dtype=${this.dtype}, device=${this.device}${grad})`;
    // While sg.compile traces, values are this run's placeholders: show none.
    if (this.numel > 100 || isTracing()) return `Tensor(shape=[${this.shape.join(', ')}], dtype=${this.dtype}${grad})`;
    const fmt = (v: NestedArray): string =>
      Array.isArray(v) ? `[${v.map(fmt).join(', ')}]` : typeof v === 'number' ? String(Number(v.toPrecision(6))) : String(v);
    return `tensor(${fmt(this.toArray())}, dtype=${this.dtype}${grad})`;
  }

  /** Logs toString() and returns this tensor. */
  print(): this {
    consoleRef().log(this.toString());
    return this;
  }

  // ---- dtype and device ----

  /**
   * A tensor of another dtype, on another device, or both (`{ device, dtype }`). Always a new
   * Tensor (sharing this one's data when nothing changes, as PyTorch's .to returns self).
   */
  to(target: ToTarget): Tensor {
    const { device, dtype } = toTarget('to', target);
    // While sg.compile traces, a GPU → CPU move is a stage boundary (compile/transfer.ts).
    const traced = traceMove(this, target);
    if (traced !== undefined) return traced as Tensor;
    let h = H.shareHandle(this.handle);
    // Each step replaces h; the handle it replaced is released whether or not it succeeded.
    const apply = (op: string, attrs: Record<string, string>): void => {
      const prev = h;
      try {
        h = H.callOp1(op, [prev], attrs);
      } finally {
        H.releaseHandle(prev);
      }
    };
    const cast = (): void => {
      if (dtype !== undefined && dtype !== H.handleDType(h)) apply('cast', { dtype });
    };
    const move = (): void => {
      if (device !== undefined && device !== H.handleDevice(h)) apply('to', { device });
    };
    if (device === 'cpu') {
      move();
      cast();
    } else {
      cast();
      move();
    }
    return new Tensor(h);
  }

  float(): Tensor {
    return this.to('float32');
  }

  double(): Tensor {
    return this.to('float64');
  }

  half(): Tensor {
    return this.to('float16');
  }

  bfloat16(): Tensor {
    return this.to('bfloat16');
  }

  int(): Tensor {
    return this.to('int32');
  }

  long(): Tensor {
    return this.to('int64');
  }

  bool(): Tensor {
    return this.to('bool');
  }

  // ---- autograd (backward and registerHook: autograd/backward.ts) ----

  /** A new leaf sharing this data, outside the graph. */
  detach(): Tensor {
    return new Tensor(H.detachHandle(this.handle), this._dtype);
  }

  /** Keeps .grad on this non-leaf after backward. */
  retainGrad(): void {
    H.retainGradHandle(this.handle);
  }

  /** Sets .grad to null. */
  zeroGrad(...args: unknown[]): void {
    // API.md: t.zeroGrad() sets grad to null; a method never ignores what it was given.
    if (args.length > 0) throw new Error(`zeroGrad: a tensor's zeroGrad() takes no arguments (it sets .grad to null), got ${args.length}`);
    this.grad = null;
  }

  /** Sets requiresGrad and returns this (PyTorch's requires_grad_). */
  requiresGrad_(b = true): this {
    this.requiresGrad = b;
    return this;
  }

  // ---- lifetime ----

  /** @internal Module.to(dtype): this leaf (and its grad) becomes `dtype`, in place (PyTorch's param.data = param.to(dtype)). */
  _castTo(dtype: DType): void {
    const old = this.handle;
    if (H.handleDType(old) === dtype) return;
    const castLeaf = (h: TensorHandle): TensorHandle => {
      const d = H.detachHandle(h);
      try {
        return H.callOp1('cast', [d], { dtype });
      } finally {
        H.releaseHandle(d);
      }
    };
    const next = castLeaf(old);
    try {
      if (H.requiresGradHandle(old)) H.setRequiresGradHandle(next, true);
      const grad = H.handleGrad(old);
      if (grad !== 0) {
        try {
          const g = castLeaf(grad);
          H.setHandleGrad(next, g);
          H.releaseHandle(g);
        } finally {
          H.releaseHandle(grad);
        }
      }
    } catch (e) {
      H.releaseHandle(next);
      throw e;
    }
    this._h = next;
    this._dtype = dtype;
    this._grad = null;
    onReplace(this);
    H.releaseHandle(old);
  }

  /** @internal Moves this tensor's data to `device` in place, keeping it a leaf (module.to). */
  _moveTo(device: Device): void {
    const old = this.handle;
    if (H.handleDevice(old) === device) return;
    const moved = movedLeaf(old, device);
    const grad = H.handleGrad(old);
    if (grad !== 0) {
      try {
        const g = movedLeaf(grad, device);
        H.setHandleGrad(moved, g);
        H.releaseHandle(g);
      } finally {
        H.releaseHandle(grad);
      }
    }
    this._h = moved;
    this._grad = null;
    onReplace(this);
    H.releaseHandle(old);
  }

  dispose(): void {
    const h = this._h;
    if (h === 0) return;
    onDispose(this);
    this._h = 0;
    this._grad = null;
    H.releaseHandle(h);
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}

/** What dataSync() gives for every dtype but int64: plain numbers. */
export type NumericData = Exclude<H.TypedData, BigInt64Array>;

/** Flat row-major values as nested arrays of `shape` (booleans for bool; int64 as numbers, exact or an Error). */
function nest(flat: H.TypedData, shape: number[], isBool: boolean): NestedArray {
  let pos = 0;
  const build = (d: number): NestedArray => {
    if (d === shape.length) {
      const v = flat[pos++]!;
      if (typeof v === 'bigint') return H.int64Number('toArray', v);
      return isBool ? v !== 0 : v;
    }
    const out: NestedArray[] = new Array(shape[d]!);
    for (let i = 0; i < shape[d]!; i++) out[i] = build(d + 1);
    return out;
  };
  return build(0);
}

// console.log / util.inspect in Node show the short summary.
Object.defineProperty(Tensor.prototype, Symbol.for('nodejs.util.inspect.custom'), {
  value: function (this: Tensor) {
    return this.toString();
  },
});

