// The batching rules of vmap: each op with a batched input is rewritten into ops on the physical
// tensors, whose leading dims are the vmap levels' sizes (batching.ts). Pointwise ops broadcast
// with the operands padded to one rank; dims of reductions, softmax and shape ops shift past the
// batch dims; matmul broadcasts its batch dims; the layers merge the batch dims into their own
// batch dim; losses run with reduction 'none' and reduce per sample. An op without a rule runs
// once per sample (fallback, announced once per op): correct, not fast.
import type { Attrs, TensorHandle } from '../runtime/embind.js';
import * as H from '../runtime/handles.js';
import {
  activeLevels,
  batchedCall,
  direct,
  direct1,
  levelSize,
  physShape,
  RANDOM,
  setRules,
  unionLevels,
  type Arg,
  type Rule,
} from './batching.js';

// ---- helpers: every rule releases the intermediate ids it made (temps) ----

type Temps = TensorHandle[];

function rank(a: Arg): number {
  return physShape(a.id).length - a.lv.length;
}

function logicalShape(a: Arg): number[] {
  return physShape(a.id).slice(a.lv.length);
}

function normDim(d: number, r: number, op: string): number {
  const n = d < 0 ? d + r : d;
  if (n < 0 || n >= Math.max(r, 1)) throw new Error(`${op}: dim ${d} is out of range for a tensor of ${r} dims (inside vmap)`);
  return n;
}

/**
 * a with batch prefix exactly L (levels it lacks inserted with size 1, or the level's size when
 * full) and at least R logical dims (size-1 dims inserted after the prefix).
 */
function align(a: Arg, L: readonly number[], R: number, full: boolean, temps: Temps): TensorHandle {
  if (a.id === 0) return 0;
  const shape = physShape(a.id);
  const k = a.lv.length;
  const logical = shape.slice(k);
  if (k === 0 && L.length === 0) return a.id;
  if (k === 0 && !full && logical.length <= R) return a.id; // broadcasting right-aligns it already
  const target: number[] = [];
  let j = 0;
  for (const l of L) {
    if (j < k && a.lv[j] === l) target.push(shape[j++]!);
    else target.push(1);
  }
  for (let i = logical.length; i < R; i++) target.push(1);
  target.push(...logical);
  let id = a.id;
  if (target.length !== shape.length) {
    id = direct1('reshape', [id], { shape: target });
    temps.push(id);
  }
  if (full && L.some((l, i) => target[i] !== levelSize(l))) {
    const sizes = [...L.map(levelSize), ...target.slice(L.length).map(() => -1)];
    id = direct1('expand', [id], { shape: sizes });
    temps.push(id);
  }
  return id;
}

function release(temps: Temps): void {
  for (const t of temps) H.releaseHandle(t);
}

function out(ids: TensorHandle[], lv: readonly number[]): Arg[] {
  return ids.map((id) => ({ id, lv }));
}

function levelsOfArgs(args: readonly Arg[]): number[] {
  return unionLevels(args.map((a) => a.lv));
}

/** Runs fn with a temps list released afterwards (also when it throws). */
function withTemps<T>(fn: (temps: Temps) => T): T {
  const temps: Temps = [];
  try {
    return fn(temps);
  } finally {
    release(temps);
  }
}

/** The batch prefix of L collapsed into one dim, or restored: reshape helpers. */
function sizesOf(L: readonly number[]): number[] {
  return L.map(levelSize);
}

// ---- rule families ----

/** Pointwise (broadcasting) ops: operands padded to one rank over the union of their levels. */
const pointwise: Rule = (op, args, attrs) =>
  withTemps((temps) => {
    const L = levelsOfArgs(args);
    const R = Math.max(0, ...args.filter((a) => a.id !== 0).map(rank));
    if (op.endsWith('_')) {
      // In place: the written tensor must carry every level its operands do.
      const self = args[0]!;
      if (self.lv.length !== L.length) {
        throw new Error(`vmap: ${op} writes a batched value into a tensor that is not batched over the same vmap levels (use the out-of-place op)`);
      }
      const ids = [self.id, ...args.slice(1).map((a) => align(a, L, R, false, temps))];
      return out(direct(op, ids, attrs), self.lv);
    }
    return out(direct(op, args.map((a) => align(a, L, R, false, temps)), attrs), L);
  });

