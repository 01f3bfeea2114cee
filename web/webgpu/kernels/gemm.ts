// C = act(alpha · op(A) · op(B) + beta · C + bias[j]): tiles of 32 × 32 of C per workgroup of
// 8 × 8 invocations (4 × 4 each), A and B staged through workgroup memory 16 deep; transposed
// operands are read through their strides, never copied. Twin of
// src/kernels/reference/gemm.cpp (which accumulates in double: tolerance 1e-4).
import { Params } from '../params.js';
import { BINARY, UNARY } from './math.js';
import { coalesce, operand, type KernelContext, type KernelFn, type Operand } from './common.js';
import type { KernelSpec } from '../kernel_cache.js';
import type { BufferLike } from '../gpu_types.js';
import { MATH } from './math.js';
import { prelude } from './prelude.js';
import { BLOCK_TILE, blockedCode, blockedFits } from './gemm_blocked.js';

const TILE = 32;
const DEPTH = 16;

// Both GEMM kernels' bindings: A, B, the bias (n floats; a flag says when there is none) and C
// (with an epilogue, D and for a binary op E: see withEpilogue).
const header = (extra = 0) => /* wgsl */ `
@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read> BIAS: array<f32>;
@group(0) @binding(3) var<storage, read_write> C: array<f32>;
${extra > 0 ? '@group(0) @binding(4) var<storage, read_write> D: array<f32>;\n' : ''}${extra > 1 ? '@group(0) @binding(5) var<storage, read> E: array<f32>;\n' : ''}${prelude(4 + extra)}
${MATH}`;
const HEADER = header();

// GemmAct (None, Relu, GeluErf, GeluTanh) as the unary op it applies.
const ACT = ['x', UNARY[16], UNARY[20], UNARY[21]];

/**
 * An elementwise op that reads a product's whole output right after it (linear → GELU while a
 * graph is recorded, a residual add of a projection, matmul → relu written as two ops) fused into
 * the product's write-back: C is stored as before and D[i·n + j] = op(C[i, j]) for a unary op, or
 * op(C[i, j], E[i·n + j]) (either order) for a binary one, with the value C holds: D is what the
 * op's own kernel would write, bit for bit, without its pass over memory or its dispatch.
 * Parameter words 21: D's offset, 22: the unary's parameter, 23: E's offset.
 */
export interface Epilogue {
  op: number;
  param: number;
  out: Operand;
  /** a binary op's other operand, and whether C is its left side */
  other?: Operand;
  cFirst?: boolean;
}

function withEpilogue(src: string, e: Epilogue): string {
  const at = (name: string, word: number) => `${name}[pu(${word}u) + i * pu(1u) + j]`;
  const op = e.other
    ? `let a = ${e.cFirst ? 'y_' : at('E', 23)}; let b = ${e.cFirst ? at('E', 23) : 'y_'}; ${at('D', 21)} = ${BINARY[e.op]};`
    : `let x = y_; let p = pf(22u); ${at('D', 21)} = ${UNARY[e.op]};`;
  const out = src
    .replace(HEADER, header(e.other ? 2 : 1))
    .replace(/C\[at\] = (.*);/, (_, v: string) => `let y_ = ${v};\n      C[at] = y_;\n      { ${op} }`);
  if (out === src) throw new Error('webgpu: internal error: no GEMM write-back to fuse into');
  return out;
}

