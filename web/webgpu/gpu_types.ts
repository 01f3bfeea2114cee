// The few WebGPU types the runtime uses, declared here so that the package builds without
// @webgpu/types and runs on any WebGPU implementation (browsers' navigator.gpu, Dawn's npm
// `webgpu` in Node). Only the members the runtime calls are listed.
/* eslint-disable @typescript-eslint/no-explicit-any */

export interface GPULike {
  requestAdapter(options?: { powerPreference?: string; forceFallbackAdapter?: boolean }): Promise<AdapterLike | null>;
}

export interface AdapterLike {
  features: Set<string> | ReadonlySet<string>;
  limits: Record<string, number>;
  info?: { vendor?: string; architecture?: string; device?: string; description?: string };
  requestDevice(descriptor?: { requiredFeatures?: string[]; requiredLimits?: Record<string, number> }): Promise<DeviceLike>;
}

export interface DeviceLike {
  limits: Record<string, number>;
  features: Set<string> | ReadonlySet<string>;
  queue: QueueLike;
  lost: Promise<{ reason: string; message: string }>;
  createBuffer(d: { size: number; usage: number; mappedAtCreation?: boolean; label?: string }): BufferLike;
  createShaderModule(d: { code: string; label?: string }): any;
  createComputePipeline(d: any): any;
  createBindGroupLayout(d: any): any;
  createPipelineLayout(d: any): any;
  createBindGroup(d: any): any;
  createCommandEncoder(d?: any): EncoderLike;
  pushErrorScope?(filter: string): void;
  popErrorScope?(): Promise<{ message: string } | null>;
  destroy(): void;
  addEventListener?(type: string, fn: (e: any) => void): void;
}

export interface QueueLike {
  submit(buffers: any[]): void;
  writeBuffer(buffer: BufferLike, offset: number, data: ArrayBufferView | ArrayBuffer, dataOffset?: number, size?: number): void;
  onSubmittedWorkDone(): Promise<void>;
}

export interface BufferLike {
  size: number;
  mapAsync(mode: number, offset?: number, size?: number): Promise<void>;
  getMappedRange(offset?: number, size?: number): ArrayBuffer;
  unmap(): void;
  destroy(): void;
}

export interface PassLike {
  setPipeline(p: any): void;
  setBindGroup(i: number, g: any): void;
  dispatchWorkgroups(x: number, y?: number, z?: number): void;
  end(): void;
}

export interface EncoderLike {
  beginComputePass(d?: any): PassLike;
  copyBufferToBuffer(src: BufferLike, srcOffset: number, dst: BufferLike, dstOffset: number, size: number): void;
  clearBuffer(b: BufferLike, offset?: number, size?: number): void;
  finish(): any;
}

// GPUBufferUsage / GPUMapMode values (the spec's numbers; globals are missing in Node).
export const Usage = {
  MAP_READ: 0x0001,
  MAP_WRITE: 0x0002,
  COPY_SRC: 0x0004,
  COPY_DST: 0x0008,
  UNIFORM: 0x0040,
  STORAGE: 0x0080,
} as const;
export const MAP_READ = 0x0001;
