// What a kernel handler gets from the runtime, and helpers the handlers share.
import type { BufferLike } from '../gpu_types.js';
import type { KernelSpec } from '../kernel_cache.js';
import type { Params } from '../params.js';
import type { ArgReader } from '../arg_reader.js';
import { ENTRY, WG, prelude } from './prelude.js';
import { MATH } from './math.js';

export interface KernelContext {
  buffer(id: number): BufferLike;
  dispatch(spec: KernelSpec, buffers: BufferLike[], params: Params, groups: number): void;
  dispatch2d(spec: KernelSpec, buffers: BufferLike[], params: Params, gx: number, gy: number): void;
  dispatch3d(spec: KernelSpec, buffers: BufferLike[], params: Params, gx: number, gy: number, gz: number): void;
  /** A scratch buffer for this batch of commands. */
  temp(bytes: number): BufferLike;
  copy(src: BufferLike, srcOffset: number, dst: BufferLike, dstOffset: number, bytes: number): void;
  clear(b: BufferLike): void;
  /** The byte offset of id's data in its buffer (0 but for tensors in an arena: ../arenas.ts). */
  base(id: number): number;
  /** The bytes id was allocated with (−1: no such id). */
  allocated(id: number): number;
  /** Where id's data are now (null: freed). */
  slotOf(id: number): { buffer: BufferLike; base: number } | null;
  /**
   * Moves the storage of each role's ids into one arena per role, id i of every role at the
   * same offset (a slice of `spans[i]` bytes: arenas.sliceLayout), where they are not there
   * already; returns the arenas in role order.
   */
  colocate(roles: number[][], spans: number[]): BufferLike[];
  /** A read-only storage buffer holding `bytes` when this batch of commands runs. */
  stage(bytes: Uint8Array): BufferLike;
  limits: Record<string, number>;
  /** Kernel variants chosen for the adapter (runtime.ts). */
  prefs: KernelPrefs;
}

export interface KernelPrefs {
  /**
   * 'tiled' (workgroup memory; GPUs: the 64 × 64 register-blocked kernel where C's sides are ≥ 64
   * and the adapter's limits allow, else 32 × 32 tiles), 'blocked' (the blocked kernel for every
   * shape: tests) or 'direct' (registers only; CPU-emulated adapters)
   */
  gemm: 'tiled' | 'blocked' | 'direct';
  /** a unary op on a product's output fused into the product's write-back (gemm.ts attachUnary) */
  gemmEpilogue: boolean;
  /** convolution geometries given pipelines with every field a constant (conv.ts: shape classes) */
  convExact: number;
  /** convolution layer classes (kernel, stride, padding, dilation, groups) given pipelines of their own after those */
  convLayers: number;
}

/** A kernel handler: reads its arguments in the order bindings/webgpu_backend.cpp wrote them. */
export type KernelFn = (ctx: KernelContext, a: ArgReader, raw?: BufferLike[]) => void;

/** A buffer argument resolved: the buffer and the element offset for `elemBytes`-byte elements. */
export interface Operand {
  buffer: BufferLike;
  at: number;
}

/** Reads a buffer argument; a missing one (nullptr) binds a small scratch buffer and gives null `at`. */
export function operand(ctx: KernelContext, a: ArgReader, elemBytes = 4): Operand & { none: boolean } {
  const { id, offset } = a.buf();
  // The kernels never read a missing operand (a flag says so), but every binding needs a buffer.
  if (id < 0) return { buffer: ctx.temp(256), at: 0, none: true };
  if (offset % elemBytes !== 0) throw new Error(`webgpu: internal error: misaligned operand (byte offset ${offset})`);
  return { buffer: ctx.buffer(id), at: offset / elemBytes, none: false };
}

export const groupsFor = (n: number, size = WG) => Math.ceil(n / size);

export const MAX_DIMS = 8;

/**
 * Merges neighbouring dims that every operand walks as one (stride[d] = stride[d+1]·shape[d+1])
 * and drops dims of size 1, so that any contiguous-enough view fits the kernels' 8 dims.
 */
export function coalesce(shape: number[], strides: number[][]): { shape: number[]; strides: number[][] } {
  const outShape: number[] = [];
  const outStrides: number[][] = strides.map(() => []);
  for (let d = 0; d < shape.length; d++) {
    if (shape[d] === 1) continue;
    const last = outShape.length - 1;
    if (last >= 0 && strides.every((s, k) => outStrides[k][last] === s[d] * shape[d])) {
      outShape[last] *= shape[d];
      strides.forEach((s, k) => (outStrides[k][last] = s[d]));
      continue;
    }
    outShape.push(shape[d]);
    strides.forEach((s, k) => outStrides[k].push(s[d]));
  }
  if (outShape.length > MAX_DIMS) {
    throw new Error(`webgpu: tensors of more than ${MAX_DIMS} dims that cannot be merged are not supported by the WebGPU kernels`);
  }
  return { shape: outShape, strides: outStrides };
}

/** Pads a list of ints to 8 words. */
export const pad8 = (xs: number[]) => [...xs, ...new Array(MAX_DIMS - xs.length).fill(0)];

// WGSL: the offset of flat element `i` under the shape at parameter word 16 (nd at word 1) and
// the strides at `at`.
export const STRIDED = /* wgsl */ `
fn strided(i: u32, at: u32) -> i32 {
  var rem = i;
  var off = 0;
  let nd = pu(1u);
  for (var k = 0u; k < nd; k++) {
    let d = nd - 1u - k;
    let s = pu(16u + d);
    off += i32(rem % s) * pi(at + d);
    rem = rem / s;
  }
  return off;
}
`;

export interface Binding {
  name: string;
  /** WGSL element type ('f32', 'i32', 'u32', 'atomic<u32>') */
  type: string;
  write?: boolean;
  buffer: BufferLike;
}

/** WGSL declarations of `binds` at bindings 0..n−1. */
export function declare(binds: { name: string; type: string; write?: boolean }[]): string {
  return binds
    .map((b, i) => `@group(0) @binding(${i}) var<storage, ${b.write ? 'read_write' : 'read'}> ${b.name}: array<${b.type}>;\n`)
    .join('');
}

/** Row-major strides of a contiguous tensor of `shape`. */
export function contiguousStrides(shape: number[]): number[] {
  const s = new Array(shape.length).fill(1);
  for (let d = shape.length - 2; d >= 0; d--) s[d] = s[d + 1] * shape[d + 1];
  return s;
}

/**
 * Dispatches a kernel of one invocation per item: `items` invocations in workgroups of `size`,
 * the bindings declared by name in order, `params` (word 0 should hold `items` for the usual
 * bounds check), `body` the WGSL of one invocation (`id` its index), `extra` WGSL before main.
 */
export function run(
  ctx: KernelContext,
  key: string,
  binds: Binding[],
  params: Params,
  items: number,
  body: string,
  extra = '',
  size = WG,
): void {
  if (items <= 0) return;
  ctx.dispatch(
    {
      key,
      access: binds.map((b) => (b.write ? 'write' : 'read')),
      code: () =>
        declare(binds) +
        prelude(binds.length) +
        MATH +
        extra +
        ENTRY(body, size),
    },
    binds.map((b) => b.buffer),
    params,
    groupsFor(items, size),
  );
}
