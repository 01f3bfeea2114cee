// Stacking, splitting and broadcasting, as compositions of existing ops (views where PyTorch
// returns views: atleast*, broadcastTo, tensorSplit and its h/v/d forms): broadcastTo,
// tensorSplit, hsplit, vsplit, dsplit (functions and Tensor methods), and the functions
// atleast1d/2d/3d, broadcastShapes, broadcastTensors, hstack, vstack, rowStack, dstack,
// columnStack and blockDiag. Differentiable through the ops they are made of, with PyTorch 1.13's
// values and gradients (tests/data/gen_ops_stack_stats.py).
import { tensorArg } from './call.js';
import { zeros } from './creation.js';
import { promoteTypes } from '../runtime/dtypes.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, installMethods, noOptions, ops, type MethodsOf } from './ops.js';
import { keywords, type KwArgs } from './keywords.js';
import { dimArg, shapeStr, tensorOf } from './args.js';
import { broadcastShapesOf, describe, isInteger } from '../runtime/options.js';
import { Tensor } from './tensor.js';

/** A list of tensors given as arguments or as one array. */
function tensorList(fn: string, args: unknown[]): Tensor[] {
  const list = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
  return list.map((t, i) => tensorArg(fn, `tensors[${i}]`, t));
}

function atleast(x: Tensor, n: 1 | 2 | 3): Tensor {
  if (x.ndim >= n) return x;
  if (x.ndim === 0) return ops.reshape(x, new Array<number>(n).fill(1));
  if (n === 2) return ops.unsqueeze(x, 0);                       // [k] → [1, k]
  return x.ndim === 1 ? ops.reshape(x, [1, x.shape[0]!, 1]) : ops.unsqueeze(x, -1);  // [k] → [1, k, 1]; [a, b] → [a, b, 1]
}

/** One tensor for one argument, a list for several (PyTorch's atleast_*d). */
function atleastOf(fn: string, args: unknown[], n: 1 | 2 | 3): Tensor | Tensor[] {
  const single = args.length === 1 && args[0] instanceof Tensor;
  const ts = tensorList(fn, args);
  return single ? atleast(ts[0]!, n) : ts.map((t) => atleast(t, n));
}

/** The sizes tensorSplit makes of a dim of length len: n near-equal sections, or cuts at indices. */
function sectionBounds(fn: string, len: number, sections: unknown): [number, number][] {
  if (isInteger(sections)) {
    if (sections < 1) throw new Error(`${fn}: expected a number of sections >= 1, got ${sections}`);
    const [q, r] = [Math.floor(len / sections), len % sections];
    let start = 0;
    return Array.from({ length: sections }, (_, i) => {
      const size = q + (i < r ? 1 : 0);
      const b: [number, number] = [start, start + size];
      start += size;
      return b;
    });
  }
  if (!Array.isArray(sections) || !sections.every(isInteger)) {
    throw new Error(`${fn}: expected an integer number of sections or a list of indices, got ${describe(sections)}`);
  }
  const clamp = (i: number) => Math.min(Math.max(i < 0 ? i + len : i, 0), len);
  const cuts = [0, ...sections.map(clamp), len];
  return cuts.slice(1).map((c, i) => [cuts[i]!, Math.max(c, cuts[i]!)]);
}

function splitAt(x: Tensor, d: number, bounds: [number, number][]): Tensor[] {
  return bounds.map(([a, b]) => ops.narrow(x, d, a, b - a));
}

/** hsplit/vsplit/dsplit: along `dim`, sections that must divide it evenly (PyTorch's check). */
function directionalSplit(fn: string, x: Tensor, dim: number, minDims: number, sections: unknown): Tensor[] {
  if (x.ndim < minDims) throw new Error(`${fn}: expected an input with at least ${minDims} dims, got shape ${shapeStr(x.shape)}`);
  const len = x.shape[dim]!;
  if (isInteger(sections) && sections > 0 && len % sections !== 0) {
    throw new Error(`${fn}: the size ${len} of dim ${dim} is not divisible by the number of sections ${sections}`);
  }
  return splitAt(x, dim, sectionBounds(fn, len, sections));
}

export interface SplitBroadcastOpFunctions {
  /** expand to a broadcast-compatible shape (a view). */
  broadcastTo(input: Tensor, shape: readonly number[]): Tensor;
  /** Views in n near-equal sections (the first ones one longer), or cut at the given indices. */
  tensorSplit(input: Tensor, ...args: KwArgs<[indicesOrSections: number | readonly number[]], [dim: number], { indicesOrSections?: number | readonly number[]; dim?: number }>): Tensor[];
  /** tensorSplit along dim 1 (dim 0 for 1-D); a section count must divide it. */
  hsplit(input: Tensor, sections: number | readonly number[]): Tensor[];
  vsplit(input: Tensor, sections: number | readonly number[]): Tensor[];
  dsplit(input: Tensor, sections: number | readonly number[]): Tensor[];
}

/** The methods derived from SplitBroadcastOpFunctions: the first argument becomes `this`. */
export type SplitBroadcastOpMethods = MethodsOf<SplitBroadcastOpFunctions>;

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends SplitBroadcastOpMethods {}
}

