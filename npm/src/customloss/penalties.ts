// sg.penalties: regularization terms, each a differentiable 0-d tensor to add to a loss.
// They are written only with the public tensor ops: no backend checks and no reads to the host,
// so the result lives on the input's device and every backend computes the same thing. The
// constants they need (an identity, the power iteration's start) are made on the host and moved
// to the input's device with `to(device)`. Inside sg.compile, gradientPenalty (a double backward,
// which the graph compiler cannot trace) becomes an sg.jsCall callback with a vjp.
import { enableGrad, gradOf, noGrad } from '../autograd/backward.js';
import { eye, tensor } from '../tensor/creation.js';
import { consoleRef } from '../runtime/env.js';
import { tidy } from '../runtime/memory.js';
import { mod } from '../runtime/module.js';
import { functionOps } from '../tensor/ops.js';
import { run } from '../tensor/call.js';
import { checkOptions, describe, type OptionSpec } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { activeTrace, readsDuring } from '../compile/trace_state.js';
import { jsCallOnDevice } from '../compile/jscall.js';

/** A penalty's strength: a number, or a 0-d float32 tensor (a runtime value, read by no one). */
export type Lambda = number | Tensor;

export interface LambdaOptions {
  /** Default 0.01. */
  lambda?: Lambda;
}
export interface ElasticNetOptions extends LambdaOptions {
  /** Share of the L1 term, in [0, 1] (default 0.5). */
  l1Ratio?: number;
}
/**
 * How per-distribution values (one per position of every dim but the last) are combined:
 * 'batchmean' = sum / size of the first dim (a 1-D input is one distribution), 'mean' = mean
 * over distributions, 'sum', or 'none' (the per-distribution tensor, of shape input.shape[:-1]).
 */
export type DivergenceReduction = 'batchmean' | 'mean' | 'sum' | 'none';
export interface DivergenceOptions {
  /** Default 'batchmean'. */
  reduction?: DivergenceReduction;
}
export interface EntropyOptions {
  /** 'maximize' (default) returns −H, 'minimize' returns H: adding either to a loss pushes H that way. */
  mode?: 'maximize' | 'minimize';
  /** Default 'mean'. */
  reduction?: DivergenceReduction;
}
export interface OrthogonalityOptions extends LambdaOptions {
  /** 'soft' (default): ‖W Wᵀ − I‖²_F; 'spectral': (σ_max(W) − 1)². */
  mode?: 'soft' | 'spectral';
  /**
   * How mode 'spectral' finds σ_max: 'svdvals' (the default when powerIterations is not given:
   * exact, sg.linalg.svdvals and its gradient) or 'power' (power iteration from a fixed start).
   */
  spectralMethod?: 'svdvals' | 'power';
  /** Power-iteration steps of spectralMethod 'power' (default 20); giving it selects 'power'. */
  powerIterations?: number;
}
export interface GradientPenaltyOptions {
  /** The gradient norm aimed at (default 1). */
  target?: number;
}

const DEFAULT_LAMBDA = 0.01;
const DEFAULT_POWER_ITERATIONS = 20;
const REDUCTIONS: readonly DivergenceReduction[] = ['batchmean', 'mean', 'sum', 'none'];

const lambdaSpec: OptionSpec = {
  check: (v) =>
    (typeof v === 'number' && Number.isFinite(v) && v >= 0) || (v instanceof Tensor && !v.isDisposed && v.ndim === 0 && v.dtype === 'float32'),
  expected: 'a non-negative finite number or a 0-d float32 Tensor',
};
const ratioSpec: OptionSpec = {
  check: (v) => typeof v === 'number' && v >= 0 && v <= 1,
  expected: 'a number in [0, 1]',
};
const targetSpec: OptionSpec = {
  check: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0,
  expected: 'a non-negative finite number',
};

// ---- argument checks ----

function floatTensor(fn: string, name: string, v: unknown): Tensor {
  if (!(v instanceof Tensor) || v.isDisposed || v.dtype !== 'float32') {
    throw new Error(`${fn}: expected '${name}' to be a float32 Tensor, got ${describe(v)}`);
  }
  return v;
}

/** A tensor of distributions along its last dim. */
function distributions(fn: string, name: string, v: unknown): Tensor {
  const t = floatTensor(fn, name, v);
  if (t.ndim === 0) throw new Error(`${fn}: expected '${name}' to have at least 1 dim (distributions along the last dim), got a 0-d Tensor`);
  return t;
}

