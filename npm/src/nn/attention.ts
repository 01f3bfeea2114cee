// MultiheadAttention (torch.nn.MultiheadAttention) with PyTorch's parameter names
// (in_proj_weight [3E, E], in_proj_bias [3E], out_proj.weight, out_proj.bias; q/k/v_proj_weight
// when kdim or vdim differ from embedDim) and the computation of PyTorch 1.13's
// F.multi_head_attention_forward. Masks: bool true = masked out, float masks are added to
// the scores (attnMask [L, S] or [N·heads, L, S]; keyPaddingMask [N, S]).
import { additiveMask, attention, F } from './functional.js';
import { tensor, zeros } from '../tensor/creation.js';
import { tidy } from '../runtime/memory.js';
import { functionOps } from '../tensor/ops.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { countArg, probabilityArg } from './args.js';
import { constant_, xavierNormal_, xavierUniform_ } from './init.js';
import { Linear } from './linear.js';
import { Module, Parameter } from './module.js';

export interface MultiheadAttentionOptions {
  dropout?: number;
  bias?: boolean;
  addBiasKv?: boolean;
  addZeroAttn?: boolean;
  kdim?: number | null;
  vdim?: number | null;
  batchFirst?: boolean;
}

/** A mask given as a Tensor, as nested arrays (booleans → bool, numbers → float), or null. */
export type MaskLike = Tensor | boolean[] | boolean[][] | boolean[][][] | number[][] | number[][][] | null;

export interface MultiheadAttentionForwardOptions {
  keyPaddingMask?: MaskLike;
  needWeights?: boolean;
  attnMask?: MaskLike;
  averageAttnWeights?: boolean;
}

const maskSpec = {
  check: (v: unknown) => v === null || v instanceof Tensor || Array.isArray(v),
  expected: 'a bool or float Tensor, an array, or null',
};

/** A mask argument as a Tensor (arrays become temporaries of the enclosing tidy), or null. */
export function maskTensor(v: unknown): Tensor | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Tensor) return v;
  return tensor(v as boolean[]);
}

function shapeStr(s: readonly number[]): string {
  return `[${s.join(', ')}]`;
}

export class MultiheadAttention extends Module {
  declare embedDim: number;
  declare kdim: number;
  declare vdim: number;
  declare numHeads: number;
  declare headDim: number;
  declare dropout: number;
  declare batchFirst: boolean;
  declare addZeroAttn: boolean;
  declare in_proj_weight: Parameter | null;
  declare q_proj_weight: Parameter | null;
  declare k_proj_weight: Parameter | null;
  declare v_proj_weight: Parameter | null;
  declare in_proj_bias: Parameter | null;
  declare out_proj: Linear;
  declare bias_k: Parameter | null;
  declare bias_v: Parameter | null;

  constructor(embedDim: number, numHeads: number, options?: MultiheadAttentionOptions) {
    super();
    const name = 'MultiheadAttention';
    const dim = { check: (v: unknown) => v === null || (isInteger(v) && v > 0), expected: 'a positive integer or null' };
    const o = checkOptions<MultiheadAttentionOptions>(name, options, {
      dropout: 'number',
      bias: 'boolean',
      addBiasKv: 'boolean',
      addZeroAttn: 'boolean',
      kdim: dim,
      vdim: dim,
      batchFirst: 'boolean',
    });
    this.embedDim = countArg(name, 'embedDim', embedDim, 1);
    this.numHeads = countArg(name, 'numHeads', numHeads, 1);
    this.kdim = o.kdim ?? this.embedDim;
    this.vdim = o.vdim ?? this.embedDim;
    this.dropout = probabilityArg(name, o.dropout ?? 0);
    this.batchFirst = o.batchFirst ?? false;
    this.addZeroAttn = o.addZeroAttn ?? false;
    this.headDim = Math.floor(this.embedDim / this.numHeads);
    if (this.headDim * this.numHeads !== this.embedDim) throw new Error(`${name}: embedDim (${this.embedDim}) must be divisible by numHeads (${this.numHeads})`);
    const E = this.embedDim;
    const bias = o.bias ?? true;
    if (this.sameEmbedDim) {
      this.in_proj_weight = Parameter.empty([3 * E, E]);
      this.registerParameter('q_proj_weight', null);
      this.registerParameter('k_proj_weight', null);
      this.registerParameter('v_proj_weight', null);
    } else {
      this.q_proj_weight = Parameter.empty([E, E]);
      this.k_proj_weight = Parameter.empty([E, this.kdim]);
      this.v_proj_weight = Parameter.empty([E, this.vdim]);
      this.registerParameter('in_proj_weight', null);
    }
    if (bias) this.in_proj_bias = Parameter.empty([3 * E]);
    else this.registerParameter('in_proj_bias', null);
    this.out_proj = new Linear(E, E, { bias });
    if (o.addBiasKv) {
      this.bias_k = Parameter.empty([1, 1, E]);
      this.bias_v = Parameter.empty([1, 1, E]);
    } else {
      // Plain attributes, as in PyTorch (`self.bias_k = self.bias_v = None`).
      this.bias_k = null;
      this.bias_v = null;
    }
    this.resetParameters();
  }

