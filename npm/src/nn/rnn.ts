// Recurrent layers (torch.nn.RNN, LSTM, GRU) and their cells (RNNCell, LSTMCell, GRUCell),
// with PyTorch's parameter names (weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0,
// weight_hr_l0, ..._reverse; the cells' weight_ih, ...), gate order, initialisation
// (every parameter U(±1/√hiddenSize)), arguments and results. Each layer and direction runs as
// one C++ op over the whole sequence (op 'rnnLayer', src/nn/rnn.h): one graph node per layer,
// whatever the sequence length. A PackedSequence input (packed_sequence.ts) runs the same op once
// per distinct sequence length (runPackedLayer).
import { run } from '../tensor/call.js';
import { zeros } from '../tensor/creation.js';
import { F } from './functional.js';
import { isFloatingDType } from '../runtime/dtypes.js';
import { tidy } from '../runtime/memory.js';
import { functionOps } from '../tensor/ops.js';
import { checkOptions, describe } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { countArg, probabilityArg } from './args.js';
import { uniform_ } from './init.js';
import { Module, Parameter } from './module.js';
import { pyRepr } from './repr.js';
import { PackedSequence, packedLayout } from './packed_sequence.js';

type CellMode = 'lstm' | 'gru' | 'rnn_tanh' | 'rnn_relu';
export type Nonlinearity = 'tanh' | 'relu';

const GATES: Record<CellMode, number> = { lstm: 4, gru: 3, rnn_tanh: 1, rnn_relu: 1 };

/** The weights of one layer and direction, as the op takes them. */
interface LayerWeights {
  wIh: Tensor;
  wHh: Tensor;
  bIh: Tensor | null;
  bHh: Tensor | null;
  wHr: Tensor | null;
}

/**
 * One layer, one direction: [output [T, B, P], hN [B, P], cN [B, H] (LSTM)], views of the op's
 * one flat result (the outputs, then the LSTM's cell states; src/nn/rnn.h).
 */
function runLayer(fn: string, mode: CellMode, x: Tensor, h0: Tensor, c0: Tensor | null, w: LayerWeights, reverse: boolean): Tensor[] {
  const packed = run(
    fn,
    'rnnLayer',
    [
      ['input', x],
      ['h0', h0],
      ['c0', c0],
      ['weight_ih', w.wIh],
      ['weight_hh', w.wHh],
      ['bias_ih', w.bIh],
      ['bias_hh', w.bHh],
      ['weight_hr', w.wHr],
    ],
    { mode, reverse },
  );
  const [T, B] = x.shape as [number, number];
  const P = w.wHh.shape[1]!;
  const H = w.wIh.shape[0]! / GATES[mode];
  const last = reverse ? 0 : T - 1;
  const output = packed.narrow(0, 0, T * B * P).view([T, B, P]);
  const result = [output, output.narrow(0, last, 1).squeeze(0)];
  if (mode === 'lstm') result.push(packed.narrow(0, T * B * P, T * B * H).view([T, B, H]).narrow(0, last, 1).squeeze(0));
  return result;
}

/**
 * One layer, one direction over a packed batch: x [N, I] (packed rows, the batch sorted by
 * decreasing length; sizes = batchSizes), h0 [B, P] and c0 [B, H] in sorted order →
 * [output [N, P] (packed rows), hN [B, P], cN [B, H] (LSTM)], each sequence's final state at its
 * own last step (forward) or at step 0 (reverse), as PyTorch's packed RNN.
 *
 * At step t the running sequences are the first sizes[t] of the batch, so time splits into
 * segments [a, b) between consecutive distinct lengths where that prefix is fixed: its rows are
 * contiguous in x and form a [b − a, n, I] block, which the per-layer op runs from the prefix's
 * carried states. Forward: segments in increasing time; after each, the sequences that end at b
 * (rows sizes[b]..n of the prefix) drop out and their last states are kept. Reverse: segments in
 * decreasing time; the sequences whose last step lies in a segment join there from their h0, below
 * the states carried from the later segment. One op call per distinct length.
 */
