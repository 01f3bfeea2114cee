// The nine dtypes, in sg::DType's order (src/core/dtype.h: the codes are shared with C++), and
// what the JS layer knows of them: categories, promotion (C++'s one table, torch.promote_types,
// read once), torch.result_type over tensors and numbers, finfo / iinfo, the default dtype.
import type { DType, Device } from './embind.js';
import { raw } from './module.js';

export const DTYPES = ['float32', 'int32', 'bool', 'float16', 'bfloat16', 'float64', 'int64', 'int8', 'uint8'] as const satisfies readonly DType[];
// Every DType is in the list (a compile-time check: this line fails to type-check otherwise).
const everyDType: readonly (typeof DTYPES)[number][] = [] as DType[];
void everyDType;
export type { DType };
/** The floating dtypes setDefaultDtype accepts (PyTorch: float32 and float64). */
export type DefaultDType = 'float32' | 'float64';

export function isDType(v: unknown): v is DType {
  return typeof v === 'string' && (DTYPES as readonly string[]).includes(v);
}

/** The dtype's code in sg::DType (−1 for anything else). */
export function dtypeCode(d: DType): number {
  return DTYPES.indexOf(d);
}

export function isFloatingDType(d: DType): boolean {
  return d === 'float32' || d === 'float64' || d === 'float16' || d === 'bfloat16';
}

/** Integer dtypes, bool excluded (torch.is_floating_point's and is_integral's split). */
export function isIntegralDType(d: DType): boolean {
  return d === 'int32' || d === 'int64' || d === 'int8' || d === 'uint8';
}

/** Bytes per element in wasm and GPU memory. */
export function dtypeBytes(d: DType): number {
  return d === 'float64' || d === 'int64' ? 8 : d === 'float16' || d === 'bfloat16' ? 2 : d === 'bool' || d === 'int8' || d === 'uint8' ? 1 : 4;
}

const promoted: (DType | undefined)[] = new Array(DTYPES.length * DTYPES.length);

/** torch.promote_types (int16, which this library lacks, becomes int32: uint8 with int8). */
export function promoteTypes(a: DType, b: DType): DType {
  const ia = dtypeCode(a);
  const ib = dtypeCode(b);
  if (ia < 0 || ib < 0) throw new Error(`promoteTypes: expected two dtypes (${DTYPES.join(', ')}), got ${String(a)} and ${String(b)}`);
  const k = ia * DTYPES.length + ib;
  return (promoted[k] ??= DTYPES[raw().promote_types(ia, ib)]!);
}

let defaultDType: DefaultDType = 'float32';

/** The dtype of tensors made from plain numbers and nested arrays (torch.get_default_dtype). */
export function getDefaultDtype(): DefaultDType {
  return defaultDType;
}

export function setDefaultDtype(d: DefaultDType): void {
  if (d !== 'float32' && d !== 'float64') {
    throw new Error(`setDefaultDtype: expected 'float32' or 'float64' (as torch.set_default_dtype), got ${typeof d === 'string' ? `'${d}'` : String(d)}`);
  }
  defaultDType = d;
}

/** What resultType needs of an operand: a tensor's dtype and rank, or a number/boolean. */
export type ResultTypeOperand = { dtype: DType; ndim: number } | number | boolean;

/**
 * torch.result_type: tensors with dims decide first; 0-d tensors, then numbers, only raise the
 * category (bool < integer < floating), never the width within one. A number is bool, int32 (this
 * library's default integer; PyTorch's int64) or the default float dtype.
 */
export function resultType(...operands: readonly ResultTypeOperand[]): DType {
  let dim: DType | undefined;
  let zero: DType | undefined;
  let wrapped: DType | undefined;
  const join = (acc: DType | undefined, d: DType): DType => (acc === undefined ? d : promoteTypes(acc, d));
  for (const x of operands) {
    if (typeof x === 'boolean') wrapped = join(wrapped, 'bool');
    else if (typeof x === 'number') wrapped = join(wrapped, Number.isInteger(x) ? 'int32' : defaultDType);
    else if (x.ndim > 0) dim = join(dim, x.dtype);
    else zero = join(zero, x.dtype);
  }
  // c10's combine_categories(higher, lower): higher's dtype unless lower is of a higher category.
  const combine = (higher: DType | undefined, lower: DType | undefined): DType | undefined => {
    if (higher === undefined) return lower;
    if (lower === undefined || isFloatingDType(higher)) return higher;
    if (higher === 'bool' || isFloatingDType(lower)) return promoteTypes(higher, lower);
    return higher;
  };
  const out = combine(dim, combine(zero, wrapped));
  if (out === undefined) throw new Error('resultType: expected at least one tensor or number');
  return out;
}

