// Adadelta (torch.optim.Adadelta of PyTorch 1.13, Zeiler 2012):
//   g = ±grad + weightDecay·p;  s = ρ·s + (1 − ρ)·g²
//   Δ = √(a + eps) / √(s + eps) · g;  a = ρ·a + (1 − ρ)·Δ²;  p −= lr·Δ
import { checkNonNegative, Optimizer, type ParamsInput } from './optimizer.js';

export interface AdadeltaOptions {
  lr?: number;
  rho?: number;
  eps?: number;
  weightDecay?: number;
  maximize?: boolean;
}

export class Adadelta extends Optimizer {
  constructor(params: ParamsInput, options?: AdadeltaOptions) {
    super(
      {
        name: 'Adadelta',
        spec: { lr: 'number', rho: 'number', eps: 'number', weightDecay: 'number', maximize: 'boolean' },
        defaults: { lr: 1.0, rho: 0.9, eps: 1e-6, weightDecay: 0, maximize: false },
        stateKeys: ['step', 'square_avg', 'acc_delta'],
        validate(h) {
          checkNonNegative('Adadelta', 'learning rate', h.lr);
          const rho = h.rho as number;
          if (!(rho >= 0 && rho <= 1)) throw new Error(`Adadelta: invalid rho value: ${rho} (expected a number in [0, 1])`);
          checkNonNegative('Adadelta', 'epsilon value', h.eps);
          checkNonNegative('Adadelta', 'weightDecay value', h.weightDecay);
        },
        toAttrs: (h) => ({
          lr: h.lr as number,
          rho: h.rho as number,
          eps: h.eps as number,
          weightDecay: h.weightDecay as number,
          maximize: h.maximize as boolean,
        }),
      },
      params,
      options,
    );
  }
}
