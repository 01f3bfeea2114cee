// Which ops run on WebGPU kernels. Every op computes through the Backend methods
// (src/kernels/backend.h), and the WebGPU backend has a WGSL kernel for each method but those
// named below; an op that needs one of them runs on wasm instead (the deferred fallback of
// src/ops/fallback.cpp, one console warning per op). sg.webgpuCoverage() lists both sides.
const WITHOUT_KERNEL: ReadonlyMap<string, string> = new Map([
  // The ops of src/ops/ops.h that compute through DataKernels methods with no WGSL kernel
  // yet (their defaults are CPU loops); the others of that file compose ops that have kernels.
  ['multinomial', 'no WGSL kernel for DataKernels::check_distribution and multinomial yet'],
  ['scatterReduce', 'no WGSL kernel for DataKernels::scatter_reduce yet'],
  // torch.linalg: LU and Cholesky in double (kernels/reference/data_linalg.cpp); WGSL has no f64.
  ...['linalgInv', 'linalgDet', 'linalgSlogdet', 'logdet', 'linalgSolve', 'linalgCholesky'].map(
    (op) => [op, 'no WGSL kernel for the DataKernels linear algebra (LU, Cholesky in double) yet'] as [string, string]),
  // The decompositions (kernels/reference/linalg_decomp.cpp): Householder, Givens and QL sweeps
  // in double, one matrix at a time; their products and norms (matmul, sum, ...) do run on WebGPU.
  ...['linalgSvd', 'linalgSvdvals', 'linalgEigh', 'linalgEigvalsh', 'linalgQr', 'linalgSolveTriangular', 'linalgLuFactor',
    'linalgMatrixExp', 'linalgPinv'].map(
    (op) => [op, 'no WGSL kernel for the DataKernels decompositions (SVD, eigh, QR, LU, triangular solve, expm in double) yet'] as [string, string]),
  // The special functions (DataKernels::special_f32): series and recurrences in double; WGSL has no f64.
  ...['erfinv', 'erfc', 'lgamma', 'digamma', 'polygamma', 'i0'].map(
    (op) => [op, 'no WGSL kernel for DataKernels::special_f32 (evaluated in double) yet'] as [string, string]),
]);

export function isSupported(op: string): boolean {
  return !WITHOUT_KERNEL.has(op);
}

export interface WebGpuCoverage {
  /** ops whose forward and backward run on WebGPU kernels */
  withKernel: string[];
  /** ops that run on wasm with their data moved for them, and why */
  withoutKernel: { op: string; reason: string }[];
}

export function coverage(opNames: readonly string[]): WebGpuCoverage {
  const ops = opNames.filter((n) => n !== 'scalar');
  return {
    withKernel: ops.filter(isSupported),
    withoutKernel: ops.filter((n) => !isSupported(n)).map((op) => ({ op, reason: WITHOUT_KERNEL.get(op)! })),
  };
}
