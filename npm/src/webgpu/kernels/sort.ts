// argsort (sort, argsort, topk) along a dim of [outer, r, inner]: one invocation per element
// counts the group's elements that sort before it — its rank in the stable order, ties broken by
// position, NaN above every number — and, if the rank is below k, writes its position there.
// Twin of src/kernels/reference/data_sort.cpp; r comparisons per element, no barriers.
import { Params } from '../params.js';
import { BOOL, F32, byteRead } from './prelude.js';
import { operand, run, type KernelFn } from './common.js';

export const sort: Record<string, KernelFn> = {
  argsort(ctx, a) {
    const dtype = a.num();
    const x = operand(ctx, a, dtype === BOOL ? 1 : 4);
    const outer = a.num(), r = a.num(), inner = a.num();
    const descending = a.flag();
    const k = a.num();
    const out = operand(ctx, a);
    const type = dtype === F32 ? 'f32' : dtype === BOOL ? 'u32' : 'i32';
    const load = (i: string) => (dtype === BOOL ? `X_byte(pu(1u) + ${i})` : `X[pu(1u) + ${i}]`);
    const asc = dtype === F32
      ? 'fn asc(a: f32, b: f32) -> bool { if (is_nan(a)) { return false; } if (is_nan(b)) { return true; } return a < b; }'
      : `fn asc(a: ${type}, b: ${type}) -> bool { return a < b; }`;
    const p = new Params().u(outer * r * inner).u(x.at).u(r).u(inner).u(k).u(out.at);
    run(ctx, `argsort${dtype}${descending ? 'd' : 'a'}`, [
      { name: 'X', type, buffer: x.buffer },
      { name: 'OUT', type: 'i32', write: true, buffer: out.buffer },
    ], p, outer * r * inner, /* wgsl */ `
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
    if (${descending ? 'asc(v, w)' : 'asc(w, v)'}) { rank++; continue; }
    if (${descending ? 'asc(w, v)' : 'asc(v, w)'}) { continue; }
    if (m < j) { rank++; }
  }
  if (rank < pu(4u)) { OUT[pu(5u) + (o * pu(4u) + rank) * inner + i] = i32(j); }`, (dtype === BOOL ? byteRead('X') : '') + asc);
  },
};
