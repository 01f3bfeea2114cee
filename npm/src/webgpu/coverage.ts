// Which ops run on WebGPU kernels. Every op computes through the Backend methods
// (src/kernels/backend.h), and the WebGPU backend has a WGSL kernel for each method but those
// named below; an op that needs one of them runs on wasm instead (the deferred fallback of
// src/ops/fallback.cpp, one console warning per op). sg.webgpuCoverage() lists both sides.
const WITHOUT_KERNEL: ReadonlyMap<string, string> = new Map([
  // Convolutions and pooling still compute outside the Backend interface on main (their
  // kernels are moving behind it); max_pool2d, im2col and col2im have no WGSL yet either.
  ['conv1d', 'convolution kernels are not behind the Backend interface yet'],
  ['conv2d', 'convolution kernels are not behind the Backend interface yet'],
  ['convTranspose2d', 'convolution kernels are not behind the Backend interface yet'],
  ['maxPool1d', 'pooling kernels are not behind the Backend interface yet'],
  ['maxPool2d', 'pooling kernels are not behind the Backend interface yet'],
  ['avgPool1d', 'pooling kernels are not behind the Backend interface yet'],
  ['avgPool2d', 'pooling kernels are not behind the Backend interface yet'],
  ['adaptiveAvgPool2d', 'pooling kernels are not behind the Backend interface yet'],
  ['rnnLayer', 'the recurrent cell math still reads tensor memory itself (not through the Backend)'],
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