/** The checked arguments of a divergence: two distribution tensors of one shape, and the reduction. */
function divergenceArgs(fn: string, logP: unknown, logQ: unknown, options: unknown): [Tensor, Tensor, DivergenceReduction] {
  const p = distributions(fn, 'logP', logP);
  const q = distributions(fn, 'logQ', logQ);
  const [sp, sq] = [p.shape, q.shape];
  if (sp.length !== sq.length || sp.some((s, i) => s !== sq[i])) {
    throw new Error(`${fn}: expected 'logP' and 'logQ' of the same shape, got [${sp.join(', ')}] and [${sq.join(', ')}]`);
  }
  const o = checkOptions<DivergenceOptions>(fn, options, { reduction: REDUCTIONS });
  return [p, q, o.reduction ?? 'batchmean'];
}

// ---- shared pieces ----

/**
 * Σ over the last dim of p·(lp − lq), with p = exp(lp) and lq = 0 when null. Terms where p is 0
 * count 0 (0·log 0 = 0), also when lp or lq is −∞ there, in values and in gradients.
 */
function expectedLogRatio(lp: Tensor, lq: Tensor | null): Tensor {
  const p = lp.exp();
  const support = p.gt(0);
  const lpSafe = functionOps.where(support, lp, 0);
  const diff = lq === null ? lpSafe : lpSafe.sub(functionOps.where(support, lq, 0));
  return p.mul(diff).sum(-1);
}

/** Combines per-distribution values (shape = inputShape without its last dim). */
function reduceDistributions(rows: Tensor, inputShape: number[], reduction: DivergenceReduction): Tensor {
  switch (reduction) {
    case 'none':
      return rows;
    case 'sum':
      return rows.sum();
    case 'mean':
      return rows.mean();
    case 'batchmean':
      return inputShape.length >= 2 ? rows.sum().div(inputShape[0]!) : rows.sum();
  }
}

// ---- norms of parameters ----

/** λ·Σ|t|. */
function l1(t: Tensor, options?: LambdaOptions): Tensor {
  const fn = 'penalties.l1';
  const x = floatTensor(fn, 't', t);
  const o = checkOptions<LambdaOptions>(fn, options, { lambda: lambdaSpec });
  return tidy(() => x.abs().sum().mul(o.lambda ?? DEFAULT_LAMBDA));
}

/** λ·Σt² (no ½). */
function l2(t: Tensor, options?: LambdaOptions): Tensor {
  const fn = 'penalties.l2';
  const x = floatTensor(fn, 't', t);
  const o = checkOptions<LambdaOptions>(fn, options, { lambda: lambdaSpec });
  return tidy(() => x.square().sum().mul(o.lambda ?? DEFAULT_LAMBDA));
}

/** λ·(r·Σ|t| + (1 − r)·Σt²): l1Ratio 1 is l1, 0 is l2. */
function elasticNet(t: Tensor, options?: ElasticNetOptions): Tensor {
  const fn = 'penalties.elasticNet';
  const x = floatTensor(fn, 't', t);
  const o = checkOptions<ElasticNetOptions>(fn, options, { lambda: lambdaSpec, l1Ratio: ratioSpec });
  const r = o.l1Ratio ?? 0.5;
  return tidy(() => {
    // A term with weight 0 is left out rather than multiplied by 0 (0·∞ would be NaN).
    const l1Part = r > 0 ? x.abs().sum().mul(r) : null;
    const l2Part = r < 1 ? x.square().sum().mul(1 - r) : null;
    const sum = l1Part && l2Part ? l1Part.add(l2Part) : (l1Part ?? l2Part)!;
    return sum.mul(o.lambda ?? DEFAULT_LAMBDA);
  });
}

// ---- distributions ----

/**
 * KL(P ‖ Q) = Σ p·(log p − log q) along the last dim. The inputs are log-probabilities (made
 * exact with logSoftmax, i.e. through logsumexp, so logits are accepted too).
 */
function klDivergence(logP: Tensor, logQ: Tensor, options?: DivergenceOptions): Tensor {
  const [p, q, reduction] = divergenceArgs('penalties.klDivergence', logP, logQ, options);
  return tidy(() => reduceDistributions(expectedLogRatio(p.logSoftmax(-1), q.logSoftmax(-1)), p.shape, reduction));
}

