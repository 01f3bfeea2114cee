// Adam (torch.optim.Adam of PyTorch 1.13), with L2 weight decay added to the gradient:
//   g = ±grad + weightDecay·p;  m = β1·m + (1 − β1)·g;  v = β2·v + (1 − β2)·g²
//   v̂ = amsgrad ? (vmax = max(vmax, v)) : v
//   p −= lr / (1 − β1^t) · m / (√v̂ / √(1 − β2^t) + eps)
import { checkBetas } from './betas.js';
import { betasSpec, checkNonNegative, Optimizer, type Algorithm, type ParamsInput } from './optimizer.js';

export interface AdamOptions {
  lr?: number;
  betas?: [number, number];
  eps?: number;
  weightDecay?: number;
  amsgrad?: boolean;
  maximize?: boolean;
}

/** Adam's and AdamW's declaration, differing in the name and the weight-decay default. */
export function adamAlgorithm(name: 'Adam' | 'AdamW', weightDecay: number): Algorithm {
  return {
    name,
    spec: { lr: 'number', betas: betasSpec, eps: 'number', weightDecay: 'number', amsgrad: 'boolean', maximize: 'boolean' },
    defaults: { lr: 1e-3, betas: [0.9, 0.999], eps: 1e-8, weightDecay, amsgrad: false, maximize: false },
    stateKeys: ['step', 'exp_avg', 'exp_avg_sq', 'max_exp_avg_sq'],
    validate(h) {
      checkNonNegative(name, 'learning rate', h.lr);
      checkNonNegative(name, 'epsilon value', h.eps);
      checkBetas(name, h.betas);
      checkNonNegative(name, 'weightDecay value', h.weightDecay);
    },
    toAttrs: (h) => {
      const [beta1, beta2] = h.betas as number[];
      return {
        lr: h.lr as number,
        beta1,
        beta2,
        eps: h.eps as number,
        weightDecay: h.weightDecay as number,
        amsgrad: h.amsgrad as boolean,
        maximize: h.maximize as boolean,
      };
    },
  };
}

export class Adam extends Optimizer {
  constructor(params: ParamsInput, options?: AdamOptions) {
    super(adamAlgorithm('Adam', 0), params, options);
  }
}
