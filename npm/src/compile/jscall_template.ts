// sg.jsCall's output template: what the callback must return, fixed when the call is made (the
// output shape is never found by running the callback). A template is a Tensor (its shape and
// dtype), a { shape, dtype } spec, or an array of them (several outputs).
import { DTYPES } from '../runtime/dtypes.js';
import type { DType } from '../runtime/embind.js';
import { describe } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';

export interface TensorSpec {
  shape: number[];
  dtype: DType;
}

export interface Template {
  specs: TensorSpec[];
  /** An array template: the callback returns (and jsCall gives back) an array. */
  multi: boolean;
  /** How messages show it: `{ shape: [2, 3], dtype: 'float32' }`. */
  text: string;
}


function specText(s: TensorSpec): string {
  return `{ shape: [${s.shape.join(', ')}], dtype: '${s.dtype}' }`;
}

function parseSpec(v: unknown, where: string): TensorSpec {
  if (v instanceof Tensor) {
    if (v.isDisposed) throw new Error(`jsCall: ${where} is a disposed Tensor`);
    return { shape: v.shape, dtype: v.dtype };
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new Error(`jsCall: expected ${where} to be a Tensor or a { shape, dtype } spec, got ${describe(v)}`);
  }
  const o = v as { shape?: unknown; dtype?: unknown };
  for (const key of Object.keys(o)) {
    if (key !== 'shape' && key !== 'dtype') throw new Error(`jsCall: unknown key '${key}' in ${where} (expected shape and dtype)`);
  }
  if (!Array.isArray(o.shape)) throw new Error(`jsCall: expected ${where}.shape to be an array of sizes, got ${describe(o.shape)}`);
  o.shape.forEach((d, i) => {
    if (!(typeof d === 'number' && Number.isInteger(d) && d >= 0)) {
      throw new Error(`jsCall: expected ${where}.shape[${i}] to be a non-negative integer, got ${describe(d)}`);
    }
  });
  const dtype = o.dtype === undefined ? 'float32' : o.dtype;
  if (!DTYPES.includes(dtype as DType)) {
    throw new Error(`jsCall: expected ${where}.dtype to be one of ${DTYPES.map((d) => `'${d}'`).join(', ')}, got ${describe(dtype)}`);
  }
  return { shape: (o.shape as number[]).slice(), dtype: dtype as DType };
}

export function parseTemplate(template: unknown): Template {
  if (Array.isArray(template)) {
    const specs = template.map((t, i) => parseSpec(t, `outputTemplate[${i}]`));
    return { specs, multi: true, text: `[${specs.map(specText).join(', ')}]` };
  }
  const spec = parseSpec(template, 'outputTemplate');
  return { specs: [spec], multi: false, text: specText(spec) };
}

/** How a callback's result shows in the mismatch message. */
export function describeResult(v: unknown): string {
  if (v instanceof Tensor) {
    return v.isDisposed ? 'a disposed Tensor' : `Tensor { shape: [${v.shape.join(', ')}], dtype: '${v.dtype}' }`;
  }
  if (Array.isArray(v)) return `[${v.map(describeResult).join(', ')}]`;
  if (v !== null && typeof (v as { then?: unknown })?.then === 'function') return 'a Promise';
  return describe(v);
}

function matches(t: unknown, s: TensorSpec): boolean {
  if (!(t instanceof Tensor) || t.isDisposed || t.dtype !== s.dtype) return false;
  const shape = t.shape;
  return shape.length === s.shape.length && shape.every((d, i) => d === s.shape[i]);
}

/** The callback's result as the template's tensors; throws the mismatch Error otherwise. */
export function checkResult(template: Template, result: unknown): Tensor[] {
  const list = template.multi ? result : [result];
  const ok = Array.isArray(list) && list.length === template.specs.length && list.every((t, i) => matches(t, template.specs[i]!));
  if (!ok) {
    throw new Error(`jsCall: expected the callback to match the output template ${template.text}, got: ${describeResult(result)}`);
  }
  return list as Tensor[];
}