/** Shifts attribute `key` (a dim or a list of dims; absent: `absent`) past the batch dims of a. */
function shiftDims(v: unknown, r: number, k: number, op: string): number | number[] {
  if (Array.isArray(v)) return v.map((d) => normDim(d as number, r, op) + k);
  return normDim(v as number, r, op) + k;
}

/** One-input ops with a 'dim' attribute (absent: every dim, as the reductions). */
function dimRule(absentMeans: 'all' | 'last' | 'none'): Rule {
  return (op, args, attrs) => {
    const a = args[0]!;
    if (args.slice(1).some((x) => x.lv.length > 0)) return fallback(op, args, attrs);
    const r = rank(a);
    const k = a.lv.length;
    const key = op === 'flip' || op === 'roll' ? 'dims' : 'dim';
    const v = attrs[key];
    let dim: number | number[] | undefined;
    if (v === undefined || v === null) {
      if (absentMeans === 'all') dim = Array.from({ length: r }, (_, i) => i + k);
      else if (absentMeans === 'last') dim = undefined;
      else return fallback(op, args, attrs);
    } else {
      dim = shiftDims(v, r, k, op);
    }
    if (Array.isArray(dim) && dim.length === 0 && r === 0) return out(direct(op === 'sum' || op === 'mean' ? 'clone' : op, [a.id], { ...attrs, [key]: dim }), a.lv);
    return out(direct(op, args.map((x) => x.id), { ...attrs, [key]: dim }), a.lv);
  };
}

const argmaxRule: Rule = (op, args, attrs) =>
  withTemps((temps) => {
    const a = args[0]!;
    const k = a.lv.length;
    if (attrs.dim === undefined || attrs.dim === null) {
      const flat = direct1('reshape', [a.id], { shape: [...physShape(a.id).slice(0, k), -1] });
      temps.push(flat);
      return out(direct(op, [flat], { ...attrs, dim: k, keepdim: false }), a.lv);
    }
    return out(direct(op, [a.id], { ...attrs, dim: normDim(attrs.dim as number, rank(a), op) + k }), a.lv);
  });

const unsqueezeRule: Rule = (op, args, attrs) => {
  const a = args[0]!;
  return out(direct(op, [a.id], { ...attrs, dim: normDim(attrs.dim as number, rank(a) + 1, op) + a.lv.length }), a.lv);
};

const squeezeRule: Rule = (op, args, attrs) => {
  const a = args[0]!;
  const k = a.lv.length;
  const shape = logicalShape(a);
  let dims: number[];
  if (attrs.dim === undefined || attrs.dim === null) dims = shape.flatMap((s, i) => (s === 1 ? [i] : []));
  else dims = (Array.isArray(attrs.dim) ? attrs.dim : [attrs.dim]).map((d) => normDim(d as number, shape.length, op)).filter((d) => shape[d] === 1);
  const target = physShape(a.id).filter((_, i) => i < k || !dims.includes(i - k));
  return out([direct1('reshape', [a.id], { shape: target })], a.lv);
};

const transposeRule: Rule = (op, args, attrs) => {
  const a = args[0]!;
  const r = rank(a), k = a.lv.length;
  return out(direct(op, [a.id], { dim0: normDim(attrs.dim0 as number, r, op) + k, dim1: normDim(attrs.dim1 as number, r, op) + k }), a.lv);
};

const permuteRule: Rule = (op, args, attrs) => {
  const a = args[0]!;
  const r = rank(a), k = a.lv.length;
  const dims = [...Array.from({ length: k }, (_, i) => i), ...(attrs.dims as number[]).map((d) => normDim(d, r, op) + k)];
  return out(direct(op, [a.id], { dims }), a.lv);
};