/** JS(P, Q) = ½·KL(P ‖ M) + ½·KL(Q ‖ M), M = (P + Q)/2 (log M by logsumexp); in [0, ln 2]. */
function jsDivergence(logP: Tensor, logQ: Tensor, options?: DivergenceOptions): Tensor {
  const [p, q, reduction] = divergenceArgs('penalties.jsDivergence', logP, logQ, options);
  return tidy(() => {
    const lp = p.logSoftmax(-1);
    const lq = q.logSoftmax(-1);
    const lm = functionOps.stack([lp, lq], 0).logsumexp(0).sub(Math.LN2);
    const rows = expectedLogRatio(lp, lm).add(expectedLogRatio(lq, lm)).mul(0.5);
    return reduceDistributions(rows, p.shape, reduction);
  });
}

/** ∓H(softmax(logits)) along the last dim: −H for mode 'maximize' (default), H for 'minimize'. */
function entropy(logits: Tensor, options?: EntropyOptions): Tensor {
  const fn = 'penalties.entropy';
  const x = distributions(fn, 'logits', logits);
  const o = checkOptions<EntropyOptions>(fn, options, { mode: ['maximize', 'minimize'], reduction: REDUCTIONS });
  return tidy(() => {
    const negH = expectedLogRatio(x.logSoftmax(-1), null); // Σ p·log p = −H
    const rows = (o.mode ?? 'maximize') === 'maximize' ? negH : negH.neg();
    return reduceDistributions(rows, x.shape, o.reduction ?? 'mean');
  });
}

// ---- orthogonality ----

/**
 * ‖W Wᵀ − I‖²_F computed with the smaller Gram matrix: for a tall W (rows > cols) it equals
 * ‖WᵀW − I‖²_F + (rows − cols), since W Wᵀ then has rank ≤ cols.
 */
function softOrthogonality(m: Tensor): Tensor {
  const [rows, cols] = m.shape as [number, number];
  const gram = rows <= cols ? m.matmul(m.T) : m.T.matmul(m);
  const deviation = gram.sub(eye(Math.min(rows, cols)).to(m.device)).square().sum();
  return rows > cols ? deviation.add(rows - cols) : deviation;
}

/** The fixed start of the power iteration: the same for every call, from no global generator. */
function seededStart(n: number): Float32Array {
  // mulberry32 with a fixed seed: deterministic, and sg.manualSeed's stream is left alone.
  let a = 0x5eed;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  }
  return out;
}

function unit(v: Tensor): Tensor {
  return v.div(v.norm().clamp(1e-12));
}

/** Leading singular vectors (u, v) of m, outside the graph: `steps` rounds from the seeded start. */
function powerIteration(m: Tensor, steps: number): [Tensor, Tensor] {
  return noGrad(() =>
    tidy(() => {
      const w = m.detach();
      let u = unit(tensor(seededStart(w.shape[0]!), { shape: [w.shape[0]!] }).to(w.device));
      let v = unit(w.T.matmul(u));
      for (let k = 1; k < steps; k++) {
        u = unit(w.matmul(v));
        v = unit(w.T.matmul(u));
      }
      u = unit(w.matmul(v));
      return [u, v] as [Tensor, Tensor];
    }),
  );
}

/**
 * (σ − 1)² with σ = uᵀ W v and u, v from the power iteration held constant, as in spectral
 * normalization: the gradient is 2(σ − 1)·u vᵀ, the exact gradient of (σ_max − 1)² once the
 * iteration has converged (σ_max simple).
 */
function spectralOrthogonality(m: Tensor, steps: number): Tensor {
  const [u, v] = powerIteration(m, steps);
  return u.matmul(m.matmul(v)).sub(1).square();
}

/** (σ_max − 1)² from the singular values (linalg.svdvals: exact, its gradient u₁v₁ᵀ·2(σ − 1)). */
function spectralBySvdvals(fn: string, m: Tensor): Tensor {
  return run(fn, 'linalgSvdvals', [['w', m]]).amax().sub(1).square();
}

const warnedSpectral = new Set<string>();

