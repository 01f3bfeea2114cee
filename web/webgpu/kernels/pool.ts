// Pooling: max pooling with its argmax and backward, average pooling (box means over the
// closed-form windows of kernels/box_geom.h) and its backward, and the fused convolution +
// max pool. Twins of src/kernels/reference/pool.cpp and layer_pool.cpp. Both backward passes
// gather: each input element sums, in the reference's order (output windows row-major), the
// gradients of the windows that hold it, so no two invocations write one element (no atomics).
import { Params } from '../params.js';
import { operand, run, type KernelContext, type KernelFn, type Operand } from './common.js';
import type { ArgReader } from '../arg_reader.js';
import { convForward, readConvGeom, scratch } from './conv.js';

const POOL_FIELDS = ['P', 'H', 'W', 'oH', 'oW', 'kH', 'kW', 'sH', 'sW', 'pH', 'pW', 'dH', 'dW'] as const;
type PoolGeom = Record<(typeof POOL_FIELDS)[number], number>;

/** PoolGeom (kernels/backend.h) in the order bindings/webgpu_backend.cpp writes it. */
function readPoolGeom(a: ArgReader): PoolGeom {
  const g = {} as PoolGeom;
  for (const k of POOL_FIELDS) g[k] = a.num();
  return g;
}

// Words 0–12 the geometry, then the element offsets of the bindings.
const POOL_GEOM = /* wgsl */ `
fn P() -> i32 { return pi(0u); }   fn H() -> i32 { return pi(1u); }   fn W() -> i32 { return pi(2u); }
fn oH() -> i32 { return pi(3u); }  fn oW() -> i32 { return pi(4u); }
fn kH() -> i32 { return pi(5u); }  fn kW() -> i32 { return pi(6u); }
fn sH() -> i32 { return pi(7u); }  fn sW() -> i32 { return pi(8u); }
fn pH() -> i32 { return pi(9u); }  fn pW() -> i32 { return pi(10u); }
fn dH() -> i32 { return pi(11u); } fn dW() -> i32 { return pi(12u); }
fn off(b: u32) -> u32 { return pu(13u + b); }
`;

const poolParams = (g: PoolGeom, ...ops: Operand[]) => {
  const p = new Params();
  for (const f of POOL_FIELDS) p.i(g[f]);
  for (const o of ops) p.u(o.at);
  return p;
};

const f32 = (name: string, o: Operand, write = false) => ({ name, type: 'f32', buffer: o.buffer, write });
const i32 = (name: string, o: Operand, write = false) => ({ name, type: 'i32', buffer: o.buffer, write });

/**
 * y, idx = max pool of x: one invocation per window, the first max in window order, NaN winning.
 * Without idx (a missing operand: no gradient will be taken) the values alone.
 */
function maxPool(ctx: KernelContext, g: PoolGeom, x: Operand, y: Operand, idx: Operand & { none?: boolean }): void {
  const items = g.P * g.oH * g.oW;
  const withIdx = !idx.none;
  const binds = [f32('X', x), f32('Y', y, true), ...(withIdx ? [i32('IDX', idx, true)] : [])];
  const params = withIdx ? poolParams(g, x, y, idx) : poolParams(g, x, y);
  run(ctx, withIdx ? 'max_pool2d' : 'max_pool2d_values', binds, params, items, /* wgsl */ `
  let L = oH() * oW();
  if (id >= u32(P() * L)) { return; }
  let plane = i32(id) / L; let l = i32(id) % L;
  let oh = l / oW(); let ow = l % oW();
  let xo = off(0u) + u32(plane * H() * W());
  var best = -inf_f();
  var at = -1;
  for (var a = 0; a < kH(); a++) {
    let h = oh * sH() - pH() + a * dH();
    if (h < 0 || h >= H()) { continue; }
    for (var b = 0; b < kW(); b++) {
      let w = ow * sW() - pW() + b * dW();
      if (w < 0 || w >= W()) { continue; }
      let v = X[xo + u32(h * W() + w)];
      if (at < 0 || v > best || is_nan(v)) { best = v; at = h * W() + w; }
    }
  }
  Y[off(1u) + id] = best;${withIdx ? `
  IDX[off(2u) + id] = at;` : ''}`, POOL_GEOM);
}

