// Package entry: createInit(factory) turns the Emscripten module factory into the public
// init(options?) → Promise<Simdgrad>. The entry files (npm/entry/index.{mjs,cjs}) do
// `export const init = createInit(createSimdgrad)`.
import { createApi, startWebGpu, type Backend, type Simdgrad } from './api.js';
import type { ModuleFactory, SimdgradModule } from './runtime/embind.js';
import { setModule } from './runtime/module.js';
import { checkOptions } from './runtime/options.js';
import { consoleRef } from './runtime/env.js';
import { configureRelaxedGemm } from './runtime/relaxed_gemm.js';
import { isThreadCount, isThreadedModule, MAX_THREADS, startThreads, threadsUnavailableReason } from './runtime/threads.js';

export interface InitOptions {
  /**
   * 'wasm' (default), 'reference', 'webgpu' (new tensors live on the GPU; rejects with the reason
   * when there is none), or 'auto' (webgpu when an adapter exists, else wasm with one warning).
   */
  backend?: Backend | 'auto';
  /**
   * The WebGPU entry point for 'webgpu'/'auto' (default: globalThis.navigator.gpu). In Node:
   * `create([])` from the npm package 'webgpu' (Dawn), which simdgrad does not depend on.
   */
  gpu?: object;
  /**
   * Threads for the kernels, the calling thread included: 1 to 16 (default 1). n > 1 loads the
   * threaded module (dist/mt/simdgrad-mt.*, built with -pthread), which needs SharedArrayBuffer:
   * in browsers only on cross-origin isolated pages (COOP/COEP headers). The first init() picks
   * the module for the page or process; later calls may change n within it. In Node the worker
   * threads do not keep the process alive; `sg.shutdown()` ends them at once.
   */
  threads?: number;
  /**
   * The float32 GEMM's relaxed-SIMD kernels (f32x4.relaxed_madd: one fused multiply-add per
   * product). Left out, the first init() uses them where the engine accepts relaxed SIMD
   * (Chromium; Node 22; Node 20 with --experimental-wasm-relaxed-simd) in the single-threaded
   * module; false runs the SIMD128 kernels (mul + add, rounded twice); a later init() may switch.
   * sg.features().relaxedSimd tells which run.
   */
  relaxedSimd?: boolean;
}

/** Loads the threaded module's factory on demand (a dynamic import in the entry files). */
export type ThreadedFactoryLoader = () => Promise<ModuleFactory>;

type Flavour = 'single' | 'threaded';

export function createInit(
  factory: ModuleFactory,
  loadThreaded?: ThreadedFactoryLoader,
): (options?: InitOptions) => Promise<Simdgrad> {
  let loading: Promise<SimdgradModule> | null = null;
  let flavour: Flavour | null = null;
  let api: Simdgrad | null = null;
  // One module per package instance; a failed load may be retried by a later init().
  const load = (which: Flavour): Promise<SimdgradModule> => {
    if (loading === null) {
      flavour = which;
      const make = which === 'single' ? Promise.resolve(factory) : loadThreaded!();
      loading = make
        .then((f) => f())
        .catch((e: unknown) => {
          loading = null;
          flavour = null;
          throw e;
        });
    }
    return loading;
  };
  return async function init(options?: InitOptions): Promise<Simdgrad> {
    const o = checkOptions<InitOptions>('init', options, {
      backend: ['wasm', 'reference', 'webgpu', 'auto'],
      threads: { check: isThreadCount, expected: `an integer from 1 to ${MAX_THREADS}` },
      relaxedSimd: 'boolean',
      gpu: {
        check: (v: unknown) => typeof v === 'object' && v !== null && typeof (v as { requestAdapter?: unknown }).requestAdapter === 'function',
        expected: "a GPU object with requestAdapter() (navigator.gpu, or create([]) from the npm package 'webgpu')",
      },
    });
    const threads = o.threads;
    const wanted = o.backend ?? 'wasm';
    let m: SimdgradModule;
    if (threads !== undefined && threads > 1) {
      if (flavour === 'single') {
        throw new Error(
          `init: threads: ${threads} is not available: simdgrad was already initialized single-threaded here ` +
            '(the first init() picks the module for the whole page or process; pass { threads } to that first call)',
        );
      }
      const why = threadsUnavailableReason();
      if (why !== null) throw new Error(`init: threads: ${threads} is not available: ${why}`);
      if (!loadThreaded) throw new Error(`init: threads: ${threads} is not available: this build of simdgrad has no threaded module`);
      m = await load('threaded');
      setModule(m);
      await startThreads(m, threads);
    } else {
      m = await load(flavour ?? 'single');
      setModule(m);
      if (threads === 1 && isThreadedModule(m)) m.setNumThreads(1);
    }
    await configureRelaxedGemm(m, o.relaxedSimd);
    if (wanted === 'webgpu' || wanted === 'auto') {
      m.setBackend('wasm'); // CPU tensors (and ops without a WGSL kernel) compute with SIMD
      try {
        await startWebGpu(m, o.gpu);
      } catch (e) {
        if (wanted === 'webgpu') throw e;
        const why = e instanceof Error ? e.message.replace(/^init: backend 'webgpu' is not available: /, '') : String(e);
        consoleRef().warn(`simdgrad: backend 'auto' chose 'wasm' (WebGPU is not available: ${why})`);
        m.setDefaultDevice('cpu');
      }
    } else {
      m.setBackend(wanted);
      m.setDefaultDevice('cpu');
    }
    await preloadOnnxProto();
    api ??= createApi();
    return api;
  };
}

