// Indexing and slicing beyond ops.ts's narrow/slice/gather/indexSelect: select (one position of a
// dim), index (Python's x[a, b, c] subscript: positions, ranges, '...'), both views of input, and
// narrowCopy. Each is a function (sg.select(x, 0, 1)) and a Tensor method (x.select(0, 1)).
// select and index are C++ ops, which validate and report errors; narrowCopy is narrow, copied
// (PyTorch 1.13's values: tests/data/gen_ops_stack_stats.py). index with tensors, masks or
// arrays among its items (advanced indexing), indexPut and the in-place indexPut_ are
// compositions of ops in advanced_indexing.ts (tests/data/gen_advanced_indexing.py).
import { run, tensorArg, type TensorLike } from './call.js';
import { advancedIndex, indexPutCopy, indexPutInPlace, isAdvancedItem, type IndexPutOptions, type NestedIndexArray } from './advanced_indexing.js';
import { tidy } from '../runtime/memory.js';
import { installMethods, noOptions, ops, type MethodsOf } from './ops.js';
import { describe, intArg, isInteger } from '../runtime/options.js';
import { Tensor } from './tensor.js';

/**
 * One entry of `x.index(...)`, for one dim (Python's x[a, b, c] subscript): a number picks one
 * position (negative counts from the end) and removes the dim; `[start, end, step]` (any part
 * null or left out: `[2]`, `[null, -1]`, `[null, null, 2]`) is a range with Python's slice rules;
 * null or undefined keeps the whole dim; '...' stands for as many whole dims as the others leave.
 * Advanced indexing (PyTorch's): an integer tensor (int32, int64) picks positions of one dim
 * (several broadcast together), a bool tensor is a mask over as many dims as it has; an
 * Int32Array is a 1-D index, nested arrays of integers an index tensor of their shape, arrays of
 * booleans a mask.
 */
export type IndexItem =
  | number
  | null
  | undefined
  | '...'
  | readonly (number | null | undefined)[]
  | Tensor
  | Int32Array
  | NestedIndexArray;
export type { IndexPutOptions } from './advanced_indexing.js';

export interface IndexingOpFunctions {
  // views of input
  select(input: TensorLike, dim: number, index: number): Tensor;
  /** x[items]: a view of input for numbers, ranges, null and '...'; a copy with index tensors or masks. */
  index(input: TensorLike, ...items: IndexItem[]): Tensor;
  /**
   * x[items] = values on a copy of input (PyTorch's index_put): items as index()'s, in one array
   * (or one index tensor); values a tensor of input's dtype or a number, broadcast to x[items]'s
   * shape; with `accumulate` added instead (repeated positions add up).
   */
  indexPut(input: Tensor, items: readonly IndexItem[] | Tensor, values: Tensor | number | boolean, options?: IndexPutOptions): Tensor;
  /** narrow, copied. */
  narrowCopy(input: Tensor, dim: number, start: number, length: number): Tensor;
}

/** The methods derived from IndexingOpFunctions: the first argument becomes `this`. */
export type IndexingOpMethods = MethodsOf<IndexingOpFunctions>;

declare module './tensor.js' {
  interface Tensor extends IndexingOpMethods {
    /**
     * x[items] = values in place (PyTorch's index_put_), returning x: items as index()'s, in one
     * array (`x.indexPut_([null, 0], v)` is x[:, 0] = v, `x.indexPut_([mask], 0)` is x[mask] = 0);
     * values a tensor of x's dtype or a number, broadcast; `accumulate` adds (repeated positions
     * add up; without it one of the values written to a repeated position stays). Everything is
     * checked before x changes; differentiable in x and values.
     */
    indexPut_(items: readonly IndexItem[] | Tensor, values: Tensor | number | boolean, options?: IndexPutOptions): this;
  }
}

// Open ends of a range: 0 and a number past any dim (the op's slice rules clamp it).
const OPEN_END = Number.MAX_SAFE_INTEGER;

/** index()'s items as the op's flat [kind, a, b, step] groups (kind 0 all, 1 position, 2 range, 3 '...'). */
function indexItems(items: readonly unknown[]): number[] {
  const out: number[] = [];
  const bad = (i: number, v: unknown): Error =>
    new Error(`index: expected item ${i} to be an integer, null, '...' or a [start, end, step] range of integers or nulls, or an index tensor, a bool mask or an array of integers or booleans, got ${describe(v)}`);
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
  index: (input, ...items) =>
    items.some(isAdvancedItem)
      ? advancedIndex(tensorArg('index', 'input', input), items)
      : run('index', 'index', [['input', input]], { items: indexItems(items) }),
  indexPut: (input, items, values, options) => indexPutCopy('indexPut', tensorArg('indexPut', 'input', input), items, values, options),
  narrowCopy(input, dim, start, length, trailing?: unknown) {
    noOptions('narrowCopy', trailing);
    return tidy(() => ops.clone(ops.narrow(input, dim, start, length)));
  },
};

installMethods(indexingOps);
Object.defineProperty(Tensor.prototype, 'indexPut_', {
  value: function (this: Tensor, items: unknown, values: unknown, options?: unknown) {
    return indexPutInPlace(this, items, values, options);
  },
  writable: true,
  configurable: true,
});
