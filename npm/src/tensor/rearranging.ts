// Ops that rearrange a tensor's elements or dims: flip, flipud, fliplr, roll, rot90, repeat,
// tile, repeatInterleave, movedim, swapaxes, unbind, and meshgrid (a function only). Each of the
// others is a function (sg.flip(x, 0)) and a Tensor method (x.flip(0)). flip, roll, repeat and
// tile are C++ ops; the others are compositions of existing ops, differentiable through them,
// with PyTorch 1.13's values and gradients (tests/data/gen_ops_compose*.py, gen_ops_stack_stats.py).
import { run, type TensorLike } from './call.js';
import { tidy } from '../runtime/memory.js';
import { installMethods, noOptions, ops, type MethodsOf, type OptionalDimArgs } from './ops.js';
import { keywords, type KwArgs } from './keywords.js';
import { dimArg, shapeStr, tensorOf } from './args.js';
import { checkOptions, describe, isInteger, shapeArgs } from '../runtime/options.js';
import { Tensor } from './tensor.js';

export interface MeshgridOptions {
  /** 'ij' (matrix indexing, PyTorch's default) or 'xy' (Cartesian: the first two dims swapped). */
  indexing?: 'ij' | 'xy';
}

export interface RearrangingOpFunctions {
  flip(input: TensorLike, ...dims: number[] | [readonly number[]] | [{ dims: number | readonly number[] }]): Tensor;
  /** Reversed along dim 0. */
  flipud(input: Tensor): Tensor;
  /** Reversed along dim 1. */
  fliplr(input: Tensor): Tensor;
  roll(input: TensorLike, ...args: KwArgs<[shifts: number | readonly number[]], [dims: number | readonly number[] | null], { shifts?: number | readonly number[]; dims?: number | readonly number[] | null }>): Tensor;
  /** Rotated k quarter turns in the plane of dims (from dims[0] towards dims[1]). */
  rot90(input: Tensor, ...args: KwArgs<[], [k: number, dims: readonly [number, number]], { k?: number; dims?: readonly [number, number] }>): Tensor;
  repeat(input: TensorLike, ...repeats: number[] | [readonly number[]] | [{ repeats: readonly number[] }]): Tensor;
  tile(input: TensorLike, ...repeats: number[] | [readonly number[]] | [{ dims: readonly number[] }]): Tensor;
  /** Each element repeated `repeats` times along dim (flattened first when dim is not given). */
  repeatInterleave(input: Tensor, ...args: KwArgs<[repeats: number], [dim: number | null], { repeats?: number; dim?: number | null }>): Tensor;
  /** Dims `source` moved to positions `destination` (numbers or arrays of one length), the others in order. */
  movedim(input: Tensor, ...args: KwArgs<[source: number | readonly number[], destination: number | readonly number[]], [], { source?: number | readonly number[]; destination?: number | readonly number[] }>): Tensor;
  swapaxes(input: Tensor, ...args: KwArgs<[axis0: number, axis1: number], [], { axis0?: number; axis1?: number }>): Tensor;
  /** The slices along dim, without it. */
  unbind(input: Tensor, ...args: OptionalDimArgs): Tensor[];
}

/** The methods derived from RearrangingOpFunctions: the first argument becomes `this`. */
export type RearrangingOpMethods = MethodsOf<RearrangingOpFunctions>;

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends RearrangingOpMethods {}
}

/** A list of integers given as spread numbers or one array (flip(0, 1) / flip([0, 1])). */
function intList(fn: string, name: string, args: readonly unknown[]): number[] {
  const list = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
  if (!list.every(isInteger)) throw new Error(`${fn}: expected '${name}' to be integers (spread or one array), got ${describe(list.slice())}`);
  return list.slice() as number[];
}

function integers(fn: string, name: string, v: unknown): number[] {
  if (isInteger(v)) return [v];
  if (Array.isArray(v) && v.every(isInteger)) return v.slice();
  throw new Error(`${fn}: expected '${name}' to be an integer or an array of integers, got ${describe(v)}`);
}