function runPackedLayer(fn: string, mode: CellMode, x: Tensor, sizes: readonly number[], h0: Tensor, c0: Tensor | null, w: LayerWeights, reverse: boolean): Tensor[] {
  const off = packedLayout.offsets(sizes);
  const T = sizes.length;
  const segments: [number, number][] = [];
  for (let a = 0, t = 1; t <= T; t++) {
    if (t === T || sizes[t] !== sizes[a]) {
      segments.push([a, t]);
      a = t;
    }
  }
  const I = x.shape[1]!;
  const block = ([a, b]: [number, number]) => x.narrow(0, off[a]!, off[b]! - off[a]!).view([b - a, sizes[a]!, I]);
  const flatOut = (out: Tensor) => out.reshape([out.shape[0]! * out.shape[1]!, out.shape[2]!]);
  const lstm = c0 !== null;
  if (!reverse) {
    const outs: Tensor[] = [];
    const endedH: Tensor[] = [];
    const endedC: Tensor[] = [];
    let h = h0, c = c0;
    for (const seg of segments) {
      const n = sizes[seg[0]]!;
      const res = runLayer(fn, mode, block(seg), h.narrow(0, 0, n), lstm ? c!.narrow(0, 0, n) : null, w, false);
      outs.push(flatOut(res[0]!));
      [h, c] = [res[1]!, lstm ? res[2]! : null];
      const next = seg[1] < T ? sizes[seg[1]]! : 0;
      endedH.unshift(h.narrow(0, next, n - next));
      if (lstm) endedC.unshift(c!.narrow(0, next, n - next));
    }
    const cat0 = (ts: Tensor[]) => (ts.length === 1 ? ts[0]! : functionOps.cat(ts, 0));
    return [cat0(outs), cat0(endedH), ...(lstm ? [cat0(endedC)] : [])];
  }
  const outs: Tensor[] = [];
  let h: Tensor | null = null, c: Tensor | null = null;
  for (const seg of [...segments].reverse()) {
    const n = sizes[seg[0]]!;
    const join = (carried: Tensor | null, init: Tensor): Tensor => {
      const have = carried === null ? 0 : carried.shape[0]!;
      if (have === n) return carried!;
      const fresh = init.narrow(0, have, n - have);
      return carried === null ? fresh : functionOps.cat([carried, fresh], 0);
    };
    const res = runLayer(fn, mode, block(seg), join(h, h0), lstm ? join(c, c0!) : null, w, true);
    outs.unshift(flatOut(res[0]!));
    [h, c] = [res[1]!, lstm ? res[2]! : null];
  }
  return [outs.length === 1 ? outs[0]! : functionOps.cat(outs, 0), h!, ...(lstm ? [c!] : [])];
}

/** PyTorch's reset_parameters of RNNBase and RNNCellBase. */
function resetUniform(module: Module, hiddenSize: number): void {
  const bound = hiddenSize > 0 ? 1 / Math.sqrt(hiddenSize) : 0;
  for (const p of module.parameters()) uniform_(p, -bound, bound);
}

function floatTensorArg(fn: string, name: string, v: unknown): Tensor {
  if (!(v instanceof Tensor) || v.isDisposed) throw new Error(`${fn}: expected '${name}' to be a Tensor, got ${describe(v)}`);
  if (!isFloatingDType(v.dtype)) throw new Error(`${fn}: expected '${name}' to be a floating tensor (float32, float64, ...), got ${v.dtype}`);
  return v;
}

function checkShape(fn: string, name: string, t: Tensor, expected: number[]): void {
  if (t.shape.length !== expected.length || t.shape.some((s, i) => s !== expected[i])) {
    throw new Error(`${fn}: expected ${name} of shape [${expected.join(', ')}], got [${t.shape.join(', ')}]`);
  }
}

export interface RNNBaseOptions {
  /** Stacked layers (default 1). */
  numLayers?: number;
  /** Use bias_ih and bias_hh (default true). */
  bias?: boolean;
  /** Input and output as [B, T, features] instead of [T, B, features] (not the states). */
  batchFirst?: boolean;
  /** Dropout on the outputs of every layer but the last, in training mode (default 0). */
  dropout?: number;
  /** A second, reversed direction per layer; outputs concatenated (default false). */
  bidirectional?: boolean;
}
export interface RNNOptions extends RNNBaseOptions {
  nonlinearity?: Nonlinearity;
}
export interface LSTMOptions extends RNNBaseOptions {
  /** Project h to this size with weight_hr (0: no projection). */
  projSize?: number;
}

