// Reductions over [outer, r, inner] and rows: float and int reductions, arg max/min, the group
// backward passes, softmax/log-softmax and logsumexp. Twins of src/kernels/reference/
// {reduce,reduce_backward,softmax,data_int}.cpp. Rows (inner = 1) are reduced by a workgroup
// each (a tree in workgroup memory); strided groups by one invocation each.
import { Params } from '../params.js';
import { MATH } from './math.js';
import { prelude } from './prelude.js';
import { declare, operand, run, type KernelContext, type KernelFn } from './common.js';
import { BOOL, F32, byteRead } from './prelude.js';

export const ROW = 64; // invocations per row workgroup

/** Workgroup tree reductions (sum and NaN-propagating max) over ROW lanes. */
export const WG_REDUCE = /* wgsl */ `
var<workgroup> red: array<f32, ${ROW}>;
fn wg_sum(lane: u32, v: f32) -> f32 {
  red[lane] = v;
  workgroupBarrier();
  for (var s = ${ROW / 2}u; s > 0u; s = s >> 1u) {
    if (lane < s) { red[lane] = red[lane] + red[lane + s]; }
    workgroupBarrier();
  }
  let r = red[0];
  workgroupBarrier();
  return r;
}
fn wg_max(lane: u32, v: f32) -> f32 {
  red[lane] = v;
  workgroupBarrier();
  for (var s = ${ROW / 2}u; s > 0u; s = s >> 1u) {
    if (lane < s) { red[lane] = maximum_f(red[lane], red[lane + s]); }
    workgroupBarrier();
  }
  let r = red[0];
  workgroupBarrier();
  return r;
}
`;

// Rows up to this long are reduced by one invocation each (no barriers: SwiftShader runs
// barrier-heavy kernels slowly, and a row of a few classes does not need a workgroup).
const SERIAL_COLS = 256;

const SERIAL_REDUCE = /* wgsl */ `
fn wg_sum(lane: u32, v: f32) -> f32 { return v; }
fn wg_max(lane: u32, v: f32) -> f32 { return v; }
`;

/**
 * Dispatches the per-row kernel `body`: one workgroup of ROW lanes per row for long rows, one
 * invocation per row for rows of at most SERIAL_COLS. In `body`, `row` and `lane` are defined,
 * loops over a row step by STRIDE from `lane`, and wg_sum/wg_max combine the lanes.
 */
export function perRow(
  ctx: KernelContext,
  key: string,
  binds: { name: string; type: string; write?: boolean; buffer: import('../gpu_types.js').BufferLike }[],
  params: Params,
  rows: number,
  body: string,
  extra = '',
  cols = Infinity,
): void {
  if (rows <= 0) return;
  const serial = cols <= SERIAL_COLS;
  const decls = () =>
    declare(binds) +
    prelude(binds.length) +
    MATH +
    extra;
  if (serial) {
    ctx.dispatch(
      {
        key: `${key}|serial`,
        access: binds.map((b) => (b.write ? 'write' : 'read')),
        code: () =>
          decls() +
          SERIAL_REDUCE +
          /* wgsl */ `
const STRIDE = 1u;
@compute @workgroup_size(${ROW})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = flat_id(wg, nwg, lid, ${ROW}u);
  let lane = 0u;
  if (row >= pu(0u)) { return; }
${body}
}
`,
      },
      binds.map((b) => b.buffer),
      params,
      Math.ceil(rows / ROW),
    );
    return;
  }
  ctx.dispatch(
    {
      key,
      access: binds.map((b) => (b.write ? 'write' : 'read')),
      code: () =>
        decls() +
        WG_REDUCE +
        /* wgsl */ `
const STRIDE = ${ROW}u;
@compute @workgroup_size(${ROW})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lane: u32) {
  let row = wg.y * nwg.x + wg.x;
  if (row >= pu(0u)) { return; }
${body}
}
`,
    },
    binds.map((b) => b.buffer),
    params,
    rows,
  );
}

const f = (name: string, buffer: import('../gpu_types.js').BufferLike, write = false) => ({ name, type: 'f32', buffer, write });