function code(transA: boolean, transB: boolean, act: number): string {
  // Element (row i, depth p) of op(A) and (depth p, col j) of op(B), through the leading dims.
  const aAt = transA ? 'ao + p * pu(7u) + i' : 'ao + i * pu(7u) + p';
  const bAt = transB ? 'bo + j * pu(9u) + p' : 'bo + p * pu(9u) + j';
  return /* wgsl */ `
${HEADER}
var<workgroup> ta: array<f32, ${TILE * DEPTH}>;  // [TILE rows][DEPTH]
var<workgroup> tb: array<f32, ${DEPTH * TILE}>;  // [DEPTH][TILE cols]

@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let m = pu(0u); let n = pu(1u); let k = pu(2u);
  // Matrix wg.z of a batch (flushGemm): zi = z mod L, zo = z div L (word 20 = L); A, B and C
  // advance by their inner strides (words 14–16) and outer strides (17–19).
  let zi = wg.z % pu(20u); let zo = wg.z / pu(20u);
  let ao = pu(6u) + zi * pu(14u) + zo * pu(17u); let bo = pu(8u) + zi * pu(15u) + zo * pu(18u); let co = pu(10u) + zi * pu(16u) + zo * pu(19u);
  let row0 = wg.y * ${TILE}u;
  let col0 = wg.x * ${TILE}u;
  var acc: array<f32, 16>;
  for (var q = 0u; q < 16u; q++) { acc[q] = 0.0; }
  for (var p0 = 0u; p0 < k; p0 += ${DEPTH}u) {
    // 512 values of each tile, 8 per invocation.
    for (var e = 0u; e < 8u; e++) {
      let t = lid * 8u + e;
      let r = t / ${DEPTH}u; let d = t % ${DEPTH}u;
      let i = row0 + r; let p = p0 + d;
      ta[t] = select(0.0, A[${aAt}], i < m && p < k);
      let d2 = t / ${TILE}u; let c = t % ${TILE}u;
      let j = col0 + c; let p2 = p0 + d2;
      tb[t] = select(0.0, B[${bAt.replace(/\bp\b/g, 'p2')}], j < n && p2 < k);
    }
    workgroupBarrier();
    for (var d = 0u; d < ${DEPTH}u; d++) {
      var av: array<f32, 4>;
      for (var s = 0u; s < 4u; s++) { av[s] = ta[(l.y * 4u + s) * ${DEPTH}u + d]; }
      for (var t = 0u; t < 4u; t++) {
        let bv = tb[d * ${TILE}u + l.x * 4u + t];
        for (var s = 0u; s < 4u; s++) { acc[s * 4u + t] += av[s] * bv; }
      }
    }
    workgroupBarrier();
  }
  let alpha = pf(3u); let beta = pf(4u);
  for (var s = 0u; s < 4u; s++) {
    let i = row0 + l.y * 4u + s;
    if (i >= m) { continue; }
    for (var t = 0u; t < 4u; t++) {
      let j = col0 + l.x * 4u + t;
      if (j >= n) { continue; }
      let at = co + i * pu(11u) + j;
      var v = alpha * acc[s * 4u + t];
      if (beta != 0.0) { v += beta * C[at]; }
      if (pu(13u) != 0u) { v += BIAS[pu(12u) + j]; }
      let x = v;
      let p = 0.0;
      C[at] = ${ACT[act]};
    }
  }
}
`;
}

