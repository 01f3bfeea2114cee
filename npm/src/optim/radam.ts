// RAdam (torch.optim.RAdam of PyTorch 1.13), Adam with a rectified variance (Liu et al., 2019):
//   g = grad + weightDecay·p;  m, v as Adam;  m̂ = m / (1 − β1^t)
//   ρ∞ = 2/(1 − β2) − 1;  ρ_t = ρ∞ − 2t·β2^t/(1 − β2^t)
//   ρ_t > 5: r = √((ρ_t − 4)(ρ_t − 2)ρ∞ / ((ρ∞ − 4)(ρ∞ − 2)ρ_t)),  p −= lr·m̂·√(1 − β2^t)/(√v + eps)·r
//   else:    p −= lr·m̂
// PyTorch 1.13's RAdam has no maximize option.
import { betasAlgorithm } from './betas.js';
import { Optimizer, type ParamsInput } from './optimizer.js';

export interface RAdamOptions {
  lr?: number;
  betas?: [number, number];
  eps?: number;
  weightDecay?: number;
}

export class RAdam extends Optimizer {
  constructor(params: ParamsInput, options?: RAdamOptions) {
    super(betasAlgorithm('RAdam', 1e-3, ['step', 'exp_avg', 'exp_avg_sq']), params, options);
  }
}
