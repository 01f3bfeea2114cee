// Forward-mode (JVP) rules: for an op called on inputs that carry tangents, the tangents of its
// results, built from ordinary ops (so they batch under vmap and are recorded by autograd when an
// outer differentiation follows). forward_mode.ts runs them; an op without a rule makes jvp
// fall back to the double-VJP identity (grad.ts), which is correct for every op with a backward.
// The formulas are the derivatives PyTorch's tangent rules use (derivatives.yaml "result:").
import type { Attrs, TensorHandle } from '../runtime/embind.js';
import * as H from '../runtime/handles.js';

/** What a rule gets: the call, its primal results, and each input's tangent (0: none, a zero). */
export interface Dual {
  op: string;
  inputs: ArrayLike<number>;
  attrs: Attrs;
  outs: readonly TensorHandle[];
  tin: readonly TensorHandle[];
}

/** A rule: one tangent per result (0 for a result without one, as integer results). */
export type JvpRule = (d: Dual, c: Calls) => TensorHandle[];

/** Op calls for rules: each result is released when the rule returns unless kept. */
export class Calls {
  private temps: TensorHandle[] = [];

  op(op: string, inputs: TensorHandle[], attrs: Attrs = {}): TensorHandle {
    const id = H.callOp1(op, inputs, attrs);
    this.temps.push(id);
    return id;
  }

  /** An id made elsewhere, released with the temps unless kept. */
  adopt(id: TensorHandle): void {
    this.temps.push(id);
  }

  scalar(v: number, like: TensorHandle): TensorHandle {
    const id = H.scalarHandle(v, H.handleDType(like));
    this.temps.push(id);
    return id;
  }

  /** t expanded to the logical shape of `out` when broadcasting made it smaller. */
  toShapeOf(t: TensorHandle, out: TensorHandle): TensorHandle {
    const s = H.handleShape(out), ts = H.handleShape(t);
    if (s.length === ts.length && s.every((x, i) => x === ts[i])) return t;
    return this.op('expand', [t], { shape: s });
  }

  /** The results to hand back: taken out of the temps. */
  keep(ids: readonly TensorHandle[]): TensorHandle[] {
    return ids.map((id) => {
      if (id === 0) return 0;
      const i = this.temps.lastIndexOf(id);
      if (i < 0) return H.shareHandle(id); // an input's tangent (or a result) passed through: an id of its own
      this.temps.splice(i, 1);
      return id;
    });
  }

  release(): void {
    for (const t of this.temps) H.releaseHandle(t);
    this.temps = [];
  }
}

// ---- families ----

/** Ops linear in their first input (shape ops, sums, copies): the same op on the tangent. */
const linearInFirst: JvpRule = (d, c) => {
  for (let i = 1; i < d.tin.length; i++) if (d.tin[i]) return unsupported(d.op);
  const outs = H.callOp(d.op, [d.tin[0]!, ...Array.from(d.inputs).slice(1)], d.attrs);
  for (const o of outs) c.adopt(o);
  return outs;
};

/** Ops whose derivative is zero almost everywhere (comparisons, rounding, indices). */
const zero: JvpRule = (d) => d.outs.map(() => 0);

/** Σ of tangent terms, each t·(something) or t alone; null terms are skipped. */
function sumTerms(c: Calls, terms: (TensorHandle | null)[], out: TensorHandle): TensorHandle {
  let acc: TensorHandle | null = null;
  for (const t of terms) {
    if (t === null) continue;
    acc = acc === null ? t : c.op('add', [acc, t]);
  }
  return c.toShapeOf(acc!, out);
}

const add: JvpRule = (d, c) => {
  const [ta, tb] = d.tin as [TensorHandle, TensorHandle];
  return [sumTerms(c, [ta || null, tb || null], d.outs[0]!)];
};

const sub: JvpRule = (d, c) => {
  const [ta, tb] = d.tin as [TensorHandle, TensorHandle];
  return [sumTerms(c, [ta || null, tb ? c.op('neg', [tb]) : null], d.outs[0]!)];
};

const mul: JvpRule = (d, c) => {
  const [a, b] = Array.from(d.inputs);
  const [ta, tb] = d.tin as [TensorHandle, TensorHandle];
  return [sumTerms(c, [ta ? c.op('mul', [ta, b!]) : null, tb ? c.op('mul', [a!, tb]) : null], d.outs[0]!)];
};

