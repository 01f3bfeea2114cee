// The register-blocked GEMM for GPUs: a 64 × 64 tile of C per workgroup of 16 × 16 invocations,
// each invocation a 4 × 4 block of outputs in four vec4 accumulators. op(A) and op(B) are staged
// 16 deep through workgroup memory as vec4s (4 rows of op(A), 4 columns of op(B) at one depth),
// so each step of the inner loop is two vec4 reads from workgroup memory for 16 multiply-adds
// (the 32 × 32 kernel of gemm.ts reads 8 scalars for 16). Global loads go along the operand's
// contiguous dimension whichever way it is transposed (read in place through its leading dim),
// so neighbouring invocations read neighbouring words. Same parameters and epilogue (alpha,
// beta·C, bias, activation) and the same batch words as gemm.ts; chosen there by shape class
// (both sides of C ≥ 64) and adapter limits (blockedFits).
export const BLOCK_TILE = 64;
const DEPTH = 16;
const VEC_ROW = BLOCK_TILE / 4; // vec4s per depth row of a staged tile

/** Whether the adapter's limits hold the kernel: 256 invocations, 8 KiB of workgroup memory. */
export function blockedFits(limits: { maxComputeInvocationsPerWorkgroup?: number; maxComputeWorkgroupStorageSize?: number; maxComputeWorkgroupSizeX?: number; maxComputeWorkgroupSizeY?: number }): boolean {
  return (limits.maxComputeInvocationsPerWorkgroup ?? 256) >= 256 &&
    (limits.maxComputeWorkgroupStorageSize ?? 16384) >= 2 * DEPTH * BLOCK_TILE * 4 &&
    (limits.maxComputeWorkgroupSizeX ?? 256) >= 16 && (limits.maxComputeWorkgroupSizeY ?? 256) >= 16;
}

/**
 * WGSL of the blocked kernel; `header` declares the bindings A, B, BIAS, C, the parameter block and
 * the math (gemm.ts's HEADER), `act` is the epilogue's expression in x. `storage` 'f16': A, B,
 * BIAS and C hold f16 (on adapters with shader-f16; blockedHeaderF16), the products accumulate in
 * f32 and C is rounded once.
 */
export function blockedCode(header: string, transA: boolean, transB: boolean, act: string, storage: 'f32' | 'f16' = 'f32'): string {
  const ld = (e: string) => (storage === 'f16' ? `f32(${e})` : e);
  // Staging: element t of the 1,024 of a tile, taken along the operand's contiguous dimension.
  // op(A) is m × k: not transposed, depth p is contiguous (A[i·lda + p]); transposed, row i is.
  const aLoad = transA
    ? `let r = t % ${BLOCK_TILE}u; let d = t / ${BLOCK_TILE}u; let i = row0 + r; let p = p0 + d;
      let v = select(0.0, ${ld('A[ao + p * pu(7u) + i]')}, i < m && p < k);`
    : `let d = t % ${DEPTH}u; let r = t / ${DEPTH}u; let i = row0 + r; let p = p0 + d;
      let v = select(0.0, ${ld('A[ao + i * pu(7u) + p]')}, i < m && p < k);`;
  // op(B) is k × n: not transposed, column j is contiguous (B[p·ldb + j]); transposed, depth p is.
  const bLoad = transB
    ? `let d = t % ${DEPTH}u; let c = t / ${DEPTH}u; let j = col0 + c; let p = p0 + d;
      let v = select(0.0, ${ld('B[bo + j * pu(9u) + p]')}, j < n && p < k);`
    : `let c = t % ${BLOCK_TILE}u; let d = t / ${BLOCK_TILE}u; let j = col0 + c; let p = p0 + d;
      let v = select(0.0, ${ld('B[bo + p * pu(9u) + j]')}, j < n && p < k);`;
  return /* wgsl */ `
${header}
var<workgroup> ta: array<vec4<f32>, ${DEPTH * VEC_ROW}>;  // [depth][rows / 4]
var<workgroup> tb: array<vec4<f32>, ${DEPTH * VEC_ROW}>;  // [depth][cols / 4]

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let m = pu(0u); let n = pu(1u); let k = pu(2u);
  let zi = wg.z % pu(20u); let zo = wg.z / pu(20u);
  let ao = pu(6u) + zi * pu(14u) + zo * pu(17u); let bo = pu(8u) + zi * pu(15u) + zo * pu(18u); let co = pu(10u) + zi * pu(16u) + zo * pu(19u);
  let row0 = wg.y * ${BLOCK_TILE}u;
  let col0 = wg.x * ${BLOCK_TILE}u;
  var acc0 = vec4<f32>(0.0); var acc1 = vec4<f32>(0.0); var acc2 = vec4<f32>(0.0); var acc3 = vec4<f32>(0.0);
  for (var p0 = 0u; p0 < k; p0 += ${DEPTH}u) {
    for (var e = 0u; e < 4u; e++) {
      let t = e * 256u + lid;
      {
      ${aLoad}
      ta[d * ${VEC_ROW}u + r / 4u][r % 4u] = v;
      }
      {
      ${bLoad}
      tb[d * ${VEC_ROW}u + c / 4u][c % 4u] = v;
      }
    }
    workgroupBarrier();
    for (var d = 0u; d < ${DEPTH}u; d++) {
      let a = ta[d * ${VEC_ROW}u + l.y];
      let b = tb[d * ${VEC_ROW}u + l.x];
      acc0 += a.x * b; acc1 += a.y * b; acc2 += a.z * b; acc3 += a.w * b;
    }
    workgroupBarrier();
  }
  let rows = array<vec4<f32>, 4>(acc0, acc1, acc2, acc3);
  let alpha = pf(3u); let beta = pf(4u);
  for (var s = 0u; s < 4u; s++) {
    let i = row0 + l.y * 4u + s;
    if (i >= m) { continue; }
    for (var q = 0u; q < 4u; q++) {
      let j = col0 + l.x * 4u + q;
      if (j >= n) { continue; }
      let at = co + i * pu(11u) + j;
      var v = alpha * rows[s][q];
      if (beta != 0.0) { v += beta * ${ld('C[at]')}; }
      if (pu(13u) != 0u) { v += ${ld('BIAS[pu(12u) + j]')}; }
      let x = v;
      let p = 0.0;
      C[at] = ${storage === 'f16' ? `f16(${act})` : act};
    }
  }
}
`;
}

/** The bindings of the f16 variant (the parameter block at binding 4, as gemm.ts's HEADER). */
export function blockedHeaderF16(preludeText: string): string {
  return /* wgsl */ `enable f16;
@group(0) @binding(0) var<storage, read> A: array<f16>;
@group(0) @binding(1) var<storage, read> B: array<f16>;
@group(0) @binding(2) var<storage, read> BIAS: array<f16>;
@group(0) @binding(3) var<storage, read_write> C: array<f16>;
${preludeText}`;
}
