// Embedding (torch.nn.Embedding): a [numEmbeddings, embeddingDim] table, N(0, 1) by default,
// with the paddingIdx row zeroed and excluded from gradient updates.
import { F, type ClassIndices } from './functional.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { Tensor, type NumericData } from '../tensor/tensor.js';
import { countArg } from './args.js';
import { initSkipped, normal_ } from './init.js';
import { Module, Parameter } from './module.js';
import { copyTensorInto, writeInto } from './tensor_data.js';
import { tidy } from '../runtime/memory.js';
import { noGrad } from '../autograd/backward.js';
import { zeros } from '../tensor/creation.js';

export interface EmbeddingOptions {
  /** Row that gets no gradient and starts at zero (negative counts from the end). */
  paddingIdx?: number | null;
  /** The table to use (shared, as PyTorch's _weight) instead of a new N(0, 1) one. */
  _weight?: Tensor | null;
}

export class Embedding extends Module {
  declare numEmbeddings: number;
  declare embeddingDim: number;
  declare paddingIdx: number | null;
  declare weight: Parameter;

  constructor(numEmbeddings: number, embeddingDim: number, options?: EmbeddingOptions) {
    super();
    const o = checkOptions<EmbeddingOptions>('Embedding', options, {
      paddingIdx: { check: (v) => v === null || isInteger(v), expected: 'an integer or null' },
      _weight: { check: (v) => v === null || v instanceof Tensor, expected: 'a Tensor or null' },
    });
    this.numEmbeddings = countArg('Embedding', 'numEmbeddings', numEmbeddings);
    this.embeddingDim = countArg('Embedding', 'embeddingDim', embeddingDim);
    let pad = o.paddingIdx ?? null;
    if (pad !== null) {
      if (pad >= this.numEmbeddings || pad < -this.numEmbeddings) {
        throw new Error(`Embedding: paddingIdx must be within numEmbeddings (${this.numEmbeddings}), got ${pad}`);
      }
      if (pad < 0) pad += this.numEmbeddings;
    }
    this.paddingIdx = pad;
    if (o._weight) {
      const s = o._weight.shape;
      if (s.length !== 2 || s[0] !== this.numEmbeddings || s[1] !== this.embeddingDim) {
        throw new Error(`Embedding: _weight has shape [${s.join(', ')}], expected [${this.numEmbeddings}, ${this.embeddingDim}]`);
      }
      this.weight = new Parameter(o._weight);
    } else {
      this.weight = Parameter.empty([this.numEmbeddings, this.embeddingDim]);
      this.resetParameters();
    }
  }

  resetParameters(): void {
    normal_(this.weight);
    this.fillPaddingRow();
  }

  private fillPaddingRow(): void {
    if (this.paddingIdx === null || initSkipped()) return;
    if (this.weight.device !== 'cpu') {
      // On a GPU the row is zeroed there (its values cannot be read synchronously).
      const idx = this.paddingIdx;
      tidy(() => noGrad(() => copyTensorInto(this.weight.narrow(0, idx, 1), zeros([1, this.embeddingDim], { device: this.weight.device }))));
      return;
    }
    const values = this.weight.dataSync() as NumericData;
    values.fill(0, this.paddingIdx * this.embeddingDim, (this.paddingIdx + 1) * this.embeddingDim);
    writeInto('Embedding', this.weight, values);
  }

  /** input: int32 indices (or an integer array) of any shape → input.shape + [embeddingDim]. */
  forward(input: ClassIndices): Tensor {
    return F.embedding(input, this.weight, { paddingIdx: this.paddingIdx });
  }

  /** An Embedding over a given table (shared); frozen (requiresGrad false) unless freeze is false. */
  static fromPretrained(embeddings: Tensor, options?: { freeze?: boolean; paddingIdx?: number | null }): Embedding {
    const o = checkOptions<{ freeze: boolean; paddingIdx: number | null }>('Embedding.fromPretrained', options, {
      freeze: 'boolean',
      paddingIdx: { check: (v) => v === null || isInteger(v), expected: 'an integer or null' },
    });
    if (!(embeddings instanceof Tensor) || embeddings.ndim !== 2) {
      throw new Error(`Embedding.fromPretrained: expected a 2-D Tensor, got ${describe(embeddings)}`);
    }
    const [n, d] = embeddings.shape as [number, number];
    const e = new Embedding(n, d, { _weight: embeddings, paddingIdx: o.paddingIdx ?? null });
    e.weight.requiresGrad = !(o.freeze ?? true);
    return e;
  }

  extraRepr(): string {
    return `${this.numEmbeddings}, ${this.embeddingDim}${this.paddingIdx !== null ? `, padding_idx=${this.paddingIdx}` : ''}`;
  }
}