// (a/b)' = (ta − out·tb) / b
const div: JvpRule = (d, c) => {
  const b = d.inputs[1]!;
  const [ta, tb] = d.tin as [TensorHandle, TensorHandle];
  const num = sumTerms(c, [ta || null, tb ? c.op('neg', [c.op('mul', [d.outs[0]!, tb])]) : null], d.outs[0]!);
  return [c.op('div', [num, b])];
};

const matmul: JvpRule = (d, c) => {
  const [a, b] = Array.from(d.inputs);
  const [ta, tb] = d.tin as [TensorHandle, TensorHandle];
  return [sumTerms(c, [ta ? c.op('matmul', [ta, b!]) : null, tb ? c.op('matmul', [a!, tb]) : null], d.outs[0]!)];
};

/** t · f'(x) for pointwise f, with f' from the input x and the result y. */
function pointwise(deriv: (c: Calls, x: TensorHandle, y: TensorHandle, attrs: Attrs) => TensorHandle | null): JvpRule {
  return (d, c) => {
    const dy = deriv(c, d.inputs[0]!, d.outs[0]!, d.attrs);
    if (dy === null) return unsupported(d.op);
    return [c.op('mul', [d.tin[0]!, dy])];
  };
}

const INV_SQRT_2PI = 0.3989422804014327;

const DERIVS: Record<string, (c: Calls, x: TensorHandle, y: TensorHandle, attrs: Attrs) => TensorHandle | null> = {
  relu: (c, _x, y) => c.op('sign', [y]), // y ≥ 0: 1 where positive, 0 elsewhere (PyTorch's threshold_backward)
  tanh: (c, _x, y) => c.op('sub', [c.scalar(1, y), c.op('square', [y])]),
  sigmoid: (c, _x, y) => c.op('mul', [y, c.op('sub', [c.scalar(1, y), y])]),
  exp: (_c, _x, y) => y,
  log: (c, x) => c.op('reciprocal', [x]),
  sqrt: (c, _x, y) => c.op('div', [c.scalar(0.5, y), y]),
  square: (c, x) => c.op('mul', [x, c.scalar(2, x)]),
  abs: (c, x) => c.op('sign', [x]),
  sin: (c, x) => c.op('cos', [x]),
  cos: (c, x) => c.op('neg', [c.op('sin', [x])]),
  reciprocal: (c, _x, y) => c.op('neg', [c.op('square', [y])]),
  silu: (c, x) => {
    const s = c.op('sigmoid', [x]);
    return c.op('mul', [s, c.op('add', [c.scalar(1, x), c.op('mul', [x, c.op('sub', [c.scalar(1, x), s])])])]);
  },
  // exact GELU: Φ(x) + x·φ(x)
  gelu: (c, x, _y, attrs) => {
    if (attrs.approximate !== undefined && attrs.approximate !== 'none') return null;
    const cdf = c.op('mul', [c.scalar(0.5, x), c.op('add', [c.scalar(1, x), c.op('erf', [c.op('mul', [x, c.scalar(Math.SQRT1_2, x)])])])]);
    const pdf = c.op('mul', [c.scalar(INV_SQRT_2PI, x), c.op('exp', [c.op('mul', [c.op('square', [x]), c.scalar(-0.5, x)])])]);
    return c.op('add', [cdf, c.op('mul', [x, pdf])]);
  },
};

const neg: JvpRule = (d, c) => [c.op('neg', [d.tin[0]!])];

// softmax: y·(t − Σ y·t); logSoftmax: t − Σ softmax·t (over dim, kept)
const softmax: JvpRule = (d, c) => {
  const y = d.outs[0]!, t = d.tin[0]!;
  const dim = d.attrs.dim;
  if (typeof dim !== 'number') return unsupported(d.op);
  if (d.op === 'softmax') {
    const s = c.op('sum', [c.op('mul', [y, t])], { dim: [dim], keepdim: true });
    return [c.op('mul', [y, c.op('sub', [t, s])])];
  }
  const p = c.op('exp', [y]);
  const s = c.op('sum', [c.op('mul', [p, t])], { dim: [dim], keepdim: true });
  return [c.op('sub', [t, s])];
};

