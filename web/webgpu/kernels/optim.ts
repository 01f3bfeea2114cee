// SGD (with momentum, Nesterov, weight decay) and Adam/AdamW (amsgrad) updates as multi-tensor
// dispatches. C++ (optim/optim.cpp) calls the kernel once per parameter; here the calls of one
// step are held back, and those with the same hyperparameters run as ONE dispatch over flat
// buffers: the parameters and each state tensor (moments, momentum buffer) moved once into an
// arena per role, every tensor at the same offset in each (arenas.ts), and the gradients
// gathered by buffer copies into a scratch buffer of the same layout each step. A step of Adam
// over a GPT's 28 parameters was 28 dispatches; it is one (a group per distinct set of scalars,
// e.g. a second one for parameters without weight decay, and one per arena that fits a binding).
//
// The per-element update is the per-tensor kernel's; the multi-tensor kernel runs it over the
// arenas' length at the same index in each, skipping the elements between slices (alignment, a
// storage's bytes past its tensor) by a table of the slices. Twins of
// src/optim/optim_kernels_ref.cpp (same float32 operations in the same order).
import { Params } from '../params.js';
import type { BufferLike } from '../gpu_types.js';
import type { ArgReader } from '../arg_reader.js';
import { sliceLayout } from '../arenas.js';
import { run, type KernelContext, type KernelFn, type Operand } from './common.js';

const f = (name: string, buffer: BufferLike, write = false) => ({ name, type: 'f32', buffer, write });

type Kind = 'sgd' | 'adam';

/** One parameter's update as called. */
interface Update {
  kind: Kind;
  /** the kind, the scalars and which state is there: updates with one key share a dispatch */
  key: string;
  n: number;
  /** parameter then state tensors by id (sgd: P, BUF; adam: P, M, V, VMAX), −1 where absent */
  ids: number[];
  /** operands as resolved at the call: P, G, then the state in `ids` order */
  ops: Held[];
  scalars: number[];
  flags: number[];
  /** whether P and the state start their storage (so their storage can move into arenas) */
  whole: boolean;
  /** the bytes of the largest storage among P and the state: the slice each gets in its arena */
  span: number;
}

const pending = new WeakMap<KernelContext, Update[]>();

/** The kernel names held back here (the runtime flushes them before any other call). */
export const HELD_OPTIM = new Set(['sgd_step_f32', 'adam_step_f32']);

/** An operand as called: its id, GPU buffer (null where absent), element offset and the id's base then. */
interface Held {
  id: number;
  buffer: BufferLike | null;
  at: number;
  base: number;
  /** byte offset within the tensor's own storage */
  raw: number;
}

function read(ctx: KernelContext, a: ArgReader): Held {
  const { id, offset } = a.buf();
  if (id < 0) return { id, buffer: null, at: 0, base: 0, raw: 0 };
  if (offset % 4 !== 0) throw new Error(`webgpu: internal error: misaligned operand (byte offset ${offset})`);
  const base = ctx.base(id);
  return { id, buffer: ctx.buffer(id), at: offset / 4, base, raw: offset - base };
}

function hold(ctx: KernelContext, kind: Kind, a: ArgReader, states: number, scalarCount: number, flagCount: number): void {
  const p = read(ctx, a), g = read(ctx, a);
  const state = Array.from({ length: states }, () => read(ctx, a));
  const n = a.num();
  const scalars = Array.from({ length: scalarCount }, () => a.num());
  const flags = Array.from({ length: flagCount }, () => a.num());
  const moved = [p, ...state].filter((o) => o.id >= 0);
  const whole = moved.every((o) => o.raw === 0);
  const span = Math.max(...moved.map((o) => ctx.allocated(o.id)));
  const ids = [p.id, ...state.map((o) => o.id)];
  const key = `${kind}|${scalars.join(',')}|${flags.join(',')}|${ids.map((id) => (id < 0 ? 0 : 1)).join('')}`;
  let held = pending.get(ctx);
  if (held && held[0]!.kind !== kind) {
    flushOptim(ctx);
    held = undefined;
  }
  if (!held) pending.set(ctx, (held = []));
  held.push({ kind, key, n, ids, ops: [p, g, ...state], scalars, flags, whole, span });
}

/** Whether a held update binds `buffer` (the runtime encodes it before the buffer can be reused). */
export function optimHolds(ctx: KernelContext, buffer: BufferLike): boolean {
  return pending.get(ctx)?.some((u) => u.ops.some((o) => o.buffer === buffer)) ?? false;
}