const flattenRule: Rule = (op, args, attrs) => {
  const a = args[0]!;
  const r = rank(a), k = a.lv.length;
  if (r === 0) return out([direct1('reshape', [a.id], { shape: [...physShape(a.id), 1] })], a.lv);
  const s = normDim((attrs.startDim as number | undefined) ?? 0, r, op) + k;
  const e = normDim((attrs.endDim as number | undefined) ?? -1, r, op) + k;
  return out(direct(op, [a.id], { startDim: s, endDim: e }), a.lv);
};

const reshapeRule: Rule = (op, args, attrs) => {
  const a = args[0]!;
  const prefix = physShape(a.id).slice(0, a.lv.length);
  // 'view' becomes reshape: the batch dims moved to the front need not be viewable together.
  return out([direct1('reshape', [a.id], { shape: [...prefix, ...(attrs.shape as number[])] })], a.lv);
};

const expandRule: Rule = (op, args, attrs) =>
  withTemps((temps) => {
    const a = args[0]!;
    const shape = attrs.shape as number[];
    const id = align(a, a.lv, shape.length, false, temps);
    const prefix = physShape(a.id).slice(0, a.lv.length);
    return out(direct(op, [id], { shape: [...prefix, ...shape] }), a.lv);
  });

const repeatRule: Rule = (op, args, attrs) =>
  withTemps((temps) => {
    const a = args[0]!;
    const reps = attrs.repeats as number[];
    const R = Math.max(reps.length, rank(a));
    const padded = [...Array(R - reps.length).fill(1), ...reps];
    const id = align(a, a.lv, R, false, temps);
    return out(direct('repeat', [id], { repeats: [...a.lv.map(() => 1), ...padded] }), a.lv);
  });

/** cat / stack: every tensor brought to the same levels at full size; dim shifted. */
const catRule: Rule = (op, args, attrs) =>
  withTemps((temps) => {
    const L = levelsOfArgs(args);
    const ids = args.map((a) => align(a, L, rank(a), true, temps));
    const r = rank(args[0]!) + (op === 'stack' ? 1 : 0);
    return out(direct(op, ids, { ...attrs, dim: normDim((attrs.dim as number | undefined) ?? 0, r, op) + L.length }), L);
  });

/** gather / scatter family: input and index at full size over the same levels. */
const gatherRule: Rule = (op, args, attrs) =>
  withTemps((temps) => {
    const L = levelsOfArgs(args);
    const ids = args.map((a) => align(a, L, rank(a), true, temps));
    return out(direct(op, ids, { ...attrs, dim: normDim(attrs.dim as number, rank(args[0]!), op) + L.length }), L);
  });

const indexSelectRule: Rule = (op, args, attrs) => {
  if (args[1]!.lv.length > 0) return fallback(op, args, attrs);
  return dimRule('none')(op, args, attrs);
};

/** Ops on the last dims only (pad, tril, triu, causalSoftmax): the batch dims are more leading dims. */
const leadingRule: Rule = (op, args, attrs) => {
  if (args.slice(1).some((x) => x.lv.length > 0)) return fallback(op, args, attrs);
  return out(direct(op, args.map((a) => a.id), attrs), args[0]!.lv);
};

// ---- products and layers ----

