// Random sampling with the generator sg.manualSeed seeds: bernoulli (a 0/1 draw per element)
// and multinomial (draws of category indices per row) from a tensor of probabilities, each a
// function (sg.bernoulli(p)) and a Tensor method (p.bernoulli()) whose C++ op validates and
// reports errors; and sg.randperm(n), a random permutation of 0..n-1 (a function only).
import { run, type TensorLike } from './call.js';
import { randint } from './creation.js';
import { installMethods, type MethodsOf } from './ops.js';
import { keywords, type KwArgs } from './keywords.js';
import { sortingOps } from './sorting.js';
import { tidy } from '../runtime/memory.js';
import { isTracing } from '../runtime/trace_flag.js';
import { checkOptions, describe, intArg, isInteger } from '../runtime/options.js';
import { Tensor } from './tensor.js';
import type { Device, DType } from '../runtime/embind.js';
import { handleFrom } from '../runtime/handles.js';
import { placeOn } from '../runtime/webgpu_device.js';

export interface BernoulliOptions {
  /** One probability for every element (x's values are then ignored, only its shape counts). */
  p?: number;
}
export interface MultinomialOptions {
  replacement?: boolean;
}
/** A source of random permutations: sg.data.Generator (a seeded generator of its own, PyTorch's `generator=`). */
export interface PermutationGenerator {
  permutation(n: number): Int32Array;
}
export interface RandpermOptions {
  /** The result's dtype (default int32, as every integer result here). */
  dtype?: DType;
  device?: Device;
  /** Draw from this generator instead of the global one (sg.manualSeed). Not inside sg.compile. */
  generator?: PermutationGenerator;
}

export interface SamplingOpFunctions {
  bernoulli(input: TensorLike, p?: number | BernoulliOptions): Tensor;
  /** numSamples category indices per row (int32); numSamples and replacement also by keyword. */
  multinomial(input: TensorLike, ...args: KwArgs<[numSamples: number], [], MultinomialOptions & { numSamples?: number }>): Tensor;
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
  multinomial: keywords('multinomial', { positional: ['numSamples'], options: ['replacement'] }, (input: TensorLike, numSamples: unknown, options: unknown): Tensor => {
    const o = checkOptions<MultinomialOptions>('multinomial', options, { replacement: 'boolean' });
    return run('multinomial', 'multinomial', [['input', input]], {
      numSamples: intArg('multinomial', 'numSamples', numSamples),
      replacement: o.replacement,
    });
  }),
};

installMethods(samplingOps);

const GENERATOR = {
  check: (v: unknown) => v !== null && typeof v === 'object' && typeof (v as PermutationGenerator).permutation === 'function',
  expected: 'a generator (sg.data.Generator)',
};

/**
 * A uniformly random permutation of 0..n-1 (PyTorch's torch.randperm), int32 unless `dtype` says
 * otherwise. From the global generator (reproducible after sg.manualSeed; inside sg.compile a new
 * permutation on every call): the order that sorts n random 31-bit keys (ties, rare, keep index
 * order, so the result is a permutation whatever the draws). With `generator`: its Fisher–Yates
 * shuffle. The values need not match PyTorch's stream.
 */
export function randperm(n: number, options?: RandpermOptions): Tensor {
  const o = checkOptions<RandpermOptions>('randperm', options, {
    dtype: { check: (v) => typeof v === 'string' && v !== 'bool', expected: "a numeric dtype ('int32', 'float32', ...)" },
    device: ['cpu', 'webgpu'],
    generator: GENERATOR,
  });
  if (!isInteger(n) || n < 0 || n > 2 ** 31 - 1) throw new Error(`randperm: expected 'n' to be an integer in [0, 2^31 - 1], got ${describe(n)}`);
  const cast = (t: Tensor): Tensor => {
    if (o.dtype === undefined || o.dtype === 'int32') return t;
    try {
      return t.to(o.dtype);
    } finally {
      t.dispose();
    }
  };
  if (o.generator !== undefined) {
    if (isTracing()) {
      throw new Error('randperm: a generator draws in JavaScript, which sg.compile would freeze into the graph (the same permutation on every call); draw from the global generator (no generator option) inside a compiled function');
    }
    const p = o.generator.permutation(n);
    if (!(p instanceof Int32Array) || p.length !== n) throw new Error(`randperm: the generator's permutation(${n}) returned ${describe(p)}, expected an Int32Array of length ${n}`);
    return cast(new Tensor(placeOn(handleFrom(p, [n], 'int32'), o.device), 'int32'));
  }
  return tidy(() => cast(sortingOps.argsort(randint(0, 2 ** 31 - 1, [n], { device: o.device }), 0)));
}