/** Encodes the held updates (called by the runtime before any other work). */
export function flushOptim(ctx: KernelContext): void {
  const held = pending.get(ctx);
  if (!held) return;
  pending.delete(ctx);
  for (let i = 0; i < held.length; ) {
    let j = i + 1;
    while (j < held.length && held[j]!.key === held[i]!.key) j++;
    group(ctx, held.slice(i, j));
    i = j;
  }
}

/** Updates of one key: one dispatch per arena-sized chunk where they can move, else one each. */
function group(ctx: KernelContext, ups: Update[]): void {
  if (ups.length < 2 || !movable(ctx, ups)) {
    for (const u of ups) encode(ctx, u.kind, u.n, u.ops, u.scalars, u.flags);
    return;
  }
  const limit = Math.min(ctx.limits.maxStorageBufferBindingSize!, ctx.limits.maxBufferSize!);
  let start = 0;
  while (start < ups.length) {
    let end = start + 1;
    while (end < ups.length && sliceLayout(ups.slice(start, end + 1).map((u) => u.span)).total <= limit) end++;
    const chunk = ups.slice(start, end);
    if (chunk.length === 1) encode(ctx, chunk[0]!.kind, chunk[0]!.n, chunk[0]!.ops, chunk[0]!.scalars, chunk[0]!.flags);
    else batched(ctx, chunk);
    start = end;
  }
}

/**
 * Whether every update's parameter and state may move into arenas: tensors at the start of their
 * storage, still where they were at the call (none freed since), no tensor in two roles or two
 * updates. A storage moves whole (a view of its other elements stays right).
 */
function movable(ctx: KernelContext, ups: Update[]): boolean {
  const seen = new Set<number>();
  for (const u of ups) {
    if (!u.whole) return false;
    for (const [k, o] of u.ops.entries()) {
      if (o.id < 0) continue;
      if (seen.has(o.id)) return false;
      seen.add(o.id);
      if (k === 1) continue; // the gradient is copied from where it was at the call, not moved
      const now = ctx.slotOf(o.id);
      if (!now || now.buffer !== o.buffer || now.base !== o.base) return false;
    }
  }
  return true;
}

function batched(ctx: KernelContext, ups: Update[]): void {
  const first = ups[0]!;
  const { at, total } = sliceLayout(ups.map((u) => u.span));
  // Roles that move: the parameter and each state tensor present (same presence in the group).
  const roles = first.ids.map((id, r) => (id < 0 ? null : ups.map((u) => u.ids[r]!)));
  const arenas = ctx.colocate(roles.filter((r): r is number[] => r !== null), ups.map((u) => u.span));
  const gflat = ctx.temp(total);
  ups.forEach((u, k) => ctx.copy(u.ops[1]!.buffer!, u.ops[1]!.at * 4, gflat, at[k]!, u.n * 4));
  const slices = new Uint32Array(2 * ups.length);
  ups.forEach((u, k) => slices.set([at[k]! / 4, u.n], 2 * k));
  let next = 0;
  const flat = roles.map((r) => ({ buffer: r === null ? null : arenas[next++]!, at: 0 }));
  const ops = [flat[0]!, { buffer: gflat, at: 0 }, ...flat.slice(1)];
  encode(ctx, first.kind, total / 4, ops, first.scalars, first.flags, ctx.stage(new Uint8Array(slices.buffer)), ups.length);
}

