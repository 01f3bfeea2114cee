// In-place Tensor methods (PyTorch's add_, mul_, fill_, copy_, ...): each changes this tensor's
// elements through the registry op of the same name and returns this, for chaining. The rules
// are PyTorch's (src/ops/inplace.h): a version counter per storage, shared by views, so that a
// tensor saved for backward and changed afterwards makes that backward throw; a leaf that
// requires grad may only be changed inside noGrad; a recorded change rebases this tensor's
// history; changes that would be recorded on a view of a graph tensor (or its base) are refused.
import { callHandles, type TensorLike } from './call.js';
import * as H from '../runtime/handles.js';
import { checkOptions, describe } from '../runtime/options.js';
import { Tensor } from './tensor.js';

declare module './tensor.js' {
  interface Tensor {
    /** this += alpha·other (alpha defaults to 1). */
    add_(other: TensorLike, options?: { alpha?: number }): this;
    /** this −= alpha·other. */
    sub_(other: TensorLike, options?: { alpha?: number }): this;
    mul_(other: TensorLike): this;
    div_(other: TensorLike): this;
    pow_(exponent: TensorLike): this;
    /** Clamps into [min, max] (either may be null). */
    clamp_(min?: number | null, max?: number | null): this;
    /** Sets the elements where mask is true to value. */
    maskedFill_(mask: Tensor, value: number): this;
    /** this += value·t1·t2 (value defaults to 1). */
    addcmul_(t1: TensorLike, t2: TensorLike, options?: { value?: number }): this;
    /** this += value·t1/t2. */
    addcdiv_(t1: TensorLike, t2: TensorLike, options?: { value?: number }): this;
    neg_(): this;
    exp_(): this;
    log_(): this;
    sqrt_(): this;
    abs_(): this;
    sigmoid_(): this;
    tanh_(): this;
    relu_(): this;
    /** Sets every element to value. */
    fill_(value: number | boolean): this;
    zero_(): this;
    /** Copies src (broadcast to this shape, cast to this dtype) into this tensor. */
    copy_(src: TensorLike): this;
    /** Fills with draws from N(mean, std²) of the global generator (float32 only). */
    normal_(mean?: number, std?: number): this;
    /** Fills with draws from U[from, to) of the global generator (float32 only). */
    uniform_(from?: number, to?: number): this;
  }
}

type Operands = [name: string, value: TensorLike | null | undefined][];

function change(t: Tensor, fn: string, operands: Operands = [], attrs?: Record<string, number>): Tensor {
  const hs = callHandles(fn, fn, [['input', t], ...operands], attrs ?? null);
  for (const h of hs) H.releaseHandle(h);  // the op returns this tensor again
  return t;
}

function number(fn: string, name: string, v: unknown, fallback?: number): number {
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== 'number' || Number.isNaN(v)) throw new Error(`${fn}: expected '${name}' to be a number, got ${describe(v)}`);
  return v;
}

const finite = { check: (v: unknown) => typeof v === 'number' && Number.isFinite(v), expected: 'a finite number' };

const methods: Record<string, (this: Tensor, ...args: any[]) => Tensor> = {
  add_(other: TensorLike, options?: { alpha?: number }) {
    const o = checkOptions<{ alpha: number }>('add_', options, { alpha: finite });
    return change(this, 'add_', [['other', other]], o.alpha === undefined ? undefined : { alpha: o.alpha });
  },
  sub_(other: TensorLike, options?: { alpha?: number }) {
    const o = checkOptions<{ alpha: number }>('sub_', options, { alpha: finite });
    return change(this, 'sub_', [['other', other]], o.alpha === undefined ? undefined : { alpha: o.alpha });
  },
  mul_(other: TensorLike) {
    return change(this, 'mul_', [['other', other]]);
  },
  div_(other: TensorLike) {
    return change(this, 'div_', [['other', other]]);
  },
  pow_(exponent: TensorLike) {
    return change(this, 'pow_', [['exponent', exponent]]);
  },
  clamp_(min?: number | null, max?: number | null) {
    const attrs: Record<string, number> = {};
    if (min !== undefined && min !== null) attrs.min = number('clamp_', 'min', min);
    if (max !== undefined && max !== null) attrs.max = number('clamp_', 'max', max);
    return change(this, 'clamp_', [], attrs);
  },
  maskedFill_(mask: Tensor, value: number) {
    if (!(mask instanceof Tensor) || mask.dtype !== 'bool') {
      throw new Error(`maskedFill_: expected 'mask' to be a bool Tensor, got ${mask instanceof Tensor ? mask.dtype : describe(mask)}`);
    }
    return change(this, 'maskedFill_', [['mask', mask]], { value: number('maskedFill_', 'value', value) });
  },
  addcmul_(t1: TensorLike, t2: TensorLike, options?: { value?: number }) {
    const o = checkOptions<{ value: number }>('addcmul_', options, { value: finite });
    return change(this, 'addcmul_', [['tensor1', t1], ['tensor2', t2]], { value: o.value ?? 1 });
  },
  addcdiv_(t1: TensorLike, t2: TensorLike, options?: { value?: number }) {
    const o = checkOptions<{ value: number }>('addcdiv_', options, { value: finite });
    return change(this, 'addcdiv_', [['tensor1', t1], ['tensor2', t2]], { value: o.value ?? 1 });
  },
  fill_(value: number | boolean) {
    const v = typeof value === 'boolean' ? Number(value) : number('fill_', 'value', value);
    return change(this, 'fill_', [], { value: v });
  },
  zero_() {
    return change(this, 'zero_');
  },
  copy_(src: TensorLike) {
    return change(this, 'copy_', [['src', src]]);
  },
  normal_(mean?: number, std?: number) {
    return change(this, 'normal_', [], { mean: number('normal_', 'mean', mean, 0), std: number('normal_', 'std', std, 1) });
  },
  uniform_(from?: number, to?: number) {
    return change(this, 'uniform_', [], { from: number('uniform_', 'from', from, 0), to: number('uniform_', 'to', to, 1) });
  },
};
for (const op of ['neg_', 'exp_', 'log_', 'sqrt_', 'abs_', 'sigmoid_', 'tanh_', 'relu_']) {
  methods[op] = function (this: Tensor) {
    return change(this, op);
  };
}

for (const [name, f] of Object.entries(methods)) {
  Object.defineProperty(Tensor.prototype, name, { value: f, writable: true, configurable: true });
}

/** The in-place method names (for the docs and tests). */
export const inplaceMethods = Object.keys(methods);