function orthogonality(w: Tensor, options?: OrthogonalityOptions): Tensor {
  const fn = 'penalties.orthogonality';
  const x = floatTensor(fn, 'w', w);
  if (x.ndim < 2) {
    throw new Error(`${fn}: expected 'w' to have at least 2 dims (a matrix, or a weight [out, ...] read as [out, rest]), got shape [${x.shape.join(', ')}]`);
  }
  const o = checkOptions<OrthogonalityOptions>(fn, options, {
    mode: ['soft', 'spectral'],
    lambda: lambdaSpec,
    powerIterations: 'positiveInteger',
    spectralMethod: ['svdvals', 'power'],
  });
  const mode = o.mode ?? 'soft';
  if (o.powerIterations !== undefined && mode !== 'spectral') {
    throw new Error(`${fn}: option 'powerIterations' applies to mode 'spectral' only, got mode '${mode}'`);
  }
  if (o.spectralMethod !== undefined && mode !== 'spectral') {
    throw new Error(`${fn}: option 'spectralMethod' applies to mode 'spectral' only, got mode '${mode}'`);
  }
  const method = o.spectralMethod ?? (o.powerIterations !== undefined ? 'power' : 'svdvals');
  if (method === 'svdvals' && o.powerIterations !== undefined) {
    throw new Error(`${fn}: option 'powerIterations' applies to spectralMethod 'power' only, got spectralMethod 'svdvals'`);
  }
  return tidy(() => {
    const m = x.reshape(x.shape[0]!, -1);
    let value: Tensor | null = null;
    if (mode === 'spectral') {
      try {
        value = method === 'svdvals' ? spectralBySvdvals(fn, m) : spectralOrthogonality(m, o.powerIterations ?? DEFAULT_POWER_ITERATIONS);
      } catch (e) {
        // A backend missing an op of the iteration: the soft penalty still constrains W.
        const backend = mod().getDefaultDevice() === 'webgpu' ? 'webgpu' : mod().getBackend();
        if (!warnedSpectral.has(backend)) {
          warnedSpectral.add(backend);
          const reason = e instanceof Error ? e.message : String(e);
          consoleRef().warn(`orthogonality: 'spectral' not available on ${backend}, falling back to 'soft' (${reason})`);
        }
      }
    }
    return (value ?? softOrthogonality(m)).mul(o.lambda ?? DEFAULT_LAMBDA);
  });
}

// ---- gradient penalty ----

/**
 * ∂Σfn(x)/∂x as a tensor that is itself differentiable (recorded with createGraph), so that the
 * penalty's backward reaches the parameters fn reads (a critic's weights) and, when x requires
 * grad, x's own history.
 */
function differentiableInputGradient(fn: string, f: (x: Tensor) => Tensor, x: Tensor): Tensor {
  return enableGrad(() => {
    const input = x.requiresGrad ? x : x.detach().requiresGrad_(true);
    const out: unknown = f(input);
    if (!(out instanceof Tensor) || out.dtype !== 'float32') {
      throw new Error(`${fn}: expected 'fn' to return a float32 Tensor, got ${out instanceof Tensor ? out.dtype : describe(out)}`);
    }
    if (!out.requiresGrad) return input.detach().mul(0);  // fn(x) does not depend on x: a zero gradient
    return gradOf(out.sum(), input, { createGraph: true });
  });
}

/**
 * (‖∂fn/∂x‖₂ − target)², the WGAN-GP term: for x with 2 or more dims the norm is taken per sample
 * (over every dim but the first) and the squares are averaged over the batch.
 */
function gradientPenalty(fn: (x: Tensor) => Tensor, x: Tensor, options?: GradientPenaltyOptions): Tensor {
  const name = 'penalties.gradientPenalty';
  if (typeof fn !== 'function') throw new Error(`${name}: expected 'fn' to be a function of x, got ${describe(fn)}`);
  const input = floatTensor(name, 'x', x);
  const o = checkOptions<GradientPenaltyOptions>(name, options, { target: targetSpec });
  const target = o.target ?? 1;
  if (activeTrace() !== null) return tracedGradientPenalty(name, fn, input, target);
  return tidy(() => penaltyOf(name, fn, input, target));
}

/** (‖∂fn/∂x‖ − target)² averaged, with the graph of its gradient (so that it can be differentiated again). */
function penaltyOf(name: string, fn: (x: Tensor) => Tensor, input: Tensor, target: number): Tensor {
  const g = differentiableInputGradient(name, fn, input);
  const norms = input.ndim >= 2 ? g.reshape(input.shape[0]!, -1).norm(2, 1) : g.norm();
  return norms.sub(target).square().mean();
}

