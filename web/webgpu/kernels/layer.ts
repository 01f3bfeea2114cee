// Layer, loss and optimizer kernels: cross-entropy/NLL over rows of classes, training batch
// norm, and the optimizer updates but SGD's and Adam's (those are multi-tensor: optim.ts).
// Twins of src/kernels/reference/{layer_loss,layer_norm}.cpp and src/optim/optim_kernels_ref.cpp
// (same float32 operations in the same order).
import { Params } from '../params.js';
import { operand, run, type KernelFn } from './common.js';
import { perRow, ROW } from './reduce.js';
import type { BufferLike } from '../gpu_types.js';

const f = (name: string, buffer: BufferLike, write = false) => ({ name, type: 'f32', buffer, write });
const i = (name: string, buffer: BufferLike) => ({ name, type: 'i32', buffer });

// Per row r: m (max), lse (log Σ exp) of X's row at xb, for the losses.
const ROW_LSE = /* wgsl */ `
  var m = -inf_f();
  for (var j = lane; j < C; j += STRIDE) { m = maximum_f(m, X[xb + j]); }
  m = wg_max(lane, m);
  var se = 0.0;
  for (var j = lane; j < C; j += STRIDE) { se += exp(X[xb + j] - m); }
  let lse = m + log(wg_sum(lane, se));
`;
// w_c (1 without a weight tensor).
const W = `fn wc(c: u32) -> f32 { if (pu(9u) == 0u) { return 1.0; } return WT[pu(8u) + c]; }\n`;