export const rearrangingOps: RearrangingOpFunctions = {
  flip: keywords('flip', { positional: ['dims'], rest: true }, (input: TensorLike, ...dims: unknown[]) => run('flip', 'flip', [['input', input]], { dims: intList('flip', 'dims', dims) })),
  flipud(input, trailing?: unknown) {
    noOptions('flipud', trailing);
    const x = tensorOf('flipud', 'input', input);
    if (x.ndim < 1) throw new Error('flipud: expected an input with at least 1 dim, got a 0-d tensor');
    return rearrangingOps.flip(x, [0]);
  },
  fliplr(input, trailing?: unknown) {
    noOptions('fliplr', trailing);
    const x = tensorOf('fliplr', 'input', input);
    if (x.ndim < 2) throw new Error(`fliplr: expected an input with at least 2 dims, got shape ${shapeStr(x.shape)}`);
    return rearrangingOps.flip(x, [1]);
  },
  roll: keywords('roll', ['shifts', 'dims'], (input: TensorLike, shifts: unknown, dims: unknown): Tensor => {
    const d = dims === undefined || dims === null ? undefined : integers('roll', 'dims', dims);
    return run('roll', 'roll', [['input', input]], { shifts: integers('roll', 'shifts', shifts), dims: d });
  }),
  rot90: keywords('rot90', ['k', 'dims'], (input: Tensor, k: unknown = 1, dims: unknown = [0, 1]): Tensor => {
    const x = tensorOf('rot90', 'input', input);
    if (!isInteger(k)) throw new Error(`rot90: expected 'k' to be an integer, got ${describe(k)}`);
    if (!Array.isArray(dims) || dims.length !== 2) throw new Error(`rot90: expected 'dims' to be two dims, got ${describe(dims)}`);
    if (x.ndim < 2) throw new Error(`rot90: expected an input with at least 2 dims, got shape ${shapeStr(x)}`);
    const [d0, d1] = dims.map((d, i) => dimArg('rot90', `dims[${i}]`, d, x.ndim)) as [number, number];
    if (d0 === d1) throw new Error(`rot90: expected two different dims, got ${d0} and ${d1}`);
    const turns = ((k % 4) + 4) % 4;
    return tidy(() => {
      if (turns === 0) return ops.clone(x);
      if (turns === 2) return rearrangingOps.flip(x, [d0, d1]);
      return ops.transpose(rearrangingOps.flip(x, [turns === 1 ? d1 : d0]), d0, d1);
    });
  }),
  repeat: keywords('repeat', { positional: ['repeats'], rest: true }, (input: TensorLike, ...repeats: unknown[]) => run('repeat', 'repeat', [['input', input]], { repeats: shapeArgs('repeat', repeats) })),
  tile: keywords('tile', { positional: ['dims'], rest: true }, (input: TensorLike, ...repeats: unknown[]) => run('tile', 'tile', [['input', input]], { repeats: shapeArgs('tile', repeats) })),
  repeatInterleave: keywords('repeatInterleave', ['repeats', 'dim'], (input: Tensor, repeats: unknown, dim: unknown): Tensor => {
    const x = tensorOf('repeatInterleave', 'input', input);
    if (!isInteger(repeats) || repeats < 0) {
      throw new Error(`repeatInterleave: expected 'repeats' to be an integer >= 0 (a tensor of repeats is not supported), got ${describe(repeats)}`);
    }
    return tidy(() => {
      const src = dim === undefined || dim === null ? ops.flatten(x) : x;
      const d = dimArg('repeatInterleave', 'dim', dim ?? 0, src.ndim);
      const shape = src.shape;
      const expanded = [...shape.slice(0, d + 1), repeats, ...shape.slice(d + 1)];
      const grown = ops.expand(ops.unsqueeze(src, d + 1), expanded);
      return ops.reshape(grown, [...shape.slice(0, d), shape[d]! * repeats, ...shape.slice(d + 1)]);
    });
  }),
  movedim: keywords('movedim', ['source', 'destination'], (input: Tensor, source: unknown, destination: unknown): Tensor => {
    const x = tensorOf('movedim', 'input', input);
    const list = (name: string, v: unknown) => (Array.isArray(v) ? v : [v]).map((d, i) => dimArg('movedim', `${name}[${i}]`, d, x.ndim));
    const src = list('source', source), dst = list('destination', destination);
    if (src.length !== dst.length) throw new Error(`movedim: expected 'source' and 'destination' of one length, got ${src.length} and ${dst.length}`);
    if (new Set(src).size !== src.length || new Set(dst).size !== dst.length) throw new Error('movedim: repeated dims in source or destination');
    const order = new Array<number>(x.ndim).fill(-1);
    src.forEach((s, i) => (order[dst[i]!] = s));
    const rest = [...Array(x.ndim).keys()].filter((d) => !src.includes(d));
    for (let d = 0, k = 0; d < x.ndim; d++) if (order[d] === -1) order[d] = rest[k++]!;
    return ops.permute(x, ...order);
  }),
  swapaxes: keywords('swapaxes', ['axis0', 'axis1'], (input: Tensor, axis0: number, axis1: number): Tensor => {
    return ops.transpose(input, axis0, axis1);
  }),
  unbind: keywords('unbind', ['dim'], (input: Tensor, dim: unknown = 0): Tensor[] => {
    const x = tensorOf('unbind', 'input', input);
    const d = dimArg('unbind', 'dim', dim, x.ndim);
    // One tensor per index along d: none for an empty dim (split would give one empty piece).
    if (x.shape[d] === 0) return [];
    return tidy(() => ops.split(x, 1, d).map((t) => ops.squeeze(t, d)));
  }),
};

installMethods(rearrangingOps);

/** Functions only (no method form): meshgrid takes a list. */
export const rearrangingFunctionOps = {
  /** Grids from 1-D tensors: output i has tensor i's values along dim i (with 'xy', dims 0 and 1 swapped). */
  meshgrid(...args: unknown[]): Tensor[] {
    let options: MeshgridOptions | undefined;
    if (args.length && !(args.at(-1) instanceof Tensor) && !Array.isArray(args.at(-1))) options = args.pop() as MeshgridOptions;
    const o = checkOptions<MeshgridOptions>('meshgrid', options, { indexing: ['ij', 'xy'] });
    const list = (args.length === 1 && Array.isArray(args[0]) ? args[0] : args) as unknown[];
    const ts = list.map((t, i) => tensorOf('meshgrid', `tensors[${i}]`, t, 1));
    if (ts.length === 0) throw new Error('meshgrid: expected at least one tensor');
    const xy = o.indexing === 'xy' && ts.length >= 2;
    const order = xy ? [ts[1]!, ts[0]!, ...ts.slice(2)] : ts;
    const shape = order.map((t) => t.shape[0]!);
    return tidy(() => {
      const grids = order.map((t, i) => ops.expand(ops.reshape(t, shape.map((n, j) => (j === i ? n : 1))), shape));
      return xy ? [grids[1]!, grids[0]!, ...grids.slice(2)] : grids;
    });
  },
};
