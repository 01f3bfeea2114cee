// RMSprop (torch.optim.RMSprop of PyTorch 1.13):
//   g = ±grad + weightDecay·p;  s = α·s + (1 − α)·g²
//   centered: a = α·a + (1 − α)·g, d = √(s − a²) + eps; else d = √s + eps
//   momentum > 0: b = momentum·b + g/d, p −= lr·b; else p −= lr·g/d
import { checkNonNegative, Optimizer, type ParamsInput } from './optimizer.js';

export interface RMSpropOptions {
  lr?: number;
  alpha?: number;
  eps?: number;
  weightDecay?: number;
  momentum?: number;
  centered?: boolean;
  maximize?: boolean;
}

export class RMSprop extends Optimizer {
  constructor(params: ParamsInput, options?: RMSpropOptions) {
    super(
      {
        name: 'RMSprop',
        spec: { lr: 'number', alpha: 'number', eps: 'number', weightDecay: 'number', momentum: 'number', centered: 'boolean', maximize: 'boolean' },
        defaults: { lr: 1e-2, alpha: 0.99, eps: 1e-8, weightDecay: 0, momentum: 0, centered: false, maximize: false },
        stateKeys: ['step', 'square_avg', 'momentum_buffer', 'grad_avg'],
        validate(h) {
          checkNonNegative('RMSprop', 'learning rate', h.lr);
          checkNonNegative('RMSprop', 'epsilon value', h.eps);
          checkNonNegative('RMSprop', 'momentum value', h.momentum);
          checkNonNegative('RMSprop', 'weightDecay value', h.weightDecay);
          checkNonNegative('RMSprop', 'alpha value', h.alpha);
        },
        toAttrs: (h) => ({
          lr: h.lr as number,
          alpha: h.alpha as number,
          eps: h.eps as number,
          weightDecay: h.weightDecay as number,
          momentum: h.momentum as number,
          centered: h.centered as boolean,
          maximize: h.maximize as boolean,
        }),
      },
      params,
      options,
    );
  }
}
