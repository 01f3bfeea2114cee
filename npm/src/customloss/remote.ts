// sg.customLoss.remoteClient: the TrainingClient of the remote trainer (trainer/, HTTP + JSON,
// see trainer/README.md "HTTP API"), usable with forwardBackwardCustom as localClient is, plus
// the trainer's other commands (optimStep, saveState, loadState, sample, health). Requests use
// the global fetch (Node ≥ 18, browsers), each bounded by timeoutMs through an AbortController;
// every failure (timeout, no connection, an HTTP error) rejects with an Error that says which.
import { tensor } from '../tensor/creation.js';
import { dispose, tidy } from '../runtime/memory.js';
import { checkOptions, describe, isInteger, isOptionsObject } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';

/** Token ids: an array (or integer TypedArray) of integers, or a 1-D int32 Tensor. */
export type TokenIds = readonly number[] | Int32Array | Uint32Array | Uint16Array | Uint8Array | Tensor;

/** One sequence: the model reads inputIds and is scored on targets (the same length T). */
export interface TokenDatum {
  inputIds: TokenIds;
  targets: TokenIds;
}

export interface RemoteClientOptions {
  /** Sent as `Authorization: Bearer <token>` (the trainer's --token). */
  token?: string;
  /** Longest wait for one request, answer included (default 60000). */
  timeoutMs?: number;
}

/** forwardBackward's answer: L = −Σ w·logprob (a sum), the log-probabilities before the update, and the trainer's metrics. */
export type RemoteForwardBackwardResult = {
  loss: number | null;
  logprobs: (number | null)[][];
  metrics: { tokens: number; weightSum: number; seconds: number };
};

export interface OptimStepOptions {
  lr?: number;
  betas?: [number, number];
  eps?: number;
  weightDecay?: number;
}

export interface OptimStepResult {
  step: number;
  metrics: { gradNorm: number | null; lr: number };
}

export interface LoadStateResult {
  ok: true;
  step: number;
  optimizerState: boolean;
}

export interface SampleOptions {
  /** New tokens (default 16). */
  maxNewTokens?: number;
  /** 0: greedy; otherwise softmax(logits / temperature) is sampled (default 1). */
  temperature?: number;
  /** Sample among the k most likely tokens only (0 or null: all). */
  topK?: number | null;
  /** A fresh generator with this seed (same seed, same tokens); default: the trainer's generator. */
  seed?: number | null;
}

export interface TrainerHealth {
  ok: true;
  ranks: number;
  modelType: string;
  parameters: number;
  step: number;
  /** Process ids of rank 0, rank 1, ... */
  pids: number[];
}

/** The remote trainer as a TrainingClient (clients.ts), with its other commands. */
export interface RemoteClient {
  /** The trainer's base URL. */
  readonly url: string;
  /** Per datum, the float32 [T] log-probabilities of its targets (tensors the caller owns). */
  forward(data: TokenDatum[]): Promise<Tensor[]>;
  /** Accumulates the gradient of −Σ w·logprob on the trainer (weights: one float32 [T] tensor or number array per datum). */
  forwardBackward(data: TokenDatum[], weights: (Tensor | readonly number[])[]): Promise<RemoteForwardBackwardResult>;
  /** One AdamW step on every parameter, then the gradients are zeroed. */
  optimStep(options?: OptimStepOptions): Promise<OptimStepResult>;
  /** safetensors bytes: the weights under the model folder's names and the AdamW state. */
  saveState(): Promise<Uint8Array>;
  /** Restores what saveState returned (or a folder's model.safetensors: weights only, AdamW reset). */
  loadState(bytes: Uint8Array | ArrayBuffer | ArrayBufferView): Promise<LoadStateResult>;
  /** The prompt followed by the new tokens, as an int32 tensor (1-D for a 1-D prompt, [1, T + new] for [1, T]). */
  sample(promptIds: TokenIds, options?: SampleOptions): Promise<Tensor>;
  /** GET /health. */
  health(): Promise<TrainerHealth>;
  /** Aborts the requests in flight; later calls reject. */
  close(): void;
}

const FN = 'customLoss.remoteClient';

/** An Error with the HTTP status (and rank, for 503) attached, for callers that branch on them. */
function httpError(message: string, extra: { status?: number; rank?: number; cause?: unknown }): Error {
  const e = new Error(message, extra.cause === undefined ? undefined : { cause: extra.cause });
  if (extra.status !== undefined) (e as Error & { status?: number }).status = extra.status;
  if (extra.rank !== undefined) (e as Error & { rank?: number }).rank = extra.rank;
  return e;
}