const matmulRule: Rule = (op, args, attrs) =>
  withTemps((temps) => {
    const [a, b] = args as [Arg, Arg];
    const L = levelsOfArgs(args);
    const ra = rank(a), rb = rank(b);
    // A batched vector becomes a matrix (row for a, column for b), squeezed off afterwards.
    let ia = a.id, ib = b.id, squeeze: number | null = null;
    let la = ra, lb = rb;
    if (a.lv.length > 0 && ra === 1) {
      ia = direct1('unsqueeze', [a.id], { dim: a.lv.length });
      temps.push(ia);
      la = 2;
      squeeze = -2;
    }
    if (b.lv.length > 0 && rb === 1) {
      ib = direct1('unsqueeze', [b.id], { dim: b.lv.length + 1 });
      temps.push(ib);
      lb = 2;
      squeeze = squeeze === null ? -1 : null;
      if (squeeze === null) {
        // both were vectors: [.., 1, n] @ [.., n, 1] -> [.., 1, 1]
        const R = 2;
        const x = align({ id: ia, lv: a.lv }, L, R, false, temps);
        const y = align({ id: ib, lv: b.lv }, L, R, false, temps);
        const m = direct1('matmul', [x, y]);
        temps.push(m);
        return out([direct1('reshape', [m], { shape: physShape(m).slice(0, -2) })], L);
      }
    }
    const R = Math.max(la, lb);
    const x = la >= 2 && a.lv.length > 0 ? align({ id: ia, lv: a.lv }, L, R, false, temps) : ia;
    const y = lb >= 2 && b.lv.length > 0 ? align({ id: ib, lv: b.lv }, L, R, false, temps) : ib;
    // An unbatched matrix operand with fewer dims than R broadcasts from the right already.
    const m = direct1('matmul', [x, y]);
    if (squeeze === null) return out([m], L);
    temps.push(m);
    return out([direct1('squeeze', [m], { dim: physShape(m).length + squeeze })], L);
  });

const ACTIVATION: Record<string, [string, Attrs]> = { relu: ['relu', {}], gelu: ['gelu', {}], gelu_tanh: ['gelu', { approximate: 'tanh' }] };

const linearRule: Rule = (op, args, attrs) => {
  const [x, w, b] = args as [Arg, Arg, Arg | undefined];
  if (w.lv.length === 0 && (b === undefined || b.lv.length === 0)) return out(direct(op, args.map((a) => a.id), attrs), x.lv);
  return composite((c) => {
    const wt = c('transpose', [w], { dim0: -1, dim1: -2 });
    let y = c('matmul', [x, wt], {});
    if (b !== undefined && b.id !== 0) y = c('add', [y, b], {});
    const act = (attrs.activation as string | undefined) ?? 'none';
    if (act !== 'none') y = c(ACTIVATION[act]![0], [y], ACTIVATION[act]![1]);
    return y;
  });
};

const layerNormRule: Rule = (op, args, attrs) => {
  const [x, w, b] = args as [Arg, Arg | undefined, Arg | undefined];
  if ((w === undefined || w.lv.length === 0) && (b === undefined || b.lv.length === 0)) return out(direct(op, args.map((a) => a.id), attrs), x.lv);
  return composite((c) => {
    let y = c(op, [x], attrs);
    if (w !== undefined && w.id !== 0) y = c('mul', [y, w], {});
    if (b !== undefined && b.id !== 0) y = c('add', [y, b], {});
    return y;
  });
};

/** embedding with a batched table: a gather along the table's rows per sample. */
const embeddingRule: Rule = (op, args, attrs) => {
  const [w, idx] = args as [Arg, Arg]; // (weight, indices), as the op takes them
  if (w.lv.length === 0) return out(direct(op, [w.id, idx.id], attrs), idx.lv);
  if (attrs.paddingIdx !== undefined && attrs.paddingIdx !== null) return fallback(op, args, attrs);
  return withTemps((temps) => {
    const L = levelsOfArgs(args);
    const k = L.length;
    const I = logicalShape(idx);
    const D = logicalShape(w)[1]!;
    const ii = align(idx, L, I.length, true, temps);
    const ww = align(w, L, 2, true, temps);
    const flat = direct1('reshape', [ii], { shape: [...sizesOf(L), -1, 1] });
    temps.push(flat);
    const ex = direct1('expand', [flat], { shape: [...sizesOf(L), -1, D] });
    temps.push(ex);
    const g = direct1('gather', [ww, ex], { dim: k });
    temps.push(g);
    return out([direct1('reshape', [g], { shape: [...sizesOf(L), ...I, D] })], L);
  });
};

/**
 * Layers over [N, C, ...] whose other tensors are not batched: the batch dims merge into N (or
 * become N, for an input without one) and come back out. fullRank: the input's rank with N.
 */