// The same product without workgroup memory: each invocation keeps its 4 × 4 block in four
// vec4 accumulators and reads A and B straight from memory. Preferred on CPU-emulated adapters
// (SwiftShader), where a workgroup barrier is a fiber switch and memory is the CPU's cache.
function directCode(transA: boolean, transB: boolean, act: number): string {
  const aAt = (i: string) => (transA ? `ao + p * pu(7u) + ${i}` : `ao + ${i} * pu(7u) + p`);
  const bAt = (j: string) => (transB ? `bo + ${j} * pu(9u) + p` : `bo + p * pu(9u) + ${j}`);
  return /* wgsl */ `
${HEADER}
fn store(co: u32, i: u32, j: u32, acc: f32) {
  if (i >= pu(0u) || j >= pu(1u)) { return; }
  let at = co + i * pu(11u) + j;
  var v = pf(3u) * acc;
  if (pf(4u) != 0.0) { v += pf(4u) * C[at]; }
  if (pu(13u) != 0u) { v += BIAS[pu(12u) + j]; }
  let x = v;
  let p = 0.0;
  C[at] = ${ACT[act]};
}
@compute @workgroup_size(8, 8)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let m = pu(0u); let n = pu(1u); let k = pu(2u);
  let zi = wg.z % pu(20u); let zo = wg.z / pu(20u);
  let ao = pu(6u) + zi * pu(14u) + zo * pu(17u); let bo = pu(8u) + zi * pu(15u) + zo * pu(18u); let co = pu(10u) + zi * pu(16u) + zo * pu(19u);
  let i0 = wg.y * ${TILE}u + l.y * 4u;
  let j0 = wg.x * ${TILE}u + l.x * 4u;
  if (i0 >= m || j0 >= n) { return; }
  // Rows and columns past the edge read the last valid one (their results are not stored).
  let r0 = i0; let r1 = min(i0 + 1u, m - 1u); let r2 = min(i0 + 2u, m - 1u); let r3 = min(i0 + 3u, m - 1u);
  let c0 = j0; let c1 = min(j0 + 1u, n - 1u); let c2 = min(j0 + 2u, n - 1u); let c3 = min(j0 + 3u, n - 1u);
  var a0 = vec4<f32>(0.0); var a1 = vec4<f32>(0.0); var a2 = vec4<f32>(0.0); var a3 = vec4<f32>(0.0);
  for (var p = 0u; p < k; p++) {
    let b = vec4<f32>(B[${bAt('c0')}], B[${bAt('c1')}], B[${bAt('c2')}], B[${bAt('c3')}]);
    a0 += A[${aAt('r0')}] * b;
    a1 += A[${aAt('r1')}] * b;
    a2 += A[${aAt('r2')}] * b;
    a3 += A[${aAt('r3')}] * b;
  }
  let rows = array<vec4<f32>, 4>(a0, a1, a2, a3);
  for (var s = 0u; s < 4u; s++) {
    let v = rows[s];
    store(co, i0 + s, j0, v.x); store(co, i0 + s, j0 + 1u, v.y); store(co, i0 + s, j0 + 2u, v.z); store(co, i0 + s, j0 + 3u, v.w);
  }
}
`;
}

// Consecutive products of one shape whose operands advance in a two-level pattern (a batched
// matmul calls gemm once per matrix; over a [B, H, T, hs] view of a [B, T, 3C] tensor the offsets
// step by hs within a row of H heads and by T·3C from one row to the next) are held back and
// dispatched as one batch: matrix z in workgroup z, at base + (z mod L)·inner + (z div L)·outer.
// Anything else the runtime encodes flushes the batch first (flushGemm).
interface Pending {
  key: string; // everything but the offsets
  spec: KernelSpec;
  /** an elementwise op fused into the write-back (attachUnary, attachBinary) */
  epilogue?: Epilogue;
  buffers: BufferLike[];
  words: Uint32Array; // the first product's parameters
  gx: number;
  gy: number;
  at: number[][]; // [a, b, c] offsets of each product
}

const pending = new WeakMap<KernelContext, Pending>();

type Triple = [number, number, number];
const minus = (x: readonly number[], y: readonly number[]): Triple => [x[0]! - y[0]!, x[1]! - y[1]!, x[2]! - y[2]!];
const same = (x: readonly number[], y: readonly number[]) => x[0] === y[0] && x[1] === y[1] && x[2] === y[2];

/**
 * The longest run of offsets from `start` (at most `max` of them) of the form
 * at[start] + i·inner + g·outer, i < L, g < G, in that order: { count: G·L, L, inner, outer }.
 */
