// Layer norm over rows x [R, C] in three kernels where the composed form (src/nn/norm.cpp: sums,
// subtractions, squares, rsqrt, products, each its own op) takes 12 dispatches forward and 13
// backward. Forward, one per row: mean, biased variance (two passes), rstd = 1/√(var + eps),
// x̂ = (x − mean)·rstd (kept for the backward), y = x̂·w + b. Backward: per row
// dx = rstd·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)) with dx̂ = g·w; per column dw = Σ g·x̂, db = Σ g.
// The same closed forms as norm.cpp's affine_node / normalized_backward (LayerKernels::
// layer_norm_f32 in src/kernels/layer_kernels.h; tests/js/webgpu_layer_norm.test.mjs checks them
// against the CPU's composed form).
import { Params } from '../params.js';
import { operand, type KernelFn } from './common.js';
import { perRow } from './reduce.js';
import type { BufferLike } from '../gpu_types.js';

const f = (name: string, buffer: BufferLike, write = false) => ({ name, type: 'f32', buffer, write });

export const layerNorm: Record<string, KernelFn> = {
  layer_norm_f32(ctx, a) {
    const x = operand(ctx, a), w = operand(ctx, a), b = operand(ctx, a);
    const R = a.num(), C = a.num(), eps = a.num();
    const y = operand(ctx, a), xhat = operand(ctx, a), rstd = operand(ctx, a);
    const p = new Params().u(R).u(C).f(eps).u(x.at).u(w.at).u(b.at).u(y.at).u(xhat.at).u(rstd.at).u(w.none ? 0 : 1).u(b.none ? 0 : 1);
    perRow(ctx, 'layer_norm',
      [f('X', x.buffer), f('WT', w.buffer), f('B', b.buffer), f('Y', y.buffer, true), f('XHAT', xhat.buffer, true), f('RSTD', rstd.buffer, true)],
      p, R, /* wgsl */ `
  let C = pu(1u);
  let xb = pu(3u) + row * C;
  var s = 0.0;
  for (var j = lane; j < C; j += STRIDE) { s += X[xb + j]; }
  let mu = wg_sum(lane, s) / f32(C);
  var q = 0.0;
  for (var j = lane; j < C; j += STRIDE) { let d = X[xb + j] - mu; q += d * d; }
  let rs = inverseSqrt(wg_sum(lane, q) / f32(C) + pf(2u));
  if (lane == 0u) { RSTD[pu(8u) + row] = rs; }
  for (var j = lane; j < C; j += STRIDE) {
    let xh = (X[xb + j] - mu) * rs;
    XHAT[pu(7u) + row * C + j] = xh;
    var v = xh;
    if (pu(9u) != 0u) { v = v * WT[pu(4u) + j]; }
    if (pu(10u) != 0u) { v = v + B[pu(5u) + j]; }
    Y[pu(6u) + row * C + j] = v;
  }`, '', C);
  },

  layer_norm_backward_f32(ctx, a) {
    const g = operand(ctx, a), xhat = operand(ctx, a), rstd = operand(ctx, a), w = operand(ctx, a);
    const R = a.num(), C = a.num();
    const dx = operand(ctx, a), dw = operand(ctx, a), db = operand(ctx, a);
    if (!dx.none) {
      const p = new Params().u(R).u(C).u(g.at).u(xhat.at).u(rstd.at).u(w.at).u(dx.at).u(w.none ? 0 : 1);
      perRow(ctx, 'layer_norm_dx',
        [f('G', g.buffer), f('XHAT', xhat.buffer), f('RSTD', rstd.buffer), f('WT', w.buffer), f('DX', dx.buffer, true)],
        p, R, /* wgsl */ `
  let C = pu(1u);
  let gb = pu(2u) + row * C; let hb = pu(3u) + row * C;
  var s = 0.0; var sh = 0.0;
  for (var j = lane; j < C; j += STRIDE) {
    var d = G[gb + j];
    if (pu(7u) != 0u) { d = d * WT[pu(5u) + j]; }
    s += d; sh += d * XHAT[hb + j];
  }
  let m = wg_sum(lane, s) / f32(C);
  let mh = wg_sum(lane, sh) / f32(C);
  let rs = RSTD[pu(4u) + row];
  for (var j = lane; j < C; j += STRIDE) {
    var d = G[gb + j];
    if (pu(7u) != 0u) { d = d * WT[pu(5u) + j]; }
    DX[pu(6u) + row * C + j] = rs * ((d - m) - XHAT[hb + j] * mh);
  }`, '', C);
    }
    if (dw.none && db.none) return;
    // One workgroup (or invocation) per column, its lanes over the rows.
    // Word 0 is perRow's row count: here the columns.
    const p = new Params().u(C).u(R).u(g.at).u(xhat.at).u(dw.at).u(db.at).u(dw.none ? 0 : 1).u(db.none ? 0 : 1);
    perRow(ctx, 'layer_norm_dwdb',
      [f('G', g.buffer), f('XHAT', xhat.buffer), f('DW', dw.buffer, true), f('DB', db.buffer, true)],
      p, C, /* wgsl */ `
  let C = pu(0u); let R = pu(1u);
  var sw = 0.0; var sb = 0.0;
  for (var r = lane; r < R; r += STRIDE) {
    let q = G[pu(2u) + r * C + row];
    sw += q * XHAT[pu(3u) + r * C + row]; sb += q;
  }
  let tw = wg_sum(lane, sw);
  let tb = wg_sum(lane, sb);
  if (lane == 0u) {
    if (pu(6u) != 0u) { DW[pu(4u) + row] = tw; }
    if (pu(7u) != 0u) { DB[pu(5u) + row] = tb; }
  }`, '', R);
  },
};
