// Convolutions as implicit GEMMs: conv2d forward, its input gradient (also conv_transpose2d's
// forward, with its bias) and its weight gradient, each a product whose operands are gathered
// from the image on the fly (no im2col buffer), per group (workgroup z). Twins of
// src/kernels/reference/conv.cpp (double accumulators there, f32 here: tolerance 1e-4).
//
//   forward      Y[n, o, l]  = Σ_p W[o, p] · col(x)[p, (n, l)]      (M = O/g, N = N·oH·oW, K = C/g·kH·kW)
//   input grad   dX[n, c, s] = Σ_p W'[c, p] · gather(dy)[p, (n, s)]  (M = C/g, N = N·H·W,  K = O/g·kH·kW)
//   weight grad  dW[o, q]    = Σ_p dY[o, p] · col(x)ᵀ[p, q]          (M = O/g, N = C/g·kH·kW, K = N·oH·oW)
//
// The input gradient gathers, for each input position, the outputs that read it (no scatter,
// no atomics: deterministic). The weight gradient's depth (every image position) is long and
// its output small, so it is split into slices whose partial products a second kernel sums in
// slice order (also deterministic).
import { Params } from '../params.js';
import { MATH, UNARY } from './math.js';
import { prelude } from './prelude.js';
import { declare, operand, run, type KernelContext, type KernelFn, type Operand } from './common.js';
import type { ArgReader } from '../arg_reader.js';
import type { BufferLike } from '../gpu_types.js';

const TILE = 32;
const DEPTH = 16;
// Depth per slice of the weight gradient, and at most this many slices.
const SLICE_DEPTH = 256;
const MAX_SLICES = 1024;

/** ConvGeom (kernels/conv_geom.h) in the order bindings/webgpu_backend.cpp writes it. */
export interface ConvGeom {
  N: number; C: number; H: number; W: number; O: number; groups: number;
  kH: number; kW: number; sH: number; sW: number; pH: number; pW: number; dH: number; dW: number;
  oH: number; oW: number;
}
const CONV_FIELDS = ['N', 'C', 'H', 'W', 'O', 'groups', 'kH', 'kW', 'sH', 'sW', 'pH', 'pW', 'dH', 'dW', 'oH', 'oW'] as const;

export function readConvGeom(a: ArgReader): ConvGeom {
  const g = {} as Record<string, number>;
  for (const k of CONV_FIELDS) g[k] = a.num();
  return g as unknown as ConvGeom;
}

// Parameter words: 0–2 the product's m, n, k; 3 the depth of a slice; 4 the slices; 5 the first
// column tile of this dispatch; 8 the images; 9–23 the rest of the geometry (CONV_FIELDS after N);
// 24–27 the element offsets of the four bindings. Geometry fields are constants of the WGSL
// source where the pipeline is specialised for them: on CPU-emulated adapters a uniform read and
// an integer division by a variable cost several times the multiply-add they feed. The pipelines
// are keyed by shape class, three levels deep, so that their number stays bounded however many
// shapes a program meets (a new sequence length or image size is a new geometry):
//   exact   every field a constant: the first prefs.convExact geometries seen (a model's layers
//           at its usual input size; EXACT_GEOMETRIES by default);
//   layer   kernel, stride, padding, dilation and groups constants, the sizes (channels, image,
//           output) from the parameters: the first prefs.convLayers such classes after that;
//   generic every field from the parameters: one pipeline per product, bias and activation.
const OFFSETS_AT = 24;
const GEOM_AT = 9;
export const EXACT_GEOMETRIES = 24;
export const LAYER_CLASSES = 24;
const LAYER_FIELDS = new Set(['groups', 'kH', 'kW', 'sH', 'sW', 'pH', 'pW', 'dH', 'dW']);
type Level = 'exact' | 'layer' | 'generic';

