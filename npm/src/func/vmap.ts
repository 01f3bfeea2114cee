// sg.func.vmap(fn, { inDims = 0, outDims = 0, randomness = 'error' }): torch.func.vmap. Each
// mapped input's dim moves to the front (after the dims of enclosing vmaps) and the id is marked
// batched over a new level; fn then runs once, its ops rewritten by the batching rules
// (batch_rules.ts); each result's level dim moves to its outDim.
import type { TensorHandle } from '../runtime/embind.js';
import * as H from '../runtime/handles.js';
import { tidy } from '../runtime/memory.js';
import { checkOptions, describe } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { direct1, levelsOf, mark, physShape, withLevel, type Level, type Randomness } from './batching.js';
import './batch_rules.js';
import { treeMap, treeTensors } from './tree.js';

export type Dim = number | null; // one vmap dim (null: not mapped)
/** A dim for every argument, or one per argument (a number or null: not mapped). */
export type InDims = Dim | readonly Dim[];
export type OutDims = Dim | readonly Dim[];

export interface VmapOptions {
  inDims?: InDims;
  outDims?: OutDims;
  randomness?: Randomness;
}

function fnName(fn: unknown): string {
  const n = (fn as { name?: unknown }).name;
  return typeof n === 'string' && n !== '' ? n : 'anonymous';
}

/** The id the function sees for t, mapped over `level` along its logical dim d. */
function wrap(t: Tensor, d: number, level: Level): TensorHandle {
  const lv = levelsOf(t.handle);
  const k = lv.length;
  const n = physShape(t.handle).length;
  const from = k + d;
  // the new level is the innermost: its dim goes right after the enclosing levels' dims
  const dims = Array.from({ length: n }, (_, i) => i).filter((i) => i !== from);
  dims.splice(k, 0, from);
  const id = direct1('permute', [t.handle], { dims });
  mark(id, [...lv, level.id]);
  return id;
}

/** A result of fn, with `level`'s dim moved to logical dim d (or added, size B, if it lacks it). */
function unwrap(t: Tensor, d: Dim, level: Level, what: string): Tensor {
  const lv = levelsOf(t.handle);
  const p = lv.indexOf(level.id);
  const rest = lv.filter((l) => l !== level.id);
  if (d === null) {
    if (p >= 0) throw new Error(`vmap: outDims is null for ${what}, but it depends on the mapped inputs`);
    const id = H.shareHandle(t.handle);
    mark(id, rest);
    return new Tensor(id);
  }
  const logicalRank = physShape(t.handle).length - lv.length;
  const dd = d < 0 ? d + logicalRank + 1 : d;
  if (dd < 0 || dd > logicalRank) throw new Error(`vmap: outDims ${d} is out of range for ${what} of ${logicalRank} dims`);
  const target = rest.length + dd;
  let id: TensorHandle;
  if (p >= 0) {
    const n = physShape(t.handle).length;
    const dims = Array.from({ length: n }, (_, i) => i).filter((i) => i !== p);
    dims.splice(target, 0, p);
    id = direct1('permute', [t.handle], { dims });
  } else {
    const u = direct1('unsqueeze', [t.handle], { dim: target });
    try {
      const shape = physShape(u).map((s, i) => (i === target ? level.size : -1));
      id = direct1('expand', [u], { shape });
    } finally {
      H.releaseHandle(u);
    }
  }
  mark(id, rest);
  return new Tensor(id);
}

function checkDim(v: unknown): boolean {
  return v === null || (Number.isInteger(v) as boolean);
}

