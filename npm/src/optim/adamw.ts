// AdamW (torch.optim.AdamW of PyTorch 1.13): decoupled weight decay, p ·= 1 − lr·weightDecay,
// then Adam's update without the L2 term. weightDecay defaults to 1e-2.
import { adamAlgorithm, type AdamOptions } from './adam.js';
import { Optimizer, type ParamsInput } from './optimizer.js';

export type AdamWOptions = AdamOptions;

export class AdamW extends Optimizer {
  constructor(params: ParamsInput, options?: AdamWOptions) {
    super(adamAlgorithm('AdamW', 1e-2), params, options);
  }
}
