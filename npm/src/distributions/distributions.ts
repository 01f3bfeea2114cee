// sg.distributions: torch.distributions' Normal, Uniform, Bernoulli and Categorical, with
// sample (no gradient), rsample (reparameterized: differentiable in the parameters; Normal and
// Uniform), logProb, entropy, cdf, mean/variance/stddev, and klDivergence between two of one
// family. Each formula is PyTorch 1.13's, operation by operation (torch/distributions/*.py), so
// values and gradients follow it; samples come from sg.manualSeed's generator (they are not
// PyTorch's numbers). Parameters broadcast to the batch shape; a shape given to sample is
// prepended to it.
import { tensorArg, type TensorLike } from '../tensor/call.js';
import { F } from '../nn/functional.js';
import { shareHandle } from '../runtime/handles.js';
import { noGrad } from '../autograd/backward.js';
import { rand, randn, tensor } from '../tensor/creation.js';
import { tidy } from '../runtime/memory.js';
import { functionOps, ops } from '../tensor/ops.js';
import { pointwiseOps } from '../tensor/pointwise.js';
import { samplingOps } from '../tensor/sampling.js';
import { broadcastShapesOf, checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';

const FLOAT32_EPS = 1.1920928955078125e-7;   // torch.finfo(torch.float32).eps
const FLOAT32_MIN = -3.4028234663852886e38;  // torch.finfo(torch.float32).min
const LOG_SQRT_2PI = Math.log(Math.sqrt(2 * Math.PI));

/**
 * A parameter: a Tensor (float32; the distribution keeps its own handle on it, so dispose()
 * frees only that, and gradients still reach the caller's tensor) or a number (a 0-d tensor).
 */
function param(cls: string, name: string, v: unknown, device?: Tensor['device']): Tensor {
  if (typeof v === 'number') return tensor(v, { device });
  const t = tensorArg(cls, name, v);
  if (t.dtype !== 'float32') throw new Error(`${cls}: expected '${name}' to be float32, got ${t.dtype}`);
  return new Tensor(shareHandle(t.handle));
}

/** Two parameters; if the second is refused, the first one's handle is freed again. */
function paramPair(cls: string, [n1, v1]: [string, unknown], [n2, v2]: [string, unknown]): [Tensor, Tensor] {
  const a = param(cls, n1, v1, v2 instanceof Tensor ? v2.device : undefined);
  try {
    return [a, param(cls, n2, v2, a.device)];
  } catch (e) {
    a.dispose();
    throw e;
  }
}

/** The batch shape of two parameters; if they do not broadcast, both handles are freed first. */
function batchOf(cls: string, a: Tensor, b: Tensor): number[] {
  try {
    return broadcastShapesOf(cls, [a.shape, b.shape]);
  } catch (e) {
    a.dispose();
    b.dispose();
    throw e;
  }
}

function sampleShape(cls: string, shape: unknown): number[] {
  if (shape === undefined) return [];
  const s = typeof shape === 'number' ? [shape] : shape;
  if (!Array.isArray(s) || !s.every((v) => isInteger(v) && v >= 0)) throw new Error(`${cls}.sample: expected a shape (an array of sizes), got ${describe(shape)}`);
  return s.slice();
}


/** The common surface (torch.distributions.Distribution). Tensors a distribution holds are freed by dispose(). */
export abstract class Distribution {
  abstract readonly batchShape: number[];
  abstract get mean(): Tensor;
  abstract get variance(): Tensor;
  get stddev(): Tensor {
    return ops.sqrt(this.variance);
  }
  /** Samples of shape [...shape, ...batchShape] (no gradient). */
  sample(shape?: number | number[]): Tensor {
    return noGrad(() => this.draw(sampleShape(this.constructor.name, shape)));
  }
  /** Reparameterized samples: differentiable in the parameters (Normal, Uniform). */
  rsample(shape?: number | number[]): Tensor {
    if (!this.hasRsample) throw new Error(`${this.constructor.name}.rsample: this distribution has no reparameterized sampling; use sample (and a score-function estimator such as REINFORCE)`);
    return this.draw(sampleShape(this.constructor.name, shape));
  }
  abstract logProb(value: TensorLike): Tensor;
  abstract entropy(): Tensor;
  /** Frees the tensors the distribution made or holds. */
  abstract dispose(): void;
  protected abstract get hasRsample(): boolean;
  /** Samples of [...shape, ...batchShape], as a function of the parameters (sample() runs it without gradient). */
  protected abstract draw(shape: number[]): Tensor;
}

export class Normal extends Distribution {
  readonly loc: Tensor;
  readonly scale: Tensor;
  readonly batchShape: number[];

  constructor(loc: TensorLike, scale: TensorLike) {
    super();
    [this.loc, this.scale] = paramPair('Normal', ['loc', loc], ['scale', scale]);
    this.batchShape = batchOf('Normal', this.loc, this.scale);
  }

  get mean(): Tensor {
    return ops.expand(this.loc, this.batchShape);
  }
  get variance(): Tensor {
    return ops.expand(ops.pow(this.scale, 2), this.batchShape);
  }
  protected get hasRsample(): boolean {
    return true;
  }
  protected draw(shape: number[]): Tensor {
    return tidy(() => ops.add(this.loc, ops.mul(randn([...shape, ...this.batchShape], { device: this.loc.device }), this.scale)));
  }
  logProb(value: TensorLike): Tensor {
    return tidy(() => {
      const variance = ops.pow(this.scale, 2);
      return ops.sub(ops.sub(ops.div(ops.neg(ops.pow(ops.sub(value, this.loc), 2)), ops.mul(variance, 2)), ops.log(this.scale)), LOG_SQRT_2PI);
    });
  }
  entropy(): Tensor {
    return tidy(() => ops.expand(ops.add(0.5 + 0.5 * Math.log(2 * Math.PI), ops.log(this.scale)), this.batchShape));
  }
  /** P(X ≤ value). */
  cdf(value: TensorLike): Tensor {
    // PyTorch's order: (value − loc)·(1/scale)/√2.
    return tidy(() => ops.mul(ops.add(ops.erf(ops.div(ops.mul(ops.sub(value, this.loc), ops.reciprocal(this.scale)), Math.SQRT2)), 1), 0.5));
  }
  dispose(): void {
    this.loc.dispose();
    this.scale.dispose();
  }
}

export class Uniform extends Distribution {
  readonly low: Tensor;
  readonly high: Tensor;
  readonly batchShape: number[];

  constructor(low: TensorLike, high: TensorLike) {
    super();
    [this.low, this.high] = paramPair('Uniform', ['low', low], ['high', high]);
    this.batchShape = batchOf('Uniform', this.low, this.high);
  }

  get mean(): Tensor {
    return tidy(() => ops.expand(ops.div(ops.add(this.high, this.low), 2), this.batchShape));
  }
  get variance(): Tensor {
    return tidy(() => ops.expand(ops.div(ops.pow(ops.sub(this.high, this.low), 2), 12), this.batchShape));
  }
  protected get hasRsample(): boolean {
    return true;
  }
  protected draw(shape: number[]): Tensor {
    return tidy(() => ops.add(this.low, ops.mul(rand([...shape, ...this.batchShape], { device: this.low.device }), ops.sub(this.high, this.low))));
  }
  logProb(value: TensorLike): Tensor {
    // log(1[low ≤ v]·1[v < high]) − log(high − low): −inf outside.
    return tidy(() => {
      const inside = ops.mul(ops.le(this.low, value).float(), ops.gt(this.high, value).float());
      return ops.sub(ops.log(inside), ops.log(ops.sub(this.high, this.low)));
    });
  }
  entropy(): Tensor {
    return tidy(() => ops.expand(ops.log(ops.sub(this.high, this.low)), this.batchShape));
  }
  cdf(value: TensorLike): Tensor {
    return tidy(() => ops.clamp(ops.div(ops.sub(value, this.low), ops.sub(this.high, this.low)), 0, 1));
  }
  dispose(): void {
    this.low.dispose();
    this.high.dispose();
  }
}

/** probs or logits (exactly one), as torch.distributions take them. */
function probsOrLogits(cls: string, options: unknown): { probs?: Tensor; logits?: Tensor } {
  const o = checkOptions<{ probs: Tensor; logits: Tensor }>(cls, options, {
    probs: { check: (v) => v instanceof Tensor || typeof v === 'number', expected: 'a Tensor or a number' },
    logits: { check: (v) => v instanceof Tensor || typeof v === 'number', expected: 'a Tensor or a number' },
  });
  if ((o.probs === undefined) === (o.logits === undefined)) throw new Error(`${cls}: expected exactly one of { probs } and { logits }`);
  return o.probs !== undefined ? { probs: param(cls, 'probs', o.probs) } : { logits: param(cls, 'logits', o.logits) };
}

/** 1 with probability p (torch.distributions.Bernoulli): new Bernoulli({ probs }) or ({ logits }). */
export class Bernoulli extends Distribution {
  readonly probs: Tensor;
  readonly logits: Tensor;
  readonly batchShape: number[];

  constructor(options: { probs?: TensorLike; logits?: TensorLike }) {
    super();
    const given = probsOrLogits('Bernoulli', options);
    // PyTorch's probs_to_logits (probabilities clamped to [eps, 1 − eps]) and logits_to_probs (sigmoid).
    this.probs = given.probs ?? ops.sigmoid(given.logits!);
    this.logits = given.logits ?? tidy(() => {
      const p = ops.clamp(given.probs!, FLOAT32_EPS, 1 - FLOAT32_EPS);
      return ops.sub(ops.log(p), ops.log1p(ops.neg(p)));
    });
    this.batchShape = this.probs.shape.slice();
  }

  get mean(): Tensor {
    return ops.clone(this.probs);
  }
  get variance(): Tensor {
    return tidy(() => ops.mul(this.probs, ops.sub(1, this.probs)));
  }
  protected get hasRsample(): boolean {
    return false;
  }
  protected draw(shape: number[]): Tensor {
    return tidy(() => samplingOps.bernoulli(ops.expand(this.probs, [...shape, ...this.batchShape])));
  }
  logProb(value: TensorLike): Tensor {
    return tidy(() => ops.neg(bceWithLogits(this.logits, value)));
  }
  entropy(): Tensor {
    return tidy(() => bceWithLogits(this.logits, this.probs));
  }
  dispose(): void {
    this.probs.dispose();
    this.logits.dispose();
  }
}

/** binary_cross_entropy_with_logits(x, y, reduction='none'), as PyTorch's Bernoulli uses it. */
function bceWithLogits(x: Tensor, y: TensorLike): Tensor {
  const t = y instanceof Tensor ? y : tensor(y as number, { device: x.device });
  const shape = broadcastShapesOf('Bernoulli.logProb', [x.shape, t.shape]);  // the loss takes operands of one shape
  return F.binaryCrossEntropyWithLogits(ops.expand(x, shape), ops.expand(t, shape), { reduction: 'none' });
}

/** One of K categories (the last dim of probs or logits): new Categorical({ probs }) or ({ logits }). */
export class Categorical extends Distribution {
  /** Normalized over the last dim. */
  readonly probs: Tensor;
  /** Normalized: log-probabilities. */
  readonly logits: Tensor;
  readonly batchShape: number[];

  constructor(options: { probs?: TensorLike; logits?: TensorLike }) {
    super();
    const given = probsOrLogits('Categorical', options);
    const t = (given.probs ?? given.logits)!;
    if (t.ndim < 1) throw new Error('Categorical: expected probs or logits with at least 1 dim (the categories)');
    if (given.probs) {
      this.probs = tidy(() => ops.div(given.probs!, ops.sum(given.probs!, -1, true)));
      // PyTorch's probs_to_logits: the log of the probabilities clamped to [eps, 1 − eps].
      this.logits = tidy(() => ops.log(ops.clamp(this.probs, FLOAT32_EPS, 1 - FLOAT32_EPS)));
    } else {
      this.logits = tidy(() => ops.sub(given.logits!, ops.logsumexp(given.logits!, -1, true)));
      this.probs = ops.softmax(this.logits, -1);
    }
    this.batchShape = t.shape.slice(0, -1);
    t.dispose();  // the handle on the caller's tensor: only the normalized forms are kept
  }

  get mean(): Tensor {
    return tidy(() => ops.mul(ops.sum(this.probs, -1), NaN));
  }
  get variance(): Tensor {
    return tidy(() => ops.mul(ops.sum(this.probs, -1), NaN));
  }
  protected get hasRsample(): boolean {
    return false;
  }
  protected draw(shape: number[]): Tensor {
    return tidy(() => {
      const k = this.probs.shape.at(-1)!;
      const rows = ops.reshape(this.probs, [-1, k]);
      const n = shape.reduce((p, v) => p * v, 1);
      const draws = samplingOps.multinomial(rows, n, { replacement: true });  // [rows, n]
      return ops.reshape(ops.transpose(draws, 0, 1), [...shape, ...this.batchShape]);
    });
  }
  logProb(value: TensorLike): Tensor {
    const v = tensorArg('Categorical.logProb', 'value', value);
    if (v.dtype !== 'int32') throw new Error(`Categorical.logProb: expected int32 category indices, got ${v.dtype}`);
    return tidy(() => {
      const shape = broadcastShapesOf('Categorical.logProb', [v.shape, this.batchShape]);
      const logits = ops.expand(this.logits, [...shape, this.logits.shape.at(-1)!]);
      return ops.squeeze(ops.gather(logits, -1, ops.unsqueeze(ops.expand(v, shape), -1)), -1);
    });
  }
  entropy(): Tensor {
    return tidy(() => ops.neg(ops.sum(ops.mul(ops.clamp(this.logits, FLOAT32_MIN, null), this.probs), -1)));
  }
  dispose(): void {
    this.probs.dispose();
    this.logits.dispose();
  }
}

/** KL(p ‖ q) for two distributions of one family (Normal, Uniform, Bernoulli, Categorical), PyTorch's formulas. */
export function klDivergence(p: Distribution, q: Distribution): Tensor {
  if (p instanceof Normal && q instanceof Normal) {
    return tidy(() => {
      const varRatio = ops.pow(ops.div(p.scale, q.scale), 2);
      const t1 = ops.pow(ops.div(ops.sub(p.loc, q.loc), q.scale), 2);
      return ops.mul(ops.sub(ops.sub(ops.add(varRatio, t1), 1), ops.log(varRatio)), 0.5);
    });
  }
  if (p instanceof Bernoulli && q instanceof Bernoulli) {
    // PyTorch's _kl_bernoulli_bernoulli: softplus forms, with the 0·log 0 terms at p = 0 and 1 set to 0.
    return tidy(() => {
      const t1 = ops.mul(p.probs, ops.sub(ops.softplus(ops.neg(q.logits)), ops.softplus(ops.neg(p.logits))));
      const t1z = functionOps.where(ops.eq(q.probs, 0), Infinity, t1);
      const t1f = functionOps.where(ops.eq(p.probs, 0), 0, t1z);
      const t2 = ops.mul(ops.sub(1, p.probs), ops.sub(ops.softplus(q.logits), ops.softplus(p.logits)));
      const t2z = functionOps.where(ops.eq(q.probs, 1), Infinity, t2);
      const t2f = functionOps.where(ops.eq(p.probs, 1), 0, t2z);
      return ops.add(t1f, t2f);
    });
  }
  if (p instanceof Categorical && q instanceof Categorical) {
    return tidy(() => {
      let t = ops.mul(p.probs, ops.sub(p.logits, q.logits));
      t = functionOps.where(ops.eq(q.probs, 0), Infinity, t);
      t = functionOps.where(ops.eq(p.probs, 0), 0, t);
      return ops.sum(t, -1);
    });
  }
  if (p instanceof Uniform && q instanceof Uniform) {
    return tidy(() => {
      const result = ops.log(ops.div(ops.sub(q.high, q.low), ops.sub(p.high, p.low)));
      const outside = pointwiseOps.logicalOr(ops.gt(q.low, p.low), ops.lt(q.high, p.high));
      return functionOps.where(outside, Infinity, result);
    });
  }
  throw new Error(`klDivergence: no formula for ${p?.constructor?.name ?? describe(p)} and ${q?.constructor?.name ?? describe(q)} (both must be Normal, Uniform, Bernoulli or Categorical, of one family)`);
}

export const distributions = { Distribution, Normal, Uniform, Bernoulli, Categorical, klDivergence };
