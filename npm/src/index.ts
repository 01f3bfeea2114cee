// Package entry: createInit(factory) turns the Emscripten module factory into the public
// init(options?) → Promise<Simdgrad>. The entry files (npm/entry/index.{mjs,cjs}) do
// `export const init = createInit(createSimdgrad)`.
import { createApi, webgpuPresent, type Backend, type Simdgrad } from './api.js';
import type { ModuleFactory, SimdgradModule } from './embind.js';
import { setModule } from './module.js';
import { checkOptions } from './options.js';
import { consoleRef } from './env.js';

export interface InitOptions {
  /** 'wasm' (default), 'reference', 'webgpu' (not available yet: rejects), or 'auto' (best available). */
  backend?: Backend | 'auto';
  /** Worker threads; only 1 in this build. */
  threads?: number;
}

export function createInit(factory: ModuleFactory): (options?: InitOptions) => Promise<Simdgrad> {
  let loading: Promise<SimdgradModule> | null = null;
  let api: Simdgrad | null = null;
  return async function init(options?: InitOptions): Promise<Simdgrad> {
    const o = checkOptions<InitOptions>('init', options, {
      backend: ['wasm', 'reference', 'webgpu', 'auto'],
      threads: 'positiveInteger',
    });
    if (o.threads !== undefined && o.threads !== 1) {
      throw new Error(`init: threads: ${o.threads} is not available (this build of simdgrad is single-threaded; use threads: 1)`);
    }
    const wanted = o.backend ?? 'wasm';
    if (wanted === 'webgpu') {
      const why = webgpuPresent() ? 'the WebGPU backend is not part of this version of simdgrad' : 'navigator.gpu is missing here, and the WebGPU backend is not part of this version of simdgrad';
      throw new Error(`init: backend 'webgpu' is not available (${why}); use 'wasm' or 'auto'`);
    }
    // One module per package instance; a failed load may be retried by a later init().
    if (loading === null) {
      loading = factory().catch((e: unknown) => {
        loading = null;
        throw e;
      });
    }
    const m = await loading;
    setModule(m);
    let backend = wanted;
    if (backend === 'auto') {
      consoleRef().warn("simdgrad: backend 'auto' chose 'wasm' (the WebGPU backend is not available in this version)");
      backend = 'wasm';
    }
    m.setBackend(backend);
    api ??= createApi();
    return api;
  };
}

export { Tensor } from './tensor.js';
export type { NestedArray, BackwardOptions, GradHook } from './tensor.js';
export type { Simdgrad, Backend, Features } from './api.js';
export type { TensorLike } from './call.js';
export type { DType, Device, ModuleFactory, TensorHandle, SimdgradModule } from './embind.js';
export type { TensorOptions, CreationOptions, TensorData, NestedInput } from './creation.js';
export type { MemoryInfo } from './memory.js';
export type { OpFunctions, OpMethods, Dim, ShapeArgs, IndexLike, GeluOptions, SoftplusOptions, VarOptions, PadOptions } from './ops.js';
export type { TypedData } from './module.js';
export type {
  ParamGroup,
  ParamGroupInput,
  ParamsInput,
  ParamState,
  OptimizerStateDict,
  SGDOptions,
  AdamOptions,
  AdamWOptions,
  RMSpropOptions,
  AdagradOptions,
  SchedulerState,
  StepLROptions,
  MultiStepLROptions,
  CosineAnnealingLROptions,
  LinearLROptions,
  OneCycleLROptions,
  ReduceLROnPlateauOptions,
} from './optim/index.js';
export type { SaveOptions, BytesLike } from './io.js';
export type { Dataset, DataLoaderOptions } from './data.js';
export type { MnistOptions, MnistSplit } from './datasets/mnist.js';
