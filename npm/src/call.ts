// The one path from the JS API into `callOp`: turns operands (Tensors, numbers, booleans)
// into handles, makes the 0-d temporaries for numbers and deletes them right after the call,
// and wraps the resulting handles as Tensors.
import type { Attrs, DType, TensorHandle } from './embind.js';
import { handleFrom, mod } from './module.js';
import { describe } from './options.js';
import { Tensor } from './tensor.js';

/** Anything accepted where a tensor operand is: a number becomes a 0-d tensor. */
export type TensorLike = Tensor | number | boolean;

/** A named operand; `null` passes an absent optional tensor. */
export type Operand = [name: string, value: TensorLike | null | undefined];

/**
 * dtype of the 0-d tensor made for number `v`: int32 when it is an integer and the tensor
 * operands are integer (int32/bool) — or there are none — else float32 (API.md).
 */
function scalarDType(v: number, partner: DType | undefined): DType {
  if (!Number.isInteger(v)) return 'float32';
  return partner === 'float32' ? 'float32' : 'int32';
}

/** Whether an attrs object has any key (null is passed for none: the module skips reading it). */
function hasKeys(attrs: Attrs): boolean {
  for (const _ in attrs) return true;
  return false;
}

export function scalarHandle(value: number | boolean, dtype: DType): TensorHandle {
  // Attributes reject NaN (callOp's check), but NaN is a valid float operand: write it directly.
  if (Number.isNaN(value)) return handleFrom([NaN], [], 'float32');
  return mod().callOp('scalar', [], { value: typeof value === 'boolean' ? Number(value) : value, dtype })[0]!;
}

/**
 * Calls op `opName` (errors are reported as `fn`'s) on the operands and attrs and returns
 * the result handles, unwrapped. Temporaries are deleted even when the op throws.
 */
export function callHandles(fn: string, opName: string, operands: Operand[], attrs: Attrs = {}): TensorHandle[] {
  let partner: DType | undefined;
  for (const [name, v] of operands) {
    if (v instanceof Tensor) {
      if (v.isDisposed) throw new Error(`${fn}: Tensor is disposed (argument '${name}')`);
      const d = v.dtype;
      // The widest tensor dtype decides: float32 > int32 > bool.
      if (d === 'float32' || partner === undefined || (partner === 'bool' && d === 'int32')) partner = d;
    }
  }
  const temps: TensorHandle[] = [];
  try {
    const handles = operands.map(([name, v]): TensorHandle | null => {
      if (v instanceof Tensor) return v.handle;
      if (v === null || v === undefined) return null;
      if (typeof v === 'number') {
        const h = scalarHandle(v, scalarDType(v, partner));
        temps.push(h);
        return h;
      }
      if (typeof v === 'boolean') {
        const h = scalarHandle(v, 'bool');
        temps.push(h);
        return h;
      }
      throw new Error(`${fn}: expected '${name}' to be a Tensor or a number, got ${describe(v)}`);
    });
    return mod().callOp(opName, handles, hasKeys(attrs) ? attrs : null);
  } finally {
    for (const h of temps) h.delete();
  }
}

/** Runs an op with one result and wraps it. */
export function run(fn: string, opName: string, operands: Operand[], attrs: Attrs = {}): Tensor {
  const hs = callHandles(fn, opName, operands, attrs);
  for (let i = 1; i < hs.length; i++) hs[i]!.delete();
  return new Tensor(hs[0]!);
}

/** Runs an op with a list of results (split, chunk). */
export function runList(fn: string, opName: string, operands: Operand[], attrs: Attrs = {}): Tensor[] {
  return callHandles(fn, opName, operands, attrs).map((h) => new Tensor(h));
}

/** Unwraps a required tensor argument (no numbers), with an error naming it. */
export function tensorArg(fn: string, name: string, v: unknown): Tensor {
  if (v instanceof Tensor) return v;
  throw new Error(`${fn}: expected '${name}' to be a Tensor, got ${describe(v)}`);
}
