// The JS API's side of the WebGPU device: starting it (init({ backend: 'webgpu', gpu })),
// placing new tensors, asynchronous reads, sg.sync(), statistics and coverage.
import type { Device, SimdgradModule, TensorHandle } from './embind.js';
import { mod } from './module.js';
import * as H from './handles.js';
import { consoleRef } from './env.js';
import type { GPULike } from '../../../web/webgpu/gpu_types.js';
import { WebGpuRuntime, type WebGpuStats } from '../../../web/webgpu/runtime.js';
import { coverage, type WebGpuCoverage } from '../../../web/webgpu/coverage.js';

let runtime: WebGpuRuntime | null = null;

/** The live runtime, or null (none started, or its device was lost). */
export function activeRuntime(): WebGpuRuntime | null {
  return runtime && !runtime.lost ? runtime : null;
}

function findGpu(gpu: unknown): GPULike {
  if (gpu !== undefined) return gpu as GPULike;
  const g = globalThis as { navigator?: { gpu?: GPULike }; isSecureContext?: boolean };
  if (g.navigator?.gpu) return g.navigator.gpu;
  if (g.isSecureContext === false) {
    throw new Error("init: backend 'webgpu' is not available: navigator.gpu exists only in secure contexts (https or localhost), and this page is not one");
  }
  if (!g.navigator) {
    throw new Error(
      "init: backend 'webgpu' is not available: there is no navigator.gpu here (in Node, pass a GPU object: " +
        "init({ backend: 'webgpu', gpu: create([]) }) with create from the npm package 'webgpu')",
    );
  }
  throw new Error("init: backend 'webgpu' is not available: navigator.gpu is missing (this browser has no WebGPU, or it is disabled)");
}

/**
 * Starts the WebGPU device (or keeps the one running) and makes it the default device of new
 * tensors. Rejects with an Error that says what is missing.
 */
export async function startWebGpu(m: SimdgradModule, gpu: unknown): Promise<void> {
  if (!activeRuntime()) {
    const g = findGpu(gpu);
    const adapter = await g.requestAdapter();
    if (!adapter) throw new Error("init: backend 'webgpu' is not available: navigator.gpu.requestAdapter() found no GPU adapter");
    // The adapter's own limits for large buffers (the defaults are 128/256 MiB).
    const requiredLimits: Record<string, number> = {};
    for (const k of ['maxStorageBufferBindingSize', 'maxBufferSize']) {
      if (typeof adapter.limits[k] === 'number') requiredLimits[k] = adapter.limits[k]!;
    }
    const device = await adapter.requestDevice({ requiredLimits });
    runtime = new WebGpuRuntime(device, adapter, m, (message) => consoleRef().warn(message));
    m.webgpuRegister(runtime);
  }
  m.setDefaultDevice('webgpu');
}

/** Makes 'cpu' the default device again (sg.setBackend('wasm' | 'reference')). */
export function defaultToCpu(m: SimdgradModule): void {
  m.setDefaultDevice('cpu');
}

export function defaultDevice(): Device {
  return mod().getDefaultDevice();
}

/** The handle on `device` (default: the default device), taking ownership of `h`. */
export function placeOn(h: TensorHandle, device: Device | undefined): TensorHandle {
  const target = device ?? defaultDevice();
  if (H.handleDevice(h) === target) return h;
  try {
    return H.callOp1('to', [h], { device: target });
  } finally {
    H.releaseHandle(h);
  }
}

/** Waits for every GPU command so far; throws the first error the GPU side reported. */
export async function sync(): Promise<void> {
  if (runtime) await runtime.sync();
}

/** A copy of a handle's elements on any device (GPU tensors come down first). */
export async function readAsync(h: TensorHandle): Promise<H.TypedData> {
  if (H.handleDevice(h) === 'cpu') {
    // A CPU tensor may still be arriving from the GPU (t.to('cpu')): wait for it then.
    if (runtime) await runtime.sync();
    return H.readHandle(h);
  }
  const detached = H.detachHandle(h);
  let host: TensorHandle;
  try {
    host = H.callOp1('to', [detached], { device: 'cpu' });
  } finally {
    H.releaseHandle(detached);
  }
  try {
    await runtime!.sync();
    return H.readHandle(host);
  } finally {
    H.releaseHandle(host);
  }
}

/** A leaf copy of `h` on `device` that keeps requiresGrad (module.to moves parameters so). */
export function movedLeaf(h: TensorHandle, device: Device): TensorHandle {
  const detached = H.detachHandle(h);
  let moved: TensorHandle;
  try {
    moved = H.callOp1('to', [detached], { device });
  } finally {
    H.releaseHandle(detached);
  }
  if (H.requiresGradHandle(h)) H.setRequiresGradHandle(moved, true);
  return moved;
}

/** Counters of the running WebGPU device (all zero without one). */
export function webgpuStats(): WebGpuStats {
  if (!runtime) return { submits: 0, dispatches: 0, buffersCreated: 0, bytesResident: 0, bytesInUse: 0, reads: 0, pipelines: 0 };
  return runtime.stats();
}

/** Ops with and without WGSL kernels. */
export function webgpuCoverage(): WebGpuCoverage {
  return coverage(mod().opNames());
}

/**
 * Runs `run` once every GPU command so far (downloads included) is done and before any enqueued
 * later (WebGpuRuntime.hostStep); its exception is reported by the next sync().
 */
export function hostStep(run: () => void): void {
  const rt = activeRuntime();
  if (rt === null) throw new Error('webgpu: no running WebGPU device (it was lost or never started)');
  rt.hostStep(run);
}

/** Submits the GPU work encoded so far without waiting (the optimizers call it after a step). */
export function submitWork(): void {
  runtime?.submit();
}

export type { WebGpuStats, WebGpuCoverage };