function geomCode(g: ConvGeom, bias: boolean, act: number, level: Level): string {
  const fields = CONV_FIELDS.filter((f) => f !== 'N')
    .map((f, i) => {
      const constant = level === 'exact' || (level === 'layer' && LAYER_FIELDS.has(f));
      return `fn g${f === 'groups' ? 'G' : f}() -> i32 { return ${constant ? g[f] : `pi(${GEOM_AT + i}u)`}; }`;
    })
    .join('\n');
  return /* wgsl */ `
fn gN() -> i32 { return pi(8u); }
${fields}
const HAS_BIAS = ${bias};
const ACT = ${act}u;
fn gCg() -> i32 { return gC() / gG(); }
fn gOg() -> i32 { return gO() / gG(); }
fn gKK() -> i32 { return gkH() * gkW(); }
var<private> OFF: vec4<u32>;
fn off(b: u32) -> u32 { return OFF[b]; }
`;
}

/** The fields a level's pipeline holds as constants, as a key. */
function levelKey(g: ConvGeom, level: Level): string {
  if (level === 'generic') return 'generic';
  return CONV_FIELDS.filter((f) => f !== 'N' && (level === 'exact' || LAYER_FIELDS.has(f))).map((f) => g[f]).join(',');
}

// The geometries and layer classes given pipelines of their own so far, per device.
const seen = new WeakMap<KernelContext, { exact: Set<string>; layer: Set<string> }>();

/** The most specialised level whose pipeline exists already or may still be made. */
function levelFor(ctx: KernelContext, g: ConvGeom): Level {
  let s = seen.get(ctx);
  if (!s) seen.set(ctx, (s = { exact: new Set(), layer: new Set() }));
  const exact = levelKey(g, 'exact'), layer = levelKey(g, 'layer');
  if (s.exact.has(exact)) return 'exact';
  if (s.exact.size < ctx.prefs.convExact) {
    s.exact.add(exact);
    return 'exact';
  }
  if (s.layer.has(layer)) return 'layer';
  if (s.layer.size < ctx.prefs.convLayers) {
    s.layer.add(layer);
    return 'layer';
  }
  return 'generic';
}

// x[n, g·Cg + c] at output position (oh, ow) with tap (a, b), 0 in the padding; X is binding 0.
const X_AT = /* wgsl */ `
fn x_at(g: i32, c: i32, a: i32, b: i32, n: i32, oh: i32, ow: i32) -> f32 {
  let h = oh * gsH() - gpH() + a * gdH();
  let w = ow * gsW() - gpW() + b * gdW();
  if (h < 0 || h >= gH() || w < 0 || w >= gW()) { return 0.0; }
  return X[off(0u) + u32(((n * gC() + g * gCg() + c) * gH() + h) * gW() + w)];
}
`;

// Each product defines a_at(g, i, p) and b_at(g, p, j) (called only inside m × k and k × n)
// and store(g, s, i, j, v) (s: the slice).
const PRODUCTS = {
  forward: /* wgsl */ `
fn a_at(g: i32, i: i32, p: i32) -> f32 { return WT[off(1u) + u32((g * gOg() + i) * gCg() * gKK() + p)]; }
fn b_at(g: i32, p: i32, j: i32) -> f32 {
  let L = goH() * goW();
  let l = j % L; let r = p % gKK();
  return x_at(g, p / gKK(), r / gkW(), r % gkW(), j / L, l / goW(), l % goW());
}
fn store(g: i32, s: u32, i: i32, j: i32, v: f32) {
  let o = g * gOg() + i;
  let L = goH() * goW();
  var x = v;
  if (HAS_BIAS) { x += BIAS[off(2u) + u32(o)]; }
  let p = 0.0;
  if (ACT != 0u) { x = ${UNARY[16]}; }
  Y[off(3u) + u32(((j / L) * gO() + o) * L + j % L)] = x;
}
`,
  data: /* wgsl */ `
fn a_at(g: i32, i: i32, p: i32) -> f32 {
  return WT[off(1u) + u32(((g * gOg() + p / gKK()) * gCg() + i) * gKK() + p % gKK())];
}
fn b_at(g: i32, p: i32, j: i32) -> f32 {
  let HW = gH() * gW();
  let n = j / HW; let hw = j % HW;
  let r = p % gKK();
  let th = hw / gW() + gpH() - (r / gkW()) * gdH();
  let tw = hw % gW() + gpW() - (r % gkW()) * gdW();
  if (th < 0 || tw < 0 || th % gsH() != 0 || tw % gsW() != 0) { return 0.0; }
  let i = th / gsH(); let jj = tw / gsW();
  if (i >= goH() || jj >= goW()) { return 0.0; }
  return X[off(0u) + u32(((n * gO() + g * gOg() + p / gKK()) * goH() + i) * goW() + jj)];
}
fn store(g: i32, s: u32, i: i32, j: i32, v: f32) {
  let c = g * gCg() + i;
  let HW = gH() * gW();
  var x = v;
  if (HAS_BIAS) { x += BIAS[off(2u) + u32(c)]; }
  Y[off(3u) + u32(((j / HW) * gC() + c) * HW + j % HW)] = x;
}
`,
  // BIAS is dY here (binding 2), Y the slices' partial sums [slices, O, Cg·kK] (or dW itself).
  weight: /* wgsl */ `
fn a_at(g: i32, i: i32, p: i32) -> f32 {
  let L = goH() * goW();
  return BIAS[off(2u) + u32(((p / L) * gO() + g * gOg() + i) * L + p % L)];
}
fn b_at(g: i32, p: i32, j: i32) -> f32 {
  let L = goH() * goW();
  let l = p % L; let r = j % gKK();
  return x_at(g, j / gKK(), r / gkW(), r % gkW(), p / L, l / goW(), l % goW());
}
fn store(g: i32, s: u32, i: i32, j: i32, v: f32) {
  let K = gCg() * gKK();
  Y[off(3u) + s * u32(gO() * K) + u32((g * gOg() + i) * K + j)] = v;
}
`,
};
type Product = keyof typeof PRODUCTS;