/** torch.func.vmap: fn mapped over a dim of its inputs, with its ops batched (not a loop). */
export function vmap<F extends (...args: any[]) => any>(fn: F, options?: VmapOptions): (...args: Parameters<F>) => ReturnType<F> {
  if (typeof fn !== 'function') throw new Error(`vmap: expected fn to be a function, got ${describe(fn)}`);
  const o = checkOptions<VmapOptions>('vmap', options, {
    inDims: { check: (v) => checkDim(v) || (Array.isArray(v) && v.every(checkDim)), expected: 'an integer, null or an array of them (one per argument)' },
    outDims: { check: (v) => checkDim(v) || (Array.isArray(v) && v.every(checkDim)), expected: 'an integer, null or an array of them (one per output)' },
    randomness: { check: (v) => v === 'error' || v === 'different' || v === 'same', expected: "'error', 'different' or 'same'" },
  });
  const name = fnName(fn);
  const inDims = o.inDims === undefined ? 0 : o.inDims;
  const outDims = o.outDims === undefined ? 0 : o.outDims;
  const randomness = o.randomness ?? 'error';
  return ((...args: unknown[]) => {
    if (Array.isArray(inDims) && inDims.length !== args.length) {
      throw new Error(`vmap(${name}): inDims has ${inDims.length} entries but the function got ${args.length} arguments`);
    }
    const dimOf = (i: number): Dim => (Array.isArray(inDims) ? (inDims[i] as Dim) : (inDims as Dim));
    // The batch size, and each mapped tensor's logical dim.
    let size = -1, sizeFrom = '';
    const mapped: number[][] = args.map(() => []); // per argument: each tensor's logical dim
    args.forEach((a, i) => {
      const d = dimOf(i);
      if (d === null) return;
      const ts = treeTensors(a);
      if (ts.length === 0) throw new Error(`vmap(${name}): inDims[${i}] is ${d}, but argument ${i} is ${describe(a)}, with no Tensor to map over (use null)`);
      for (const t of ts) {
        const r = t.ndim;
        const dd = d < 0 ? d + r : d;
        if (dd < 0 || dd >= r) throw new Error(`vmap(${name}): inDims[${i}] = ${d} is out of range for argument ${i} of shape [${t.shape.join(', ')}]`);
        const s = t.shape[dd]!;
        if (size < 0) {
          size = s;
          sizeFrom = `argument ${i} (dim ${d})`;
        } else if (s !== size) {
          throw new Error(`vmap(${name}): expected the mapped dims to have one size, got ${size} for ${sizeFrom} and ${s} for argument ${i} (dim ${d})`);
        }
        mapped[i]!.push(dd);
      }
    });
    if (size < 0) throw new Error(`vmap(${name}): no argument is mapped (inDims are all null, or the arguments hold no Tensor)`);
    return withLevel(size, randomness, (level) =>
      tidy(() => {
        const callArgs = args.map((a, i) => {
          const d = dimOf(i);
          if (d === null) return a;
          return treeMap(a, (t, k) => new Tensor(wrap(t, mapped[i]![k]!, level)));
        });
        const result: unknown = fn(...callArgs);
        const outs = treeTensors(result);
        if (outs.length === 0 || (Array.isArray(outDims) && outDims.length !== (Array.isArray(result) ? result.length : 1))) {
          if (outs.length === 0) throw new Error(`vmap(${name}): the function must return a Tensor or an array/object of Tensors, got ${describe(result)}`);
          throw new Error(`vmap(${name}): outDims has ${(outDims as Dim[]).length} entries but the function returned ${Array.isArray(result) ? result.length : 1} outputs`);
        }
        if (Array.isArray(outDims)) {
          // One entry for a single (non-array) result: as PyTorch's out_dims=(d,) for one output.
          if (!Array.isArray(result)) return treeMap(result, (t) => unwrap(t, outDims[0] as Dim, level, 'output 0'));
          return (result as unknown[]).map((r, i) => treeMap(r, (t) => unwrap(t, outDims[i] as Dim, level, `output ${i}`)));
        }
        return treeMap(result, (t, i) => unwrap(t, outDims as Dim, level, `output ${i}`));
      }),
    ) as ReturnType<F>;
  }) as (...args: Parameters<F>) => ReturnType<F>;
}
