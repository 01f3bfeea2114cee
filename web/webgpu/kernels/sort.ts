// argsort (sort, argsort, topk) along a dim of [outer, r, inner], in the CPU's order exactly
// (src/kernels/reference/data_sort.cpp): stable (ties by position), NaN above every number.
//
// Short rows (r ≤ RANK_MAX): one invocation per element counts the row's elements that sort
// before it — its rank — and writes its position there if the rank is below k: r comparisons
// per element, one dispatch, no barriers.
// Longer rows: a bitonic sorting network over each row's positions, padded to a power of two P
// (padding sorts after everything): log₂P·(log₂P + 1)/2 dispatches of P/2 compare-exchanges per
// row, each comparing (value, position) pairs — a strict total order, so the network's result
// is the stable order, not just a sorted one. r log²r work instead of r² (rows of a vocabulary).
import { Params } from '../params.js';
import { BOOL, F32, byteRead } from './prelude.js';
import { operand, run, type KernelContext, type KernelFn, type Operand } from './common.js';

/** Rows up to this long sort by rank (one dispatch); longer ones through the bitonic network. */
export const RANK_MAX = 256;

interface Layout {
  dtype: number;
  x: Operand;
  outer: number;
  r: number;
  inner: number;
  descending: boolean;
  k: number;
  out: Operand;
}

/** WGSL shared by both ways: the element type, its load from X, and asc(a, b) (a sorts before b ascending, NaN last). */
function elements(dtype: number) {
  const type = dtype === F32 ? 'f32' : dtype === BOOL ? 'u32' : 'i32';
  const load = (i: string) => (dtype === BOOL ? `X_byte(pu(1u) + ${i})` : `X[pu(1u) + ${i}]`);
  const asc = dtype === F32
    ? 'fn asc(a: f32, b: f32) -> bool { if (is_nan(a)) { return false; } if (is_nan(b)) { return true; } return a < b; }'
    : `fn asc(a: ${type}, b: ${type}) -> bool { return a < b; }`;
  return { type, load, extra: (dtype === BOOL ? byteRead('X') : '') + asc };
}

function byRank(ctx: KernelContext, l: Layout): void {
  const { type, load, extra } = elements(l.dtype);
  const p = new Params().u(l.outer * l.r * l.inner).u(l.x.at).u(l.r).u(l.inner).u(l.k).u(l.out.at);
  run(ctx, `argsort${l.dtype}${l.descending ? 'd' : 'a'}`, [
    { name: 'X', type, buffer: l.x.buffer },
    { name: 'OUT', type: 'i32', write: true, buffer: l.out.buffer },
  ], p, l.outer * l.r * l.inner, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let r = pu(2u);
  let inner = pu(3u);
  let o = id / (r * inner);
  let j = (id / inner) % r;
  let i = id % inner;
  let base = o * r * inner + i;
  let v = ${load('base + j * inner')};
  var rank = 0u;
  for (var m = 0u; m < r; m++) {
    if (m == j) { continue; }
    let w = ${load('base + m * inner')};
    if (${l.descending ? 'asc(v, w)' : 'asc(w, v)'}) { rank++; continue; }
    if (${l.descending ? 'asc(w, v)' : 'asc(v, w)'}) { continue; }
    if (m < j) { rank++; }
  }
  if (rank < pu(4u)) { OUT[pu(5u) + (o * pu(4u) + rank) * inner + i] = i32(j); }`, extra);
}

function bitonic(ctx: KernelContext, l: Layout): void {
  const { type, load, extra } = elements(l.dtype);
  const rows = l.outer * l.inner;
  let P = 1;
  while (P < l.r) P *= 2;
  const idx = ctx.temp(Math.max(256, rows * P * 4));
  // Row q = o·inner + i holds positions IDX[q·P ..]; position m's value is at X[o·r·inner + m·inner + i].
  const rowBase = 'let o = q / pu(3u); let i = q % pu(3u); let base = o * pu(2u) * pu(3u) + i;';
  run(ctx, 'argsort_iota', [{ name: 'IDX', type: 'u32', write: true, buffer: idx }],
    new Params().u(rows * P).u(P), rows * P, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  IDX[id] = id % pu(1u);`);
  // before(a, b): position a sorts strictly before position b (padding ≥ r after everything).
  const before = /* wgsl */ `
fn before(base: u32, a: u32, b: u32) -> bool {
  let r = pu(2u);
  if (a >= r) { return false; }
  if (b >= r) { return true; }
  let va = ${load('base + a * pu(3u)')};
  let vb = ${load('base + b * pu(3u)')};
  if (${l.descending ? 'asc(vb, va)' : 'asc(va, vb)'}) { return true; }
  if (${l.descending ? 'asc(va, vb)' : 'asc(vb, va)'}) { return false; }
  return a < b;
}`;
  // Params: 0 pairs, 1 x.at, 2 r, 3 inner, 4 P, 5 block size, 6 distance.
  for (let size = 2; size <= P; size *= 2) {
    for (let dist = size / 2; dist >= 1; dist /= 2) {
      const p = new Params().u(rows * (P / 2)).u(l.x.at).u(l.r).u(l.inner).u(P).u(size).u(dist);
      run(ctx, `argsort_bitonic${l.dtype}${l.descending ? 'd' : 'a'}`, [
        { name: 'X', type, buffer: l.x.buffer },
        { name: 'IDX', type: 'u32', write: true, buffer: idx },
      ], p, rows * (P / 2), /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let half = pu(4u) / 2u;
  let q = id / half;
  let t = id % half;
  let dist = pu(6u);
  let m = 2u * dist * (t / dist) + t % dist;  // the pair (m, m + dist)
  ${rowBase}
  let at = q * pu(4u);
  let a = IDX[at + m];
  let b = IDX[at + m + dist];
  let up = (m & pu(5u)) == 0u;  // this block sorts ascending in the network's order
  if ((up && before(base, b, a)) || (!up && before(base, a, b))) {
    IDX[at + m] = b;
    IDX[at + m + dist] = a;
  }`, extra + before);
    }
  }
  run(ctx, 'argsort_take', [
    { name: 'IDX', type: 'u32', buffer: idx },
    { name: 'OUT', type: 'i32', write: true, buffer: l.out.buffer },
  ], new Params().u(rows * l.k).u(l.k).u(l.inner).u(P).u(l.out.at), rows * l.k, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let q = id / pu(1u);
  let rank = id % pu(1u);
  let o = q / pu(2u);
  let i = q % pu(2u);
  OUT[pu(4u) + (o * pu(1u) + rank) * pu(2u) + i] = i32(IDX[q * pu(3u) + rank]);`);
}

export const sort: Record<string, KernelFn> = {
  argsort(ctx, a) {
    const dtype = a.num();
    const x = operand(ctx, a, dtype === BOOL ? 1 : 4);
    const outer = a.num(), r = a.num(), inner = a.num();
    const descending = a.flag();
    const k = a.num();
    const out = operand(ctx, a);
    const layout = { dtype, x, outer, r, inner, descending, k, out };
    if (r <= RANK_MAX) byRank(ctx, layout);
    else bitonic(ctx, layout);
  },
};