function mergeRule(fullRank: number | null): Rule {
  return (op, args, attrs) => {
    const x = args[0]!;
    if (args.slice(1).some((a) => a.lv.length > 0)) return fallback(op, args, attrs);
    if (op === 'batchNorm' && attrs.training === true) return fallback(op, args, attrs); // statistics per sample
    return withTemps((temps) => {
      const shape = physShape(x.id);
      const k = x.lv.length;
      const logical = shape.slice(k);
      const withN = fullRank === null || logical.length === fullRank;
      const merged = withN ? [-1, ...logical.slice(1)] : [-1, ...logical];
      const m = direct1('reshape', [x.id], { shape: merged });
      temps.push(m);
      const rs = direct(op, [m, ...args.slice(1).map((a) => a.id)], attrs);
      return out(
        rs.map((r, i) => {
          if (i > 0) return r; // indices etc.: only the first result is reshaped here
          temps.push(r);
          const o = physShape(r);
          return direct1('reshape', [r], { shape: [...shape.slice(0, k), ...(withN ? [logical[0]!] : []), ...o.slice(1)] });
        }),
        x.lv,
      );
    });
  };
}

/**
 * conv1d/conv2d with per-sample weights: the samples become groups of one convolution
 * (x [N, B·C, ...] with weights [B·O, C/g, ...] and groups B·g), as functorch's rule does.
 */
function convRule(spatial: number): Rule {
  const merged = mergeRule(2 + spatial);
  return (op, args, attrs) => {
    const [x, w, b] = args as [Arg, Arg, Arg | undefined];
    if (w.lv.length === 0 && (b === undefined || b.lv.length === 0)) return merged(op, args, attrs);
    return withTemps((temps) => {
      const L = levelsOfArgs(args);
      const sizes = sizesOf(L);
      const nb = sizes.reduce((p, q) => p * q, 1);
      const xl = logicalShape(x);
      const withN = xl.length === 2 + spatial;
      const [N, C, ...S] = withN ? xl : [1, ...xl];
      const xa = direct1('reshape', [align(x, L, xl.length, true, temps)], { shape: [nb, N!, C!, ...S] });
      temps.push(xa);
      const perm = direct1('permute', [xa], { dims: [1, 0, ...Array.from({ length: 1 + spatial }, (_, i) => i + 2)] });
      temps.push(perm);
      const xg = direct1('reshape', [perm], { shape: [N!, nb * C!, ...S] });
      temps.push(xg);
      const wl = logicalShape(w);
      const wg = direct1('reshape', [align(w, L, wl.length, true, temps)], { shape: [nb * wl[0]!, ...wl.slice(1)] });
      temps.push(wg);
      let bg = 0;
      if (b !== undefined && b.id !== 0) {
        bg = direct1('reshape', [align(b, L, 1, true, temps)], { shape: [-1] });
        temps.push(bg);
      }
      const groups = ((attrs.groups as number | undefined) ?? 1) * nb;
      const y = direct1(op, [xg, wg, bg], { ...attrs, groups });
      temps.push(y);
      const ys = physShape(y);
      const O = wl[0]!;
      const y5 = direct1('reshape', [y], { shape: [N!, nb, O, ...ys.slice(2)] });
      temps.push(y5);
      const yp = direct1('permute', [y5], { dims: [1, 0, ...Array.from({ length: 1 + spatial }, (_, i) => i + 2)] });
      temps.push(yp);
      return out([direct1('reshape', [yp], { shape: [...sizes, ...(withN ? [N!] : []), O, ...ys.slice(2)] })], L);
    });
  };
}

// ---- losses: reduction 'none' through the pointwise or class rules, then a per-sample reduction ----

/** A per-sample 'sum' or 'mean' of a loss (the caller handles 'none' and 'batchmean'; sg.F allows no other name). */
function reduceLoss(c: Composer, loss: Arg, reduction: string): Arg {
  return c(reduction === 'sum' ? 'sum' : 'mean', [loss], {});
}

