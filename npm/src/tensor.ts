// The Tensor class: owns exactly one TensorHandle (dispose() deletes it), exposes the
// properties and reading of API.md, and the autograd methods (implemented in autograd.ts).
// Every op of ops.ts is installed on the prototype from the same table that gives the
// functional form, so methods and functions cannot drift; their types are merged in below.
import type { DType, Device, TensorHandle } from './embind.js';
import { onCreate, onDispose, onReplace } from './memory.js';
import { movedLeaf, readAsync } from './webgpu/device.js';
import { readHandle, type TypedData } from './module.js';
import { describe, intArg } from './options.js';
import type { OpMethods } from './ops.js';
import * as autograd from './autograd.js';
import { run } from './call.js';
import { consoleRef } from './env.js';

/** Nested arrays as returned by toArray(): numbers, or booleans for bool tensors. */
export type NestedArray = number | boolean | NestedArray[];

export interface BackwardOptions {
  retainGraph?: boolean;
}

/** What registerHook accepts: gets the gradient, returns a replacement or nothing. */
export type GradHook = (grad: Tensor) => Tensor | undefined | void;

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

export class Tensor {
  private _h: TensorHandle | null;
  private _shape: number[] | undefined;
  private _dtype: DType | undefined;
  /** JS wrapper of the C++ .grad, reused while the C++ grad tensor stays the same. */
  private _grad: Tensor | null = null;
  /** Creation order; lets hooks tell tensors they created from older ones. */
  readonly id: number;

  /** @internal Wraps (and takes ownership of) a handle; user code creates tensors with sg.tensor() etc. */
  constructor(handle: TensorHandle) {
    this._h = handle;
    this.id = ++serial;
    onCreate(this, handle);
  }

  /** @internal The underlying handle; throws once disposed. */
  get handle(): TensorHandle {
    if (this._h === null) throw new Error('Tensor is disposed');
    return this._h;
  }

  get isDisposed(): boolean {
    return this._h === null;
  }

  get shape(): number[] {
    if (this._shape === undefined) this._shape = this.handle.shape();
    else if (this._h === null) throw new Error('Tensor is disposed');
    return this._shape.slice();
  }

  get ndim(): number {
    return this.shape.length;
  }

  get numel(): number {
    return this.shape.reduce((a, b) => a * b, 1);
  }

  get dtype(): DType {
    if (this._dtype === undefined) this._dtype = this.handle.dtype();
    else if (this._h === null) throw new Error('Tensor is disposed');
    return this._dtype;
  }

  get device(): Device {
    return this.handle.device();
  }

  get requiresGrad(): boolean {
    return this.handle.requiresGrad();
  }

  set requiresGrad(b: boolean) {
    if (typeof b !== 'boolean') throw new Error(`requiresGrad: expected a boolean, got ${describe(b)}`);
    this.handle.setRequiresGrad(b);
  }

  get isLeaf(): boolean {
    return this.handle.isLeaf();
  }

  /** Name of the op that made this tensor (null for leaves). */
  get gradFn(): string | null {
    return this.handle.gradFnName();
  }

  /**
   * The accumulated gradient, or null. Reading it twice gives the same Tensor while the
   * gradient is unchanged, so reading does not leak; inside tidy() the wrapper is tracked
   * like any tensor (disposing it leaves the gradient on this tensor).
   */
  get grad(): Tensor | null {
    const h = this.handle.grad();
    if (h === null) {
      this._grad = null;
      return null;
    }
    const cached = this._grad;
    if (cached !== null && !cached.isDisposed && cached.handle.same(h)) {
      h.delete();
      return cached;
    }
    this._grad = new Tensor(h);
    return this._grad;
  }

  set grad(g: Tensor | null) {
    if (g === null || g === undefined) {
      this.handle.setGrad(null);
      this._grad = null;
      return;
    }
    if (!(g instanceof Tensor)) throw new Error(`grad: expected a Tensor or null, got ${describe(g)}`);
    this.handle.setGrad(g.handle);
    this._grad = g;
  }