export function batchRun(at: readonly (readonly number[])[], start: number, max: number): { count: number; L: number; inner: Triple; outer: Triple } {
  const zero: Triple = [0, 0, 0];
  if (start + 1 >= at.length || max < 2) return { count: 1, L: 1, inner: zero, outer: zero };
  const base = at[start]!;
  const inner = minus(at[start + 1]!, base);
  let L = 2;
  while (start + L < at.length && L < max && same(minus(at[start + L]!, at[start + L - 1]!), inner)) L++;
  if (start + L >= at.length || 2 * L > max) return { count: L, L, inner, outer: zero };
  const outer = minus(at[start + L]!, base);
  let G = 1;
  while (start + (G + 1) * L <= at.length && (G + 1) * L <= max) {
    let ok = true;
    for (let i = 0; i < L && ok; i++) {
      const want = [0, 1, 2].map((k) => base[k]! + G * outer[k]! + i * inner[k]!);
      ok = same(at[start + G * L + i]!, want);
    }
    if (!ok) break;
    G++;
  }
  return { count: G * L, L, inner, outer: G > 1 ? outer : zero };
}

/** Dispatches the held-back products (called by the runtime before any other work). */
export function flushGemm(ctx: KernelContext): void {
  const b = pending.get(ctx);
  if (!b) return;
  pending.delete(ctx);
  let start = 0;
  while (start < b.at.length) {
    const run = batchRun(b.at, start, ctx.limits.maxComputeWorkgroupsPerDimension);
    const p = new Params();
    p.words.set(b.words);
    p.length = 21;
    const [a0, b0, c0] = b.at[start]!;
    p.words[6] = a0!;
    p.words[8] = b0!;
    p.words[10] = c0!;
    for (let k = 0; k < 3; k++) {
      p.words[14 + k] = run.inner[k]! >>> 0; // u32 arithmetic in the kernel wraps a negative step right
      p.words[17 + k] = run.outer[k]! >>> 0;
    }
    p.words[20] = run.L;
    const e = b.epilogue;
    if (e) {
      p.u(e.out.at).f(e.param).u(e.other?.at ?? 0);
      const spec: KernelSpec = {
        key: `${b.spec.key}|${e.other ? `b${e.op}${+!!e.cFirst}` : `u${e.op}`}`,
        access: [...b.spec.access, 'write', ...(e.other ? ['read' as const] : [])],
        code: () => withEpilogue(b.spec.code(), e),
      };
      ctx.dispatch3d(spec, [...b.buffers, e.out.buffer, ...(e.other ? [e.other.buffer] : [])], p, b.gx, b.gy, run.count);
    } else ctx.dispatch3d(b.spec, b.buffers, p, b.gx, b.gy, run.count);
    start += run.count;
  }
}

/** Whether a held product binds `buffer` (the runtime encodes it before the buffer can be reused). */
export function gemmHolds(ctx: KernelContext, buffer: BufferLike): boolean {
  const b = pending.get(ctx);
  return !!b && (b.buffers.includes(buffer) || b.epilogue?.out.buffer === buffer || b.epilogue?.other?.buffer === buffer);
}

/** The held product whose whole output C is `count` contiguous elements at `x`, if one may take an epilogue. */
function heldOutput(ctx: KernelContext, x: Operand, count: number): Pending | null {
  const b = pending.get(ctx);
  if (!b || !ctx.prefs.gemmEpilogue || b.epilogue || b.at.length !== 1) return null;
  const m = b.words[0]!, n = b.words[1]!, ldc = b.words[11]!;
  if (x.buffer !== b.buffers[3] || x.at !== b.at[0]![2] || ldc !== n || m * n !== count) return null;
  return b;
}

/**
 * Fuses unary_f32(op) of x into y into the held product when x is its whole output (one product,
 * contiguous rows) and y another buffer; returns whether it did (the runtime holds products
 * back, so the op comes before the product is encoded).
 */
export function attachUnary(ctx: KernelContext, op: number, param: number, x: Operand, y: Operand, count: number): boolean {
  const b = heldOutput(ctx, x, count);
  if (!b || UNARY[op] === undefined || y.buffer === x.buffer) return false; // in place: the op's own kernel
  b.epilogue = { op, param, out: y };
  return true;
}

/**
 * Fuses binary_f32(op) of a and b into out into the held product when one side is its whole
 * output and the other the same contiguous shape in another buffer, out in a third (the
 * strides as binary_f32's broadcast plan gives them); returns whether it did.
 */
