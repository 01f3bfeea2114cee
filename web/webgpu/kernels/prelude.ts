// WGSL shared by every kernel: the parameter block (params.ts), the flat invocation index over
// a 2-D grid of workgroups (a dispatch has at most 65,535 workgroups per dimension), and the
// byte access of bool tensors (stored one byte per element; WGSL has no 8-bit type, so reads
// take the byte out of its word and writes go through atomics on the word, which lets
// neighbouring invocations write neighbouring bytes).
import { PARAM_WORDS } from '../params.js';

export const WG = 64; // invocations per workgroup of the elementwise kernels

/** The prelude for a kernel whose uniform block is at `binding`. */
export function prelude(binding: number): string {
  return /* wgsl */ `
@group(0) @binding(${binding}) var<uniform> U: array<vec4<u32>, ${PARAM_WORDS / 4}>;
fn pu(i: u32) -> u32 { return U[i >> 2u][i & 3u]; }
fn pi(i: u32) -> i32 { return bitcast<i32>(pu(i)); }
fn pf(i: u32) -> f32 { return bitcast<f32>(pu(i)); }
fn flat_id(wg: vec3<u32>, nwg: vec3<u32>, lid: u32, size: u32) -> u32 {
  return (wg.y * nwg.x + wg.x) * size + lid;
}
`;
}

/** Reads byte `i` of a u32 array named `buf`. */
export const byteRead = (buf: string) => /* wgsl */ `
fn ${buf}_byte(i: u32) -> u32 { return (${buf}[i >> 2u] >> ((i & 3u) * 8u)) & 0xffu; }
`;

/** Writes byte `i` of an atomic<u32> array named `buf` (only one invocation may own a byte). */
export const byteWrite = (buf: string) => /* wgsl */ `
fn ${buf}_set_byte(i: u32, v: u32) {
  let sh = (i & 3u) * 8u;
  atomicAnd(&${buf}[i >> 2u], ~(0xffu << sh));
  atomicOr(&${buf}[i >> 2u], (v & 0xffu) << sh);
}
`;

export const ENTRY = (body: string, size = WG) => /* wgsl */ `
@compute @workgroup_size(${size})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let id = flat_id(wg, nwg, lid, ${size}u);
${body}
}
`;

// dtype codes of the C++ side (core/dtype.h: Float32, Int32, Bool).
export const F32 = 0;
export const I32 = 1;
export const BOOL = 2;

/** WGSL element type of a storage binding holding `dtype` (bool: u32 words). */
export function wgslType(dtype: number, write = false): string {
  if (dtype === F32) return 'f32';
  if (dtype === I32) return 'i32';
  return write ? 'atomic<u32>' : 'u32';
}

/** An expression loading element `i` of buffer `buf` of `dtype` as f32/i32/u32 value. */
export function load(dtype: number, buf: string, i: string): string {
  return dtype === BOOL ? `${buf}_byte(${i})` : `${buf}[${i}]`;
}
