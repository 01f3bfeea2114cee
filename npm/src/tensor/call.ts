// From the JS API's operands to an op call and back: Tensors pass their handle ids, numbers and
// booleans become 0-d temporaries (released right after the call), and results come back as
// Tensors. Every op of the JS layer goes through run / runList (or the one- and two-tensor
// fast paths of ops.ts, run1 / run2).
import { getDefaultDtype, isFloatingDType, isIntegralDType, promoteTypes } from '../runtime/dtypes.js';
import type { Attrs, DType, TensorHandle } from '../runtime/embind.js';
import * as H from '../runtime/handles.js';
import { describe } from '../runtime/options.js';
import { Tensor } from './tensor.js';

/** Anything accepted where a tensor operand is: a number becomes a 0-d tensor. */
export type TensorLike = Tensor | number | boolean;

/** A named operand; `null` passes an absent optional tensor. */
export type Operand = [name: string, value: TensorLike | null | undefined];

/**
 * dtype of the 0-d tensor made for number `v`, so that the op's promotion gives torch.result_type
 * (a number never widens a tensor within its category): the tensor operands' dtype when the
 * number is of its category or below (2 with a float16 tensor is float16, 3 with an int8 one is
 * int8), else int32 for an integer, else the default float dtype.
 */
function scalarDType(v: number, partner: DType | undefined): DType {
  if (partner !== undefined && isFloatingDType(partner)) return partner;
  if (!Number.isInteger(v)) return getDefaultDtype();
  return partner !== undefined && isIntegralDType(partner) ? partner : 'int32';
}

/** The tensor operands' promoted dtype (torch.promote_types): numbers follow it. */
function partnerDType(operands: readonly Operand[]): DType | undefined {
  let partner: DType | undefined;
  for (const [, v] of operands) {
    if (v instanceof Tensor) partner = partner === undefined ? v.dtype : promoteTypes(partner, v.dtype);
  }
  return partner;
}

/**
 * The handle ids of the operands (0 for an absent one); numbers and booleans become 0-d tensors
 * whose ids are pushed to `temps` for the caller to release. Errors name `fn` and the operand.
 */
function operandIds(fn: string, operands: readonly Operand[], temps: TensorHandle[]): TensorHandle[] {
  for (const [name, v] of operands) if (v !== null && v !== undefined) checkOperand(fn, name, v);
  const hasNumbers = operands.some(([, v]) => typeof v === 'number' || typeof v === 'boolean');
  const partner = hasNumbers ? partnerDType(operands) : undefined;
  return operands.map(([, v]): TensorHandle => {
    if (v instanceof Tensor) return v.handle;
    if (v === null || v === undefined) return 0;
    const h = H.scalarHandle(v, typeof v === 'boolean' ? 'bool' : scalarDType(v, partner));
    temps.push(h);
    return h;
  });
}

/**
 * Calls op `opName` (errors in the operands are reported as `fn`'s) and returns the result
 * handle ids, owned by the caller. Temporaries are released even when the op throws.
 */
export function callHandles(fn: string, opName: string, operands: Operand[], attrs?: Attrs | null): TensorHandle[] {
  const temps: TensorHandle[] = [];
  try {
    return H.callOp(opName, operandIds(fn, operands, temps), attrs);
  } finally {
    for (const h of temps) H.releaseHandle(h);
  }
}

/** Runs an op with one result and wraps it. */
export function run(fn: string, opName: string, operands: Operand[], attrs?: Attrs | null): Tensor {
  const temps: TensorHandle[] = [];
  try {
    return new Tensor(H.callOp1(opName, operandIds(fn, operands, temps), attrs), H.lastResultDType());
  } finally {
    for (const h of temps) H.releaseHandle(h);
  }
}

/** Runs an op with a list of results (split, chunk). */
export function runList(fn: string, opName: string, operands: Operand[], attrs?: Attrs | null): Tensor[] {
  return callHandles(fn, opName, operands, attrs).map((h) => new Tensor(h));
}

/** run for an op of one operand, without the operand list when it is a live Tensor (the common case). */
export function run1(fn: string, op: H.OpRef, name: string, input: TensorLike, attrs?: Attrs | null): Tensor {
  if (input instanceof Tensor && !input.isDisposed) {
    return new Tensor(H.callOp1(op, [input.handle], attrs), H.lastResultDType());
  }
  return run(fn, op.name, [[name, input]], attrs);
}

/** run for an op of two operands, without the operand list when both are live Tensors. */
export function run2(fn: string, op: H.OpRef, nameA: string, a: TensorLike, nameB: string, b: TensorLike): Tensor {
  if (a instanceof Tensor && b instanceof Tensor && !a.isDisposed && !b.isDisposed) {
    return new Tensor(H.callOp1(op, [a.handle, b.handle]), H.lastResultDType());
  }
  return run(fn, op.name, [[nameA, a], [nameB, b]]);
}

/** An operand: a Tensor not disposed, a number or a boolean; else an Error naming fn and the operand. */
function checkOperand(fn: string, name: string, v: unknown): void {
  if (v instanceof Tensor) {
    if (v.isDisposed) throw new Error(`${fn}: Tensor is disposed (argument '${name}')`);
  } else if (typeof v !== 'number' && typeof v !== 'boolean') {
    throw new Error(`${fn}: expected '${name}' to be a Tensor or a number, got ${describe(v)}`);
  }
}

/**
 * A composite op's operands, checked as run() checks an op's: else the Error came from the first
 * inner op it runs, under that op's name ("trunc: expected 'input' ..." from frac).
 */
export function checkOperands(fn: string, ...operands: Operand[]): void {
  for (const [name, v] of operands) checkOperand(fn, name, v);
}

/** Unwraps a required tensor argument (no numbers), with an error naming it. */
export function tensorArg(fn: string, name: string, v: unknown): Tensor {
  if (v instanceof Tensor) {
    // Named here as operandIds names one: else the first op the function runs reported it as its own
    // (F.cosineSimilarity's disposed x1 read "mul: Tensor is disposed (argument 'input')").
    if (v.isDisposed) throw new Error(`${fn}: Tensor is disposed (argument '${name}')`);
    return v;
  }
  throw new Error(`${fn}: expected '${name}' to be a Tensor, got ${describe(v)}`);
}