// The per-element updates, on element indices of P, G and the state (the same index in every
// arena of a multi-tensor dispatch).
const SGD = /* wgsl */ `
fn update(pi_: u32, gi: u32, bi: u32) {
  var dp = G[gi] * pf(4u);
  if (pu(9u) != 0u) { dp = dp + pf(5u) * P[pi_]; }
  if (pu(10u) != 0u) {
    var b = dp;
    if (pu(12u) == 0u) { b = BUF[bi] * pf(6u) + pf(7u) * dp; }
    BUF[bi] = b;
    dp = select(b, dp + pf(6u) * b, pu(11u) != 0u);
  }
  P[pi_] = P[pi_] + pf(8u) * dp;
}
`;
const ADAM = /* wgsl */ `
fn update(pi_: u32, gi: u32, mi: u32, vi: u32, xi: u32) {
  var pv = P[pi_];
  var gv = G[gi] * pf(6u);
  if (pu(17u) != 0u) { pv = pv * pf(8u); }
  if (pu(16u) != 0u) { gv = gv + pf(7u) * pv; }
  let mv = M[mi] * pf(9u) + pf(10u) * gv;
  let vv = V[vi] * pf(11u) + (pf(12u) * gv) * gv;
  M[mi] = mv;
  V[vi] = vv;
  var second = vv;
  if (pu(18u) != 0u) {
    let old = VMAX[xi];
    second = select(select(vv, old, old > vv), old, is_nan(old));
    if (is_nan(vv)) { second = vv; }
    VMAX[xi] = second;
  }
  let denom = sqrt(second) / pf(13u) + pf(14u);
  P[pi_] = pv + (pf(15u) * mv) / denom;
}
`;
// A multi-tensor dispatch runs over the arenas' whole length; element e is updated when it is
// within one of the slices SLICES lists (start, n pairs in order; their count at word `w`), so
// the elements between (alignment, a storage's bytes past its tensor) are left as they are.
const inSlice = (w: number) => /* wgsl */ `
fn in_slice(e: u32) -> bool {
  var lo = 0u;
  var hi = pu(${w}u);
  while (hi - lo > 1u) {
    let mid = (lo + hi) / 2u;
    if (SLICES[2u * mid] <= e) { lo = mid; } else { hi = mid; }
  }
  return e >= SLICES[2u * lo] && e - SLICES[2u * lo] < SLICES[2u * lo + 1u];
}
`;

/**
 * The update kernel: over n elements of P, G and the state at the operands' offsets, or (given
 * `slices`, `count` of them) over n elements of arenas, those within the slices. An absent state
 * tensor, never read, binds a scratch buffer.
 */
function encode(
  ctx: KernelContext,
  kind: Kind,
  n: number,
  held: { buffer: BufferLike | null; at: number }[],
  scalars: number[],
  flags: number[],
  slices?: BufferLike,
  count = 0,
): void {
  const ops: Operand[] = held.map((o) => ({ buffer: o.buffer ?? ctx.temp(256), at: o.at }));
  const p = new Params().u(n);
  for (const o of ops) p.u(o.at);
  for (const v of scalars) p.f(v);
  for (const b of flags) p.u(b);
  if (slices) p.u(count);
  const table = slices ? [{ name: 'SLICES', type: 'u32', buffer: slices }] : [];
  const guard = slices ? 'if (id >= pu(0u) || !in_slice(id)) { return; }' : 'if (id >= pu(0u)) { return; }';
  const index = (k: number) => (slices ? 'id' : `pu(${k + 1}u) + id`);
  if (kind === 'sgd') {
    // words: 0 n, 1..3 offsets of P, G, BUF, 4..8 sign, wd, momentum, 1-dampening, neg_lr,
    // 9..12 has_wd, has_momentum, nesterov, first, (13: the slice count)
    const [pp, g, buf] = ops as [Operand, Operand, Operand];
    run(ctx, slices ? 'sgd_multi' : 'sgd', [f('P', pp.buffer, true), f('G', g.buffer), f('BUF', buf.buffer, true), ...table], p, n,
      `  ${guard}\n  update(${[0, 1, 2].map(index).join(', ')});`, SGD + (slices ? inSlice(13) : ''));
    return;
  }
  // words: 0 n, 1..5 offsets of P, G, M, V, VMAX, 6..15 sign, wd, decay, beta1, 1-beta1, beta2,
  // 1-beta2, sqrt(bias_correction2), eps, -step_size, 16..18 l2, decoupled, amsgrad, (19: the slice count)
  const [pp, g, m, v, vmax] = ops as [Operand, Operand, Operand, Operand, Operand];
  run(ctx, slices ? 'adam_multi' : 'adam',
    [f('P', pp.buffer, true), f('G', g.buffer), f('M', m.buffer, true), f('V', v.buffer, true), f('VMAX', vmax.buffer, true), ...table], p, n,
    `  ${guard}\n  update(${[0, 1, 2, 3, 4].map(index).join(', ')});`, ADAM + (slices ? inSlice(19) : ''));
}

export const optim: Record<string, KernelFn> = {
  // args: p, g, buf, n, then 5 scalars and 4 flags (bindings/webgpu_backend.cpp)
  sgd_step_f32(ctx, a) {
    hold(ctx, 'sgd', a, 1, 5, 4);
  },
  // args: p, g, m, v, vmax, n, then 10 scalars and 3 flags
  adam_step_f32(ctx, a) {
    hold(ctx, 'adam', a, 3, 10, 3);
  },
};