const baseSpec = { numLayers: 'positiveInteger', bias: 'boolean', batchFirst: 'boolean', dropout: 'number', bidirectional: 'boolean' } as const;

/** torch.nn.RNNBase: the stacked, optionally bidirectional layers. */
abstract class RNNBase extends Module {
  declare mode: CellMode;
  declare inputSize: number;
  declare hiddenSize: number;
  declare numLayers: number;
  declare bias: boolean;
  declare batchFirst: boolean;
  declare dropout: number;
  declare bidirectional: boolean;
  declare projSize: number;

  protected constructor(fn: string, mode: CellMode, inputSize: number, hiddenSize: number, o: RNNBaseOptions & { projSize?: number }) {
    super();
    this.mode = mode;
    this.inputSize = countArg(fn, 'inputSize', inputSize, 1);
    this.hiddenSize = countArg(fn, 'hiddenSize', hiddenSize, 1);
    this.numLayers = o.numLayers ?? 1;
    this.bias = o.bias ?? true;
    this.batchFirst = o.batchFirst ?? false;
    this.dropout = probabilityArg(fn, o.dropout ?? 0);
    this.bidirectional = o.bidirectional ?? false;
    this.projSize = countArg(fn, 'projSize', o.projSize ?? 0, 0);
    if (this.projSize >= this.hiddenSize) throw new Error(`${fn}: projSize has to be smaller than hiddenSize (got projSize ${this.projSize}, hiddenSize ${this.hiddenSize})`);
    const gateSize = GATES[mode] * this.hiddenSize;
    const real = this.projSize > 0 ? this.projSize : this.hiddenSize;
    const dirs = this.bidirectional ? 2 : 1;
    for (let layer = 0; layer < this.numLayers; layer++) {
      for (let d = 0; d < dirs; d++) {
        const suffix = `_l${layer}${d === 1 ? '_reverse' : ''}`;
        const layerInput = layer === 0 ? this.inputSize : real * dirs;
        this.registerParameter(`weight_ih${suffix}`, Parameter.empty([gateSize, layerInput]));
        this.registerParameter(`weight_hh${suffix}`, Parameter.empty([gateSize, real]));
        if (this.bias) {
          this.registerParameter(`bias_ih${suffix}`, Parameter.empty([gateSize]));
          this.registerParameter(`bias_hh${suffix}`, Parameter.empty([gateSize]));
        }
        if (this.projSize > 0) this.registerParameter(`weight_hr${suffix}`, Parameter.empty([this.projSize, this.hiddenSize]));
      }
    }
    this.resetParameters();
  }

  resetParameters(): void {
    resetUniform(this, this.hiddenSize);
  }

  /** PyTorch's cuDNN weight compaction: nothing to do here (kept so that ported code runs). */
  flattenParameters(): void {}

  private weights(layer: number, reverse: boolean): LayerWeights {
    const suffix = `_l${layer}${reverse ? '_reverse' : ''}`;
    const p = (name: string) => this.getParameter(`${name}${suffix}`);
    return { wIh: p('weight_ih')!, wHh: p('weight_hh')!, bIh: p('bias_ih'), bHh: p('bias_hh'), wHr: p('weight_hr') };
  }

  private getParameter(name: string): Tensor | null {
    return (this as unknown as Record<string, Tensor | undefined>)[name] ?? null;
  }

