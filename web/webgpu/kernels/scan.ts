// Cumulative scans (cumsum, cumprod) and cumprod's gradient over [outer, r, inner] groups, one
// invocation per group walking r. Twins of src/kernels/reference/data_scan.cpp, which
// accumulates in double and rounds each output: here the float accumulators are pairs of f32
// (hi + lo, "double-float": error-free sums and products, Dekker's split), so a long scan keeps
// about 44 bits as the CPU's does instead of drifting by an ulp a step. int32 wraps.
import { Params } from '../params.js';
import { F32 } from './prelude.js';
import { operand, run, type KernelFn } from './common.js';

/** Double-float arithmetic: a value is vec2(hi, lo) with |lo| ≤ ulp(hi) / 2. */
const DF = /* wgsl */ `
fn df_norm(s: f32, e: f32) -> vec2<f32> { let h = s + e; return vec2<f32>(h, e - (h - s)); }
fn df_split(a: f32) -> vec2<f32> { let c = 4097.0 * a; let h = c - (c - a); return vec2<f32>(h, a - h); }
// d + b, with the rounding error of hi + b kept (Knuth's two-sum).
fn df_add(d: vec2<f32>, b: f32) -> vec2<f32> {
  let s = d.x + b;
  if (is_inf(s) || is_nan(s)) { return vec2<f32>(s, 0.0); }
  let bb = s - d.x;
  let e = (d.x - (s - bb)) + (b - bb);
  return df_norm(s, e + d.y);
}
// d · b, with the rounding error of hi · b kept (Dekker's two-product).
fn df_mul(d: vec2<f32>, b: f32) -> vec2<f32> {
  let p = d.x * b;
  if (is_inf(p) || is_nan(p) || p == 0.0) { return vec2<f32>(p, 0.0); }
  let a2 = df_split(d.x);
  let b2 = df_split(b);
  let e = ((a2.x * b2.x - p) + a2.x * b2.y + a2.y * b2.x) + a2.y * b2.y;
  return df_norm(p, e + d.y * b);
}
fn df_mul_df(d: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  let m = df_mul(d, b.x);
  return df_norm(m.x, m.y + d.x * b.y);
}
`;

// Group `id` of [outer, r, inner]: element j of it is at base + j · inner.
const GROUP = /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let r = pu(1u);
  let inner = pu(2u);
  let base = (id / inner) * r * inner + id % inner;`;

export const scan: Record<string, KernelFn> = {
  scan(ctx, a) {
    const op = a.num(); // 0 sum, 1 prod
    const dtype = a.num();
    const reverse = a.flag();
    const x = operand(ctx, a);
    const outer = a.num(), r = a.num(), inner = a.num();
    const out = operand(ctx, a);
    const float = dtype === F32;
    const type = float ? 'f32' : 'i32';
    const p = new Params().u(outer * inner).u(r).u(inner).u(x.at).u(out.at);
    const at = reverse ? '(r - 1u - t)' : 't';
    const body = float
      ? /* wgsl */ `
  var acc = vec2<f32>(${op === 0 ? '0.0' : '1.0'}, 0.0);
  for (var t = 0u; t < r; t++) {
    let k = base + ${at} * inner;
    acc = ${op === 0 ? 'df_add(acc, X[pu(3u) + k])' : 'df_mul(acc, X[pu(3u) + k])'};
    Y[pu(4u) + k] = acc.x + acc.y;
  }`
      : /* wgsl */ `
  var acc = ${op === 0 ? '0' : '1'};
  for (var t = 0u; t < r; t++) {
    let k = base + ${at} * inner;
    acc = acc ${op === 0 ? '+' : '*'} X[pu(3u) + k];
    Y[pu(4u) + k] = acc;
  }`;
    run(ctx, `scan${op}${type}${reverse ? 'r' : ''}`, [
      { name: 'X', type, buffer: x.buffer },
      { name: 'Y', type, write: true, buffer: out.buffer },
    ], p, outer * inner, GROUP + body, DF);
  },

  cumprod_backward_f32(ctx, a) {
    const x = operand(ctx, a), g = operand(ctx, a);
    const outer = a.num(), r = a.num(), inner = a.num();
    const dx = operand(ctx, a);
    const p = new Params().u(outer * inner).u(r).u(inner).u(x.at).u(g.at).u(dx.at);
    // S[j] = g[j] + x[j+1]·S[j+1] from the end, stored in DX (rounded to f32 once), then
    // dx[j] = (x[0]⋯x[j−1]) · S[j] from the start.
    run(ctx, 'cumprod_bw', [
      { name: 'X', type: 'f32', buffer: x.buffer },
      { name: 'G', type: 'f32', buffer: g.buffer },
      { name: 'DX', type: 'f32', write: true, buffer: dx.buffer },
    ], p, outer * inner, GROUP + /* wgsl */ `
  var s = vec2<f32>(0.0, 0.0);
  for (var t = 0u; t < r; t++) {
    let j = r - 1u - t;
    let k = base + j * inner;
    if (j + 1u < r) { s = df_mul(s, X[pu(3u) + k + inner]); } else { s = vec2<f32>(0.0, 0.0); }
    s = df_add(s, G[pu(4u) + k]);
    DX[pu(5u) + k] = s.x + s.y;
  }
  var prefix = vec2<f32>(1.0, 0.0);
  for (var j = 0u; j < r; j++) {
    let k = base + j * inner;
    let v = df_mul(prefix, DX[pu(5u) + k]);
    DX[pu(5u) + k] = v.x + v.y;
    prefix = df_mul(prefix, X[pu(3u) + k]);
  }`, DF);
  },
};
