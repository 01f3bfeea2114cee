// NAdam (torch.optim.NAdam of PyTorch 1.13), Adam with Nesterov momentum (Dozat, 2016):
//   μ_t = β1·(1 − ½·0.96^(t·momentumDecay));  Π = μ_1···μ_t (state 'mu_product', float32)
//   g = grad + weightDecay·p;  m, v as Adam;  d = √(v / (1 − β2^t)) + eps
//   p −= lr·(1 − μ_t)/(1 − Π) · g/d + lr·μ_{t+1}/(1 − Π·μ_t·μ_{t+1}) · m/d
// The second product has μ_t twice, as PyTorch 1.13 computes it (mu_product * mu * mu_next;
// later versions use Π·μ_{t+1}). PyTorch 1.13's NAdam has no maximize option.
import { betasAlgorithm } from './betas.js';
import { checkNonNegative, Optimizer, type ParamsInput } from './optimizer.js';

export interface NAdamOptions {
  lr?: number;
  betas?: [number, number];
  eps?: number;
  weightDecay?: number;
  /** Decay of μ_t towards β1/2 (default 4e-3). */
  momentumDecay?: number;
}

export class NAdam extends Optimizer {
  constructor(params: ParamsInput, options?: NAdamOptions) {
    const algo = betasAlgorithm('NAdam', 2e-3, ['step', 'mu_product', 'exp_avg', 'exp_avg_sq'], {
      spec: { momentumDecay: 'number' },
      defaults: { momentumDecay: 4e-3 },
      validate: (h) => checkNonNegative('NAdam', 'momentumDecay value', h.momentumDecay),
    });
    super({ ...algo, scalarStateKeys: ['step', 'mu_product'] }, params, options);
  }
}
