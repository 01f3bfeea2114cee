// dynamicAxes for sg.onnx.export. The function is traced at the example sizes, once more per
// symbolic dim with that dim one larger, and once with every symbolic dim two larger; a number the
// traces disagree on (an attribute such as arange's end or narrow's start, a dim of a value) is
// fitted to d + Σ c·Π(symbols) (a linear function of one dim, a product such as B·T, or a sum),
// checked against every trace, and written as int64 nodes computed from the inputs' Shape at run
// time. A number that fits no such form is an Error rather than a size baked in.
import type { DType } from '../runtime/embind.js';

/** The ONNX graph being written (onnx.ts's Graph), as the op rules (onnx_ops.ts) and the shape arithmetic here use it. */
export interface Emitter {
  node(opType: string, inputs: string[], attrs?: Record<string, number | number[] | string | Float32Array>, nOut?: number): string[];
  /** A 1-d int64 initializer. */
  ints(values: number[]): string;
  /** A 0-d initializer of dtype. */
  scalar(value: number, dtype: DType): string;
  tensor(name: string, dtype: DType, dims: number[], bytes: Uint8Array): void;
  fresh(prefix: string): string;
}

/** c · Π syms (the labels of symbolic dims). */
export interface Term {
  syms: string[];
  c: number;
}

/** d + Σ terms: a dim or attribute that follows the symbolic dims. */
export interface Expr {
  terms: Term[];
  d: number;
}

/** A number known at export time, or an Expr of the symbolic dims. */
export type Dim = number | Expr;

/** A symbolic dim: its label, size in the example, and the graph input and dim that carries it at run time. */
export interface Sym {
  label: string;
  size: number;
  input: string;
  dim: number;
}

/** The sizes of the symbols in each trace: [0] the example, [1 + k] symbol k grown by 1, [last] all grown by 2. */
export function traceSizes(syms: Sym[]): Map<string, number>[] {
  const base = new Map(syms.map((s) => [s.label, s.size]));
  const one = syms.map((s) => new Map([...base, [s.label, s.size + 1]]));
  const all = new Map(syms.map((s) => [s.label, s.size + 2]));
  return syms.length === 0 ? [base] : [base, ...one, all];
}

export const isExpr = (d: Dim): d is Expr => typeof d !== 'number';

function evaluate(e: Expr, sizes: Map<string, number>): number {
  return e.terms.reduce((s, t) => s + t.c * t.syms.reduce((p, k) => p * sizes.get(k)!, 1), e.d);
}

/**
 * The Dim that gives values[j] in trace j (sizes[j]), or null when no form fits every trace.
 * Candidates: one symbol (linear), a product of the symbols that move it, a sum of them.
 */
export function fit(values: number[], sizes: Map<string, number>[], syms: Sym[]): Dim | null {
  const a = values[0]!;
  if (values.every((v) => v === a)) return a;
  if (syms.length === 0) return null;
  const moved = syms.filter((_, k) => values[1 + k] !== a).map((s) => s.label);
  if (moved.length === 0) return null;
  const base = sizes[0]!;
  const candidates: Expr[] = [];
  const perOne = moved.map((l) => values[1 + syms.findIndex((s) => s.label === l)]! - a);
  if (moved.length === 1) {
    candidates.push({ terms: [{ syms: moved, c: perOne[0]! }], d: a - perOne[0]! * base.get(moved[0]!)! });
  } else {
    const prod = moved.reduce((p, l) => p * base.get(l)!, 1);
    if (prod !== 0) candidates.push({ terms: [{ syms: moved, c: a / prod }], d: 0 });
    const terms = moved.map((l, i) => ({ syms: [l], c: perOne[i]! }));
    candidates.push({ terms, d: a - terms.reduce((s, t) => s + t.c * base.get(t.syms[0]!)!, 0) });
  }
  for (const e of candidates) {
    if (!Number.isInteger(e.d) || !e.terms.every((t) => Number.isInteger(t.c))) continue;
    if (sizes.every((s, j) => evaluate(e, s) === values[j])) return e;
  }
  return null;
}

/** a + b, with terms of the same symbols merged. */
export function addDims(a: Dim, b: Dim): Dim {
  if (!isExpr(a) && !isExpr(b)) return a + b;
  const ea: Expr = isExpr(a) ? a : { terms: [], d: a };
  const eb: Expr = isExpr(b) ? b : { terms: [], d: b };
  const terms = ea.terms.map((t) => ({ ...t }));
  for (const t of eb.terms) {
    const key = [...t.syms].sort().join('*');
    const same = terms.find((u) => [...u.syms].sort().join('*') === key);
    if (same) same.c += t.c;
    else terms.push({ ...t });
  }
  const kept = terms.filter((t) => t.c !== 0);
  return kept.length === 0 ? ea.d + eb.d : { terms: kept, d: ea.d + eb.d };
}

/** The label when d is exactly one symbol (c = 1, d = 0), else null: an output dim named as its input's. */
export function symbolOf(d: Dim): string | null {
  return isExpr(d) && d.d === 0 && d.terms.length === 1 && d.terms[0]!.c === 1 && d.terms[0]!.syms.length === 1 ? d.terms[0]!.syms[0]! : null;
}

/** Writes Dims as int64 nodes: each symbol once, as Shape(input)[dim:dim+1]. */
export class DimWriter {
  private nodes = new Map<string, string>();
  constructor(private readonly g: Emitter, private readonly syms: Sym[]) {}

  private symbol(label: string): string {
    let n = this.nodes.get(label);
    if (n === undefined) {
      const s = this.syms.find((x) => x.label === label)!;
      n = this.g.node('Shape', [s.input], { start: s.dim, end: s.dim + 1 })[0]!;
      this.nodes.set(label, n);
    }
    return n;
  }

  /** d as an int64 tensor of shape [1]. */
  scalar(d: Dim): string {
    if (!isExpr(d)) return this.g.ints([d]);
    let sum: string | null = null;
    for (const t of d.terms) {
      let x = this.symbol(t.syms[0]!);
      for (const l of t.syms.slice(1)) x = this.g.node('Mul', [x, this.symbol(l)])[0]!;
      if (t.c !== 1) x = this.g.node('Mul', [x, this.g.ints([t.c])])[0]!;
      sum = sum === null ? x : this.g.node('Add', [sum, x])[0]!;
    }
    return d.d === 0 ? sum! : this.g.node('Add', [sum!, this.g.ints([d.d])])[0]!;
  }

  /** A shape of Dims as one int64 tensor [dims.length] (an initializer when every dim is known). */
  shape(dims: Dim[]): string {
    if (!dims.some(isExpr)) return this.g.ints(dims as number[]);
    if (dims.length === 1) return this.scalar(dims[0]!);
    return this.g.node('Concat', dims.map((d) => this.scalar(d)), { axis: 0 })[0]!;
  }
}
