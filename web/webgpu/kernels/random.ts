// Random fills from the library's Philox4x32-10 stream (src/core/rng.h): word w of the
// stream of `seed` is lane w % 4 of block w / 4, so invocation i computes its own words and
// draws exactly what the host generator would from the same state. The float conversion runs
// in f32 here where the host rounds once from double (uniform: within an ulp; normal: the
// host's own note says its last ulp differs across libms too).
import { Params } from '../params.js';
import { operand, run, type KernelFn } from './common.js';

const PHILOX = /* wgsl */ `
fn mulhilo(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;
  let p00 = a0 * b0; let p01 = a0 * b1; let p10 = a1 * b0; let p11 = a1 * b1;
  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return vec2<u32>(p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u), a * b);
}
fn philox(ctr0: vec4<u32>, key0: vec2<u32>) -> vec4<u32> {
  var c = ctr0; var k = key0;
  for (var r = 0u; r < 10u; r++) {
    if (r > 0u) { k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u); }
    let m0 = mulhilo(0xD2511F53u, c.x);
    let m1 = mulhilo(0xCD9E8D57u, c.z);
    c = vec4<u32>(m1.x ^ c.y ^ k.x, m1.y, m0.x ^ c.w ^ k.y, m0.y);
  }
  return c;
}
// Word (offset + j) of the stream whose state is in words 1..4 (seed lo/hi, offset lo/hi).
fn word(j: u32) -> u32 {
  let lo = pu(3u) + j;
  let hi = pu(4u) + select(0u, 1u, lo < pu(3u));
  let block = vec4<u32>((lo >> 2u) | (hi << 30u), hi >> 2u, 0u, 0u);
  let w = philox(block, vec2<u32>(pu(1u), pu(2u)));
  return w[lo & 3u];
}
`;

function state(a: Parameters<KernelFn>[1], p: Params): void {
  for (let k = 0; k < 4; k++) p.u(a.num());
}

export const random: Record<string, KernelFn> = {
  random_uniform_f32(ctx, a) {
    const p = new Params();
    p.u(0);
    state(a, p);
    const lo = a.num(), hi = a.num();
    const dst = operand(ctx, a);
    const n = a.num();
    p.words[0] = n;
    p.f(lo).f(hi).u(dst.at);
    run(ctx, 'rand_uniform', [{ name: 'Y', type: 'f32', buffer: dst.buffer, write: true }], p, n, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let lo = pf(5u); let hi = pf(6u);
  let u = f32(word(id) >> 8u) * (1.0 / 16777216.0);
  var v = lo + (hi - lo) * u;
  if (v >= hi && lo < hi) { v = bitcast<f32>(bitcast<u32>(hi) + select(0xffffffffu, 1u, hi < 0.0)); }
  Y[pu(7u) + id] = v;`, PHILOX);
  },

  random_normal_f32(ctx, a) {
    const p = new Params();
    p.u(0);
    state(a, p);
    const mean = a.num(), std = a.num();
    const dst = operand(ctx, a);
    const n = a.num();
    p.words[0] = Math.ceil(n / 2);
    p.f(mean).f(std).u(dst.at).u(n);
    run(ctx, 'rand_normal', [{ name: 'Y', type: 'f32', buffer: dst.buffer, write: true }], p, Math.ceil(n / 2), /* wgsl */ `
  if (id >= pu(0u)) { return; }
  // u1 = (w + 1)·2^-32 in (0, 1]; near 1, log(u1) comes from 1 − u1 = ~w·2^-32 (exact in u32).
  let w = word(2u * id);
  var lu: f32;
  if (w >= 0x80000000u) { lu = log1p_f(-f32(~w) * 2.3283064365386963e-10); }
  else { lu = log(f32(w + 1u) * 2.3283064365386963e-10); }
  let r = sqrt(-2.0 * lu);
  let theta = 6.283185307179586 * (f32(word(2u * id + 1u)) * 2.3283064365386963e-10);
  let sc = sincos_f(theta);
  Y[pu(7u) + 2u * id] = pf(5u) + pf(6u) * r * sc.y;
  if (2u * id + 1u < pu(8u)) { Y[pu(7u) + 2u * id + 1u] = pf(5u) + pf(6u) * r * sc.x; }`, PHILOX);
  },
};