export const pool: Record<string, KernelFn> = {
  max_pool2d_f32(ctx, a) {
    const g = readPoolGeom(a);
    const x = operand(ctx, a), y = operand(ctx, a), idx = operand(ctx, a);
    maxPool(ctx, g, x, y, idx);
  },

  max_pool2d_backward_f32(ctx, a) {
    const g = readPoolGeom(a);
    const dy = operand(ctx, a), idx = operand(ctx, a), dx = operand(ctx, a);
    const items = g.P * g.H * g.W;
    run(ctx, 'max_pool2d_back', [f32('DY', dy), i32('IDX', idx), f32('DX', dx, true)], poolParams(g, dy, idx, dx), items, /* wgsl */ `
  let HW = H() * W();
  if (id >= u32(P() * HW)) { return; }
  let plane = i32(id) / HW; let at = i32(id) % HW;
  let h = at / W(); let w = at % W();
  let base = plane * oH() * oW();
  var acc = 0.0;
  // Taps from the last down: the windows that hold (h, w) in increasing row, then column.
  for (var a = kH() - 1; a >= 0; a--) {
    let th = h + pH() - a * dH();
    if (th < 0 || th % sH() != 0 || th / sH() >= oH()) { continue; }
    for (var b = kW() - 1; b >= 0; b--) {
      let tw = w + pW() - b * dW();
      if (tw < 0 || tw % sW() != 0 || tw / sW() >= oW()) { continue; }
      let o = u32(base + (th / sH()) * oW() + tw / sW());
      if (IDX[off(1u) + o] == at) { acc += DY[off(0u) + o]; }
    }
  }
  DX[off(2u) + id] = acc;`, POOL_GEOM);
  },

  conv2d_maxpool2d_f32(ctx, a) {
    const g = readConvGeom(a);
    const x = operand(ctx, a), w = operand(ctx, a), bias = operand(ctx, a);
    const act = a.num();
    const pg = readPoolGeom(a);
    const y = operand(ctx, a), idx = operand(ctx, a);
    const z: Operand = { buffer: scratch(ctx, g.N * g.O * g.oH * g.oW * 4, 'the convolution output before pooling'), at: 0 };
    convForward(ctx, g, x, w, bias, act, z);
    maxPool(ctx, pg, z, y, idx);
  },

  box_mean_f32(ctx, a) {
    const g = readBoxGeom(a);
    const x = operand(ctx, a), y = operand(ctx, a);
    const items = g.P * g.rows.out * g.cols.out;
    run(ctx, 'box_mean', [f32('X', x), f32('Y', y, true)], boxParams(g, x, y), items, /* wgsl */ `
  let oH = pi(${ROWS} + 1u); let oW = pi(${COLS} + 1u);
  if (id >= u32(pi(0u) * oH * oW)) { return; }
  let H = pi(${ROWS}); let W = pi(${COLS});
  let plane = i32(id) / (oH * oW); let l = i32(id) % (oH * oW);
  let i = l / oW; let j = l % oW;
  let h0 = bstart(${ROWS}, i); let h1 = bend(${ROWS}, i);
  let w0 = bstart(${COLS}, j); let w1 = bend(${COLS}, j);
  var acc = 0.0;
  let xo = pu(1u) + u32(plane * H * W);
  for (var h = h0; h < h1; h++) {
    for (var w = w0; w < w1; w++) { acc += X[xo + u32(h * W + w)]; }
  }
  var v = 0.0;
  if (h0 < h1 && w0 < w1) { v = acc / f32(bcount(${ROWS}, i) * bcount(${COLS}, j)); }
  Y[pu(2u) + id] = v;`, BOX);
  },

  box_mean_backward_f32(ctx, a) {
    const g = readBoxGeom(a);
    const dy = operand(ctx, a), dx = operand(ctx, a);
    const items = g.P * g.rows.in * g.cols.in;
    run(ctx, 'box_mean_back', [f32('DY', dy), f32('DX', dx, true)], boxParams(g, dy, dx), items, /* wgsl */ `
  let H = pi(${ROWS}); let W = pi(${COLS});
  if (id >= u32(pi(0u) * H * W)) { return; }
  let oH = pi(${ROWS} + 1u); let oW = pi(${COLS} + 1u);
  let plane = i32(id) / (H * W); let at = i32(id) % (H * W);
  let h = at / W; let w = at % W;
  let ri = holders(${ROWS}, h); let cj = holders(${COLS}, w);
  let go = pu(1u) + u32(plane * oH * oW);
  var acc = 0.0;
  for (var i = ri.x; i <= ri.y; i++) {
    for (var j = cj.x; j <= cj.y; j++) {
      acc += DY[go + u32(i * oW + j)] / f32(bcount(${ROWS}, i) * bcount(${COLS}, j));
    }
  }
  DX[pu(2u) + id] = acc;`, BOX);
  },
};