/**
 * gradientPenalty inside sg.compile. Its gradient is a double backward, which the graph compiler
 * does not trace (src/graph/effect_ops.cpp refuses createGraph while tracing), so the penalty is
 * a host step of the graph: an sg.jsCall callback computes, eagerly on every compiled call, the
 * penalty and its gradients with respect to x and to the tensors fn reads that require grad (found
 * by running fn once while tracing; those ops are dead code in the graph). The traced result is
 * value + (s − detach(s)) with s = Σ ⟨g_x, x⟩ + Σ ⟨g_p, p⟩, the gradients held constant: its value
 * is the penalty's and its gradient with respect to x and each p is theirs, so a backward in the
 * compiled function (or through it) takes the penalty's gradient as eagerly. fn must not capture
 * tensors made inside the compiled function that require grad (their gradient would not be taken),
 * and the result cannot be differentiated twice.
 */
function tracedGradientPenalty(name: string, fn: (x: Tensor) => Tensor, x: Tensor, target: number): Tensor {
  const { read } = readsDuring(() => tidy(() => void fn(x)));
  const params = read.filter((t) => t !== x && !t.isDisposed && t.dtype === 'float32' && t.requiresGrad);
  const valueAndGrads = (xv: Tensor): Tensor[] =>
    enableGrad(() =>
      tidy(() => {
        const xl = xv.detach().requiresGrad_(true);
        const gp = penaltyOf(name, fn, xl, target);
        return [gp.detach(), ...gradOf(gp, [xl, ...params])];
      }),
    );
  const specs = [{ shape: [], dtype: 'float32' as const }, ...[x, ...params].map((t) => ({ shape: t.shape, dtype: 'float32' as const }))];
  return tidy(() => {
    // Detached: the callback is no node of the backward (the surrogate below carries the gradient).
    // On device: fn computes with the parameters where they live (a host copy of x would mix devices).
    const [value, ...grads] = jsCallOnDevice(specs, [x, ...params].map((t) => t.detach()), valueAndGrads, { pure: true, name }) as Tensor[];
    const s = [x, ...params].map((t, i) => grads[i]!.mul(t).sum()).reduce((a, b) => a.add(b));
    return value!.add(s.sub(s.detach()));
  });
}

/** sg.penalties: each returns a differentiable tensor (0-d unless reduction 'none') on its input's device. */
export interface Penalties {
  /** λ·Σ|t| (lambda default 0.01). */
  l1(t: Tensor, options?: LambdaOptions): Tensor;
  /** λ·Σt² (lambda default 0.01). */
  l2(t: Tensor, options?: LambdaOptions): Tensor;
  /** λ·(r·Σ|t| + (1 − r)·Σt²), r = l1Ratio (default 0.5). */
  elasticNet(t: Tensor, options?: ElasticNetOptions): Tensor;
  /** KL(P ‖ Q) along the last dim of log-probabilities (or logits), reduction default 'batchmean'. */
  klDivergence(logP: Tensor, logQ: Tensor, options?: DivergenceOptions): Tensor;
  /** ½·KL(P ‖ M) + ½·KL(Q ‖ M), M = (P + Q)/2, along the last dim; in [0, ln 2]. */
  jsDivergence(logP: Tensor, logQ: Tensor, options?: DivergenceOptions): Tensor;
  /** −H(softmax(logits)) along the last dim for mode 'maximize' (default), H for 'minimize'. */
  entropy(logits: Tensor, options?: EntropyOptions): Tensor;
  /** λ·‖W Wᵀ − I‖²_F ('soft', default) or λ·(σ_max(W) − 1)² ('spectral'); W read as [rows, rest]. */
  orthogonality(w: Tensor, options?: OrthogonalityOptions): Tensor;
  /** (‖∂fn/∂x‖₂ − target)² per sample, averaged (WGAN-GP), through double backward. */
  gradientPenalty(fn: (x: Tensor) => Tensor, x: Tensor, options?: GradientPenaltyOptions): Tensor;
}

export const penalties: Penalties = {
  l1,
  l2,
  elasticNet,
  klDivergence,
  jsDivergence,
  entropy,
  orthogonality,
  gradientPenalty,
};
