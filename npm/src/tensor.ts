// The Tensor class: owns exactly one TensorHandle (dispose() deletes it), exposes the
// properties and reading of API.md, and the autograd methods (implemented in autograd.ts).
// Every op of ops.ts is installed on the prototype from the same table that gives the
// functional form, so methods and functions cannot drift; their types are merged in below.
import type { DType, Device, TensorHandle } from './embind.js';
import { onCreate, onDispose } from './memory.js';
import { readHandle, type TypedData } from './module.js';
import { describe, intArg } from './options.js';
import type { OpMethods } from './ops.js';
import * as autograd from './autograd.js';
import { run } from './call.js';
import { consoleRef } from './env.js';
import { checkReadable, isTracing } from './trace_flag.js';

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

/** The id the last Tensor created got: tensors with a larger id were made after this call. */
export function tensorSerial(): number {
  return serial;
}

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
    checkReadable('dataSync');
    return readHandle(this.handle);
  }

  /** Same as dataSync(); the only way to read on devices that compute asynchronously. */
  async data(): Promise<TypedData> {
    checkReadable('data');
    return this.dataSync();
  }

  /** The single element of a one-element tensor (bool gives 0/1). */
  item(): number {
    checkReadable('item');
    const h = this.handle;
    if (h.numel() !== 1) throw new Error(`item: expected a tensor with one element, got shape [${this.shape.join(', ')}]`);
    return h.item();
  }

  /** Nested arrays of numbers (booleans for bool tensors); a 0-d tensor gives a number. */
  toArray(): NestedArray {
    checkReadable('toArray');
    const flat = this.dataSync();
    const isBool = this.dtype === 'bool';
    const shape = this.shape;
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

  toString(): string {
    if (this._h === null) return 'Tensor(disposed)';
    const grad = this.requiresGrad ? ', requiresGrad=true' : '';
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

  /** A tensor of another dtype ('float32' | 'int32' | 'bool'), or this data on a device ('cpu'). Always a new Tensor. */
  to(target: DType | Device): Tensor {
    if (target === 'cpu' || target === 'webgpu') {
      if (target !== this.device) throw new Error(`to: device '${target}' is not available (tensors live on '${this.device}')`);
      return new Tensor(this.handle.share());
    }
    if (target !== 'float32' && target !== 'int32' && target !== 'bool') {
      throw new Error(`to: expected a dtype ('float32', 'int32', 'bool') or a device ('cpu'), got ${describe(target)}`);
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

// console.log / util.inspect in Node show the short summary.
Object.defineProperty(Tensor.prototype, Symbol.for('nodejs.util.inspect.custom'), {
  value: function (this: Tensor) {
    return this.toString();
  },
});

// Every op of ops.ts as a method (installed there on Tensor.prototype).
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface Tensor extends OpMethods {}