export const layer: Record<string, KernelFn> = {
  cross_entropy_f32(ctx, a) {
    const x = operand(ctx, a), t = operand(ctx, a), w = operand(ctx, a);
    const R = a.num(), C = a.num(), ignore = a.num(), eps = a.num();
    const loss = operand(ctx, a), wt = operand(ctx, a);
    const p = new Params().u(R).u(x.at).u(C).u(t.at).i(ignore).f(eps).u(loss.at).u(wt.at).u(w.at).u(w.none ? 0 : 1);
    perRow(ctx, 'ce', [f('X', x.buffer), i('T', t.buffer), f('WT', w.buffer), f('L', loss.buffer, true), f('LW', wt.buffer, true)], p, R, /* wgsl */ `
  let C = pu(2u);
  let xb = pu(1u) + row * C;
  // Ignored rows compute on class 0 and write zeros: an early return would leave the
  // workgroup barriers in non-uniform control flow.
  let ignored = T[pu(3u) + row] == pi(4u);
  let tr = select(T[pu(3u) + row], 0, ignored);
  ${ROW_LSE}
  let eps = pf(5u);
  var s = 0.0;
  for (var j = lane; j < C; j += STRIDE) { s += wc(j) * (X[xb + j] - lse); }
  s = wg_sum(lane, s);
  if (lane == 0u) {
    let wy = wc(u32(tr));
    var v = -(1.0 - eps) * wy * (X[xb + u32(tr)] - lse);
    if (eps > 0.0) { v -= eps / f32(C) * s; }
    L[pu(6u) + row] = select(v, 0.0, ignored);
    LW[pu(7u) + row] = select(wy, 0.0, ignored);
  }`, W, C);
  },

  cross_entropy_backward_f32(ctx, a) {
    const x = operand(ctx, a), t = operand(ctx, a), w = operand(ctx, a);
    const R = a.num(), C = a.num(), ignore = a.num(), eps = a.num();
    const s = operand(ctx, a), dx = operand(ctx, a);
    const p = new Params().u(R).u(x.at).u(C).u(t.at).i(ignore).f(eps).u(s.at).u(dx.at).u(w.at).u(w.none ? 0 : 1);
    perRow(ctx, 'ce_back', [f('X', x.buffer), i('T', t.buffer), f('WT', w.buffer), f('S', s.buffer), f('DX', dx.buffer, true)], p, R, /* wgsl */ `
  let C = pu(2u);
  let xb = pu(1u) + row * C;
  let db = pu(7u) + row * C;
  let ignored = T[pu(3u) + row] == pi(4u);
  let tr = select(T[pu(3u) + row], 0, ignored);
  ${ROW_LSE}
  var wtot = 0.0;
  for (var j = lane; j < C; j += STRIDE) { wtot += wc(j); }
  wtot = wg_sum(lane, wtot);
  let eps = pf(5u);
  let sm = eps / f32(C);
  let wy = wc(u32(tr));
  let av = (1.0 - eps) * wy + sm * wtot;
  let sr = S[pu(6u) + row];
  for (var j = lane; j < C; j += STRIDE) {
    var v = sr * (av * exp(X[xb + j] - lse) - sm * wc(j));
    if (j == u32(tr)) { v -= sr * (1.0 - eps) * wy; }
    DX[db + j] = select(v, 0.0, ignored);
  }`, W, C);
  },

  cross_entropy_probs_f32(ctx, a) {
    const x = operand(ctx, a), q = operand(ctx, a), w = operand(ctx, a);
    const R = a.num(), C = a.num(), eps = a.num();
    const loss = operand(ctx, a);
    const p = new Params().u(R).u(x.at).u(C).u(q.at).u(0).f(eps).u(loss.at).u(0).u(w.at).u(w.none ? 0 : 1);
    perRow(ctx, 'ce_probs', [f('X', x.buffer), f('Q', q.buffer), f('WT', w.buffer), f('L', loss.buffer, true)], p, R, /* wgsl */ `
  let C = pu(2u);
  let xb = pu(1u) + row * C;
  let qb = pu(3u) + row * C;
  ${ROW_LSE}
  let eps = pf(5u);
  var v = 0.0;
  for (var j = lane; j < C; j += STRIDE) { v -= wc(j) * ((1.0 - eps) * Q[qb + j] + eps / f32(C)) * (X[xb + j] - lse); }
  v = wg_sum(lane, v);
  if (lane == 0u) { L[pu(6u) + row] = v; }`, W, C);
  },

  cross_entropy_probs_backward_f32(ctx, a) {
    const x = operand(ctx, a), q = operand(ctx, a), w = operand(ctx, a);
    const R = a.num(), C = a.num(), eps = a.num();
    const s = operand(ctx, a), dx = operand(ctx, a), dq = operand(ctx, a);
    const p = new Params().u(R).u(x.at).u(C).u(q.at).u(dq.at).f(eps).u(s.at).u(dx.at).u(w.at).u(w.none ? 0 : 1).u(dq.none ? 0 : 1);
    perRow(ctx, 'ce_probs_back',
      [f('X', x.buffer), f('Q', q.buffer), f('WT', w.buffer), f('S', s.buffer), f('DX', dx.buffer, true), f('DQ', dq.buffer, true)], p, R, /* wgsl */ `
  let C = pu(2u);
  let xb = pu(1u) + row * C;
  let qb = pu(3u) + row * C;
  let db = pu(7u) + row * C;
  ${ROW_LSE}
  let eps = pf(5u);
  let sm = eps / f32(C);
  var av = 0.0;
  for (var j = lane; j < C; j += STRIDE) { av += wc(j) * ((1.0 - eps) * Q[qb + j] + sm); }
  av = wg_sum(lane, av);
  let sr = S[pu(6u) + row];
  for (var j = lane; j < C; j += STRIDE) {
    DX[db + j] = sr * (av * exp(X[xb + j] - lse) - wc(j) * ((1.0 - eps) * Q[qb + j] + sm));
    if (pu(10u) != 0u) { DQ[pu(4u) + row * C + j] = -sr * (1.0 - eps) * wc(j) * (X[xb + j] - lse); }
  }`, W, C);
  },

  nll_f32(ctx, a) {
    const x = operand(ctx, a), t = operand(ctx, a), w = operand(ctx, a);
    const R = a.num(), C = a.num(), ignore = a.num();
    const loss = operand(ctx, a), wt = operand(ctx, a);
    const p = new Params().u(R).u(x.at).u(C).u(t.at).i(ignore).u(0).u(loss.at).u(wt.at).u(w.at).u(w.none ? 0 : 1);
    run(ctx, 'nll', [f('X', x.buffer), i('T', t.buffer), f('WT', w.buffer), f('L', loss.buffer, true), f('LW', wt.buffer, true)], p, R, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let tr = T[pu(3u) + id];
  if (tr == pi(4u)) { L[pu(6u) + id] = 0.0; LW[pu(7u) + id] = 0.0; return; }
  let wy = wc(u32(tr));
  L[pu(6u) + id] = -wy * X[pu(1u) + id * pu(2u) + u32(tr)];
  LW[pu(7u) + id] = wy;`, W);
  },

  nll_backward_f32(ctx, a) {
    const t = operand(ctx, a), w = operand(ctx, a);
    const R = a.num(), C = a.num(), ignore = a.num();
    const s = operand(ctx, a), dx = operand(ctx, a);
    const p = new Params().u(R).u(0).u(C).u(t.at).i(ignore).u(0).u(s.at).u(dx.at).u(w.at).u(w.none ? 0 : 1);
    run(ctx, 'nll_back', [i('T', t.buffer), f('WT', w.buffer), f('S', s.buffer), f('DX', dx.buffer, true)], p, R, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let tr = T[pu(3u) + id];
  if (tr == pi(4u)) { return; }
  DX[pu(7u) + id * pu(2u) + u32(tr)] = -S[pu(6u) + id] * wc(u32(tr));`, W);
  },

  batch_norm_stats_f32(ctx, a) {
    const x = operand(ctx, a);
    const N = a.num(), C = a.num(), S = a.num(), eps = a.num();
    const mean = operand(ctx, a), v = operand(ctx, a), rstd = operand(ctx, a);
    const p = new Params().u(C).u(x.at).u(N).u(S).f(eps).u(mean.at).u(v.at).u(rstd.at);
    perRow(ctx, 'bn_stats', [f('X', x.buffer), f('MEAN', mean.buffer, true), f('VAR', v.buffer, true), f('RSTD', rstd.buffer, true)], p, C, /* wgsl */ `
  let N = pu(2u); let S = pu(3u); let C = pu(0u);
  let M = N * S;
  var s = 0.0;
  for (var e = lane; e < M; e += STRIDE) { s += X[pu(1u) + ((e / S) * C + row) * S + e % S]; }
  let mu = wg_sum(lane, s) / f32(M);
  var q = 0.0;
  for (var e = lane; e < M; e += STRIDE) { let d = X[pu(1u) + ((e / S) * C + row) * S + e % S] - mu; q += d * d; }
  let vr = wg_sum(lane, q) / f32(M);
  if (lane == 0u) { MEAN[pu(5u) + row] = mu; VAR[pu(6u) + row] = vr; RSTD[pu(7u) + row] = 1.0 / sqrt(vr + pf(4u)); }`, '', N * S);
  },

  batch_norm_apply_f32(ctx, a) {
    const x = operand(ctx, a);
    const N = a.num(), C = a.num(), S = a.num();
    const mean = operand(ctx, a), rstd = operand(ctx, a), w = operand(ctx, a), b = operand(ctx, a), y = operand(ctx, a);
    const p = new Params().u(N * C * S).u(x.at).u(C).u(S).u(mean.at).u(rstd.at).u(w.at).u(b.at).u(y.at).u(w.none ? 0 : 1).u(b.none ? 0 : 1);
    run(ctx, 'bn_apply', [f('X', x.buffer), f('MEAN', mean.buffer), f('RSTD', rstd.buffer), f('WT', w.buffer), f('B', b.buffer), f('Y', y.buffer, true)], p, N * C * S, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let c = (id / pu(3u)) % pu(2u);
  var scale = RSTD[pu(5u) + c];
  if (pu(9u) != 0u) { scale = scale * WT[pu(6u) + c]; }
  var shift = 0.0;
  if (pu(10u) != 0u) { shift = B[pu(7u) + c]; }
  Y[pu(8u) + id] = (X[pu(1u) + id] - MEAN[pu(4u) + c]) * scale + shift;`);
  },

  batch_norm_backward_f32(ctx, a) {
    const x = operand(ctx, a), g = operand(ctx, a);
    const N = a.num(), C = a.num(), S = a.num();
    const mean = operand(ctx, a), rstd = operand(ctx, a), w = operand(ctx, a);
    const sg = operand(ctx, a), sgx = operand(ctx, a), dx = operand(ctx, a);
    const p = new Params().u(C).u(x.at).u(N).u(S).u(g.at).u(mean.at).u(rstd.at).u(w.at).u(sg.at).u(sgx.at).u(dx.at)
      .u(w.none ? 0 : 1).u(dx.none ? 0 : 1);
    perRow(ctx, 'bn_back',
      [f('X', x.buffer), f('G', g.buffer), f('MEAN', mean.buffer), f('RSTD', rstd.buffer), f('WT', w.buffer),
        f('SG', sg.buffer, true), f('SGX', sgx.buffer, true), f('DX', dx.buffer, true)], p, C, /* wgsl */ `
  let N = pu(2u); let S = pu(3u); let C = pu(0u);
  let M = N * S;
  let mu = MEAN[pu(5u) + row]; let rs = RSTD[pu(6u) + row];
  var a = 0.0; var b = 0.0;
  for (var e = lane; e < M; e += STRIDE) {
    let at = ((e / S) * C + row) * S + e % S;
    let q = G[pu(4u) + at];
    a += q; b += q * ((X[pu(1u) + at] - mu) * rs);
  }
  let sa = wg_sum(lane, a);
  let sb = wg_sum(lane, b);
  if (lane == 0u) { SG[pu(8u) + row] = sa; SGX[pu(9u) + row] = sb; }
  if (pu(12u) == 0u) { return; }
  var k = rs;
  if (pu(11u) != 0u) { k = k * WT[pu(7u) + row]; }
  let mg = sa / f32(M); let mgx = sb / f32(M);
  for (var e = lane; e < M; e += STRIDE) {
    let at = ((e / S) * C + row) * S + e % S;
    DX[pu(10u) + at] = k * (G[pu(4u) + at] - mg - (X[pu(1u) + at] - mu) * rs * mgx);
  }`, '', N * S);
  },

  rmsprop_step_f32(ctx, a) {
    const pp = operand(ctx, a), g = operand(ctx, a), sq = operand(ctx, a), ga = operand(ctx, a), buf = operand(ctx, a);
    const n = a.num();
    const p = new Params().u(n).u(pp.at).u(g.at).u(sq.at).u(ga.at).u(buf.at);
    for (let k = 0; k < 7; k++) p.f(a.num()); // words 6..12: sign, wd, alpha, 1-alpha, eps, momentum, neg_lr
    for (let k = 0; k < 3; k++) p.u(a.num()); // 13..15: has_wd, centered, has_momentum
    run(ctx, 'rmsprop', [f('P', pp.buffer, true), f('G', g.buffer), f('SQ', sq.buffer, true), f('GA', ga.buffer, true), f('BUF', buf.buffer, true)], p, n, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  var gv = G[pu(2u) + id] * pf(6u);
  if (pu(13u) != 0u) { gv = gv + pf(7u) * P[pu(1u) + id]; }
  let sq = SQ[pu(3u) + id] * pf(8u) + (pf(9u) * gv) * gv;
  SQ[pu(3u) + id] = sq;
  var avg = 0.0;
  if (pu(14u) != 0u) {
    let ga = GA[pu(4u) + id] * pf(8u) + pf(9u) * gv;
    GA[pu(4u) + id] = ga;
    avg = sqrt(sq - ga * ga);
  } else { avg = sqrt(sq); }
  avg = avg + pf(10u);
  if (pu(15u) != 0u) {
    let b = BUF[pu(5u) + id] * pf(11u) + gv / avg;
    BUF[pu(5u) + id] = b;
    P[pu(1u) + id] = P[pu(1u) + id] + pf(12u) * b;
  } else {
    P[pu(1u) + id] = P[pu(1u) + id] + (pf(12u) * gv) / avg;
  }`);
  },

  adagrad_step_f32(ctx, a) {
    const pp = operand(ctx, a), g = operand(ctx, a), sum = operand(ctx, a);
    const n = a.num();
    const p = new Params().u(n).u(pp.at).u(g.at).u(sum.at);
    for (let k = 0; k < 4; k++) p.f(a.num()); // 4..7: sign, wd, eps, neg_clr
    p.u(a.num()); // 8: has_wd
    run(ctx, 'adagrad', [f('P', pp.buffer, true), f('G', g.buffer), f('SUM', sum.buffer, true)], p, n, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  var gv = G[pu(2u) + id] * pf(4u);
  if (pu(8u) != 0u) { gv = gv + pf(5u) * P[pu(1u) + id]; }
  let sv = SUM[pu(3u) + id] + gv * gv;
  SUM[pu(3u) + id] = sv;
  let stdv = sqrt(sv) + pf(6u);
  P[pu(1u) + id] = P[pu(1u) + id] + (pf(7u) * gv) / stdv;`);
  },

  adadelta_step_f32(ctx, a) {
    const pp = operand(ctx, a), g = operand(ctx, a), sq = operand(ctx, a), acc = operand(ctx, a);
    const n = a.num();
    const p = new Params().u(n).u(pp.at).u(g.at).u(sq.at).u(acc.at);
    for (let k = 0; k < 6; k++) p.f(a.num()); // 5..10: sign, wd, rho, 1-rho, eps, neg_lr
    p.u(a.num()); // 11: has_wd
    run(ctx, 'adadelta', [f('P', pp.buffer, true), f('G', g.buffer), f('SQ', sq.buffer, true), f('ACC', acc.buffer, true)], p, n, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  var gv = G[pu(2u) + id] * pf(5u);
  if (pu(11u) != 0u) { gv = gv + pf(6u) * P[pu(1u) + id]; }
  let sq = SQ[pu(3u) + id] * pf(7u) + (pf(8u) * gv) * gv;
  SQ[pu(3u) + id] = sq;
  let delta = sqrt(ACC[pu(4u) + id] + pf(9u)) / sqrt(sq + pf(9u)) * gv;
  ACC[pu(4u) + id] = ACC[pu(4u) + id] * pf(7u) + (pf(8u) * delta) * delta;
  P[pu(1u) + id] = P[pu(1u) + id] + pf(10u) * delta;`);
  },

  adamax_step_f32(ctx, a) {
    const pp = operand(ctx, a), g = operand(ctx, a), m = operand(ctx, a), u = operand(ctx, a);
    const n = a.num();
    const p = new Params().u(n).u(pp.at).u(g.at).u(m.at).u(u.at);
    for (let k = 0; k < 7; k++) p.f(a.num()); // 5..11: sign, wd, beta1, 1-beta1, beta2, eps, neg_clr
    p.u(a.num()); // 12: has_wd
    run(ctx, 'adamax', [f('P', pp.buffer, true), f('G', g.buffer), f('M', m.buffer, true), f('UINF', u.buffer, true)], p, n, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  var gv = G[pu(2u) + id] * pf(5u);
  if (pu(12u) != 0u) { gv = gv + pf(6u) * P[pu(1u) + id]; }
  let mv = M[pu(3u) + id] * pf(7u) + pf(8u) * gv;
  let uv = maximum_f(UINF[pu(4u) + id] * pf(9u), abs(gv) + pf(10u));
  M[pu(3u) + id] = mv;
  UINF[pu(4u) + id] = uv;
  P[pu(1u) + id] = P[pu(1u) + id] + (pf(11u) * mv) / uv;`);
  },

  nadam_step_f32(ctx, a) {
    const pp = operand(ctx, a), g = operand(ctx, a), m = operand(ctx, a), v = operand(ctx, a);
    const n = a.num();
    const p = new Params().u(n).u(pp.at).u(g.at).u(m.at).u(v.at);
    moments(a, p); // 5..11
    for (let k = 0; k < 3; k++) p.f(a.num()); // 12..14: bc2, grad_coef, avg_coef
    run(ctx, 'nadam', [f('P', pp.buffer, true), f('G', g.buffer), f('M', m.buffer, true), f('V', v.buffer, true)], p, n, MOMENTS + /* wgsl */ `
  let denom = sqrt(V[pu(4u) + id] / pf(12u)) + pf(10u);
  let pv = P[pu(1u) + id] + (pf(13u) * gv) / denom;
  P[pu(1u) + id] = pv + (pf(14u) * M[pu(3u) + id]) / denom;`);
  },

  radam_step_f32(ctx, a) {
    const pp = operand(ctx, a), g = operand(ctx, a), m = operand(ctx, a), v = operand(ctx, a);
    const n = a.num();
    const p = new Params().u(n).u(pp.at).u(g.at).u(m.at).u(v.at);
    moments(a, p); // 5..11
    for (let k = 0; k < 4; k++) p.f(a.num()); // 12..15: bc1, lr, bc2_sqrt, rect
    p.u(a.num()); // 16: rectified
    run(ctx, 'radam', [f('P', pp.buffer, true), f('G', g.buffer), f('M', m.buffer, true), f('V', v.buffer, true)], p, n, MOMENTS + /* wgsl */ `
  let step = (M[pu(3u) + id] / pf(12u)) * pf(13u);
  if (pu(16u) != 0u) {
    let adaptive = (1.0 / (sqrt(V[pu(4u) + id]) + pf(10u))) * pf(14u);
    P[pu(1u) + id] = P[pu(1u) + id] - (step * adaptive) * pf(15u);
  } else {
    P[pu(1u) + id] = P[pu(1u) + id] - step;
  }`);
  },
};

// NAdam's and RAdam's shared moments (optim_scalars.h MomentsScalars): words 5..11 are wd,
// beta1, 1 − beta1, beta2, 1 − beta2, eps, has_wd.
function moments(a: Parameters<KernelFn>[1], p: Params): void {
  for (let k = 0; k < 6; k++) p.f(a.num());
  p.u(a.num());
}

// The start of both kernels: the bounds check, g (with weight decay), m and v updated.
const MOMENTS = /* wgsl */ `
  if (id >= pu(0u)) { return; }
  var gv = G[pu(2u) + id];
  if (pu(11u) != 0u) { gv = gv + pf(5u) * P[pu(1u) + id]; }
  M[pu(3u) + id] = M[pu(3u) + id] * pf(6u) + pf(7u) * gv;
  V[pu(4u) + id] = V[pu(4u) + id] * pf(8u) + (pf(9u) * gv) * gv;
`;
