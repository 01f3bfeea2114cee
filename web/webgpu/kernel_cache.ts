// Compute pipelines and their bind group layouts, compiled once per kernel variant and kept.
// Every kernel binds its storage buffers at 0..n−1 (read-only or read-write) and its
// parameter block (params.ts) at n.
import type { DeviceLike } from './gpu_types.js';

export type Access = 'read' | 'write';

export interface KernelSpec {
  /** Unique per WGSL source: the kernel name plus whatever variant its code depends on. */
  key: string;
  access: readonly Access[];
  /** The WGSL source (called once, on the first use of `key`). */
  code: () => string;
}

interface Compiled {
  pipeline: unknown;
  layout: unknown;
}

const COMPUTE = 0x4; // GPUShaderStage.COMPUTE

export class KernelCache {
  private compiled = new Map<string, Compiled>();
  private layouts = new Map<string, unknown>();
  pipelines = 0;

  constructor(private device: DeviceLike) {}

  pipeline(spec: KernelSpec): Compiled {
    let c = this.compiled.get(spec.key);
    if (c) return c;
    const layout = this.layout(spec.access);
    const module = this.device.createShaderModule({ code: spec.code(), label: spec.key });
    const pipeline = this.device.createComputePipeline({
      label: spec.key,
      layout: this.device.createPipelineLayout({ bindGroupLayouts: [layout] }),
      compute: { module, entryPoint: 'main' },
    });
    c = { pipeline, layout };
    this.compiled.set(spec.key, c);
    this.pipelines++;
    return c;
  }

  private layout(access: readonly Access[]): unknown {
    const key = access.join(',');
    let l = this.layouts.get(key);
    if (l) return l;
    const entries: unknown[] = access.map((a, binding) => ({
      binding,
      visibility: COMPUTE,
      buffer: { type: a === 'write' ? 'storage' : 'read-only-storage' },
    }));
    entries.push({ binding: access.length, visibility: COMPUTE, buffer: { type: 'uniform' } });
    l = this.device.createBindGroupLayout({ entries });
    this.layouts.set(key, l);
    return l;
  }
}