  /**
   * The stacked layers over input [T, B, I] (batchFirst [B, T, I]; unbatched [T, I]) from
   * states h0 [L·D, B, P] and (LSTM) c0 [L·D, B, H] (unbatched without B), or zeros.
   * Returns [output, hN, cN | null].
   */
  protected runStack(fn: string, input: Tensor, h0: unknown, c0: unknown): [Tensor, Tensor, Tensor | null];
  protected runStack(fn: string, input: PackedSequence, h0: unknown, c0: unknown): [PackedSequence, Tensor, Tensor | null];
  protected runStack(fn: string, input: Tensor | PackedSequence, h0: unknown, c0: unknown): [Tensor | PackedSequence, Tensor, Tensor | null];
  protected runStack(fn: string, input: unknown, h0: unknown, c0: unknown): [Tensor | PackedSequence, Tensor, Tensor | null] {
    if (input instanceof PackedSequence) return this.runPacked(fn, input, h0, c0);
    const x0 = floatTensorArg(fn, 'input', input);
    if (x0.ndim !== 2 && x0.ndim !== 3) throw new Error(`${fn}: expected input of 2 (unbatched) or 3 dims, got ${x0.ndim} dims (shape [${x0.shape.join(', ')}])`);
    const batched = x0.ndim === 3;
    if (x0.shape[x0.ndim - 1] !== this.inputSize) {
      throw new Error(`${fn}: input.size(-1) must be equal to inputSize: expected ${this.inputSize}, got ${x0.shape[x0.ndim - 1]}`);
    }
    const lstm = this.mode === 'lstm';
    const dirs = this.bidirectional ? 2 : 1;
    const B = batched ? x0.shape[this.batchFirst ? 0 : 1]! : 1;
    const P = this.projSize > 0 ? this.projSize : this.hiddenSize;
    const given = this.givenStates(fn, h0, c0, B, batched);
    return tidy(() => {
      let x = batched ? (this.batchFirst ? x0.transpose(0, 1) : x0) : x0.unsqueeze(1);
      const state = (k: number, index: number, size: number): Tensor => {
        const t = given[k];
        if (!t) return zeros([B, size], { dtype: x0.dtype });  // float64 layers run in double
        const s = t.narrow(0, index, 1).squeeze(0);
        return batched ? s : s.unsqueeze(0);
      };
      const hN: Tensor[] = [];
      const cN: Tensor[] = [];
      for (let layer = 0; layer < this.numLayers; layer++) {
        const outs: Tensor[] = [];
        for (let d = 0; d < dirs; d++) {
          const index = layer * dirs + d;
          const res = runLayer(fn, this.mode, x, state(0, index, P), lstm ? state(1, index, this.hiddenSize) : null, this.weights(layer, d === 1), d === 1);
          outs.push(res[0]!);
          hN.push(res[1]!);
          if (lstm) cN.push(res[2]!);
        }
        x = dirs === 2 ? functionOps.cat(outs, 2) : outs[0]!;
        if (this.dropout > 0 && this.training && layer < this.numLayers - 1) x = F.dropout(x, this.dropout, true);
      }
      const output = batched ? (this.batchFirst ? x.transpose(0, 1) : x) : x.squeeze(1);
      let h = functionOps.stack(hN, 0);
      let c = lstm ? functionOps.stack(cN, 0) : null;
      if (!batched) {
        h = h.squeeze(1);
        c = c ? c.squeeze(1) : null;
      }
      return [output, h, c] as [Tensor, Tensor, Tensor | null];
    });
  }

  /** The initial states as given (null: zeros), checked against [L·D, B, size]. */
  private givenStates(fn: string, h0: unknown, c0: unknown, B: number, batched: boolean): (Tensor | null)[] {
    const dirs = this.bidirectional ? 2 : 1;
    const P = this.projSize > 0 ? this.projSize : this.hiddenSize;
    const states: [string, unknown, number][] = [['h0', h0, P]];
    if (this.mode === 'lstm') states.push(['c0', c0, this.hiddenSize]);
    return states.map(([name, v, size]) => {
      if (v === null || v === undefined) return null;
      const t = floatTensorArg(fn, name, v);
      const expected = batched ? [this.numLayers * dirs, B, size] : [this.numLayers * dirs, size];
      if (t.ndim !== expected.length) {
        throw new Error(`${fn}: for ${batched ? 'batched 3-D' : 'unbatched 2-D'} input, ${name} should be ${expected.length}-D, got shape [${t.shape.join(', ')}]`);
      }
      checkShape(fn, name, t, expected);
      return t;
    });
  }

