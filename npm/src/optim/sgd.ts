// SGD with momentum, dampening, Nesterov and L2 weight decay (torch.optim.SGD of PyTorch 1.13):
//   g = ±grad + weightDecay·p;  b = momentum·b + (1 − dampening)·g  (b = g on the first step)
//   g = nesterov ? g + momentum·b : b;  p −= lr·g
import { checkNonNegative, Optimizer, type ParamsInput } from './optimizer.js';

export interface SGDOptions {
  /** Learning rate (required, here or in every group). */
  lr?: number;
  momentum?: number;
  dampening?: number;
  weightDecay?: number;
  nesterov?: boolean;
  /** Maximize the objective instead of minimizing it. */
  maximize?: boolean;
}

export class SGD extends Optimizer {
  constructor(params: ParamsInput, options?: SGDOptions) {
    super(
      {
        name: 'SGD',
        spec: { lr: 'number', momentum: 'number', dampening: 'number', weightDecay: 'number', nesterov: 'boolean', maximize: 'boolean' },
        defaults: { lr: undefined, momentum: 0, dampening: 0, weightDecay: 0, nesterov: false, maximize: false },
        stateKeys: ['momentum_buffer'],
        validate(h) {
          checkNonNegative('SGD', 'learning rate', h.lr);
          checkNonNegative('SGD', 'momentum value', h.momentum);
          checkNonNegative('SGD', 'weightDecay value', h.weightDecay);
          if (h.nesterov && (!((h.momentum as number) > 0) || h.dampening !== 0)) {
            throw new Error('SGD: Nesterov momentum requires a momentum and zero dampening');
          }
        },
        toAttrs: (h) => ({
          lr: h.lr as number,
          momentum: h.momentum as number,
          dampening: h.dampening as number,
          weightDecay: h.weightDecay as number,
          nesterov: h.nesterov as boolean,
          maximize: h.maximize as boolean,
        }),
      },
      params,
      options,
    );
  }
}
