// The declaration shared by the optimizers that take Adam's betas (Adamax, NAdam, RAdam):
// options lr, betas, eps, weightDecay (plus their own), PyTorch's checks, and the attrs the C++
// step reads (betas as beta1 and beta2).
import type { Attrs } from '../runtime/embind.js';
import type { Spec } from '../runtime/options.js';
import { betasSpec, checkNonNegative, type Algorithm } from './optimizer.js';

/** PyTorch's "Invalid beta parameter at index i" checks. */
export function checkBetas(name: string, betas: unknown): void {
  const [b1, b2] = betas as number[];
  if (!(b1! >= 0 && b1! < 1)) throw new Error(`${name}: invalid beta parameter at index 0: ${b1} (expected a number in [0, 1))`);
  if (!(b2! >= 0 && b2! < 1)) throw new Error(`${name}: invalid beta parameter at index 1: ${b2} (expected a number in [0, 1))`);
}

/** An Adam-like algorithm: `extra` adds options (with defaults) to lr, betas, eps and weightDecay. */
export function betasAlgorithm(
  name: string,
  lr: number,
  stateKeys: readonly string[],
  extra: { spec: Spec; defaults: Record<string, unknown>; validate?: (h: Record<string, unknown>) => void } = { spec: {}, defaults: {} },
): Algorithm {
  return {
    name,
    spec: { lr: 'number', betas: betasSpec, eps: 'number', weightDecay: 'number', ...extra.spec },
    defaults: { lr, betas: [0.9, 0.999], eps: 1e-8, weightDecay: 0, ...extra.defaults },
    stateKeys,
    validate(h) {
      checkNonNegative(name, 'learning rate', h.lr);
      checkNonNegative(name, 'epsilon value', h.eps);
      checkBetas(name, h.betas);
      checkNonNegative(name, 'weightDecay value', h.weightDecay);
      extra.validate?.(h);
    },
    toAttrs(h) {
      const [beta1, beta2] = h.betas as number[];
      const attrs: Attrs = { beta1, beta2 };
      for (const [k, v] of Object.entries(h)) if (k !== 'betas') attrs[k] = v as number | boolean;
      return attrs;
    },
  };
}