  /**
   * The stacked layers over a PackedSequence (data [N, I]): the output is a PackedSequence of the
   * same batch, hN/cN [L·D, B, *] in the original batch order; h0/c0 are given in that order too
   * (permuted with sortedIndices, as PyTorch's permute_hidden).
   */
  private runPacked(fn: string, input: PackedSequence, h0: unknown, c0: unknown): [PackedSequence, Tensor, Tensor | null] {
    if (input.isDisposed) throw new Error(`${fn}: the PackedSequence input is disposed`);
    const data = floatTensorArg(fn, 'input.data', input.data);
    if (data.ndim !== 2) throw new Error(`${fn}: input must have 2 dimensions (a PackedSequence's data [N, inputSize]), got ${data.ndim} (shape [${data.shape.join(', ')}])`);
    if (data.shape[1] !== this.inputSize) throw new Error(`${fn}: input.size(-1) must be equal to inputSize: expected ${this.inputSize}, got ${data.shape[1]}`);
    const sizes = input.sizes;
    const B = sizes[0]!;
    const given = this.givenStates(fn, h0, c0, B, true);
    const lstm = this.mode === 'lstm';
    const dirs = this.bidirectional ? 2 : 1;
    const P = this.projSize > 0 ? this.projSize : this.hiddenSize;
    const order = input.order;
    return tidy(() => {
      const sortedStates = given.map((t) => (t && order ? t.indexSelect(1, order as number[]) : t));
      const state = (k: number, index: number, size: number): Tensor => {
        const t = sortedStates[k];
        return t ? t.narrow(0, index, 1).squeeze(0) : zeros([B, size], { device: data.device, dtype: data.dtype });
      };
      let x = data;
      const hN: Tensor[] = [];
      const cN: Tensor[] = [];
      for (let layer = 0; layer < this.numLayers; layer++) {
        const outs: Tensor[] = [];
        for (let d = 0; d < dirs; d++) {
          const index = layer * dirs + d;
          const res = runPackedLayer(fn, this.mode, x, sizes, state(0, index, P), lstm ? state(1, index, this.hiddenSize) : null, this.weights(layer, d === 1), d === 1);
          outs.push(res[0]!);
          hN.push(res[1]!);
          if (lstm) cN.push(res[2]!);
        }
        x = dirs === 2 ? functionOps.cat(outs, 1) : outs[0]!;
        if (this.dropout > 0 && this.training && layer < this.numLayers - 1) x = F.dropout(x, this.dropout, true);
      }
      const unsort = (t: Tensor) => (order ? t.indexSelect(1, packedLayout.inverse(order)) : t);
      const h = unsort(functionOps.stack(hN, 0));
      const c = lstm ? unsort(functionOps.stack(cN, 0)) : null;
      return [PackedSequence.withData(input, x), h, c] as [PackedSequence, Tensor, Tensor | null];
    });
  }

  extraRepr(): string {
    let s = `${this.inputSize}, ${this.hiddenSize}`;
    if (this.projSize !== 0) s += `, proj_size=${this.projSize}`;
    if (this.numLayers !== 1) s += `, num_layers=${this.numLayers}`;
    if (!this.bias) s += ', bias=False';
    if (this.batchFirst) s += ', batch_first=True';
    if (this.dropout !== 0) s += `, dropout=${pyRepr(this.dropout)}`;
    if (this.bidirectional) s += ', bidirectional=True';
    return s;
  }
}

/**
 * Elman RNN: h' = tanh (or relu)(x·W_ihᵀ + b_ih + h·W_hhᵀ + b_hh). forward(input, h0?) → [output, hN];
 * a PackedSequence input gives a PackedSequence output (as LSTM and GRU).
 */
export class RNN extends RNNBase {
  declare nonlinearity: Nonlinearity;

  constructor(inputSize: number, hiddenSize: number, options?: RNNOptions) {
    const o = checkOptions<RNNOptions>('RNN', options, { ...baseSpec, nonlinearity: ['tanh', 'relu'] });
    const nl = o.nonlinearity ?? 'tanh';
    super('RNN', nl === 'tanh' ? 'rnn_tanh' : 'rnn_relu', inputSize, hiddenSize, o);
    this.nonlinearity = nl;
  }