const elementwiseLossRule: Rule = (op, args, attrs) => {
  const reduction = (attrs.reduction as string | undefined) ?? 'mean';
  // reduction 'none' is pointwise (through this rule again, it recursed without end).
  const none = pointwise(op, args, { ...attrs, reduction: 'none' })[0]!;
  if (reduction === 'none') return [none];
  try {
    return composite((c) => {
      if (reduction === 'batchmean') {
        const n = logicalShape(none)[0] ?? 1;
        return c('div', [c('sum', [none], {}), scalarArg(n, c)], {});
      }
      return reduceLoss(c, none, reduction);
    });
  } finally {
    H.releaseHandle(none.id);
  }
};

const classLossRule: Rule = (op, args, attrs) => {
  const [input, target, weight] = args as [Arg, Arg, Arg | undefined];
  if (weight !== undefined && weight.id !== 0) return fallback(op, args, attrs);
  const r = rank(input);
  if (r > 2) return fallback(op, args, attrs);
  const reduction = (attrs.reduction as string | undefined) ?? 'mean';
  const ignore = (attrs.ignoreIndex as number | undefined) ?? -100;
  return withTemps((temps) => {
    const L = levelsOfArgs(args);
    const C = logicalShape(input)[r - 1]!;
    const inp = direct1('reshape', [align(input, L, r, true, temps)], { shape: [-1, C] });
    temps.push(inp);
    const tg = direct1('reshape', [align(target, L, r - 1, true, temps)], { shape: [-1] });
    temps.push(tg);
    const none = direct1(op, [inp, tg], { ...attrs, reduction: 'none' });
    temps.push(none);
    const per = direct1('reshape', [none], { shape: [...sizesOf(L), ...(r === 2 ? [-1] : [])] });
    if (reduction === 'none') return out([per], L);
    temps.push(per);
    return [
      composite((c) => {
        const loss: Arg = { id: per, lv: L };
        if (reduction === 'sum') return c('sum', [loss], {});
        // mean over the targets that count (PyTorch divides by their number)
        const tgFull: Arg = { id: align(target, L, r - 1, true, temps), lv: L };
        const counted = c('cast', [c('ne', [tgFull, scalarArg(ignore, c, 'int32')], {})], { dtype: H.handleDType(per) });
        return c('div', [c('sum', [loss], {}), c('sum', [counted], {})], {});
      })[0]!,
    ];
  });
};

// ---- randomness ----

function randomLevels(op: string): number[] {
  const lv: number[] = [];
  for (const l of activeLevels()) {
    if (l.randomness === 'error') {
      throw new Error(`vmap: ${op} draws random numbers and vmap's randomness is 'error' (pass { randomness: 'different' } or { randomness: 'same' })`);
    }
    if (l.randomness === 'different') lv.push(l.id);
  }
  return lv;
}

const randomRule: Rule = (op, args, attrs) => {
  if ((op === 'dropout' || op === 'dropout2d') && (attrs.training === false || attrs.p === 0)) return leadingRule(op, args, attrs);
  const D = randomLevels(op);
  if (op === 'rand' || op === 'randn' || op === 'randint') {
    return out(direct(op, [], { ...attrs, shape: [...sizesOf(D), ...((attrs.shape as number[] | undefined) ?? [])] }), D);
  }
  if (op === 'dropout' || op === 'dropout2d') {
    const x = args[0]!;
    const logical = logicalShape(x);
    return withTemps((temps) => {
      // The mask: dropout of ones, batched over the 'different' levels, then a product.
      let maskShape: number[];
      if (op === 'dropout') maskShape = [...sizesOf(D), ...logical];
      else {
        if (logical.length < 3) return fallback(op, args, attrs);
        const lead = logical.length === 4 ? [logical[0]!] : [];
        const C = logical[logical.length - 3]!;
        maskShape = [...sizesOf(D), ...lead, C, 1, 1];
      }
      // dropout2d zeroes whole channels of a 4-D [M, C, H, W]: its ones are [M, C, 1, 1]
      const onesShape = op === 'dropout' ? maskShape : [maskShape.slice(0, -3).reduce((p, s) => p * s, 1), maskShape[maskShape.length - 3]!, 1, 1];
      const ones = direct1('ones', [], { shape: onesShape, dtype: H.handleDType(x.id), device: H.handleDevice(x.id) });
      temps.push(ones);
      const m = direct1(op, [ones], attrs);
      temps.push(m);
      const mask = op === 'dropout' ? m : direct1('reshape', [m], { shape: maskShape });
      if (mask !== m) temps.push(mask);
      return batchedCall('mul', [x, { id: mask, lv: D }], {});
    });
  }
  if (op === 'bernoulli') {
    const p = args[0]!;
    if (p.lv.some((l) => !D.includes(l))) throw new Error(`vmap: bernoulli of a batched probability needs randomness 'different'`);
    return withTemps((temps) => out(direct(op, [align(p, D, rank(p), true, temps)], attrs), D));
  }
  throw new Error(`vmap: ${op} draws random numbers and has no batching rule`);
};