export { Tensor } from './tensor/tensor.js';
export type { NestedArray } from './tensor/tensor.js';
export type { BackwardOptions, GradHook, GradOfOptions } from './autograd/backward.js';
export type { CheckedFn, GradcheckOptions, GradgradcheckOptions } from './autograd/gradcheck.js';
export type { Simdgrad, Backend, Features } from './api.js';
export type { TensorLike } from './tensor/call.js';
export type { DType, Device, ModuleFactory, TensorHandle, SimdgradModule } from './runtime/embind.js';
export type { DefaultDType, FInfo, IInfo, ResultTypeOperand } from './runtime/dtypes.js';
export type { WebGpuStats, WebGpuCoverage } from './runtime/webgpu_device.js';
export type { TensorOptions, CreationOptions, TensorData, NestedInput } from './tensor/creation.js';
export type { MemoryInfo } from './runtime/memory.js';
export type { OpFunctions, OpMethods, Dim, ShapeArgs, IndexLike, GeluOptions, SoftplusOptions, VarOptions, PadOptions, ReduceKeywords, VarKeywords, ArgReduceKeywords, DimKeyword, ReduceArgs, DimArgs, OptionalDimArgs, MaskLike } from './tensor/ops.js';
export type {
  MoreOpFunctions,
  MoreOpMethods,
  ComposeOpFunctions,
  ComposeOpMethods,
  ComposeMoreOpFunctions,
  ComposeMoreOpMethods,
  StackSplitOpFunctions,
  StatsOpFunctions,
} from './tensor/legacy_types.js';
export type { NanToNumOptions } from './tensor/pointwise.js';
export type { IscloseOptions } from './tensor/comparison.js';
export type { AminmaxOptions, DiffOptions } from './tensor/reductions.js';
export type { QuantileOptions, QuantileKeywords } from './tensor/statistics.js';
export type { SortOptions, SortResult, SortKeywords, TopkOptions, TopkKeywords, BucketizeOptions, SearchsortedOptions } from './tensor/sorting.js';
export type { IndexItem } from './tensor/indexing.js';
export type { ScatterReduceOptions, ScatterReduction } from './tensor/scatter_gather.js';
export type { AddmmOptions, CdistOptions, TensordotDims } from './tensor/products.js';
export type { MeshgridOptions } from './tensor/rearranging.js';
export type { CombinationsOptions } from './tensor/combinatorics.js';
export type { BernoulliOptions, MultinomialOptions, PermutationGenerator, RandpermOptions } from './tensor/sampling.js';
export type { KwArgs, Prefixes } from './tensor/keywords.js';
export type { MinMax, NamedPair, ValuesIndices } from './tensor/named_tuple.js';
export type { StackSplitFunctionOps } from './tensor/stack_split.js';
export type { Distribution, Normal, Uniform, Bernoulli, Categorical } from './distributions/distributions.js';
export type { DataDependentOpFunctions, UniqueOptions, UniqueResult, BincountOptions, HistcOptions } from './tensor/data_dependent.js';
export type { TypedData } from './runtime/handles.js';
export type { LinearOptions } from './nn/functional.js';
export type { CholeskyOptions, Linalg, LinalgFunctions } from './linalg/linalg.js';
export type { EighOptions, LinalgDecompositions, Lstsq, LstsqOptions, PinvOptions, QrOptions, SolveTriangularOptions, Svd, SvdOptions } from './linalg/decompositions.js';
export type { CrossOptions, LinalgNorms, MatrixNormOptions, MatrixRankOptions, NormOptions, VectorNormOptions } from './linalg/norms.js';
export type { Func, FunctionCtx, GradOptions, InDims, JacOptions, OutDims, Randomness, VmapOptions } from './func/index.js';
export type { AutocastOptions, GradScaler, GradScalerOptions, Scalable, ScalableOptimizer } from './amp/index.js';
export type { BitwiseOpFunctions } from './tensor/bitwise.js';
export type { Special, SpecialFunctions } from './special/special.js';
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
  AdadeltaOptions,
  AdamaxOptions,
  NAdamOptions,
  RAdamOptions,
  LBFGSOptions,
  SchedulerState,
  StepLROptions,
  MultiStepLROptions,
  CosineAnnealingLROptions,
  LinearLROptions,
  OneCycleLROptions,
  ReduceLROnPlateauOptions,
  LrLambda,
  ConstantLROptions,
  PolynomialLROptions,
  CosineAnnealingWarmRestartsOptions,
  CyclicLROptions,
  CyclicMode,
  SequentialLROptions,
} from './optim/index.js';
export type { RNNBaseOptions, RNNOptions, LSTMOptions, Nonlinearity } from './nn/rnn.js';
export type { PackedSequence, PackPaddedOptions, PadPackedOptions } from './nn/packed_sequence.js';
export type { InterpolateMode, InterpolateOptions } from './nn/interpolate.js';
export type { Conv3dOptions, ConvTranspose3dOptions } from './nn/conv3d.js';
export type { MaxPool3dOptions, AvgPool3dOptions, AdaptiveMaxPool3dOptions, AdaptiveSize3d } from './nn/pool3d.js';
export type { TransformerOptions, TransformerForwardOptions } from './nn/transformer.js';
export type {
  TripletMarginLossOptions,
  PoissonNllLossOptions,
  GaussianNllLossOptions,
  SigmoidFocalLossOptions,
} from './nn/loss_functions.js';
export type { SaveOptions, LoadOptions, BytesLike } from './io/safetensors.js';
export type { OnnxExportOptions } from './io/onnx.js';
import { preloadOnnxProto } from './io/onnx.js';
export type { GPTConfig, GPTOutput, GenerateOptions, GPT2Config, BertConfig, BertInputs, BertMaskedLMInputs, BertOutput, Models } from './models/index.js';
export type { LlamaConfig, RopeScaling, FromPretrainedOptions, PretrainedFile, PretrainedModel, PretrainedSource, SavePretrainedOptions } from './models/index.js';
export type { RMSNormOptions } from './nn/rms_norm.js';
export type { SDPAOptions } from './nn/functional_layers.js';
export type { BatchEncoding, DecodeOptions, EncodeBatchOptions, EncodeOptions, TokenizerSource, Tokenizers } from './tokenizers/index.js';
export type { PreTrainedTokenizer } from './tokenizers/index.js';
export type { Dataset, DataLoaderOptions } from './data/dataloader.js';
export type { DataSource, RandomSplitOptions } from './data/datasets.js';
export type { Sampler, RandomSamplerOptions, WeightedRandomSamplerOptions } from './data/samplers.js';
export type { MnistOptions, MnistSplit } from './data/mnist.js';
export type { CompileOptions, CompiledFunction, CompiledStats } from './compile/compile.js';
export type { JsCallOptions, Residuals, VjpFn } from './compile/jscall.js';
export type { TensorSpec as JsCallSpec } from './compile/jscall_template.js';
export type {
  Lambda,
  LambdaOptions,
  ElasticNetOptions,
  DivergenceReduction,
  DivergenceOptions,
  EntropyOptions,
  OrthogonalityOptions,
  GradientPenaltyOptions,
  Penalties,
} from './customloss/penalties.js';
export type {
  RegularizerOptions,
  Regularizer,
  TermGradMethod,
  TermGradReport,
  GradFn,
  LinearizeOptions,
  RegularizerTelemetry,
  CustomLossTelemetry,
  LinearizeResult,
  LossFn,
  AsyncLossFn,
  LossResult,
  Metrics,
} from './customloss/custom_loss.js';
export type { ForwardBackwardResult, TrainingClient, CustomForwardBackwardResult, LocalResult, CustomLoss } from './customloss/clients.js';
export type {
  RemoteClient,
  RemoteClientOptions,
  RemoteForwardBackwardResult,
  OptimStepOptions,
  OptimStepResult,
  LoadStateResult,
  SampleOptions,
  TrainerHealth,
  TokenDatum,
  TokenIds,
  CausalLM,
} from './customloss/remote.js';
export type { GradMethod, RegularizerEvent, GradientEvent, TelemetryEvents, TelemetryEvent, Telemetry } from './customloss/telemetry.js';
