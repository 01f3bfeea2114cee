// The remote-training round trip of sg.customLoss: forward on the client, linearize here,
// forwardBackward on the client with the weights; and localClient, the same protocol served by
// a local model, so that it runs (and is tested against direct autograd) in one process
// (remote.ts: remoteClient, the same protocol served by the trainer over HTTP).
import { enableGrad, noGrad } from '../autograd/backward.js';
import {
  customLossCore,
  tensorList,
  type AsyncLossFn,
  type CustomLossTelemetry,
  type LinearizeOptions,
  type LinearizeResult,
  type Regularizer,
  type RegularizerOptions,
} from './custom_loss.js';
import { failure } from './evaluate.js';
import { dispose, tidy } from '../runtime/memory.js';
import { describe, isOptionsObject } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { remoteClient, tokenLogprobs, type CausalLM, type RemoteClient, type RemoteClientOptions, type TokenDatum } from './remote.js';

/** What forwardBackward resolves to: at least `metrics` (an object) when present. */
export interface ForwardBackwardResult {
  metrics?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * A training service: forward gives the log-probabilities of `data` (tensors the caller then
 * owns); forwardBackward trains on −Σ w·logprob with the given weights (which stay the caller's).
 */
export interface TrainingClient<D = unknown, R extends ForwardBackwardResult = ForwardBackwardResult> {
  forward(data: D): Promise<Tensor[]>;
  forwardBackward(data: D, weights: Tensor[]): Promise<R>;
}

/** What localClient's forwardBackward resolves to: the value of −Σ w·logprob. (A type, not an interface: it must fit ForwardBackwardResult's index signature.) */
export type LocalResult = { loss: number; metrics: { loss: number } };

/** forwardBackwardCustom's result: the client's, with the telemetry merged into `metrics`. */
export type CustomForwardBackwardResult<R extends ForwardBackwardResult> = Omit<R, 'metrics'> & {
  metrics: NonNullable<R['metrics']> & CustomLossTelemetry;
};

/**
 * forward → linearize → forwardBackward(weights). The log-probabilities from forward and the
 * weights are disposed here once forwardBackward has resolved (or anything failed).
 */
async function forwardBackwardCustom<D, R extends ForwardBackwardResult>(
  client: TrainingClient<D, R>,
  data: D,
  options?: LinearizeOptions<D>,
): Promise<CustomForwardBackwardResult<R>> {
  const fn = 'customLoss.forwardBackwardCustom';
  if (client === null || typeof client !== 'object' || typeof client.forward !== 'function' || typeof client.forwardBackward !== 'function') {
    throw new Error(`${fn}: expected 'client' to be an object with forward(data) and forwardBackward(data, weights), got ${describe(client)}`);
  }
  let returned: unknown;
  try {
    returned = await client.forward(data);
  } catch (e) {
    throw failure('client.forward', e);
  }
  try {
    const logprobs = tensorList(fn, 'client.forward(data)', returned);
    const { weights, telemetry } = await customLossCore.linearize(logprobs, data, options);
    let result: unknown;
    try {
      result = await client.forwardBackward(data, weights);
    } catch (e) {
      throw failure('client.forwardBackward', e);
    } finally {
      dispose(weights);
    }
    if (!isOptionsObject(result) || (result.metrics !== undefined && !isOptionsObject(result.metrics))) {
      throw new Error(`${fn}: expected client.forwardBackward to resolve to an object with optional 'metrics' (an object), got ${describe(result)}`);
    }
    return { ...result, metrics: { ...(result.metrics as object | undefined), ...telemetry } } as CustomForwardBackwardResult<R>;
  } finally {
    dispose(returned);
  }
}

/** Calls tokensToLogprobs and checks that it gave a non-empty list of float32 tensors. */
function logprobsOf<M, D>(fn: string, tokensToLogprobs: (model: M, data: D) => Tensor[], model: M, data: D): Tensor[] {
  const out: unknown = tokensToLogprobs(model, data);
  return tensorList(fn, 'tokensToLogprobs(model, data)', out);
}

/**
 * A TrainingClient served by a local model: forward returns tokensToLogprobs(model, data) (no
 * graph); forwardBackward recomputes them with a graph and backpropagates −Σ w·logprob into the
 * model's parameters (accumulating into .grad, as backward does), resolving to
 * `{ loss, metrics: { loss } }` with that weighted cross-entropy's value.
 */
function localClient<M, D>(model: M, tokensToLogprobs: (model: M, data: D) => Tensor[]): TrainingClient<D, LocalResult> {
  const fn = 'customLoss.localClient';
  if (model === null || model === undefined) throw new Error(`${fn}: expected 'model', got ${describe(model)}`);
  if (typeof tokensToLogprobs !== 'function') throw new Error(`${fn}: expected 'tokensToLogprobs' to be a function (model, data) => Tensor[], got ${describe(tokensToLogprobs)}`);
  return {
    async forward(data: D): Promise<Tensor[]> {
      return noGrad(() => tidy(() => logprobsOf(`${fn}.forward`, tokensToLogprobs, model, data)));
    },
    async forwardBackward(data: D, weights: Tensor[]) {
      const name = `${fn}.forwardBackward`;
      const w = tensorList(name, 'weights', weights);
      const loss = enableGrad(() =>
        tidy(() => {
          const logprobs = logprobsOf(name, tokensToLogprobs, model, data);
          if (logprobs.length !== w.length || logprobs.some((t, i) => t.shape.join() !== w[i]!.shape.join())) {
            const shapes = (list: Tensor[]) => list.map((t) => `[${t.shape.join(', ')}]`).join(', ');
            throw new Error(`${name}: expected weights shaped as the log-probabilities (${shapes(logprobs)}), got ${shapes(w)}`);
          }
          const l = logprobs.map((t, i) => t.mul(w[i]!).sum()).reduce((a, b) => a.add(b)).neg();
          l.backward();
          return l;
        }),
      );
      try {
        const value = Number((await loss.data())[0]!);
        return { loss: value, metrics: { loss: value } };
      } finally {
        loss.dispose();
      }
    },
  };
}

/** sg.customLoss: custom losses trained through a service's weighted cross-entropy. */
export interface CustomLoss {
  /** A named, weighted term: fn(logprobsList, data) → [loss, metrics] (a Promise of it with { async: true }). */
  regularizer<D = unknown>(name: string, weight: number, fn: AsyncLossFn<D>, options?: RegularizerOptions): Regularizer<D>;
  /** weights[i] = −∂total/∂logprobsList[i], total = baseLoss + Σ weightₖ·regularizerₖ, with the telemetry. */
  linearize<D = unknown>(logprobsList: Tensor[], data: D, options?: LinearizeOptions<D>): Promise<LinearizeResult>;
  /** client.forward → linearize → client.forwardBackward(weights); the telemetry merged into result.metrics. */
  forwardBackwardCustom<D, R extends ForwardBackwardResult>(
    client: TrainingClient<D, R>,
    data: D,
    options?: LinearizeOptions<D>,
  ): Promise<CustomForwardBackwardResult<R>>;
  /** A TrainingClient served by a local model: tokensToLogprobs(model, data) gives its log-probabilities. */
  localClient<M, D>(model: M, tokensToLogprobs: (model: M, data: D) => Tensor[]): TrainingClient<D, LocalResult>;
  /** The remote trainer (trainer/, scripts/trainer.sh) at `url` as a TrainingClient, with optimStep, saveState, loadState, sample. */
  remoteClient(url: string | URL, options?: RemoteClientOptions): RemoteClient;
  /** Per datum { inputIds, targets }, the [T] log-probabilities of the targets under a causal LM (what the trainer's forward computes), with a graph. */
  tokenLogprobs(model: CausalLM, data: readonly TokenDatum[]): Tensor[];
}

export const customLoss: CustomLoss = { ...customLossCore, forwardBackwardCustom, localClient, remoteClient, tokenLogprobs };