// ---- composites and the fallback ----

type Composer = (op: string, args: Arg[], attrs: Attrs) => Arg;

/** Runs a decomposition of ops on batched args; intermediates are released, the last result kept. */
function composite(build: (c: Composer) => Arg): Arg[] {
  const made: Arg[] = [];
  const c: Composer = (op, args, attrs) => {
    const rs = batchedCall(op, args, attrs);
    for (let i = 1; i < rs.length; i++) H.releaseHandle(rs[i]!.id);
    made.push(rs[0]!);
    return rs[0]!;
  };
  let result: Arg;
  try {
    result = build(c);
  } catch (e) {
    for (const m of made) H.releaseHandle(m.id);
    throw e;
  }
  for (const m of made) if (m !== result) H.releaseHandle(m.id);
  return [result];
}

function scalarArg(v: number, c: Composer, dtype: 'float32' | 'int32' = 'float32'): Arg {
  // made through the composer so it is released with the other intermediates
  void c;
  const id = H.scalarHandle(v, dtype);
  scalarTemps.push(id);
  return { id, lv: [] };
}
const scalarTemps: TensorHandle[] = [];

const warned = new Set<string>();

/** The loop: each sample's slices through the op, the results stacked. */
function fallback(op: string, args: Arg[], attrs: Attrs): Arg[] {
  if (!warned.has(op)) {
    warned.add(op);
    console.warn(`sg.func.vmap: op '${op}' has no batching rule; it runs once per sample (a loop) inside vmap`);
  }
  return withTemps((temps) => {
    const L = levelsOfArgs(args);
    const sizes = sizesOf(L);
    const N = sizes.reduce((p, s) => p * s, 1);
    const flat = args.map((a) => {
      if (a.id === 0 || a.lv.length === 0) return { id: a.id, batched: false };
      const f = direct1('reshape', [align(a, L, rank(a), true, temps)], { shape: [N, ...logicalShape(a)] });
      temps.push(f);
      return { id: f, batched: true };
    });
    const perOut: TensorHandle[][] = [];
    for (let i = 0; i < N; i++) {
      const ins = flat.map((f) => {
        if (!f.batched) return f.id;
        const s = direct1('select', [f.id], { dim: 0, index: i });
        temps.push(s);
        return s;
      });
      const rs = direct(op, ins, attrs);
      rs.forEach((r, j) => {
        temps.push(r);
        (perOut[j] ??= []).push(r);
      });
    }
    return perOut.map((list) => {
      const st = direct1('stack', list, { dim: 0 });
      temps.push(st);
      return { id: direct1('reshape', [st], { shape: [...sizes, ...physShape(st).slice(1)] }), lv: L };
    });
  });
}

// ---- the table ----