export function attachBinary(ctx: KernelContext, op: number, shape: number[], as: number[], bs: number[], a: Operand, bo: Operand, out: Operand): boolean {
  if (BINARY[op] === undefined) return false;
  const count = shape.reduce((p, s) => p * s, 1);
  const c = coalesce(shape, [as, bs]);
  if (count < 2 || c.shape.length !== 1 || c.strides[0]![0] !== 1 || c.strides[1]![0] !== 1) return false;
  for (const [cOp, other, cFirst] of [[a, bo, true], [bo, a, false]] as const) {
    const held = heldOutput(ctx, cOp, count);
    if (!held || other.buffer === cOp.buffer || out.buffer === cOp.buffer || out.buffer === other.buffer) continue;
    held.epilogue = { op, param: 0, out, other, cFirst };
    return true;
  }
  return false;
}

const ids = new WeakMap<BufferLike, number>();
let nextId = 1;
function bufferKey(buffers: BufferLike[]): string {
  return buffers
    .map((b) => {
      let id = ids.get(b);
      if (id === undefined) ids.set(b, (id = nextId++));
      return id;
    })
    .join(',');
}

export const gemm: Record<string, KernelFn> = {
  gemm_f32(ctx, a) {
    const transA = a.flag(), transB = a.flag();
    const m = a.num(), n = a.num(), k = a.num(), alpha = a.num();
    const A = operand(ctx, a);
    const lda = a.num();
    const B = operand(ctx, a);
    const ldb = a.num(), beta = a.num();
    const bias = operand(ctx, a);
    const act = a.num();
    const C = operand(ctx, a);
    const ldc = a.num();
    const p = new Params()
      .u(m).u(n).u(k).f(alpha).f(beta).u(0)
      .u(A.at).u(lda).u(B.at).u(ldb).u(C.at).u(ldc).u(bias.at).u(bias.none ? 0 : 1);
    // The kernel by adapter and shape class: registers only on CPU-emulated adapters; on GPUs the
    // 64 × 64 register-blocked tiles where both sides of C fill one, else the 32 × 32 tiles.
    const pref = ctx.prefs.gemm;
    const variant = pref === 'direct' ? 'direct'
      : pref === 'blocked' || (m >= BLOCK_TILE && n >= BLOCK_TILE && blockedFits(ctx.limits)) ? 'blocked' : 'tiled';
    const tile = variant === 'blocked' ? BLOCK_TILE : TILE;
    const gx = Math.ceil(n / tile), gy = Math.ceil(m / tile);
    const maxDim = ctx.limits.maxComputeWorkgroupsPerDimension;
    if (gx > maxDim || gy > maxDim) throw new Error(`webgpu: matmul of ${m} × ${n} is larger than one dispatch allows`);
    const spec: KernelSpec = {
      key: `gemm${variant}${+transA}${+transB}${act}`,
      access: ['read', 'read', 'read', 'write'],
      code: () => (variant === 'direct' ? directCode(transA, transB, act)
        : variant === 'blocked' ? blockedCode(HEADER, transA, transB, ACT[act]!) : code(transA, transB, act)),
    };
    const buffers = [A.buffer, B.buffer, bias.buffer, C.buffer];
    // The batch key: the kernel, the buffers (by identity, through an id map) and every word but the offsets.
    const words = Array.from(p.words.subarray(0, 14));
    words[6] = words[8] = words[10] = 0;
    // A missing bias binds a scratch buffer that is never read: it does not split a batch.
    const key = `${spec.key}|${words.join(',')}|${bufferKey(bias.none ? [A.buffer, B.buffer, C.buffer] : buffers)}`;
    const held = pending.get(ctx);
    if (held && held.key === key && held.at.length < 65535) {
      held.at.push([A.at, B.at, C.at]);
      return;
    }
    flushGemm(ctx);
    pending.set(ctx, { key, spec, buffers, words: p.words.slice(0, 21), gx, gy, at: [[A.at, B.at, C.at]] });
  },
};