export const stackSplitOps: SplitBroadcastOpFunctions = {
  broadcastTo(input, shape, trailing?: unknown) {
    noOptions('broadcastTo', trailing);
    const x = tensorOf('broadcastTo', 'input', input);
    if (!Array.isArray(shape) || !shape.every(isInteger)) throw new Error(`broadcastTo: expected 'shape' to be an array of integers, got ${describe(shape)}`);
    return ops.expand(x, shape.slice());
  },
  tensorSplit: keywords('tensorSplit', ['indicesOrSections', 'dim'], (input: Tensor, indicesOrSections: unknown, dim: unknown = 0): Tensor[] => {
    const x = tensorOf('tensorSplit', 'input', input);
    const d = dimArg('tensorSplit', 'dim', dim, x.ndim);
    return splitAt(x, d, sectionBounds('tensorSplit', x.shape[d]!, indicesOrSections));
  }),
  hsplit(input, sections) {
    const x = tensorOf('hsplit', 'input', input);
    return directionalSplit('hsplit', x, x.ndim === 1 ? 0 : 1, 1, sections);
  },
  vsplit(input, sections) {
    return directionalSplit('vsplit', tensorOf('vsplit', 'input', input), 0, 2, sections);
  },
  dsplit(input, sections) {
    return directionalSplit('dsplit', tensorOf('dsplit', 'input', input), 2, 3, sections);
  },
};

installMethods(stackSplitOps);

/** Functions only (no method form): they take lists of tensors or shapes. */
export const stackSplitFunctionOps = {
  /** 0-d → [1]; the others as they are (one tensor, or a list for several). */
  atleast1d: (...tensors: unknown[]): Tensor | Tensor[] => atleastOf('atleast1d', tensors, 1),
  /** 0-d → [1, 1], [n] → [1, n]. */
  atleast2d: (...tensors: unknown[]): Tensor | Tensor[] => atleastOf('atleast2d', tensors, 2),
  /** 0-d → [1, 1, 1], [n] → [1, n, 1], [a, b] → [a, b, 1]. */
  atleast3d: (...tensors: unknown[]): Tensor | Tensor[] => atleastOf('atleast3d', tensors, 3),
  /** The broadcast shape of several shapes. */
  broadcastShapes(...shapes: (readonly number[])[]): number[] {
    shapes.forEach((s, i) => {
      if (!Array.isArray(s) || !s.every((v) => isInteger(v) && v >= 0)) throw new Error(`broadcastShapes: expected shapes[${i}] to be an array of sizes, got ${describe(s)}`);
    });
    return broadcastShapesOf('broadcastShapes', shapes);
  },
  /** Each tensor expanded to the shapes' broadcast (views). */
  broadcastTensors(...tensors: unknown[]): Tensor[] {
    const ts = tensorList('broadcastTensors', tensors);
    const shape = broadcastShapesOf('broadcastTensors', ts.map((t) => t.shape));
    return ts.map((t) => ops.expand(t, shape));
  },
  /** cat along dim 1 (dim 0 for 1-D tensors), after atleast1d. */
  hstack(...tensors: unknown[]): Tensor {
    const ts = tensorList('hstack', tensors).map((t) => atleast(t, 1));
    return functionOps.cat(ts, ts[0] && ts[0].ndim === 1 ? 0 : 1);
  },
  /** cat along dim 0 after atleast2d. */
  vstack(...tensors: unknown[]): Tensor {
    return functionOps.cat(tensorList('vstack', tensors).map((t) => atleast(t, 2)), 0);
  },
  /** vstack's other name. */
  rowStack(...tensors: unknown[]): Tensor {
    return functionOps.cat(tensorList('rowStack', tensors).map((t) => atleast(t, 2)), 0);
  },
  /** cat along dim 2 after atleast3d. */
  dstack(...tensors: unknown[]): Tensor {
    return functionOps.cat(tensorList('dstack', tensors).map((t) => atleast(t, 3)), 2);
  },
  /** 0-d and 1-d tensors as columns [n, 1], then cat along dim 1. */
  columnStack(...tensors: unknown[]): Tensor {
    const ts = tensorList('columnStack', tensors).map((t) => (t.ndim <= 1 ? ops.reshape(t, [t.numel, 1]) : t));
    return functionOps.cat(ts, 1);
  },
  /** The tensors (0-d, 1-d as a row, 2-d) as diagonal blocks of one matrix, zeros elsewhere. */
  blockDiag(...tensors: unknown[]): Tensor {
    const ts = tensorList('blockDiag', tensors).map((t, i) => {
      if (t.ndim > 2) throw new Error(`blockDiag: expected tensors with at most 2 dims, got shape ${shapeStr(t.shape)} at ${i}`);
      return t.ndim === 2 ? t : ops.reshape(t, [1, t.numel]);
    });
    const cols = ts.reduce((c, t) => c + t.shape[1]!, 0);
    // torch.block_diag's result type: the promotion of all the inputs' dtypes (float64 with float32 is float64).
    const common = ts.length ? ts.map((t) => t.dtype).reduce((a, b) => promoteTypes(a, b)) : undefined;
    return tidy(() => {
      let before = 0;
      const rows = ts.map((t) => {
        const w = t.shape[1]!;
        const b = functionOps.pad(t.dtype === common ? t : t.to(common!), [before, cols - before - w]);
        before += w;
        return b;
      });
      return rows.length ? functionOps.cat(rows, 0) : zeros([0, 0]);
    });
  },
};

export type StackSplitFunctionOps = typeof stackSplitFunctionOps;