// Bindings of every product: X (the gathered input: x, or dY for the input gradient), WT, BIAS
// (dY for the weight gradient), Y (the output).
const BINDS = [
  { name: 'X', type: 'f32' },
  { name: 'WT', type: 'f32' },
  { name: 'BIAS', type: 'f32' },
  { name: 'Y', type: 'f32', write: true },
];

// The product's workgroup: a TILE × TILE block of the output, 8 × 8 invocations of 4 × 4 each;
// group and slice from workgroup z.
const MAIN_HEAD = /* wgsl */ `
  let m = pu(0u); let n = pu(1u); let k = pu(2u);
  let g = wg.z / pu(4u); let s = wg.z % pu(4u);
  let pb = s * pu(3u); let pe = min(k, pb + pu(3u));
  OFF = vec4<u32>(pu(${OFFSETS_AT}u), pu(${OFFSETS_AT + 1}u), pu(${OFFSETS_AT + 2}u), pu(${OFFSETS_AT + 3}u));
`;

/** Operands through workgroup memory (GPUs). */
function tiledCode(product: Product, geom: string): string {
  return /* wgsl */ `
${declare(BINDS)}${prelude(BINDS.length)}${MATH}${geom}${X_AT}${PRODUCTS[product]}
var<workgroup> ta: array<f32, ${TILE * DEPTH}>;  // [TILE rows][DEPTH]
var<workgroup> tb: array<f32, ${DEPTH * TILE}>;  // [DEPTH][TILE cols]
@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
${MAIN_HEAD}
  let row0 = wg.y * ${TILE}u; let col0 = (wg.x + pu(5u)) * ${TILE}u;
  var acc: array<f32, 16>;
  for (var q = 0u; q < 16u; q++) { acc[q] = 0.0; }
  for (var p0 = pb; p0 < pe; p0 += ${DEPTH}u) {
    for (var e = 0u; e < 8u; e++) {
      let t = lid * 8u + e;
      let i = row0 + t / ${DEPTH}u; let p = p0 + t % ${DEPTH}u;
      var av = 0.0;
      if (i < m && p < pe) { av = a_at(i32(g), i32(i), i32(p)); }
      ta[t] = av;
      let j = col0 + t % ${TILE}u; let p2 = p0 + t / ${TILE}u;
      var bv = 0.0;
      if (j < n && p2 < pe) { bv = b_at(i32(g), i32(p2), i32(j)); }
      tb[t] = bv;
    }
    workgroupBarrier();
    for (var d = 0u; d < ${DEPTH}u; d++) {
      var av: array<f32, 4>;
      for (var u = 0u; u < 4u; u++) { av[u] = ta[(l.y * 4u + u) * ${DEPTH}u + d]; }
      for (var t = 0u; t < 4u; t++) {
        let bv = tb[d * ${TILE}u + l.x * 4u + t];
        for (var u = 0u; u < 4u; u++) { acc[u * 4u + t] += av[u] * bv; }
      }
    }
    workgroupBarrier();
  }
  for (var u = 0u; u < 4u; u++) {
    let i = row0 + l.y * 4u + u;
    for (var t = 0u; t < 4u; t++) {
      let j = col0 + l.x * 4u + t;
      if (i < m && j < n) { store(i32(g), s, i32(i), i32(j), acc[u * 4u + t]); }
    }
  }
}
`;
}