// ---- box means (kernels/box_geom.h) ----
interface BoxDim { in: number; out: number; adaptive: number; k: number; s: number; p: number; countIncludePad: number }
interface BoxGeom { P: number; rows: BoxDim; cols: BoxDim }
const DIM_FIELDS = ['in', 'out', 'adaptive', 'k', 's', 'p', 'countIncludePad'] as const;

function readBoxGeom(a: ArgReader): BoxGeom {
  const P = a.num();
  const dim = () => {
    const d = {} as Record<string, number>;
    for (const k of DIM_FIELDS) d[k] = a.num();
    return d as unknown as BoxDim;
  };
  const rows = dim();
  return { P, rows, cols: dim() };
}

// Words: 0 planes, 1–2 the offsets of the two bindings, then each dim's seven fields.
const ROWS = '4u';
const COLS = '12u';

function boxParams(g: BoxGeom, src: Operand, dst: Operand): Params {
  const p = new Params().i(g.P).u(src.at).u(dst.at).u(0);
  for (const d of [g.rows, g.cols]) {
    for (const f of DIM_FIELDS) p.i(d[f]);
    p.u(0);
  }
  return p;
}

// A dim's windows at word d: in, out, adaptive, k, s, p, count_include_pad (box_geom.h).
const BOX = /* wgsl */ `
fn bstart(d: u32, o: i32) -> i32 {
  if (pu(d + 2u) != 0u) { return o * pi(d) / pi(d + 1u); }
  return max(o * pi(d + 4u) - pi(d + 5u), 0);
}
fn bend(d: u32, o: i32) -> i32 {
  let n = pi(d);
  if (pu(d + 2u) != 0u) { return ((o + 1) * n + pi(d + 1u) - 1) / pi(d + 1u); }
  return min(min(o * pi(d + 4u) - pi(d + 5u) + pi(d + 3u), n + pi(d + 5u)), n);
}
fn bcount(d: u32, o: i32) -> i32 {
  if (pu(d + 2u) != 0u || pu(d + 6u) == 0u) { return max(bend(d, o) - bstart(d, o), 0); }
  let lo = o * pi(d + 4u) - pi(d + 5u);
  return min(lo + pi(d + 3u), pi(d) + pi(d + 5u)) - lo;
}
// The first and last output index whose window holds input index h (last < first: none).
fn holders(d: u32, h: i32) -> vec2<i32> {
  let n = pi(d); let out = pi(d + 1u);
  if (pu(d + 2u) != 0u) {
    // start(o) ≤ h ⟺ o·n < (h+1)·out; end(o) > h ⟺ (o+1)·n > h·out.
    return vec2<i32>(h * out / n, ((h + 1) * out + n - 1) / n - 1);
  }
  let k = pi(d + 3u); let s = pi(d + 4u); let p = pi(d + 5u);
  // o·s − p ≤ h < o·s − p + k (the clipping to the input never drops an input index).
  let lo = h + p - k + 1;
  var first = 0;
  if (lo > 0) { first = (lo + s - 1) / s; }
  return vec2<i32>(first, min((h + p) / s, out - 1));
}
`;
