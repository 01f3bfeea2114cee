// The `sg` object that init() resolves to: every public function in one place.
import { enableGrad, grad, gradOf, noGrad, valueAndGrad } from './autograd/backward.js';
import { gradcheck, gradgradcheck } from './autograd/gradcheck.js';
import { func, Function as AutogradFunction } from './func/index.js';
import { autocast, GradScaler } from './amp/index.js';
import './tensor/inplace.js';  // the in-place Tensor methods (add_, mul_, fill_, ...)
import {
  arange,
  empty,
  emptyLike,
  eye,
  full,
  fullLike,
  linspace,
  logspace,
  ones,
  onesLike,
  rand,
  randint,
  randLike,
  randn,
  randnLike,
  tensor,
  zeros,
  zerosLike,
} from './tensor/creation.js';
import { dispose, emptyCache, keep, memory, resetPeakMemory, tidy } from './runtime/memory.js';
import * as H from './runtime/handles.js';
import { mod } from './runtime/module.js';
import { functionOps, ops } from './tensor/ops.js';
import { pointwiseOps } from './tensor/pointwise.js';
import { comparisonOps } from './tensor/comparison.js';
import { reductionOps } from './tensor/reductions.js';
import { statisticsOps } from './tensor/statistics.js';
import { sortingFunctionOps, sortingOps } from './tensor/sorting.js';
import { indexingOps } from './tensor/indexing.js';
import { scatterGatherOps } from './tensor/scatter_gather.js';
import { productFunctionOps, productOps } from './tensor/products.js';
import { rearrangingFunctionOps, rearrangingOps } from './tensor/rearranging.js';
import { matrixFunctionOps, matrixOps } from './tensor/matrices.js';
import { combinatoricsFunctionOps, combinatoricsOps } from './tensor/combinatorics.js';
import { randperm, samplingOps } from './tensor/sampling.js';
import { F } from './nn/functional.js';
import { linalg, linalgFunctions } from './linalg/linalg.js';
import { bitwiseOps } from './tensor/bitwise.js';
import { special, specialFunctions } from './special/special.js';
import { dataDependentOps } from './tensor/data_dependent.js';
import { stackSplitFunctionOps, stackSplitOps } from './tensor/stack_split.js';
import { distributions } from './distributions/distributions.js';
import { nn } from './nn/index.js';
import { optim } from './optim/index.js';
import { models } from './models/index.js';
import { tokenizers } from './tokenizers/index.js';
import { peft } from './peft/index.js';
import { checkpoint } from './utils/checkpoint.js';
import { load, loadMetadata, save, saveAsync } from './io/safetensors.js';
import { exportOnnx, useOnnxProto } from './io/onnx.js';
import { importOnnx } from './models/onnx_import.js';
import { data } from './data/dataloader.js';
import { datasets } from './data/mnist.js';
import { describe, isInteger } from './runtime/options.js';
import { Tensor } from './tensor/tensor.js';
import { version } from './runtime/version.js';
import { finfo, getDefaultDtype, iinfo, promoteTypes, resultType, setDefaultDtype } from './runtime/dtypes.js';
import { isThreadedModule, stopThreads } from './runtime/threads.js';
import { relaxedGemmInUse } from './runtime/relaxed_gemm.js';
import { compile } from './compile/compile.js';
import { recordHostStep } from './compile/trace_state.js';
import { jsCall } from './compile/jscall.js';
import { activeRuntime, defaultToCpu, startWebGpu, sync, webgpuCoverage, webgpuStats } from './runtime/webgpu_device.js';
import { penalties } from './customloss/penalties.js';
import { customLoss } from './customloss/clients.js';
import { telemetry } from './customloss/telemetry.js';

export type Backend = 'wasm' | 'reference' | 'webgpu';

export interface Features {
  /** The wasm module was compiled with SIMD128. */
  simd: boolean;
  /** The threaded wasm module is loaded (init({ threads: n > 1 })); see getNumThreads(). */
  threads: boolean;
  /** A WebGPU device is running (init({ backend: 'webgpu' }) or 'auto' found one). */
  webgpu: boolean;
  /** Half-precision compute (not used yet on any backend: always false). */
  f16: boolean;
  /** The float32 GEMM runs the relaxed-SIMD kernels (f32x4.relaxed_madd; init's relaxedSimd option). */
  relaxedSimd: boolean;
}

const BACKENDS: readonly string[] = ['wasm', 'reference', 'webgpu'];

export function features(): Features {
  return { simd: mod().simdEnabled(), threads: isThreadedModule(mod()), webgpu: activeRuntime() !== null, f16: false, relaxedSimd: relaxedGemmInUse(mod()) };
}

/** Threads the kernels use now, the calling thread included (1 in the default module). */
export function getNumThreads(): number {
  return mod().numThreads();
}

/**
 * Ends the worker threads of the threaded module (a no-op in the default one); simdgrad keeps
 * working on the calling thread, and a later init({ threads: n }) starts new ones. Node exits
 * by itself without it (the workers are unref'd); this frees them earlier.
 */
export function shutdown(): void {
  stopThreads(mod());
}

/**
 * Selects the compute backend: 'wasm' (SIMD, default) or 'reference' (scalar loops) for CPU
 * tensors, which also become the default for new tensors again; 'webgpu' makes new tensors
 * live on the GPU (only once init({ backend: 'webgpu' }) has started it).
 */