/** Registers only (CPU-emulated adapters, where a barrier is a fiber switch): 4 × 4 per invocation. */
function directCode(product: Product, geom: string): string {
  return /* wgsl */ `
${declare(BINDS)}${prelude(BINDS.length)}${MATH}${geom}${X_AT}${PRODUCTS[product]}
@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
${MAIN_HEAD}
  let i0 = wg.y * ${TILE}u + l.y * 4u; let j0 = (wg.x + pu(5u)) * ${TILE}u + l.x * 4u;
  if (i0 >= m || j0 >= n) { return; }
  // Rows and columns past the edge read the last valid one (their results are not stored).
  let r = vec4<i32>(vec4<u32>(i0, min(i0 + 1u, m - 1u), min(i0 + 2u, m - 1u), min(i0 + 3u, m - 1u)));
  let c = vec4<i32>(vec4<u32>(j0, min(j0 + 1u, n - 1u), min(j0 + 2u, n - 1u), min(j0 + 3u, n - 1u)));
  let gi = i32(g);
  var acc: array<vec4<f32>, 4>;
  for (var p = pb; p < pe; p++) {
    let q = i32(p);
    let b = vec4<f32>(b_at(gi, q, c.x), b_at(gi, q, c.y), b_at(gi, q, c.z), b_at(gi, q, c.w));
    acc[0] += a_at(gi, r.x, q) * b;
    acc[1] += a_at(gi, r.y, q) * b;
    acc[2] += a_at(gi, r.z, q) * b;
    acc[3] += a_at(gi, r.w, q) * b;
  }
  for (var u = 0u; u < 4u; u++) {
    let i = i0 + u;
    for (var t = 0u; t < 4u; t++) {
      if (i < m && j0 + t < n) { store(gi, s, i32(i), i32(j0 + t), acc[u][t]); }
    }
  }
}
`;
}

/** Dispatches one implicit product over every group (and slice). */
function product(
  ctx: KernelContext,
  kind: Product,
  g: ConvGeom,
  mnk: [number, number, number],
  buffers: Operand[],
  opts: { bias?: boolean; act?: number; slices?: number } = {},
): void {
  const [m, n, k] = mnk;
  if (m <= 0 || n <= 0) return;
  const slices = opts.slices ?? 1;
  const depth = Math.ceil(k / slices / DEPTH) * DEPTH;
  const p = new Params().u(m).u(n).u(k).u(depth).u(slices).u(0).u(0).u(0).i(g.N);
  for (const f of CONV_FIELDS) if (f !== 'N') p.i(g[f]);
  p.length = OFFSETS_AT;
  for (const b of buffers) p.u(b.at);
  const bias = !!opts.bias, act = opts.act ?? 0;
  const gx = Math.ceil(n / TILE), gy = Math.ceil(m / TILE), gz = g.groups * slices;
  const maxDim = ctx.limits.maxComputeWorkgroupsPerDimension;
  if (gy > maxDim || gz > maxDim) {
    throw new Error(`webgpu: a convolution whose product is ${m} × ${n} (${g.groups} groups) is larger than one dispatch allows`);
  }
  const direct = ctx.prefs.gemm === 'direct';
  const level = levelFor(ctx, g);
  const spec = {
    key: `conv_${kind}_${direct ? 'direct' : 'tiled'}|${level}|${levelKey(g, level)}|${+bias}|${act}`,
    access: ['read', 'read', 'read', 'write'] as const,
    code: () => (direct ? directCode : tiledCode)(kind, geomCode(g, bias, act, level)),
  };
  // Column tiles past one dispatch's limit go in further dispatches, from tile word 5 on.
  for (let first = 0; first < gx; first += maxDim) {
    p.words[5] = first;
    ctx.dispatch3d(spec, buffers.map((b) => b.buffer), p, Math.min(maxDim, gx - first), gy, gz);
  }
}