const POINTWISE = [
  'add', 'sub', 'mul', 'div', 'pow', 'maximum', 'minimum', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'atan2', 'fmod', 'remainder',
  'floorDivide', 'logicalAnd', 'logicalOr', 'logicalXor', 'bitwiseAnd', 'bitwiseOr', 'bitwiseXor', 'bitwiseLeftShift',
  'bitwiseRightShift', 'gcd', 'lcm', 'neg', 'exp', 'log', 'log2', 'log10', 'log1p', 'expm1', 'sqrt', 'rsqrt', 'abs', 'sign',
  'sin', 'cos', 'erf', 'square', 'reciprocal', 'relu', 'selu', 'sigmoid', 'tanh', 'silu', 'contiguous', 'clone', 'floor',
  'ceil', 'round', 'trunc', 'tan', 'atan', 'asin', 'acos', 'sinh', 'cosh', 'logicalNot', 'bitwiseNot', 'erfinv', 'erfc',
  'lgamma', 'digamma', 'i0', 'where', 'maskedFill', 'clamp', 'leakyRelu', 'elu', 'gelu', 'softplus', 'cast', 'divRounded',
  'hardtanh', 'to', 'polygamma', 'add_', 'sub_', 'mul_', 'div_', 'pow_', 'clamp_', 'maskedFill_', 'addcmul_', 'addcdiv_',
  'fill_', 'zero_', 'copy_',
];

const TABLE = new Map<string, Rule>();
for (const op of POINTWISE) TABLE.set(op, pointwise);
for (const op of ['sum', 'mean', 'prod', 'max', 'min', 'logsumexp', 'any', 'all', 'var', 'std', 'norm']) TABLE.set(op, dimRule('all'));
for (const op of ['softmax', 'logSoftmax', 'cumsum', 'cumprod', 'narrow', 'slice', 'select', 'split', 'chunk', 'flip', 'roll']) TABLE.set(op, dimRule('none'));
for (const op of ['sort', 'argsort', 'topk']) TABLE.set(op, dimRule('last'));
for (const op of ['argmax', 'argmin']) TABLE.set(op, argmaxRule);
TABLE.set('unsqueeze', unsqueezeRule);
TABLE.set('squeeze', squeezeRule);
TABLE.set('transpose', transposeRule);
TABLE.set('permute', permuteRule);
TABLE.set('flatten', flattenRule);
TABLE.set('reshape', reshapeRule);
TABLE.set('view', reshapeRule);
TABLE.set('expand', expandRule);
TABLE.set('repeat', repeatRule);
TABLE.set('tile', repeatRule);
TABLE.set('cat', catRule);
TABLE.set('stack', catRule);
for (const op of ['gather', 'scatter', 'scatterAdd', 'scatterReduce']) TABLE.set(op, gatherRule);
TABLE.set('indexSelect', indexSelectRule);
for (const op of ['pad', 'tril', 'triu', 'causalSoftmax']) TABLE.set(op, leadingRule);
TABLE.set('matmul', matmulRule);
TABLE.set('linear', linearRule);
TABLE.set('layerNorm', layerNormRule);
TABLE.set('embedding', embeddingRule);
for (const op of ['maxPool1d', 'avgPool1d']) TABLE.set(op, mergeRule(3));
for (const op of ['conv2dReluMaxPool2d', 'convTranspose2d', 'maxPool2d', 'avgPool2d', 'adaptiveAvgPool2d']) TABLE.set(op, mergeRule(4));
TABLE.set('conv1d', convRule(1));
TABLE.set('conv2d', convRule(2));
for (const op of ['batchNorm', 'groupNorm', 'instanceNorm']) TABLE.set(op, mergeRule(null));
for (const op of ['mseLoss', 'l1Loss', 'smoothL1Loss', 'huberLoss', 'binaryCrossEntropy', 'binaryCrossEntropyWithLogits', 'klDiv']) TABLE.set(op, elementwiseLossRule);
for (const op of ['crossEntropy', 'nllLoss']) TABLE.set(op, classLossRule);
for (const op of RANDOM) TABLE.set(op, randomRule);

/** Whether op has a batching rule (else it falls back to the loop). */
export function hasRule(op: string): boolean {
  return TABLE.has(op);
}

setRules((op) => {
  const r = TABLE.get(op);
  if (r === undefined) return fallback;
  return (o, args, attrs) => {
    try {
      return r(o, args, attrs);
    } finally {
      while (scalarTemps.length) H.releaseHandle(scalarTemps.pop()!);
    }
  };
});