export const reduce: Record<string, KernelFn> = {
  reduce_f32(ctx, a) {
    const op = a.num();
    const x = operand(ctx, a);
    const outer = a.num(), r = a.num(), inner = a.num();
    const out = operand(ctx, a);
    const init = ['0.0', '-inf_f()', 'inf_f()', '1.0'][op];
    const step = ['acc + v', 'maximum_f(acc, v)', 'minimum_f(acc, v)', 'acc * v'][op];
    const p = new Params().u(outer * inner).u(x.at).u(r).u(inner).u(out.at);
    if (inner === 1 && op === 0) {
      // Rows: a lane-strided partial sum per lane, then the tree.
      perRow(ctx, 'sum_rows', [f('X', x.buffer), f('Y', out.buffer, true)], p, outer, /* wgsl */ `
  let base = pu(1u) + row * pu(2u);
  var acc = 0.0;
  for (var j = lane; j < pu(2u); j += STRIDE) { acc += X[base + j]; }
  let s = wg_sum(lane, acc);
  if (lane == 0u) { Y[pu(4u) + row] = s; }`, '', r);
      return;
    }
    run(ctx, `reduce${op}`, [f('X', x.buffer), f('Y', out.buffer, true)], p, outer * inner, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let o = id / pu(3u);
  let i = id % pu(3u);
  let base = pu(1u) + o * pu(2u) * pu(3u) + i;
  var acc = ${init};
  for (var j = 0u; j < pu(2u); j++) {
    let v = X[base + j * pu(3u)];
    acc = ${step};
  }
  Y[pu(4u) + id] = acc;`);
  },

  softmax_rows_f32(ctx, a) {
    const x = operand(ctx, a), y = operand(ctx, a);
    const rows = a.num(), cols = a.num(), log = a.flag();
    const p = new Params().u(rows).u(x.at).u(y.at).u(cols);
    perRow(ctx, `softmax${log}`, [f('X', x.buffer), f('Y', y.buffer, true)], p, rows, /* wgsl */ `
  let xb = pu(1u) + row * pu(3u);
  let yb = pu(2u) + row * pu(3u);
  var m = -inf_f();
  for (var j = lane; j < pu(3u); j += STRIDE) { m = maximum_f(m, X[xb + j]); }
  m = wg_max(lane, m);
  var s = 0.0;
  for (var j = lane; j < pu(3u); j += STRIDE) { s += exp(X[xb + j] - m); }
  s = wg_sum(lane, s);
  ${log ? 'let ls = log(s);' : ''}
  for (var j = lane; j < pu(3u); j += STRIDE) {
    Y[yb + j] = ${log ? 'X[xb + j] - m - ls' : 'exp(X[xb + j] - m) / s'};
  }`, '', cols);
  },

  // The softmax row kernel with the causal bound: row r is query position r mod L, its entries
  // j ≤ r mod L take part and the others are written 0 (never read: no mask buffer, no NaN from one).
  softmax_causal_rows_f32(ctx, a) {
    const x = operand(ctx, a), y = operand(ctx, a);
    const rows = a.num(), cols = a.num(), L = a.num();
    const p = new Params().u(rows).u(x.at).u(y.at).u(cols).u(L);
    perRow(ctx, 'softmax_causal', [f('X', x.buffer), f('Y', y.buffer, true)], p, rows, /* wgsl */ `
  let xb = pu(1u) + row * pu(3u);
  let yb = pu(2u) + row * pu(3u);
  let n = min(row % pu(4u) + 1u, pu(3u));
  var m = -inf_f();
  for (var j = lane; j < n; j += STRIDE) { m = maximum_f(m, X[xb + j]); }
  m = wg_max(lane, m);
  var s = 0.0;
  for (var j = lane; j < n; j += STRIDE) { s += exp(X[xb + j] - m); }
  s = wg_sum(lane, s);
  for (var j = lane; j < pu(3u); j += STRIDE) {
    Y[yb + j] = select(0.0, exp(X[xb + j] - m) / s, j < n);
  }`, '', cols);
  },

  logsumexp_rows_f32(ctx, a) {
    const x = operand(ctx, a), out = operand(ctx, a);
    const rows = a.num(), cols = a.num();
    const p = new Params().u(rows).u(x.at).u(out.at).u(cols);
    perRow(ctx, 'logsumexp', [f('X', x.buffer), f('Y', out.buffer, true)], p, rows, /* wgsl */ `
  let xb = pu(1u) + row * pu(3u);
  var m = -inf_f();
  for (var j = lane; j < pu(3u); j += STRIDE) { m = maximum_f(m, X[xb + j]); }
  m = wg_max(lane, m);
  if (is_inf(m)) { m = 0.0; }
  var s = 0.0;
  for (var j = lane; j < pu(3u); j += STRIDE) { s += exp(X[xb + j] - m); }
  s = wg_sum(lane, s);
  if (lane == 0u) { Y[pu(2u) + row] = select(m + log(s), -inf_f(), s == 0.0); }`, '', cols);
  },

  reduce_int(ctx, a) {
    const op = a.num(), dtype = a.num();
    const x = operand(ctx, a, dtype === BOOL ? 1 : 4);
    const outer = a.num(), r = a.num(), inner = a.num();
    const out = operand(ctx, a, dtype === BOOL && op > 0 && op < 3 ? 1 : 4);
    const p = new Params().u(outer * inner).u(x.at).u(r).u(inner).u(out.at);
    const isBool = dtype === BOOL;
    const load = isBool ? 'i32(X_byte(base + j * pu(3u)))' : 'X[base + j * pu(3u)]';
    const init = ['0', '-2147483647 - 1', '2147483647', '1'][op];
    const step = ['acc + v', 'max(acc, v)', 'min(acc, v)', 'acc * v'][op];
    const boolOut = isBool && (op === 1 || op === 2);
    run(ctx, `ireduce${op}${dtype}`,
      [{ name: 'X', type: isBool ? 'u32' : 'i32', buffer: x.buffer }, { name: 'Y', type: boolOut ? 'atomic<u32>' : 'i32', buffer: out.buffer, write: true }],
      p, outer * inner, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let base = pu(1u) + (id / pu(3u)) * pu(2u) * pu(3u) + id % pu(3u);
  var acc: i32 = ${init};
  for (var j = 0u; j < pu(2u); j++) { let v = ${load}; acc = ${step}; }
  ${boolOut ? 'Y_set_byte(pu(4u) + id, u32(acc));' : 'Y[pu(4u) + id] = acc;'}`,
      (isBool ? byteRead('X') : '') + (boolOut ? BYTE_WRITE_Y : ''));
  },

  arg_reduce(ctx, a) {
    const isMax = a.flag(), dtype = a.num();
    const x = operand(ctx, a, dtype === BOOL ? 1 : 4);
    const outer = a.num(), r = a.num(), inner = a.num();
    const out = operand(ctx, a);
    const p = new Params().u(outer * inner).u(x.at).u(r).u(inner).u(out.at);
    const type = dtype === F32 ? 'f32' : dtype === BOOL ? 'u32' : 'i32';
    const load = (j: string) => (dtype === BOOL ? `X_byte(base + ${j} * pu(3u))` : `X[base + ${j} * pu(3u)]`);
    const nan = dtype === F32;
    run(ctx, `argreduce${isMax}${dtype}`, [{ name: 'X', type, buffer: x.buffer }, { name: 'Y', type: 'i32', buffer: out.buffer, write: true }],
      p, outer * inner, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let base = pu(1u) + (id / pu(3u)) * pu(2u) * pu(3u) + id % pu(3u);
  var best = 0u;
  var bv = ${load('0u')};
  for (var j = 1u; j < pu(2u); j++) {
    ${nan ? 'if (is_nan(bv)) { break; }' : ''}
    let v = ${load('j')};
    ${nan ? 'if (is_nan(v)) { best = j; break; }' : ''}
    if (v ${isMax ? '>' : '<'} bv) { best = j; bv = v; }
  }
  Y[pu(4u) + id] = i32(best);`, dtype === BOOL ? byteRead('X') : '');
  },

  extreme_backward_f32(ctx, a) {
    const useAbs = a.flag();
    const x = operand(ctx, a), y = operand(ctx, a), g = operand(ctx, a);
    const outer = a.num(), r = a.num(), inner = a.num();
    const dx = operand(ctx, a);
    const p = new Params().u(outer * inner).u(x.at).u(r).u(inner).u(y.at).u(g.at).u(dx.at);
    const u = useAbs ? 'abs(v)' : 'v';
    groups(ctx, `extreme${useAbs}`, [f('X', x.buffer), f('YV', y.buffer), f('G', g.buffer), f('DX', dx.buffer, true)], p, outer * inner, /* wgsl */ `
  let y = YV[pu(4u) + id];
  let gv = G[pu(5u) + id];
  var count = 0.0;
  for (var j = 0u; j < pu(2u); j++) {
    let v = X[base + j * pu(3u)];
    let u = ${u};
    if (u == y || (is_nan(u) && is_nan(y))) { count += 1.0; }
  }
  for (var j = 0u; j < pu(2u); j++) {
    let v = X[base + j * pu(3u)];
    let u = ${u};
    var share = select(0.0, 1.0 / count, u == y || (is_nan(u) && is_nan(y)));
    ${useAbs ? 'share = share * select(select(0.0, -1.0, v < 0.0), 1.0, v > 0.0);' : ''}
    DX[dbase + j * pu(3u)] = gv * share;
  }`);
  },

  prod_backward_f32(ctx, a) {
    const x = operand(ctx, a), g = operand(ctx, a);
    const outer = a.num(), r = a.num(), inner = a.num();
    const dx = operand(ctx, a);
    const p = new Params().u(outer * inner).u(x.at).u(r).u(inner).u(0).u(g.at).u(dx.at);
    groups(ctx, 'prodgrad', [f('X', x.buffer), f('G', g.buffer), f('DX', dx.buffer, true)], p, outer * inner, /* wgsl */ `
  let gv = G[pu(5u) + id];
  // prefix products into dx, then the suffix products multiplied in (zeros stay exact).
  var prefix = 1.0;
  for (var j = 0u; j < pu(2u); j++) { DX[dbase + j * pu(3u)] = prefix; prefix = prefix * X[base + j * pu(3u)]; }
  var suffix = 1.0;
  for (var k = 0u; k < pu(2u); k++) {
    let j = pu(2u) - 1u - k;
    DX[dbase + j * pu(3u)] = gv * DX[dbase + j * pu(3u)] * suffix;
    suffix = suffix * X[base + j * pu(3u)];
  }`);
  },

  norm_backward_f32(ctx, a) {
    const pNorm = a.num();
    const x = operand(ctx, a), y = operand(ctx, a), g = operand(ctx, a);
    const outer = a.num(), r = a.num(), inner = a.num();
    const dx = operand(ctx, a);
    const p = new Params().u(outer * inner).u(x.at).u(r).u(inner).u(y.at).u(g.at).u(dx.at).f(pNorm);
    groups(ctx, 'normgrad', [f('X', x.buffer), f('YV', y.buffer), f('G', g.buffer), f('DX', dx.buffer, true)], p, outer * inner, /* wgsl */ `
  let yv = YV[pu(4u) + id];
  let gv = G[pu(5u) + id];
  let pn = pf(7u);
  for (var j = 0u; j < pu(2u); j++) {
    let v = X[base + j * pu(3u)];
    let sgn = select(select(0.0, -1.0, v < 0.0), 1.0, v > 0.0);
    var w = 0.0;
    if (pn == 0.0 || yv == 0.0) { w = 0.0; }
    else if (pn == 1.0) { w = sgn; }
    else if (pn == 2.0) { w = v / yv; }
    else if (v != 0.0) { w = sgn * pow(abs(v) / yv, pn - 1.0); }
    DX[dbase + j * pu(3u)] = gv * w;
  }`);
  },
};

const BYTE_WRITE_Y = /* wgsl */ `
fn Y_set_byte(i: u32, v: u32) {
  let sh = (i & 3u) * 8u;
  atomicAnd(&Y[i >> 2u], ~(0xffu << sh));
  atomicOr(&Y[i >> 2u], (v & 0xffu) << sh);
}
`;

/** One invocation per group of [outer, r, inner]: `base` (x) and `dbase` (dx, word 6) defined. */
function groups(ctx: KernelContext, key: string, binds: Parameters<typeof run>[2], p: Params, n: number, body: string): void {
  run(ctx, key, binds, p, n, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let rel = (id / pu(3u)) * pu(2u) * pu(3u) + id % pu(3u);
  let base = pu(1u) + rel;
  let dbase = pu(6u) + rel;
${body}`);
}
