// model.generate(inputIds, options) for the causal LMs (Llama, GPT-2): Hugging Face's generate
// loop with a key/value cache. The prompt runs once (prefill), filling the cache; then each step
// feeds only the newest token, whose keys and values join the cache, so a step costs one
// position, not the whole sequence. Tokens are picked by argmax (greedy) or sampled from the
// softmax of the filtered scores (logits_processors.ts); a row that produced an EOS token is
// finished and gets the pad token (the first EOS id) from then on, as HF's unfinished_sequences;
// generation stops when every row is finished or after maxNewTokens.
import { noGrad } from '../autograd/backward.js';
import { keep, tidy } from '../runtime/memory.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { tensor } from '../tensor/creation.js';
import { functionOps, ops } from '../tensor/ops.js';
import { samplingOps } from '../tensor/sampling.js';
import { Tensor } from '../tensor/tensor.js';
import { processLogits } from './logits_processors.js';

export interface GenerationOptions {
  /** Tokens to add (default 20, as HF's max_new_tokens unset → max_length 20 is not copied: 20 new tokens). */
  maxNewTokens?: number;
  /** Sample from the filtered distribution (default false: greedy). */
  doSample?: boolean;
  /** Divides the scores before sampling (default 1). */
  temperature?: number;
  /** Keep the k most likely tokens when sampling (default: all). */
  topK?: number | null;
  /** Keep the smallest set of most likely tokens whose probability reaches p when sampling (default 1: all). */
  topP?: number | null;
  /** HF's repetition penalty (> 0; 1 = none): scores of tokens already in the sequence are divided (positive) or multiplied (negative) by it. */
  repetitionPenalty?: number | null;
  /** A token id (or ids) that ends a row. */
  eosTokenId?: number | number[] | null;
  /** Called after every step with the new token of each row (finished rows get the pad token); may return a Promise, which is awaited. */
  onToken?: (tokens: number[], step: number) => void | Promise<void>;
}

/** Per-layer keys and values of the positions seen so far ([B, heads, T, headDim] each). */
export class KVCache {
  readonly keys: (Tensor | null)[];
  readonly values: (Tensor | null)[];
  /** Positions held. */
  length = 0;

  constructor(layers: number) {
    this.keys = new Array<Tensor | null>(layers).fill(null);
    this.values = new Array<Tensor | null>(layers).fill(null);
  }

  /** Appends k, v [B, h, Tn, d] to layer i's cache; returns the full keys and values (kept out of any tidy: the cache owns them). */
  update(i: number, k: Tensor, v: Tensor): [Tensor, Tensor] {
    const oldK = this.keys[i] ?? null;
    const oldV = this.values[i] ?? null;
    const fullK = keep(oldK === null ? k.contiguous() : functionOps.cat([oldK, k], 2));
    const fullV = keep(oldV === null ? v.contiguous() : functionOps.cat([oldV, v], 2));
    this.keys[i] = fullK;
    this.values[i] = fullV;
    // contiguous() may return k itself: dispose only what the cache no longer holds.
    if (oldK !== null) oldK.dispose();
    if (oldV !== null) oldV.dispose();
    return [fullK, fullV];
  }

  dispose(): void {
    for (const t of [...this.keys, ...this.values]) if (t !== null && !t.isDisposed) t.dispose();
    this.keys.fill(null);
    this.values.fill(null);
    this.length = 0;
  }
}

/** What a model gives generate: its limit and one cached step. */
export interface CausalStepper {
  fn: string;
  layers: number;
  /** The most positions the model takes (n_positions, max_position_embeddings). */
  maxPositions: number;
  /** ids [B, Tn] after cache.length cached positions → logits of the last position [B, V]; the cache grows by Tn. */
  step(ids: Tensor, cache: KVCache): Tensor;
}

