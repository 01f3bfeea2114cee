// The op-table types the package exported before the ops were filed by family, which grouped ops
// by when they came (MoreOpFunctions: the C++ ops of PyTorch breadth; ComposeOpFunctions and
// ComposeMoreOpFunctions: two rounds of compositions; StatsOpFunctions; StackSplitOpFunctions).
// index.ts still exports them under these names, each the same set of functions as before, now
// picked from the family interfaces (pointwise.ts, reductions.ts, sorting.ts, ...) that hold them.
import type { MethodsOf } from './ops.js';
import type { ComparisonOpFunctions } from './comparison.js';
import type { CombinatoricsOpFunctions } from './combinatorics.js';
import type { IndexingOpFunctions } from './indexing.js';
import type { MatrixOpFunctions } from './matrices.js';
import type { PointwiseOpFunctions } from './pointwise.js';
import type { ProductOpFunctions } from './products.js';
import type { RearrangingOpFunctions } from './rearranging.js';
import type { ReductionOpFunctions } from './reductions.js';
import type { SamplingOpFunctions } from './sampling.js';
import type { ScatterGatherOpFunctions } from './scatter_gather.js';
import type { SortingOpFunctions } from './sorting.js';
import type { SplitBroadcastOpFunctions } from './stack_split.js';
import type { StatisticsOpFunctions } from './statistics.js';

/** The C++ ops of PyTorch breadth: rounding and trigonometry, modulo, logical ops, scans, sorting, scatter, triangles, rearranging, selection and indexing, sampling. */
export interface MoreOpFunctions
  extends Pick<
      PointwiseOpFunctions,
      'floor' | 'ceil' | 'round' | 'trunc' | 'tan' | 'atan' | 'asin' | 'acos' | 'sinh' | 'cosh' | 'atan2' | 'fmod' | 'remainder' | 'floorDivide' | 'logicalAnd' | 'logicalOr' | 'logicalXor' | 'logicalNot'
    >,
    Pick<ReductionOpFunctions, 'any' | 'all' | 'cumsum' | 'cumprod'>,
    Pick<SortingOpFunctions, 'sort' | 'argsort' | 'topk'>,
    Pick<ScatterGatherOpFunctions, 'scatter' | 'scatterAdd' | 'scatterReduce'>,
    Pick<MatrixOpFunctions, 'tril' | 'triu' | 'diag'>,
    Pick<ProductOpFunctions, 'outer'>,
    Pick<RearrangingOpFunctions, 'flip' | 'roll' | 'repeat' | 'tile'>,
    Pick<IndexingOpFunctions, 'select' | 'index'>,
    Pick<SamplingOpFunctions, 'bernoulli' | 'multinomial'> {}
/** The methods derived from MoreOpFunctions: the first argument becomes `this`. */
export type MoreOpMethods = MethodsOf<MoreOpFunctions>;

/** Compositions: special values, amax/amin, lerp and its kin, the matrix-product spellings, order statistics, rearranging. */
export interface ComposeOpFunctions
  extends Pick<
      PointwiseOpFunctions,
      'isnan' | 'isinf' | 'isfinite' | 'nanToNum' | 'lerp' | 'logaddexp' | 'xlogy' | 'logit' | 'sinc' | 'frac' | 'exp2' | 'rad2deg' | 'deg2rad' | 'clampMin' | 'clampMax'
    >,
    Pick<ReductionOpFunctions, 'amax' | 'amin'>,
    Pick<ProductOpFunctions, 'bmm' | 'mv' | 'dot' | 'addmm' | 'trace' | 'cross'>,
    Pick<RearrangingOpFunctions, 'unbind' | 'movedim' | 'swapaxes' | 'repeatInterleave'>,
    Pick<StatisticsOpFunctions, 'kthvalue' | 'median' | 'quantile'> {}
/** The methods derived from ComposeOpFunctions: the first argument becomes `this`. */
export type ComposeOpMethods = MethodsOf<ComposeOpFunctions>;

/** More compositions: fused arithmetic, closeness, NaN-ignoring reductions, differences, distances, bucketing, products, rearranging. */
export interface ComposeMoreOpFunctions
  extends Pick<PointwiseOpFunctions, 'addcmul' | 'addcdiv' | 'heaviside'>,
    Pick<ProductOpFunctions, 'baddbmm' | 'addbmm' | 'addmv' | 'cdist' | 'inner' | 'kron' | 'tensordot'>,
    Pick<ComparisonOpFunctions, 'isclose' | 'allclose'>,
    Pick<ReductionOpFunctions, 'nansum' | 'nanmean' | 'countNonzero' | 'aminmax' | 'varMean' | 'stdMean' | 'diff'>,
    Pick<SortingOpFunctions, 'bucketize' | 'msort'>,
    Pick<ScatterGatherOpFunctions, 'takeAlongDim'>,
    Pick<RearrangingOpFunctions, 'rot90'>,
    Pick<MatrixOpFunctions, 'diagonal' | 'diagEmbed'>,
    Pick<CombinatoricsOpFunctions, 'combinations'> {}
/** The methods derived from ComposeMoreOpFunctions: the first argument becomes `this`. */
export type ComposeMoreOpMethods = MethodsOf<ComposeMoreOpFunctions>;

/** NaN-aware extremes, statistics and running reductions. */
export interface StatsOpFunctions
  extends Pick<ComparisonOpFunctions, 'fmax' | 'fmin'>,
    Pick<PointwiseOpFunctions, 'trueDivide'>,
    Pick<StatisticsOpFunctions, 'cov' | 'corrcoef' | 'nanmedian' | 'nanquantile'>,
    Pick<ReductionOpFunctions, 'cummax' | 'cummin' | 'logcumsumexp'> {}

/** Stacking, splitting and scattering spellings (the methods; stack_split.ts's StackSplitFunctionOps has the functions). */
export interface StackSplitOpFunctions
  extends Pick<RearrangingOpFunctions, 'flipud' | 'fliplr'>,
    SplitBroadcastOpFunctions,
    Pick<IndexingOpFunctions, 'narrowCopy'>,
    Pick<ScatterGatherOpFunctions, 'take' | 'indexAdd' | 'indexCopy' | 'indexFill' | 'selectScatter' | 'sliceScatter' | 'diagonalScatter'>,
    Pick<MatrixOpFunctions, 'vander'> {}