  /** 2-D transpose (PyTorch's t.T for matrices). */
  get T(): Tensor {
    if (this.ndim !== 2) throw new Error(`T: expected a 2-D tensor, got shape [${this.shape.join(', ')}] (use permute or transpose)`);
    return this.transpose(0, 1);
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

  /** A copy of the elements (row-major): Float32Array, Int32Array, or Uint8Array for bool. */
  dataSync(): TypedData {
    this.readableHere('dataSync');
    return readHandle(this.handle);
  }

  /** Same as dataSync() on every device: the only way to read a GPU tensor (it waits for the GPU). */
  async data(): Promise<TypedData> {
    return readAsync(this.handle);
  }

  /** Same as toArray() on every device: the only way to read a GPU tensor that way. */
  async array(): Promise<NestedArray> {
    return nest(await this.data(), this.shape, this.dtype === 'bool');
  }

  /** Synchronous reads need the data in wasm memory: a GPU tensor's is read with await. */
  private readableHere(fn: string): void {
    const d = this.handle.device();
    if (d !== 'cpu') {
      throw new Error(
        `${fn}: this tensor is on '${d}', whose data can only be read asynchronously: ` +
          `use \`await t.data()\` or \`await t.array()\` (or move it with t.to('cpu') and await sg.sync())`,
      );
    }
  }

  /** The single element of a one-element tensor (bool gives 0/1). */
  item(): number {
    const h = this.handle;
    if (h.numel() !== 1) throw new Error(`item: expected a tensor with one element, got shape [${this.shape.join(', ')}]`);
    this.readableHere('item');
    return h.item();
  }

  /** Nested arrays of numbers (booleans for bool tensors); a 0-d tensor gives a number. */
  toArray(): NestedArray {
    this.readableHere('toArray');
    return nest(this.dataSync(), this.shape, this.dtype === 'bool');
  }

  toString(): string {
    if (this._h === null) return 'Tensor(disposed)';
    const grad = this.requiresGrad ? ', requiresGrad=true' : '';
    if (this.device !== 'cpu') return `Tensor(shape=[${this.shape.join(', ')}], dtype=${this.dtype}, device=${this.device}${grad})`;
    if (this.numel > 100) return `Tensor(shape=[${this.shape.join(', ')}], dtype=${this.dtype}${grad})`;
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

  /** A tensor of another dtype ('float32' | 'int32' | 'bool'), or this data on a device ('cpu'). Always a new Tensor. */
  to(target: DType | Device): Tensor {
    if (target === 'cpu' || target === 'webgpu') {
      if (target === this.device) return new Tensor(this.handle.share());
      return run('to', 'to', [['input', this]], { device: target });
    }
    if (target !== 'float32' && target !== 'int32' && target !== 'bool') {
      throw new Error(`to: expected a dtype ('float32', 'int32', 'bool') or a device ('cpu', 'webgpu'), got ${describe(target)}`);
    }
    if (target === this.dtype) return new Tensor(this.handle.share());
    return run('to', 'cast', [['input', this]], { dtype: target });
  }

  float(): Tensor {
    return this.to('float32');
  }

  int(): Tensor {
    return this.to('int32');
  }

  bool(): Tensor {
    return this.to('bool');
  }

  // ---- autograd ----

  /** Accumulates d(this)/d(leaf) into every leaf's .grad. gradOutput is required unless this has one element. */
  backward(gradOutput?: Tensor | number | null | BackwardOptions, options?: BackwardOptions): void {
    autograd.backward(this, gradOutput, options);
  }

  /** A new leaf sharing this data, outside the graph. */
  detach(): Tensor {
    return autograd.detach(this);
  }

  /** Keeps .grad on this non-leaf after backward. */
  retainGrad(): void {
    this.handle.retainGrad();
  }

  /** Calls fn with this tensor's gradient during backward; fn may return a replacement. */
  registerHook(fn: GradHook): void {
    autograd.registerHook(this, fn);
  }

  /** Sets .grad to null. */
  zeroGrad(): void {
    this.grad = null;
  }

  /** Sets requiresGrad and returns this (PyTorch's requires_grad_). */
  requiresGrad_(b = true): this {
    this.requiresGrad = b;
    return this;
  }

  // ---- lifetime ----

  /** Frees this tensor's handle (views and graphs keep their data alive). Idempotent. */
  /** @internal Moves this tensor's data to `device` in place, keeping it a leaf (module.to). */
  _moveTo(device: Device): void {
    const old = this.handle;
    if (old.device() === device) return;
    const moved = movedLeaf(old, device);
    const grad = old.grad();
    if (grad) {
      try {
        const g = movedLeaf(grad, device);
        moved.setGrad(g);
        g.delete();
      } finally {
        grad.delete();
      }
    }
    this._h = moved;
    this._grad = null;
    onReplace(this, moved);
    old.delete();
  }

  dispose(): void {
    const h = this._h;
    if (h === null) return;
    onDispose(this);
    this._h = null;
    this._grad = null;
    h.delete();
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}

/** Flat row-major values as nested arrays of `shape` (booleans for bool). */
function nest(flat: TypedData, shape: number[], isBool: boolean): NestedArray {
  let pos = 0;
  const build = (d: number): NestedArray => {
    if (d === shape.length) {
      const v = flat[pos++]!;
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

// Every op of ops.ts as a method (installed there on Tensor.prototype).
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface Tensor extends OpMethods {}