const optionSpec = {
  maxNewTokens: { check: (v: unknown) => isInteger(v) && v >= 0, expected: 'an integer >= 0' },
  doSample: 'boolean',
  temperature: { check: (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0, expected: 'a positive number' },
  topK: { check: (v: unknown) => v === null || (isInteger(v) && v > 0), expected: 'a positive integer or null' },
  topP: { check: (v: unknown) => v === null || (typeof v === 'number' && v > 0 && v <= 1), expected: 'a number in (0, 1] or null' },
  repetitionPenalty: { check: (v: unknown) => v === null || (typeof v === 'number' && Number.isFinite(v) && v > 0), expected: 'a positive number or null' },
  eosTokenId: {
    check: (v: unknown) => v === null || (isInteger(v) && v >= 0) || (Array.isArray(v) && v.length > 0 && v.every((x) => isInteger(x) && x >= 0)),
    expected: 'a token id, an array of token ids, or null',
  },
  onToken: { check: (v: unknown) => typeof v === 'function', expected: 'a function (tokens, step) => void' },
} as const;

/** Hugging Face's generate loop (greedy or sampling) over a cached stepper; → int32 [B, T + new]. */
export async function generateTokens(model: CausalStepper, inputIds: unknown, options: unknown): Promise<Tensor> {
  const fn = model.fn;
  if (!(inputIds instanceof Tensor) || inputIds.isDisposed || inputIds.dtype !== 'int32') {
    throw new Error(`${fn}: expected 'inputIds' to be an int32 Tensor of token ids [B, T], got ${describe(inputIds)}`);
  }
  if (inputIds.ndim !== 2 || inputIds.shape[0] === 0 || inputIds.shape[1] === 0) throw new Error(`${fn}: expected 'inputIds' of shape [B, T] with B, T ≥ 1, got [${inputIds.shape.join(', ')}]`);
  const o = checkOptions<GenerationOptions>(fn, options, optionSpec);
  const [B, T] = inputIds.shape as [number, number];
  const maxNew = o.maxNewTokens ?? 20;
  if (T + maxNew > model.maxPositions) {
    throw new Error(`${fn}: ${T} prompt tokens + maxNewTokens ${maxNew} exceed the model's ${model.maxPositions} positions`);
  }
  const filters = {
    repetitionPenalty: o.repetitionPenalty ?? null,
    doSample: o.doSample ?? false,
    temperature: o.temperature ?? 1,
    topK: o.topK ?? null,
    topP: o.topP ?? null,
  };
  const eos = new Set(o.eosTokenId === undefined || o.eosTokenId === null ? [] : Array.isArray(o.eosTokenId) ? o.eosTokenId : [o.eosTokenId]);
  const pad = eos.size > 0 ? [...eos][0]! : 0;
  const finished = new Array<boolean>(B).fill(false);
  const device = inputIds.device;
  const cache = new KVCache(model.layers);
  let seq = inputIds.clone();
  let logits: Tensor | null = null;
  try {
    logits = noGrad(() => model.step(inputIds, cache));
    for (let i = 0; i < maxNew; i++) {
      const scores = logits;
      const next = noGrad(() =>
        tidy(() => {
          const s = processLogits(scores, seq, filters);
          return filters.doSample ? samplingOps.multinomial(s.softmax(-1), 1).view([B]) : ops.argmax(s, -1);
        }),
      );
      let picked: ArrayLike<number>;
      try {
        picked = (await next.data()) as ArrayLike<number>;
      } finally {
        next.dispose();
      }
      const tokens = Array.from({ length: B }, (_, b) => (finished[b] ? pad : Number(picked[b])));
      tokens.forEach((t, b) => {
        if (eos.has(t)) finished[b] = true;
      });
      const column = tensor(Int32Array.from(tokens), { shape: [B, 1] });
      const col = device === 'cpu' ? column : column.to(device);
      if (col !== column) column.dispose();
      const grown = functionOps.cat([seq, col], 1);
      seq.dispose();
      seq = grown;
      const done = finished.every(Boolean) || i === maxNew - 1;
      try {
        if (o.onToken) await o.onToken(tokens, i);
        if (!done) {
          logits.dispose();
          logits = noGrad(() => model.step(col, cache));
        }
      } finally {
        col.dispose();
      }
      if (done) break;
    }
    return seq;
  } catch (e) {
    seq.dispose();
    throw e;
  } finally {
    if (logits !== null && !logits.isDisposed) logits.dispose();
    cache.dispose();
  }
}
