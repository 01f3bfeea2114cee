// The Embind surface of the wasm module (bindings/README.md), declared once. Nothing here
// runs: these types describe what `createSimdgrad()` resolves to.

export type DType = 'float32' | 'int32' | 'bool';
export type Device = 'cpu' | 'webgpu';

/** Owns one reference to a C++ sg::Tensor; must be `.delete()`d exactly once. */
export interface TensorHandle {
  shape(): number[];
  strides(): number[];
  dtype(): DType;
  device(): Device;
  numel(): number;
  ndim(): number;
  isContiguous(): boolean;
  /** Byte address of element 0 (at the offset) in the wasm heap. */
  dataPtr(): number;
  item(): number;
  requiresGrad(): boolean;
  setRequiresGrad(b: boolean): void;
  isLeaf(): boolean;
  gradFnName(): string | null;
  grad(): TensorHandle | null;
  setGrad(h: TensorHandle | null): void;
  retainGrad(): void;
  registerHook(fn: (h: TensorHandle) => TensorHandle | undefined | string): void;
  backward(grad: TensorHandle | null, retainGraph: boolean): void;
  detach(): TensorHandle;
  share(): TensorHandle;
  same(h: TensorHandle): boolean;
  delete(): void;
  isDeleted?(): boolean;
}

/** Attribute values callOp accepts; undefined/null values are skipped. */
export type AttrValue = number | boolean | string | number[] | null | undefined;
export type Attrs = Record<string, AttrValue>;

export interface MemoryStats {
  storages: number;
  bytes: number;
  peakBytes: number;
  /** Bytes currently allocated by malloc in the wasm heap (mallinfo().uordblks). */
  heapUsed: number;
  /** Bytes the caching allocator keeps for reuse (freed tensor buffers), and their count. */
  cachedBytes: number;
  cachedBlocks: number;
  /** WebGPU storages and their bytes (not in storages/bytes). */
  deviceStorages?: number;
  deviceBytes?: number;
}

export interface SimdgradModule {
  empty(shape: number[], dtype: DType): TensorHandle;
  callOp(name: string, inputs: (TensorHandle | null)[], attrs: Attrs | null): TensorHandle[];
  computeGrads(root: TensorHandle, grad: TensorHandle | null, inputs: TensorHandle[], retainGraph: boolean): TensorHandle[];
  setBackend(name: string): void;
  getBackend(): string;
  manualSeed(n: number): void;
  setGradEnabled(b: boolean): void;
  isGradEnabled(): boolean;
  memoryStats(): MemoryStats;
  emptyCache(): void;
  opNames(): string[];
  simdEnabled(): boolean;
  // Threads (bindings/threads.cpp): the default module reports threadsSupported() false.
  threadsSupported(): boolean;
  setNumThreads(n: number): void;
  numThreads(): number;
  workerThreads(): number;
  shutdownThreads(): void;
  maxThreads(): number;
  parallelJobs(): number;
  // WebGPU device (bindings/webgpu_runtime.cpp; npm/src/webgpu/).
  webgpuRegister(runtime: object): void;
  webgpuUnregister(): void;
  webgpuRunThen(id: number): void;
  webgpuTakeError(): string;
  webgpuForgetThens(): void;
  setDefaultDevice(device: Device): void;
  getDefaultDevice(): Device;
  copyInto(dst: TensorHandle, src: TensorHandle): void;
  // Heap views: replaced when memory grows, so read them right before each use.
  HEAPU8: Uint8Array;
  HEAP32?: Int32Array;
  HEAPF32?: Float32Array;
}

/** The Emscripten module factory (`createSimdgrad`). */
export type ModuleFactory = (overrides?: Record<string, unknown>) => Promise<SimdgradModule>;