  private get sameEmbedDim(): boolean {
    return this.kdim === this.embedDim && this.vdim === this.embedDim;
  }

  resetParameters(): void {
    if (this.in_proj_weight) xavierUniform_(this.in_proj_weight);
    else {
      xavierUniform_(this.q_proj_weight!);
      xavierUniform_(this.k_proj_weight!);
      xavierUniform_(this.v_proj_weight!);
    }
    if (this.in_proj_bias) {
      constant_(this.in_proj_bias, 0);
      if (this.out_proj.bias) constant_(this.out_proj.bias, 0);
    }
    if (this.bias_k) xavierNormal_(this.bias_k);
    if (this.bias_v) xavierNormal_(this.bias_v);
  }

  /**
   * query [L, N, E] (batchFirst: [N, L, E]; unbatched [L, E]), key [S, N, kdim], value
   * [S, N, vdim] → [output [L, N, E], weights [N, L, S] (per head [N, heads, L, S] without
   * averaging) or null].
   */
  forward(query: Tensor, key: Tensor, value: Tensor, options?: MultiheadAttentionForwardOptions): [Tensor, Tensor | null] {
    const name = 'MultiheadAttention';
    const o = checkOptions<MultiheadAttentionForwardOptions>(name, options, {
      keyPaddingMask: maskSpec,
      needWeights: 'boolean',
      attnMask: maskSpec,
      averageAttnWeights: 'boolean',
    });
    for (const [n, t] of [['query', query], ['key', key], ['value', value]] as const) {
      if (!(t instanceof Tensor)) throw new Error(`${name}: expected '${n}' to be a Tensor, got ${describe(t)}`);
    }
    const batched = query.ndim === 3;
    if (!batched && query.ndim !== 2) throw new Error(`${name}: query should be unbatched 2D or batched 3D tensor but received ${query.ndim}-D query tensor`);
    if (key.ndim !== query.ndim || value.ndim !== query.ndim) {
      throw new Error(`${name}: query, key and value must have the same number of dims, got ${shapeStr(query.shape)}, ${shapeStr(key.shape)}, ${shapeStr(value.shape)}`);
    }
    return tidy(() => {
      let q = query;
      let k = key;
      let v = value;
      let kpm = maskTensor(o.keyPaddingMask);
      let am = maskTensor(o.attnMask);
      if (batched && this.batchFirst) [q, k, v] = [q.transpose(1, 0), k.transpose(1, 0), v.transpose(1, 0)];
      if (!batched) {
        [q, k, v] = [q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1)];
        if (kpm) kpm = kpm.unsqueeze(0);
      }
      const [L, N, E] = q.shape as [number, number, number];
      const H = this.numHeads;
      const hd = this.headDim;
      if (E !== this.embedDim) throw new Error(`${name}: was expecting embedding dimension of ${this.embedDim}, but got ${E}`);
      if (k.shape[0] !== v.shape[0] || k.shape[1] !== N || v.shape[1] !== N) {
        throw new Error(`${name}: key ${shapeStr(key.shape)} and value ${shapeStr(value.shape)} do not match query ${shapeStr(query.shape)}`);
      }
      let S = k.shape[0]!;

      // In-projection.
      let wq: Tensor, wk: Tensor, wv: Tensor;
      if (this.in_proj_weight) [wq, wk, wv] = this.in_proj_weight.chunk(3, 0) as [Tensor, Tensor, Tensor];
      else [wq, wk, wv] = [this.q_proj_weight!, this.k_proj_weight!, this.v_proj_weight!];
      const [bq, bk, bv] = this.in_proj_bias ? (this.in_proj_bias.chunk(3, 0) as [Tensor, Tensor, Tensor]) : [null, null, null];
      q = F.linear(q, wq, bq);
      k = F.linear(k, wk, bk);
      v = F.linear(v, wv, bv);

      // Masks, as additive float masks.
      if (am) {
        am = additiveMask(am, true);
        if (am.ndim === 2) {
          if (am.shape[0] !== L || am.shape[1] !== S) throw new Error(`${name}: the shape of the 2D attnMask is ${shapeStr(am.shape)}, but should be [${L}, ${S}].`);
          am = am.unsqueeze(0);
        } else if (am.ndim === 3) {
          if (am.shape[0] !== N * H || am.shape[1] !== L || am.shape[2] !== S) {
            throw new Error(`${name}: the shape of the 3D attnMask is ${shapeStr(am.shape)}, but should be [${N * H}, ${L}, ${S}].`);
          }
        } else throw new Error(`${name}: attnMask's dimension ${am.ndim} is not supported (2 or 3)`);
      }
      if (kpm) {
        kpm = additiveMask(kpm, true);
        if (kpm.ndim !== 2 || kpm.shape[0] !== N || kpm.shape[1] !== S) {
          throw new Error(`${name}: expected keyPaddingMask of shape [${N}, ${S}], got ${shapeStr(kpm.shape)}`);
        }
      }
      if (this.bias_k && this.bias_v) {
        k = functionOps.cat([k, this.bias_k.expand(1, N, E)], 0);
        v = functionOps.cat([v, this.bias_v.expand(1, N, E)], 0);
        if (am) am = F.pad(am, [0, 1]);
        if (kpm) kpm = F.pad(kpm, [0, 1]);
      }

      // Heads: [len, N, E] → [N·H, len, hd].
      q = q.reshape(L, N * H, hd).transpose(0, 1);
      k = k.reshape(k.shape[0]!, N * H, hd).transpose(0, 1);
      v = v.reshape(v.shape[0]!, N * H, hd).transpose(0, 1);
      if (this.addZeroAttn) {
        k = functionOps.cat([k, zeros(N * H, 1, hd)], 1);
        v = functionOps.cat([v, zeros(N * H, 1, hd)], 1);
        if (am) am = F.pad(am, [0, 1]);
        if (kpm) kpm = F.pad(kpm, [0, 1]);
      }
      S = k.shape[1]!;
      let mask: Tensor | null = am;
      if (kpm) {
        const padMask = kpm.reshape(N, 1, 1, S).expand(N, H, 1, S).reshape(N * H, 1, S);
        mask = mask ? mask.add(padMask) : padMask;
      }

      const [ctx, weights] = attention(q, k, v, mask, this.training ? this.dropout : 0, 1 / Math.sqrt(hd));
      let out = ctx.transpose(0, 1).reshape(L * N, E);
      out = F.linear(out, this.out_proj.weight, this.out_proj.bias).reshape(L, N, E);
      let w: Tensor | null = null;
      if (o.needWeights ?? true) {
        w = weights.reshape(N, H, L, S);
        if (o.averageAttnWeights ?? true) w = w.sum(1).div(H);
        if (!batched) w = w.squeeze(0);
      }
      if (!batched) out = out.squeeze(1);
      else if (this.batchFirst) out = out.transpose(1, 0);
      return [out, w] as [Tensor, Tensor | null];
    });
  }
}