  forward(input: Tensor, h0?: Tensor | null): [Tensor, Tensor];
  forward(input: PackedSequence, h0?: Tensor | null): [PackedSequence, Tensor];
  forward(input: Tensor | PackedSequence, h0?: Tensor | null): [Tensor | PackedSequence, Tensor] {
    const [output, h] = this.runStack('RNN', input, h0, null);
    return [output, h];
  }
  // No extraRepr of its own: PyTorch 1.13's RNN prints RNNBase's settings, without the
  // nonlinearity (RNNCell prints it).
}

/** Long short-term memory, gates i, f, g, o. forward(input, [h0, c0]?) → [output, [hN, cN]]. */
export class LSTM extends RNNBase {
  constructor(inputSize: number, hiddenSize: number, options?: LSTMOptions) {
    const o = checkOptions<LSTMOptions>('LSTM', options, { ...baseSpec, projSize: 'integer' });
    super('LSTM', 'lstm', inputSize, hiddenSize, o);
  }

  forward(input: Tensor, hx?: readonly [Tensor, Tensor] | null): [Tensor, [Tensor, Tensor]];
  forward(input: PackedSequence, hx?: readonly [Tensor, Tensor] | null): [PackedSequence, [Tensor, Tensor]];
  forward(input: Tensor | PackedSequence, hx?: readonly [Tensor, Tensor] | null): [Tensor | PackedSequence, [Tensor, Tensor]] {
    if (hx !== undefined && hx !== null && !(Array.isArray(hx) && hx.length === 2)) {
      throw new Error(`LSTM: expected hx to be [h0, c0] (two Tensors) or null, got ${describe(hx)}`);
    }
    const [output, h, c] = this.runStack('LSTM', input, hx?.[0], hx?.[1]);
    return [output, [h, c!]];
  }
}

/** Gated recurrent unit, gates r, z, n. forward(input, h0?) → [output, hN]. */
export class GRU extends RNNBase {
  constructor(inputSize: number, hiddenSize: number, options?: RNNBaseOptions) {
    super('GRU', 'gru', inputSize, hiddenSize, checkOptions<RNNBaseOptions>('GRU', options, baseSpec));
  }

  forward(input: Tensor, h0?: Tensor | null): [Tensor, Tensor];
  forward(input: PackedSequence, h0?: Tensor | null): [PackedSequence, Tensor];
  forward(input: Tensor | PackedSequence, h0?: Tensor | null): [Tensor | PackedSequence, Tensor] {
    const [output, h] = this.runStack('GRU', input, h0, null);
    return [output, h];
  }
}

// ---------------------------------------------------------------- cells

/** torch.nn.RNNCellBase: weight_ih [G·H, I], weight_hh [G·H, H], bias_ih, bias_hh [G·H]. */
abstract class RNNCellBase extends Module {
  declare inputSize: number;
  declare hiddenSize: number;
  declare bias: boolean;
  declare weight_ih: Parameter;
  declare weight_hh: Parameter;
  declare bias_ih: Parameter | null;
  declare bias_hh: Parameter | null;

  protected constructor(fn: string, gates: number, inputSize: number, hiddenSize: number, bias: boolean) {
    super();
    this.inputSize = countArg(fn, 'inputSize', inputSize, 1);
    this.hiddenSize = countArg(fn, 'hiddenSize', hiddenSize, 1);
    this.bias = bias;
    this.weight_ih = Parameter.empty([gates * this.hiddenSize, this.inputSize]);
    this.weight_hh = Parameter.empty([gates * this.hiddenSize, this.hiddenSize]);
    if (bias) {
      this.bias_ih = Parameter.empty([gates * this.hiddenSize]);
      this.bias_hh = Parameter.empty([gates * this.hiddenSize]);
    } else {
      this.registerParameter('bias_ih', null);
      this.registerParameter('bias_hh', null);
    }
    this.resetParameters();
  }

  resetParameters(): void {
    resetUniform(this, this.hiddenSize);
  }

