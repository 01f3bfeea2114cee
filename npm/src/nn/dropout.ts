// Dropout and Dropout2d (torch.nn.Dropout*): active in train mode only. The mask comes from the
// library generator (sg.manualSeed).
import { F, type DropoutOptions } from './functional.js';
import type { Tensor } from '../tensor/tensor.js';
import { inPlace, probabilityArg, positionalOrOptions } from './args.js';
import { Module } from './module.js';
import { pyRepr } from './repr.js';

abstract class DropoutNd extends Module {
  declare p: number;
  declare inplace: boolean;

  constructor(name: string, p: unknown, options: unknown) {
    super();
    const o = positionalOrOptions<DropoutOptions>(name, [p, options], ['p'], { p: 'numberOrInfinity', inplace: 'boolean' });
    this.p = probabilityArg(name, o.p ?? 0.5);
    // inplace: the result is written into the input, which forward returns (args.ts inPlace).
    this.inplace = o.inplace ?? false;
  }

  extraRepr(): string {
    return `p=${pyRepr(this.p)}, inplace=${pyRepr(this.inplace)}`;
  }
}

/** Zeroes each element with probability p and scales the rest by 1 / (1 − p) (train mode). */
export class Dropout extends DropoutNd {
  constructor(p?: number | { p?: number; inplace?: boolean }, options?: { inplace?: boolean }) {
    super('Dropout', p, options);
  }

  forward(input: Tensor): Tensor {
    return inPlace(this.inplace, input, F.dropout(input, { p: this.p, training: this.training }));
  }
}

/** Zeroes whole channels of [N, C, H, W] (or [C, H, W]) with probability p (train mode). */
export class Dropout2d extends DropoutNd {
  constructor(p?: number | { p?: number; inplace?: boolean }, options?: { inplace?: boolean }) {
    super('Dropout2d', p, options);
  }

  forward(input: Tensor): Tensor {
    return inPlace(this.inplace, input, F.dropout2d(input, { p: this.p, training: this.training }));
  }
}
