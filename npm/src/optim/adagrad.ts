// Adagrad (torch.optim.Adagrad of PyTorch 1.13). State is created at construction, as PyTorch
// does (step 0, sum filled with the constructor's initialAccumulatorValue, also for groups that
// set their own; a group added later by addParamGroup is filled with its own value):
//   g = ±grad + weightDecay·p;  clr = lr / (1 + (t − 1)·lrDecay);  s += g²;  p −= clr·g/(√s + eps)
import { checkNonNegative, Optimizer, type ParamsInput } from './optimizer.js';

export interface AdagradOptions {
  lr?: number;
  lrDecay?: number;
  weightDecay?: number;
  initialAccumulatorValue?: number;
  eps?: number;
  maximize?: boolean;
}

export class Adagrad extends Optimizer {
  constructor(params: ParamsInput, options?: AdagradOptions) {
    super(
      {
        name: 'Adagrad',
        spec: { lr: 'number', lrDecay: 'number', weightDecay: 'number', initialAccumulatorValue: 'number', eps: 'number', maximize: 'boolean' },
        defaults: { lr: 1e-2, lrDecay: 0, weightDecay: 0, initialAccumulatorValue: 0, eps: 1e-10, maximize: false },
        stateKeys: ['step', 'sum'],
        eagerState: true,
        validate(h) {
          checkNonNegative('Adagrad', 'learning rate', h.lr);
          checkNonNegative('Adagrad', 'lrDecay value', h.lrDecay);
          checkNonNegative('Adagrad', 'weightDecay value', h.weightDecay);
          checkNonNegative('Adagrad', 'initialAccumulatorValue value', h.initialAccumulatorValue);
          checkNonNegative('Adagrad', 'epsilon value', h.eps);
        },
        toAttrs: (h) => ({
          lr: h.lr as number,
          lrDecay: h.lrDecay as number,
          weightDecay: h.weightDecay as number,
          initialAccumulatorValue: h.initialAccumulatorValue as number,
          eps: h.eps as number,
          maximize: h.maximize as boolean,
        }),
      },
      params,
      options,
    );
  }
}
