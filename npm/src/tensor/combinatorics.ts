// Tuples of elements: combinations (the r-element combinations of a 1-D tensor's elements, a
// function and a Tensor method) and cartesianProd (the Cartesian product of 1-D tensors, a
// function only), as compositions of existing ops, differentiable through them, with PyTorch
// 1.13's values and gradients (tests/data/gen_ops_compose_search.py).
import { tensor } from './creation.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, installMethods, ops, type MethodsOf } from './ops.js';
import { keywords, type KwArgs } from './keywords.js';
import { tensorOf } from './args.js';
import { rearrangingFunctionOps } from './rearranging.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import type { Tensor } from './tensor.js';

export interface CombinationsOptions {
  /** Allow an element to repeat in a combination (default false). */
  withReplacement?: boolean;
}

export interface CombinatoricsOpFunctions {
  /** Combinations of r elements of a 1-D tensor, in lexicographic order of positions: [C, r]. */
  combinations(input: Tensor, ...args: KwArgs<[], [r: number], CombinationsOptions & { r?: number }>): Tensor;
}

/** The methods derived from CombinatoricsOpFunctions: the first argument becomes `this`. */
export type CombinatoricsOpMethods = MethodsOf<CombinatoricsOpFunctions>;

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends CombinatoricsOpMethods {}
}

export const combinatoricsOps: CombinatoricsOpFunctions = {
  combinations: keywords('combinations', { positional: ['r'], options: ['withReplacement'] }, (input: Tensor, r: unknown = 2, options?: CombinationsOptions): Tensor => {
    const x = tensorOf('combinations', 'input', input, 1);
    if (!isInteger(r) || r < 0) throw new Error(`combinations: expected 'r' to be an integer >= 0, got ${describe(r)}`);
    const o = checkOptions<CombinationsOptions>('combinations', options, { withReplacement: 'boolean' });
    const n = x.shape[0]!;
    const rows: number[][] = [];
    const pick = (from: number, chosen: number[]) => {
      if (chosen.length === r) return void rows.push(chosen);
      for (let i = from; i < n; i++) pick(o.withReplacement ? i : i + 1, [...chosen, i]);
    };
    if (r > 0) pick(0, []);
    if (r === 0) return tidy(() => ops.narrow(x, 0, 0, 0));
    return tidy(() => {
      const idx = tensor(Int32Array.from(rows.flat()), { shape: [rows.length * r], device: x.device });
      return ops.reshape(ops.indexSelect(x, 0, idx), [rows.length, r]);
    });
  }),
};

installMethods(combinatoricsOps);

/** Functions only (no method form): cartesianProd takes several tensors. */
export const combinatoricsFunctionOps = {
  /** The Cartesian product of 1-D tensors: [N, k] (one tensor: itself). */
  cartesianProd(...tensors: Tensor[]): Tensor {
    const ts = tensors.map((t, i) => tensorOf('cartesianProd', `tensors[${i}]`, t, 1));
    if (ts.length === 0) throw new Error('cartesianProd: expected at least one tensor');
    if (ts.length === 1) return ops.clone(ts[0]!);
    return tidy(() => ops.reshape(functionOps.stack(rearrangingFunctionOps.meshgrid(ts, { indexing: 'ij' }), -1), [-1, ts.length]));
  },
};