function causeText(e: unknown): string {
  let msg = e instanceof Error ? e.message : String(e);
  const cause = e instanceof Error ? (e as Error & { cause?: unknown }).cause : undefined;
  if (cause instanceof Error && cause.message && !msg.includes(cause.message)) msg += ` (${cause.message})`;
  else if (cause && typeof cause === 'object' && 'code' in cause) msg += ` (${String((cause as { code: unknown }).code)})`;
  return msg;
}

function checkUrl(url: unknown): string {
  const text = url instanceof URL ? url.href : url;
  if (typeof text !== 'string' || text.length === 0) throw new Error(`${FN}: expected 'url' to be the trainer's address (e.g. 'http://127.0.0.1:8765'), got ${describe(url)}`);
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new Error(`${FN}: 'url' ${describe(text)} is not a valid URL (e.g. 'http://127.0.0.1:8765')`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`${FN}: expected an http: or https: URL, got ${describe(text)}`);
  if (parsed.search || parsed.hash) throw new Error(`${FN}: expected the trainer's base URL without query or fragment, got ${describe(text)}`);
  return parsed.href.replace(/\/+$/, '');
}

/** Token ids as a plain array of integers (read from a tensor if need be). */
async function idsOf(where: string, v: unknown, allow2d = false): Promise<{ ids: number[]; rank2: boolean }> {
  if (v instanceof Tensor) {
    if (v.isDisposed || v.dtype !== 'int32' || !(v.ndim === 1 || (allow2d && v.ndim === 2 && v.shape[0] === 1))) {
      const want = allow2d ? 'a 1-D (or [1, T]) int32 Tensor' : 'a 1-D int32 Tensor';
      throw new Error(`${where}: expected token ids as an array of integers or ${want}, got ${describe(v)}`);
    }
    return { ids: Array.from(await v.data(), Number), rank2: v.ndim === 2 };
  }
  const ok = Array.isArray(v) || v instanceof Int32Array || v instanceof Uint32Array || v instanceof Uint16Array || v instanceof Uint8Array;
  if (!ok) throw new Error(`${where}: expected token ids as an array of integers or an int32 Tensor, got ${describe(v)}`);
  const ids = Array.from(v as ArrayLike<unknown>);
  ids.forEach((x, i) => {
    if (!isInteger(x) || x < 0) throw new Error(`${where}[${i}]: expected a token id (an integer ≥ 0), got ${describe(x)}`);
  });
  return { ids: ids as number[], rank2: false };
}

interface WireDatum {
  inputIds: number[];
  targets: number[];
}

/** data as the trainer takes it; every problem is an Error before any request. */
async function wireData(fn: string, data: unknown): Promise<WireDatum[]> {
  if (!Array.isArray(data) || data.length === 0) throw new Error(`${fn}: expected 'data' to be a non-empty array of { inputIds, targets }, got ${describe(data)}`);
  const out: WireDatum[] = [];
  for (let i = 0; i < data.length; i++) {
    const d: unknown = data[i];
    if (d === null || typeof d !== 'object' || Array.isArray(d)) throw new Error(`${fn}: expected data[${i}] to be { inputIds, targets }, got ${describe(d)}`);
    const extra = Object.keys(d).filter((k) => k !== 'inputIds' && k !== 'targets');
    if (extra.length) throw new Error(`${fn}: data[${i}] has unknown field(s) ${extra.map((k) => `'${k}'`).join(', ')} (expected inputIds and targets)`);
    const { ids: inputIds } = await idsOf(`${fn}: data[${i}].inputIds`, (d as TokenDatum).inputIds);
    const { ids: targets } = await idsOf(`${fn}: data[${i}].targets`, (d as TokenDatum).targets);
    if (inputIds.length === 0) throw new Error(`${fn}: data[${i}].inputIds is empty (a datum needs at least one token)`);
    if (inputIds.length !== targets.length) throw new Error(`${fn}: data[${i}]: inputIds has ${inputIds.length} tokens, targets ${targets.length} (they must match)`);
    out.push({ inputIds, targets });
  }
  return out;
}