/** y = act(conv(x, w) + bias) into y (an Operand, so that the fused pool can pass a scratch buffer). */
export function convForward(ctx: KernelContext, g: ConvGeom, x: Operand, w: Operand, bias: Operand & { none: boolean }, act: number, y: Operand): void {
  const Cg = g.C / g.groups, Og = g.O / g.groups;
  product(ctx, 'forward', g, [Og, g.N * g.oH * g.oW, Cg * g.kH * g.kW], [x, w, bias, y], { bias: !bias.none, act });
}

export const conv: Record<string, KernelFn> = {
  conv2d_f32(ctx, a) {
    const g = readConvGeom(a);
    const x = operand(ctx, a), w = operand(ctx, a), bias = operand(ctx, a);
    const act = a.num();
    convForward(ctx, g, x, w, bias, act, operand(ctx, a));
  },

  conv2d_backward_data_f32(ctx, a) {
    const g = readConvGeom(a);
    const dy = operand(ctx, a), w = operand(ctx, a), bias = operand(ctx, a), dx = operand(ctx, a);
    const Cg = g.C / g.groups, Og = g.O / g.groups;
    product(ctx, 'data', g, [Cg, g.N * g.H * g.W, Og * g.kH * g.kW], [dy, w, bias, dx], { bias: !bias.none });
  },

  conv2d_backward_weight_f32(ctx, a) {
    const g = readConvGeom(a);
    const x = operand(ctx, a), dy = operand(ctx, a), dw = operand(ctx, a);
    const Cg = g.C / g.groups, Og = g.O / g.groups;
    const depth = g.N * g.oH * g.oW, size = g.O * Cg * g.kH * g.kW;
    const slices = Math.max(1, Math.min(MAX_SLICES, Math.ceil(depth / SLICE_DEPTH)));
    const mnk: [number, number, number] = [Og, Cg * g.kH * g.kW, depth];
    if (slices === 1 || size === 0) {
      product(ctx, 'weight', g, mnk, [x, { buffer: x.buffer, at: 0 }, dy, dw]); // binding 1 unused
      return;
    }
    const partial: Operand = { buffer: scratch(ctx, slices * size * 4, 'the weight gradient\'s partial sums'), at: 0 };
    product(ctx, 'weight', g, mnk, [x, { buffer: x.buffer, at: 0 }, dy, partial], { slices });
    sumSlices(ctx, partial.buffer, slices, size, dw);
  },
};

/** A scratch buffer of this batch of commands, refused with a clear Error past the device's binding limit. */
export function scratch(ctx: KernelContext, bytes: number, what: string): BufferLike {
  const limit = Math.min(ctx.limits.maxStorageBufferBindingSize, ctx.limits.maxBufferSize);
  if (bytes > limit) {
    throw new Error(`webgpu: ${what} need ${bytes} bytes, more than this GPU allows in one buffer (${limit} bytes); use a smaller batch`);
  }
  return ctx.temp(Math.max(bytes, 4));
}

/** dw[e] = Σ_s partial[s·size + e], in slice order. */
function sumSlices(ctx: KernelContext, partial: BufferLike, slices: number, size: number, dw: Operand): void {
  const p = new Params().u(size).u(slices).u(dw.at);
  run(ctx, 'conv_sum_slices', [{ name: 'PART', type: 'f32', buffer: partial }, { name: 'DW', type: 'f32', buffer: dw.buffer, write: true }], p, size, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  var acc = 0.0;
  for (var s = 0u; s < pu(1u); s++) { acc += PART[s * pu(0u) + id]; }
  DW[pu(2u) + id] = acc;`);
}