  /**
   * One step: input [B, I] (or unbatched [I]) and states [B, H] (or [H]; null: zeros) →
   * the new states, batched or not as the input.
   */
  protected step(fn: string, mode: CellMode, input: unknown, states: unknown[]): Tensor[] {
    const x = floatTensorArg(fn, 'input', input);
    if (x.ndim !== 1 && x.ndim !== 2) throw new Error(`${fn}: expected input to be 1-D or 2-D, got ${x.ndim}-D (shape [${x.shape.join(', ')}])`);
    if (x.shape[x.ndim - 1] !== this.inputSize) throw new Error(`${fn}: input has ${x.shape[x.ndim - 1]} features, expected inputSize ${this.inputSize}`);
    const batched = x.ndim === 2;
    const B = batched ? x.shape[0]! : 1;
    const names = ['hx', 'cx'];
    const given = states.map((v, k) => {
      if (v === null || v === undefined) return null;
      const t = floatTensorArg(fn, names[k]!, v);
      checkShape(fn, names[k]!, t, batched ? [B, this.hiddenSize] : [this.hiddenSize]);
      return t;
    });
    return tidy(() => {
      const state = (t: Tensor | null) => (t ? (batched ? t : t.unsqueeze(0)) : zeros([B, this.hiddenSize], { dtype: x.dtype }));
      const w: LayerWeights = { wIh: this.weight_ih, wHh: this.weight_hh, bIh: this.bias_ih, bHh: this.bias_hh, wHr: null };
      const res = runLayer(fn, mode, (batched ? x : x.unsqueeze(0)).unsqueeze(0), state(given[0]!), mode === 'lstm' ? state(given[1] ?? null) : null, w, false);
      return res.slice(1).map((t) => (batched ? t : t.squeeze(0)));
    });
  }

  extraRepr(): string {
    return `${this.inputSize}, ${this.hiddenSize}${this.bias ? '' : ', bias=False'}`;
  }
}

const cellSpec = { bias: 'boolean' } as const;

/** One Elman RNN step: forward(input, hx?) → h'. */
export class RNNCell extends RNNCellBase {
  declare nonlinearity: Nonlinearity;

  constructor(inputSize: number, hiddenSize: number, options?: { bias?: boolean; nonlinearity?: Nonlinearity }) {
    const o = checkOptions<{ bias: boolean; nonlinearity: Nonlinearity }>('RNNCell', options, { ...cellSpec, nonlinearity: ['tanh', 'relu'] });
    super('RNNCell', 1, inputSize, hiddenSize, o.bias ?? true);
    this.nonlinearity = o.nonlinearity ?? 'tanh';
  }

  forward(input: Tensor, hx?: Tensor | null): Tensor {
    return this.step('RNNCell', this.nonlinearity === 'tanh' ? 'rnn_tanh' : 'rnn_relu', input, [hx])[0]!;
  }

  extraRepr(): string {
    return super.extraRepr() + (this.nonlinearity !== 'tanh' ? `, nonlinearity=${this.nonlinearity}` : '');
  }
}

/** One LSTM step: forward(input, [hx, cx]?) → [h', c']. */
export class LSTMCell extends RNNCellBase {
  constructor(inputSize: number, hiddenSize: number, options?: { bias?: boolean }) {
    super('LSTMCell', 4, inputSize, hiddenSize, checkOptions<{ bias: boolean }>('LSTMCell', options, cellSpec).bias ?? true);
  }

  forward(input: Tensor, hx?: readonly [Tensor, Tensor] | null): [Tensor, Tensor] {
    if (hx !== undefined && hx !== null && !(Array.isArray(hx) && hx.length === 2)) {
      throw new Error(`LSTMCell: expected hx to be [hx, cx] (two Tensors) or null, got ${describe(hx)}`);
    }
    const [h, c] = this.step('LSTMCell', 'lstm', input, [hx?.[0], hx?.[1]]);
    return [h!, c!];
  }
}

/** One GRU step: forward(input, hx?) → h'. */
export class GRUCell extends RNNCellBase {
  constructor(inputSize: number, hiddenSize: number, options?: { bias?: boolean }) {
    super('GRUCell', 3, inputSize, hiddenSize, checkOptions<{ bias: boolean }>('GRUCell', options, cellSpec).bias ?? true);
  }

  forward(input: Tensor, hx?: Tensor | null): Tensor {
    return this.step('GRUCell', 'gru', input, [hx])[0]!;
  }
}