export function setBackend(name: Backend): void {
  if (typeof name !== 'string' || !BACKENDS.includes(name)) {
    throw new Error(`setBackend: unknown backend ${describe(name)} (expected one of: 'wasm', 'reference', 'webgpu')`);
  }
  if (name === 'webgpu') {
    if (!activeRuntime()) {
      throw new Error("setBackend: backend 'webgpu' is not running: start it with `await init({ backend: 'webgpu' })` (setBackend cannot wait for a GPU)");
    }
    mod().setDefaultDevice('webgpu');
    return;
  }
  mod().setBackend(name);
  defaultToCpu(mod());
}

/** 'webgpu' while new tensors go to the GPU, else the CPU backend. */
export function getBackend(): Backend {
  if (mod().getDefaultDevice() === 'webgpu') return 'webgpu';
  return mod().getBackend() as Backend;
}

export { startWebGpu };

/** Seeds the generator behind rand, randn, randint (and later init and dropout). */
export function manualSeed(seed: number): void {
  if (!isInteger(seed) || seed < 0) throw new Error(`manualSeed: expected a non-negative integer, got ${describe(seed)}`);
  // Inside sg.compile: reseeds on every compiled call, where eager code would.
  if (recordHostStep('manualSeed', () => mod().manualSeed(seed))) return;
  mod().manualSeed(seed);
}

export function isGradEnabled(): boolean {
  return H.isGradEnabled();
}

export function setGradEnabled(enabled: boolean): void {
  if (typeof enabled !== 'boolean') throw new Error(`setGradEnabled: expected a boolean, got ${describe(enabled)}`);
  H.setGradEnabled(enabled);
}

export function isTensor(x: unknown): x is Tensor {
  return x instanceof Tensor;
}

/** Builds the sg object (it holds no state: the loaded module lives in module.ts). */
export function createApi() {
  return {
    version,
    Tensor,
    isTensor,
    features,
    getNumThreads,
    shutdown,
    setBackend,
    getBackend,
    manualSeed,
    // dtypes (runtime/dtypes.ts)
    promoteTypes,
    resultType: (...operands: readonly (Tensor | number | boolean)[]) => resultType(...operands),
    finfo,
    iinfo,
    setDefaultDtype,
    getDefaultDtype,
    // creation
    tensor,
    zeros,
    ones,
    full,
    arange,
    linspace,
    logspace,
    eye,
    rand,
    randn,
    randint,
    randperm,
    zerosLike,
    onesLike,
    fullLike,
    randLike,
    randnLike,
    empty,
    emptyLike,
    // ops
    ...ops,
    ...functionOps,
    ...pointwiseOps,
    ...comparisonOps,
    ...reductionOps,
    ...statisticsOps,
    ...sortingOps,
    ...sortingFunctionOps,
    ...indexingOps,
    ...scatterGatherOps,
    ...productOps,
    ...productFunctionOps,
    ...rearrangingOps,
    ...rearrangingFunctionOps,
    ...matrixOps,
    ...matrixFunctionOps,
    ...combinatoricsOps,
    ...combinatoricsFunctionOps,
    ...samplingOps,
    ...stackSplitOps,
    ...stackSplitFunctionOps,
    ...linalgFunctions,
    ...bitwiseOps,
    ...specialFunctions,
    ...dataDependentOps,
    // memory
    tidy,
    keep,
    dispose,
    memory,
    emptyCache,
    resetPeakMemory,
    // WebGPU (API.md: Devices)
    sync,
    webgpuStats,
    webgpuCoverage,
    // autograd
    noGrad,
    enableGrad,
    isGradEnabled,
    setGradEnabled,
    grad,
    valueAndGrad,
    // torch.autograd's functions: grad (with createGraph for higher-order gradients), gradcheck
    autograd: { grad: gradOf, gradcheck, gradgradcheck, Function: AutogradFunction },
    // torch.func's transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap, functionalCall)
    func,
    // mixed precision: torch.autocast's op lists and torch.cuda.amp.GradScaler (API.md Dtypes)
    autocast,
    amp: { GradScaler },
    // compiled graphs and JavaScript callbacks (API.md)
    compile,
    jsCall,
    // nn (API.md: nn, Functional and losses)
    nn,
    F,
    // torch.linalg's basics (inv, det, slogdet, solve, cholesky)
    linalg,
    // torch.distributions' Normal, Uniform, Bernoulli, Categorical and klDivergence
    distributions,
    // torch.special's names (erfinv, gammaln, digamma/psi, polygamma, i0, expit, ndtr, entr, ...)
    special,
    // ready models with PyTorch's parameter names (nanoGPT, Hugging Face BERT)
    models,
    // Hugging Face tokenizers (tokenizer.json) through @huggingface/tokenizers (API.md: Fine-tuning)
    tokenizers,
    // LoRA in Hugging Face PEFT's format (API.md: Fine-tuning)
    peft,
    // torch.utils: activation checkpointing (API.md: Fine-tuning)
    utils: { checkpoint },
    // training: optimizers and schedulers, safetensors, data loading (API.md: Optimizers, Saving)
    optim,
    save,
    saveAsync,
    load,
    loadMetadata,
    // ONNX export (API.md: ONNX)
    onnx: { export: exportOnnx, use: useOnnxProto, importModel: importOnnx },
    data,
    datasets,
    // penalties and custom losses (API.md: Penalties and custom losses)
    penalties,
    customLoss,
    telemetry,
  };
}

/** The object init() resolves to. */
export type Simdgrad = ReturnType<typeof createApi>;