/** weights as arrays of finite numbers, one per datum with its T. */
async function wireWeights(fn: string, weights: unknown, data: readonly WireDatum[]): Promise<number[][]> {
  if (!Array.isArray(weights) || weights.length !== data.length) {
    throw new Error(`${fn}: expected 'weights' to be an array with one float32 Tensor (or number array) per datum (${data.length}), got ${describe(weights)}`);
  }
  const out: number[][] = [];
  for (let i = 0; i < weights.length; i++) {
    const w: unknown = weights[i];
    let values: number[];
    if (w instanceof Tensor) {
      if (w.isDisposed || w.dtype !== 'float32') throw new Error(`${fn}: expected weights[${i}] to be a float32 Tensor, got ${describe(w)}`);
      values = Array.from(await w.data(), Number);
    } else if (Array.isArray(w) || w instanceof Float32Array || w instanceof Float64Array) {
      values = Array.from(w as ArrayLike<number>);
    } else {
      throw new Error(`${fn}: expected weights[${i}] to be a float32 Tensor or an array of numbers, got ${describe(w)}`);
    }
    const T = data[i]!.inputIds.length;
    if (values.length !== T) throw new Error(`${fn}: weights[${i}] has ${values.length} values, data[${i}] has ${T} tokens`);
    const bad = values.findIndex((x) => typeof x !== 'number' || !Number.isFinite(x));
    if (bad >= 0) throw new Error(`${fn}: weights[${i}][${bad}] is ${describe(values[bad])} (the trainer takes finite weights only)`);
    out.push(values);
  }
  return out;
}

function checkLogprobs(where: string, lps: unknown, data: readonly WireDatum[]): (number | null)[][] {
  const ok =
    Array.isArray(lps) &&
    lps.length === data.length &&
    lps.every((lp, i) => Array.isArray(lp) && lp.length === data[i]!.inputIds.length && lp.every((x) => x === null || typeof x === 'number'));
  if (!ok) throw new Error(`${where}: the trainer's answer has no 'logprobs' matching the data (${data.length} lists of their T values)`);
  return lps as (number | null)[][];
}

