// Random sampling from a tensor of probabilities, with the generator sg.manualSeed seeds:
// bernoulli (a 0/1 draw per element) and multinomial (draws of category indices per row). Each
// is a function (sg.bernoulli(p)) and a Tensor method (p.bernoulli()); the C++ ops validate and
// report errors.
import { run, type TensorLike } from './call.js';
import { installMethods, type MethodsOf } from './ops.js';
import { checkOptions, intArg } from '../runtime/options.js';
import type { Tensor } from './tensor.js';

export interface BernoulliOptions {
  /** One probability for every element (x's values are then ignored, only its shape counts). */
  p?: number;
}
export interface MultinomialOptions {
  replacement?: boolean;
}

export interface SamplingOpFunctions {
  bernoulli(input: TensorLike, p?: number | BernoulliOptions): Tensor;
  multinomial(input: TensorLike, numSamples: number, options?: MultinomialOptions): Tensor;
}

/** The methods derived from SamplingOpFunctions: the first argument becomes `this`. */
export type SamplingOpMethods = MethodsOf<SamplingOpFunctions>;

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends SamplingOpMethods {}
}

export const samplingOps: SamplingOpFunctions = {
  bernoulli(input, p) {
    const o = typeof p === 'number' ? checkOptions<BernoulliOptions>('bernoulli', { p }, { p: 'number' }) : checkOptions<BernoulliOptions>('bernoulli', p, { p: 'number' });
    return run('bernoulli', 'bernoulli', [['input', input]], { p: o.p });
  },
  multinomial(input, numSamples, options) {
    const o = checkOptions<MultinomialOptions>('multinomial', options, { replacement: 'boolean' });
    return run('multinomial', 'multinomial', [['input', input]], {
      numSamples: intArg('multinomial', 'numSamples', numSamples),
      replacement: o.replacement,
    });
  },
};

installMethods(samplingOps);
