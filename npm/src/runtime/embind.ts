// The surface of the wasm module (bindings/README.md), declared once. Nothing here runs: these
// types describe what `createSimdgrad()` resolves to. Tensors cross as integer ids into the
// C++ handle table; the JS layer calls the module only through handles.ts.

/** sg::DType's nine dtypes (runtime/dtypes.ts holds them in code order and what is known of them). */
export type DType = 'float32' | 'int32' | 'bool' | 'float16' | 'bfloat16' | 'float64' | 'int64' | 'int8' | 'uint8';
export type Device = 'cpu' | 'webgpu';

/**
 * A tensor as the wasm module knows it: a positive integer id into its handle table, holding one
 * reference to a C++ tensor until released. A Tensor owns exactly one.
 */
export type TensorHandle = number;

/** Attribute values an op accepts; undefined/null values are skipped (the op's default). */
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
  /** Live ids in the handle table (one per undisposed JS Tensor). */
  handles: number;
}

/**
 * The plain wasm exports (bindings/op_call.cpp, optim_call.cpp, handle_calls.cpp, stack_guard.cpp), named here
 * without their `_sg_` prefix. Failures return -1 with the message pending for take_error().
 */
export interface RawExports {
  take_error(): number;
  scratch(which: number, minSize: number): number;
  scratch_size(which: number): number;
  intern(at: number, end: number): number;
  call_op(op: number, nInputs: number, nWords: number): number;
  optim_prepare(algorithm: number, nKeys: number, nParams: number, nWords: number): number;
  optim_group_set_attrs(group: number, nWords: number): number;
  optim_group_step(group: number): number;
  optim_group_free(group: number): number;
  empty(ndim: number, dtype: number): number;
  scalar(value: number, dtype: number): number;
  release(id: number): number;
  share(id: number): number;
  same(a: number, b: number): number;
  live_handles(): number;
  dtype(id: number): number;
  promote_types(a: number, b: number): number;
  device(id: number): number;
  shape(id: number): number;
  strides(id: number): number;
  is_contiguous(id: number): number;
  data_ptr(id: number): number;
  item(id: number): number;
  requires_grad(id: number): number;
  set_requires_grad(id: number, on: number): number;
  is_leaf(id: number): number;
  grad_fn_name(id: number): number;
  grad(id: number): number;
  set_grad(id: number, grad: number): number;
  retain_grad(id: number): number;
  detach(id: number): number;
  is_grad_enabled(): number;
  set_grad_enabled(on: number): void;
}

export interface SimdgradModule {
  // Autograd calls that may run JS hooks (bindings/autograd.cpp).
  /** fn gets a new id on the gradient (the caller of fn releases it) and returns an id, undefined or an error message. */
  registerHook(id: TensorHandle, fn: (grad: TensorHandle) => TensorHandle | undefined | string): void;
  backward(id: TensorHandle, grad: TensorHandle, retainGraph: boolean, createGraph: boolean): void;
  computeGrads(root: TensorHandle, grad: TensorHandle, inputs: TensorHandle[], retainGraph: boolean, createGraph: boolean): TensorHandle[];
  setBackend(name: string): void;
  getBackend(): string;
  manualSeed(n: number): void;
  memoryStats(): MemoryStats;
  emptyCache(): void;
  resetPeakBytes(): void;
  /** Every op name, sorted; an op's id (what call_op takes) is its index here. */
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
  parallelWakes(): number;
  // Relaxed-SIMD GEMM kernels (bindings/relaxed_gemm.cpp; runtime/relaxed_gemm.ts).
  /** The side module's bytes (a copy); empty in the threaded module and in builds without clang-19. */
  relaxedGemmModule(): Uint8Array;
  /** [export name, function-table index] of every microkernel slot. */
  gemmKernelSlots(): [string, number][];
  useGemmKernelSlots(on: boolean): void;
  gemmKernelSlotsInUse(): boolean;
  // WebGPU device (bindings/webgpu_runtime.cpp; web/webgpu/).
  webgpuRegister(runtime: object): void;
  webgpuUnregister(): void;
  webgpuRunThen(id: number): void;
  webgpuTakeError(): string;
  webgpuForgetThens(): void;
  setDefaultDevice(device: Device): void;
  getDefaultDevice(): Device;
  copyInto(dst: TensorHandle, src: TensorHandle): void;
  // Optimizer steps' helpers, gradient clipping and safetensors (bindings/io_optim.cpp).
  /** Creates missing state entries without stepping (Adagrad's eager state). */
  optimInitState(algorithm: string, params: TensorHandle[], states: Record<string, TensorHandle>[], hyper: Attrs): void;
  clipGradNorm(params: TensorHandle[], maxNorm: number, normType: number, errorIfNonfinite: boolean): number;
  clipGradValue(params: TensorHandle[], clipValue: number): void;
  saveSafetensors(names: string[], tensors: TensorHandle[], metadata: Record<string, string> | null): Uint8Array;
  loadSafetensors(bytes: Uint8Array): LoadedSafetensors;
  // Heap views: replaced when memory grows, so read them right before each use.
  HEAPU8: Uint8Array;
  HEAP32?: Int32Array;
  HEAPF32?: Float32Array;
}

/** What loadSafetensors returns: names in file order, parallel handle ids (owned by the caller), metadata. */
export interface LoadedSafetensors {
  names: string[];
  tensors: TensorHandle[];
  metadata: Record<string, string>;
}

/** The Emscripten module factory (`createSimdgrad`). */
export type ModuleFactory = (overrides?: Record<string, unknown>) => Promise<SimdgradModule>;