/** A client for the trainer at `url` (trainer/README.md; start it with scripts/trainer.sh). */
export function remoteClient(url: string | URL, options?: RemoteClientOptions): RemoteClient {
  const base = checkUrl(url);
  const o = checkOptions<RemoteClientOptions>(FN, options, {
    token: { check: (v) => typeof v === 'string' && v.length > 0 && /^[\x21-\x7e]+$/.test(v), expected: 'a non-empty string of printable ASCII without spaces' },
    timeoutMs: { check: (v) => typeof v === 'number' && v > 0 && Number.isFinite(v), expected: 'a positive finite number of milliseconds' },
  });
  if (typeof fetch !== 'function') throw new Error(`${FN}: no global fetch in this environment (Node ≥ 18 or a browser is needed)`);
  const timeoutMs = o.timeoutMs ?? 60000;
  const token = o.token;
  const inFlight = new Set<AbortController>();
  let closed = false;

  /** One request: resolves to the answer's JSON (or bytes), rejects with an Error saying what failed. */
  async function request(method: 'GET' | 'POST', path: string, body?: string | Uint8Array, want: 'json' | 'bytes' = 'json'): Promise<unknown> {
    const what = `${method} ${path}`;
    if (closed) throw new Error(`${FN}: ${what}: the client is closed`);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    inFlight.add(controller);
    const headers: Record<string, string> = {};
    if (token !== undefined) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = typeof body === 'string' ? 'application/json' : 'application/octet-stream';
    let status: number;
    let payload: Uint8Array;
    let contentType: string;
    try {
      const res = await fetch(base + path, { method, headers, body: body as BodyInit | undefined, signal: controller.signal });
      status = res.status;
      contentType = res.headers.get('content-type') ?? '';
      payload = new Uint8Array(await res.arrayBuffer());
    } catch (e) {
      if (timedOut) throw httpError(`${FN}: ${what} timed out after ${timeoutMs} ms (timeoutMs) waiting for the trainer at ${base}`, { cause: e });
      if (closed) throw httpError(`${FN}: ${what}: the client was closed during the request`, { cause: e });
      throw httpError(`${FN}: ${what}: cannot reach the trainer at ${base}: ${causeText(e)} (is it running? scripts/trainer.sh prints the address it listens on)`, { cause: e });
    } finally {
      clearTimeout(timer);
      inFlight.delete(controller);
    }
    const text = () => new TextDecoder().decode(payload);
    if (status === 200 && want === 'bytes' && !contentType.includes('json')) return payload;
    let json: unknown;
    try {
      json = JSON.parse(text());
    } catch {
      json = undefined;
    }
    if (status === 200) {
      if (!isOptionsObject(json)) throw httpError(`${FN}: ${what}: the trainer's answer is not a JSON object: ${describe(text().slice(0, 200))}`, { status });
      return json;
    }
    const detail = isOptionsObject(json) && typeof json.error === 'string' ? json.error : text().slice(0, 300) || '(no message)';
    const rank = isOptionsObject(json) && isInteger(json.rank) ? json.rank : undefined;
    if (status === 401) {
      const hint = token === undefined ? 'no token was given: pass the trainer\'s --token as { token }' : 'the token was refused: pass the trainer\'s --token as { token }';
      throw httpError(`${FN}: ${what}: authentication failed (HTTP 401): ${detail}; ${hint}`, { status });
    }
    if (status === 503) {
      const who = rank !== undefined ? `rank ${rank}` : 'a rank';
      throw httpError(
        `${FN}: ${what}: the trainer's rank group is broken (HTTP 503, ${who}): ${detail}; restart the trainer and call loadState with the last saveState bytes`,
        { status, rank },
      );
    }
    throw httpError(`${FN}: ${what} failed with HTTP ${status}: ${detail}`, { status });
  }

  const post = (path: string, body: unknown) => request('POST', path, JSON.stringify(body)) as Promise<Record<string, unknown>>;

  const client: RemoteClient = {
    url: base,

    async forward(data) {
      const fn = `${FN}.forward`;
      const wire = await wireData(fn, data);
      const answer = await post('/forward', { data: wire });
      const lps = checkLogprobs(fn, answer.logprobs, wire);
      return tidy(() => lps.map((lp) => tensor(Float32Array.from(lp, (x) => (x === null ? NaN : x)), { shape: [lp.length] })));
    },

    async forwardBackward(data, weights) {
      const fn = `${FN}.forwardBackward`;
      const wire = await wireData(fn, data);
      const w = await wireWeights(fn, weights, wire);
      const answer = await post('/forward_backward', { data: wire, weights: w });
      const logprobs = checkLogprobs(fn, answer.logprobs, wire);
      if (!isOptionsObject(answer.metrics)) throw new Error(`${fn}: the trainer's answer has no 'metrics' object`);
      return { loss: answer.loss as number | null, logprobs, metrics: answer.metrics as RemoteForwardBackwardResult['metrics'] };
    },

    async optimStep(options) {
      const fn = `${FN}.optimStep`;
      const nonNegative = { check: (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0, expected: 'a finite number ≥ 0' };
      const hp = checkOptions<OptimStepOptions>(fn, options, {
        lr: nonNegative,
        betas: {
          check: (v) => Array.isArray(v) && v.length === 2 && v.every((b) => typeof b === 'number' && b >= 0 && b < 1),
          expected: '[beta1, beta2], each in [0, 1)',
        },
        eps: { check: (v) => typeof v === 'number' && Number.isFinite(v) && v > 0, expected: 'a positive finite number' },
        weightDecay: nonNegative,
      });
      const body: Record<string, unknown> = {};
      for (const k of ['lr', 'betas', 'eps', 'weightDecay'] as const) if (hp[k] !== undefined) body[k] = hp[k];
      const answer = await post('/optim_step', body);
      return { step: answer.step as number, metrics: answer.metrics as OptimStepResult['metrics'] };
    },

    async saveState() {
      return (await request('POST', '/save_state', undefined, 'bytes')) as Uint8Array;
    },

    async loadState(bytes) {
      const fn = `${FN}.loadState`;
      let raw: Uint8Array;
      if (bytes instanceof Uint8Array) raw = bytes;
      else if (bytes instanceof ArrayBuffer) raw = new Uint8Array(bytes);
      else if (ArrayBuffer.isView(bytes)) raw = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      else throw new Error(`${fn}: expected the bytes saveState returned (a Uint8Array or ArrayBuffer), got ${describe(bytes)}`);
      if (raw.byteLength < 8) throw new Error(`${fn}: ${raw.byteLength} bytes is no safetensors file`);
      const answer = await request('POST', '/load_state', raw);
      return answer as unknown as LoadStateResult;
    },

    async sample(promptIds, options) {
      const fn = `${FN}.sample`;
      const { ids, rank2 } = await idsOf(`${fn}: promptIds`, promptIds, true);
      if (ids.length === 0) throw new Error(`${fn}: 'promptIds' is empty (the prompt needs at least one token)`);
      const o2 = checkOptions<SampleOptions>(fn, options, {
        maxNewTokens: { check: (v) => isInteger(v) && v >= 0, expected: 'an integer ≥ 0' },
        temperature: { check: (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0, expected: 'a finite number ≥ 0 (0: greedy)' },
        topK: { check: (v) => v === null || (isInteger(v) && v >= 0), expected: 'an integer ≥ 0 or null' },
        seed: { check: (v) => v === null || (isInteger(v) && v >= 0), expected: 'an integer ≥ 0 or null' },
      });
      const body: Record<string, unknown> = { promptIds: ids };
      for (const k of ['maxNewTokens', 'temperature', 'topK', 'seed'] as const) if (o2[k] !== undefined) body[k] = o2[k];
      const answer = await post('/sample', body);
      const out = answer.ids;
      if (!Array.isArray(out) || !out.every(isInteger)) throw new Error(`${fn}: the trainer's answer has no 'ids' list`);
      return tensor(Int32Array.from(out as number[]), { shape: rank2 ? [1, out.length] : [out.length] });
    },

    async health() {
      return (await request('GET', '/health')) as unknown as TrainerHealth;
    },

    close() {
      closed = true;
      for (const c of inFlight) c.abort();
      inFlight.clear();
    },
  };
  return client;
}

/** A model that maps int32 ids [B, T] to logits [B, T, V] (a callable module, or an object with forward). */
export type CausalLM = ((ids: Tensor) => Tensor) | { forward(ids: Tensor): Tensor };

function deviceOf(model: unknown): Tensor['device'] | undefined {
  const params = (model as { parameters?: () => Tensor[] }).parameters;
  if (typeof params !== 'function') return undefined;
  const list = params.call(model);
  return Array.isArray(list) && list[0] instanceof Tensor ? list[0].device : undefined;
}

/**
 * What the trainer's forward computes, locally and with a graph: per datum, the float32 [T]
 * log-probabilities log_softmax(model(inputIds))[t, targets[t]]. Data of equal length run as one
 * batch. A tokensToLogprobs for localClient, so that a local model serves the remote protocol.
 * Tensor ids must be readable synchronously (on the CPU).
 */
export function tokenLogprobs(model: CausalLM, data: readonly TokenDatum[]): Tensor[] {
  const fn = 'customLoss.tokenLogprobs';
  const call = typeof model === 'function' ? model : model !== null && typeof model === 'object' && typeof model.forward === 'function' ? (x: Tensor) => model.forward(x) : null;
  if (call === null) throw new Error(`${fn}: expected 'model' to map int32 ids [B, T] to logits [B, T, V] (a module or a function), got ${describe(model)}`);
  if (!Array.isArray(data) || data.length === 0) throw new Error(`${fn}: expected 'data' to be a non-empty array of { inputIds, targets }, got ${describe(data)}`);
  const read = (where: string, v: unknown): number[] => {
    if (v instanceof Tensor) {
      if (v.isDisposed || v.dtype !== 'int32' || v.ndim !== 1) throw new Error(`${where}: expected a 1-D int32 Tensor or an array of integers, got ${describe(v)}`);
      return Array.from(v.dataSync() as ArrayLike<number>);
    }
    if (!Array.isArray(v) && !ArrayBuffer.isView(v)) throw new Error(`${where}: expected an array of integers or a 1-D int32 Tensor, got ${describe(v)}`);
    return Array.from(v as ArrayLike<number>);
  };
  const rows = data.map((d, i) => {
    if (d === null || typeof d !== 'object') throw new Error(`${fn}: expected data[${i}] to be { inputIds, targets }, got ${describe(d)}`);
    const ids = read(`${fn}: data[${i}].inputIds`, d.inputIds);
    const tgt = read(`${fn}: data[${i}].targets`, d.targets);
    if (ids.length === 0 || ids.length !== tgt.length) throw new Error(`${fn}: data[${i}]: inputIds (${ids.length}) and targets (${tgt.length}) must have the same length ≥ 1`);
    return { ids, tgt };
  });
  const device = deviceOf(model);
  const out: Tensor[] = new Array(rows.length);
  const byLength = new Map<number, number[]>();
  rows.forEach((r, i) => {
    const list = byLength.get(r.ids.length) ?? [];
    list.push(i);
    byLength.set(r.ids.length, list);
  });
  try {
    for (const [T, idx] of byLength) {
      const picked = tidy(() => {
        const ids = tensor(Int32Array.from(idx.flatMap((i) => rows[i]!.ids)), { shape: [idx.length, T], device });
        const tgt = tensor(Int32Array.from(idx.flatMap((i) => rows[i]!.tgt)), { shape: [idx.length, T, 1], device });
        const logits: unknown = call(ids);
        if (!(logits instanceof Tensor) || logits.ndim !== 3 || logits.shape[0] !== idx.length || logits.shape[1] !== T) {
          throw new Error(`${fn}: expected the model to return logits [${idx.length}, ${T}, V], got ${describe(logits)}`);
        }
        const lp = logits.logSoftmax(-1).gather(2, tgt).reshape([idx.length, T]);
        return idx.map((_, k) => lp.narrow(0, k, 1).reshape([T]));
      });
      idx.forEach((i, k) => (out[i] = picked[k]!));
    }
    return out;
  } catch (e) {
    dispose(out.filter((t) => t !== undefined));
    throw e;
  }
}
