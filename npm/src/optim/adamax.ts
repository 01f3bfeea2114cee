// Adamax (torch.optim.Adamax of PyTorch 1.13), Adam with the infinity norm:
//   g = ±grad + weightDecay·p;  m = β1·m + (1 − β1)·g;  u = max(β2·u, |g| + eps)
//   p −= lr / (1 − β1^t) · m / u
import { betasAlgorithm } from './betas.js';
import { Optimizer, type ParamsInput } from './optimizer.js';

export interface AdamaxOptions {
  lr?: number;
  betas?: [number, number];
  eps?: number;
  weightDecay?: number;
  maximize?: boolean;
}

export class Adamax extends Optimizer {
  constructor(params: ParamsInput, options?: AdamaxOptions) {
    super(betasAlgorithm('Adamax', 2e-3, ['step', 'exp_avg', 'exp_inf'], { spec: { maximize: 'boolean' }, defaults: { maximize: false } }), params, options);
  }
}
