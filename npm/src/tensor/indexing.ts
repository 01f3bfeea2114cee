// Indexing and slicing beyond ops.ts's narrow/slice/gather/indexSelect: select (one position of a
// dim), index (Python's x[a, b, c] subscript: positions, ranges, '...'), both views of input, and
// narrowCopy. Each is a function (sg.select(x, 0, 1)) and a Tensor method (x.select(0, 1)).
// select and index are C++ ops, which validate and report errors; narrowCopy is narrow, copied
// (PyTorch 1.13's values: tests/data/gen_ops_stack_stats.py).
import { run, type TensorLike } from './call.js';
import { tidy } from '../runtime/memory.js';
import { installMethods, noOptions, ops, type MethodsOf } from './ops.js';
import { describe, intArg, isInteger } from '../runtime/options.js';
import type { Tensor } from './tensor.js';

/**
 * One entry of `x.index(...)`, for one dim (Python's x[a, b, c] subscript): a number picks one
 * position (negative counts from the end) and removes the dim; `[start, end, step]` (any part
 * null or left out: `[2]`, `[null, -1]`, `[null, null, 2]`) is a range with Python's slice rules;
 * null or undefined keeps the whole dim; '...' stands for as many whole dims as the others leave.
 */
export type IndexItem = number | null | undefined | '...' | readonly (number | null | undefined)[];

export interface IndexingOpFunctions {
  // views of input
  select(input: TensorLike, dim: number, index: number): Tensor;
  index(input: TensorLike, ...items: IndexItem[]): Tensor;
  /** narrow, copied. */
  narrowCopy(input: Tensor, dim: number, start: number, length: number): Tensor;
}

/** The methods derived from IndexingOpFunctions: the first argument becomes `this`. */
export type IndexingOpMethods = MethodsOf<IndexingOpFunctions>;

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends IndexingOpMethods {}
}

// Open ends of a range: 0 and a number past any dim (the op's slice rules clamp it).
const OPEN_END = Number.MAX_SAFE_INTEGER;

/** index()'s items as the op's flat [kind, a, b, step] groups (kind 0 all, 1 position, 2 range, 3 '...'). */
function indexItems(items: readonly unknown[]): number[] {
  const out: number[] = [];
  const bad = (i: number, v: unknown): Error =>
    new Error(`index: expected item ${i} to be an integer, null, '...' or a [start, end, step] range of integers or nulls, got ${describe(v)}`);
  items.forEach((v, i) => {
    if (v === null || v === undefined) out.push(0, 0, 0, 1);
    else if (v === '...') out.push(3, 0, 0, 1);
    else if (isInteger(v)) out.push(1, v, 0, 1);
    else if (Array.isArray(v) && v.length <= 3 && v.every((p) => p === null || p === undefined || isInteger(p))) {
      const [start, end, step] = v as (number | null | undefined)[];
      out.push(2, start ?? 0, end ?? OPEN_END, step ?? 1);
    } else throw bad(i, v);
  });
  return out;
}

export const indexingOps: IndexingOpFunctions = {
  select: (input, dim, index) =>
    run('select', 'select', [['input', input]], { dim: intArg('select', 'dim', dim), index: intArg('select', 'index', index) }),
  index: (input, ...items) => run('index', 'index', [['input', input]], { items: indexItems(items) }),
  narrowCopy(input, dim, start, length, trailing?: unknown) {
    noOptions('narrowCopy', trailing);
    return tidy(() => ops.clone(ops.narrow(input, dim, start, length)));
  },
};

installMethods(indexingOps);