export interface FInfo {
  bits: number;
  /** The gap between 1 and the next larger value. */
  eps: number;
  max: number;
  min: number;
  /** The smallest positive normal value. */
  tiny: number;
}

export interface IInfo {
  bits: number;
  /** Numbers; int64's limits are beyond 2^53, so they are the nearest doubles (as JS reads them). */
  max: number;
  min: number;
}

const FINFO: Partial<Record<DType, FInfo>> = {
  float32: { bits: 32, eps: 2 ** -23, max: (2 - 2 ** -23) * 2 ** 127, min: -(2 - 2 ** -23) * 2 ** 127, tiny: 2 ** -126 },
  float64: { bits: 64, eps: Number.EPSILON, max: Number.MAX_VALUE, min: -Number.MAX_VALUE, tiny: 2 ** -1022 },
  float16: { bits: 16, eps: 2 ** -10, max: 65504, min: -65504, tiny: 2 ** -14 },
  bfloat16: { bits: 16, eps: 2 ** -7, max: (2 - 2 ** -7) * 2 ** 127, min: -(2 - 2 ** -7) * 2 ** 127, tiny: 2 ** -126 },
};

const IINFO: Partial<Record<DType, IInfo>> = {
  int32: { bits: 32, max: 2147483647, min: -2147483648 },
  int64: { bits: 64, max: 2 ** 63 - 1, min: -(2 ** 63) },
  int8: { bits: 8, max: 127, min: -128 },
  uint8: { bits: 8, max: 255, min: 0 },
  bool: { bits: 8, max: 1, min: 0 },
};

/** torch.finfo for a floating dtype (default: the default dtype). */
export function finfo(d: DType = defaultDType): FInfo {
  const f = isDType(d) ? FINFO[d] : undefined;
  if (!f) throw new Error(`finfo: expected a floating dtype (float32, float64, float16, bfloat16), got ${typeof d === 'string' ? `'${d}'` : String(d)}`);
  return { ...f };
}

/** torch.iinfo for an integer dtype (and bool, as numpy does). */
export function iinfo(d: DType): IInfo {
  const i = isDType(d) ? IINFO[d] : undefined;
  if (!i) throw new Error(`iinfo: expected an integer dtype (int32, int64, int8, uint8, bool), got ${typeof d === 'string' ? `'${d}'` : String(d)}`);
  return { ...i };
}

/** What t.to(...) and module.to(...) take: a dtype, a device, or both. */
export type ToTarget = DType | Device | { device?: Device; dtype?: DType };

/** Splits a `to()` argument into its device and dtype (either may be absent); bad ones are Errors naming `fn`. */
export function toTarget(fn: string, target: unknown): { device?: Device; dtype?: DType } {
  const show = (v: unknown): string => (typeof v === 'string' ? `'${v}'` : String(v));
  const isDevice = (v: unknown): v is Device => v === 'cpu' || v === 'webgpu';
  if (isDevice(target)) return { device: target };
  if (isDType(target)) return { dtype: target };
  if (target === null || typeof target !== 'object' || Array.isArray(target)) {
    throw new Error(`${fn}: expected a dtype (${DTYPES.join(', ')}), a device ('cpu', 'webgpu') or { device, dtype }, got ${show(target)}`);
  }
  for (const k of Object.keys(target)) if (k !== 'device' && k !== 'dtype') throw new Error(`${fn}: unknown option '${k}' (expected device, dtype)`);
  const { device, dtype } = target as { device?: unknown; dtype?: unknown };
  if (device !== undefined && !isDevice(device)) throw new Error(`${fn}: expected 'device' to be 'cpu' or 'webgpu', got ${show(device)}`);
  if (dtype !== undefined && !isDType(dtype)) throw new Error(`${fn}: expected 'dtype' to be one of ${DTYPES.join(', ')}, got ${show(dtype)}`);
  return { device, dtype };
}