// causalSoftmax: softmax's y·(t − Σ y·t) over the last dim; y = 0 past the diagonal gives 0 there,
// as the constant mask of softmax(x + mask) does.
const causalSoftmax: JvpRule = (d, c) => {
  const y = d.outs[0]!, t = d.tin[0]!;
  const s = c.op('sum', [c.op('mul', [y, t])], { dim: [-1], keepdim: true });
  return [c.op('mul', [y, c.op('sub', [t, s])])];
};

// linear(x, w, b) = x·wᵀ + b, then the activation attribute (relu or exact gelu) applied.
const linear: JvpRule = (d, c) => {
  const [x, w] = Array.from(d.inputs);
  const [tx, tw, tb] = d.tin as [TensorHandle, TensorHandle, TensorHandle | undefined];
  const act = (d.attrs.activation as string | undefined) ?? 'none';
  if (act !== 'none' && act !== 'relu' && act !== 'gelu') return unsupported(`${d.op} (activation ${act})`);
  const terms = [tx ? c.op('linear', [tx, w!]) : null, tw ? c.op('linear', [x!, tw]) : null, tb || null];
  const y = d.outs[0]!;
  const tz = sumTerms(c, terms, y);
  if (act === 'none') return [tz];
  if (act === 'relu') return [c.op('mul', [tz, c.op('sign', [y])])];
  // gelu: the pre-activation is needed; recompute it (the fused op keeps only the result)
  const z = c.op('linear', Array.from(d.inputs).slice(0, 3).filter((id) => id !== 0) as TensorHandle[]);
  return [c.op('mul', [tz, DERIVS.gelu!(c, z, y, {})!])];
};

const where: JvpRule = (d, c) => {
  const [cond, a, b] = Array.from(d.inputs);
  const [, ta, tb] = d.tin as [TensorHandle, TensorHandle, TensorHandle];
  if (d.tin[0]) return unsupported(d.op);
  const za = ta || c.op('mul', [a!, c.scalar(0, a!)]);
  const zb = tb || c.op('mul', [b!, c.scalar(0, b!)]);
  return [c.op('where', [cond!, za, zb])];
};

/** cat / stack: the tangents joined the same way, zeros for inputs without one. */
const join: JvpRule = (d, c) => {
  const ts = Array.from(d.inputs, (id, i) => d.tin[i] || c.op('mul', [id, c.scalar(0, id)]));
  return [c.op(d.op, ts, d.attrs)];
};

export class Unsupported extends Error {}

function unsupported(op: string): never {
  throw new Unsupported(`sg.func.jvp: op '${op}' has no forward-mode rule`);
}

// ---- the table ----

const TABLE = new Map<string, JvpRule>();
for (const op of [
  'sum', 'mean', 'reshape', 'view', 'unsqueeze', 'squeeze', 'transpose', 'permute', 'flatten', 'expand', 'narrow', 'slice',
  'select', 'contiguous', 'clone', 'flip', 'roll', 'repeat', 'tile', 'cumsum', 'tril', 'triu', 'split', 'chunk', 'indexSelect',
  'gather', 'avgPool1d', 'avgPool2d', 'adaptiveAvgPool2d',
]) TABLE.set(op, linearInFirst);
for (const op of ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'sign', 'floor', 'ceil', 'round', 'trunc', 'argmax', 'argmin', 'logicalNot', 'logicalAnd', 'logicalOr']) TABLE.set(op, zero);
for (const op of Object.keys(DERIVS)) TABLE.set(op, pointwise(DERIVS[op]!));
TABLE.set('add', add);
TABLE.set('sub', sub);
TABLE.set('mul', mul);
TABLE.set('div', div);
TABLE.set('neg', neg);
TABLE.set('matmul', matmul);
TABLE.set('linear', linear);
TABLE.set('softmax', softmax);
TABLE.set('logSoftmax', softmax);
TABLE.set('causalSoftmax', causalSoftmax);
TABLE.set('where', where);
TABLE.set('cat', join);
TABLE.set('stack', join);

/** The forward-mode rule of op (undefined: jvp uses the double-VJP for the whole function). */
export function jvpRule(op: string): JvpRule | undefined {
  return TABLE.get(op);
}

/** The ops with a forward-mode rule (for tests and the README). */
export function jvpRuleOps(): string[] {
  return [...TABLE.keys()];
}
