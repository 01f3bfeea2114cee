// The seeded generator of sg.data (PyTorch's torch.Generator for data loading): xoshiro128**
// (Blackman & Vigna) seeded through splitmix32, in JS, behind DataLoader's shuffling, the
// samplers, randomSplit, sg.randperm's `generator` option and sg.datasets' splits; and
// seedFromGlobal, a seed drawn from the library's global generator (sg.manualSeed). Drawing in JS:
// a shuffle of 10^4 indices is cheaper than a round trip per draw into wasm.
import { callOp1, readHandle, releaseHandle } from '../runtime/handles.js';
import { describe, isInteger } from '../runtime/options.js';

/** PyTorch's default seed of a new torch.Generator(). */
const DEFAULT_SEED = 67280421310721;

function checkSeed(fn: string, seed: unknown): number {
  if (!isInteger(seed) || seed < 0) throw new Error(`${fn}: expected a non-negative integer seed, got ${describe(seed)}`);
  return seed;
}

/** A small seeded generator of 32-bit integers (xoshiro128**). */
export class Generator {
  private s = new Uint32Array(4);
  private seed0 = DEFAULT_SEED;

  /** A generator seeded with `seed` (PyTorch's default seed when omitted, as torch.Generator()). */
  constructor(seed: number = DEFAULT_SEED) {
    this.manualSeed(checkSeed('Generator', seed));
  }

  /** Re-seeds the generator (torch.Generator.manual_seed); returns it. */
  manualSeed(seed: number): this {
    checkSeed('Generator.manualSeed', seed);
    this.seed0 = seed;
    // splitmix32 over the seed's low and high 32-bit halves fills the state (never all zero).
    let x = (seed >>> 0) ^ Math.imul(Math.floor(seed / 2 ** 32) >>> 0, 0x9e3779b9);
    for (let i = 0; i < 4; i++) {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      this.s[i] = (z ^ (z >>> 16)) >>> 0;
    }
    if ((this.s[0]! | this.s[1]! | this.s[2]! | this.s[3]!) === 0) this.s[0] = 1;
    return this;
  }

  /** The seed it was last seeded with (torch.Generator.initial_seed). */
  initialSeed(): number {
    return this.seed0;
  }

  /** The next uniform 32-bit unsigned integer. */
  nextU32(): number {
    const s = this.s;
    const r = Math.imul(rotl(Math.imul(s[1]!, 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1]! << 9) >>> 0;
    s[2]! ^= s[0]!;
    s[3]! ^= s[1]!;
    s[1]! ^= s[2]!;
    s[0]! ^= s[3]!;
    s[2]! ^= t;
    s[3] = rotl(s[3]!, 11);
    return r;
  }

  /** A uniform number in [0, 1) with 53 random bits. */
  random(): number {
    const hi = this.nextU32() >>> 5;  // 27 bits
    const lo = this.nextU32() >>> 6;  // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform integer in [0, bound), without modulo bias (rejection), bound ≤ 2^32. */
  below(bound: number): number {
    const limit = 2 ** 32 - (2 ** 32 % bound);
    for (;;) {
      const u = this.nextU32();
      if (u < limit) return u % bound;
    }
  }

  /** A uniformly random permutation of 0..n-1 (Fisher–Yates). */
  permutation(n: number): Int32Array {
    const p = new Int32Array(n);
    for (let i = 0; i < n; i++) p[i] = i;
    for (let i = n - 1; i > 0; i--) {
      const j = this.below(i + 1);
      const t = p[i]!;
      p[i] = p[j]!;
      p[j] = t;
    }
    return p;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/** A seed drawn from the library's global generator (reproducible after sg.manualSeed). */
export function seedFromGlobal(): number {
  const h = callOp1('randint', [], { low: 0, high: 2 ** 30, shape: [2], device: 'cpu' });
  try {
    const [a, b] = readHandle(h) as Int32Array;
    return a! * 2 ** 30 + b!;
  } finally {
    releaseHandle(h);
  }
}

/** `generator` when given, else a new one seeded from the global generator (PyTorch's samplers without generator=). */
export function generatorOr(generator: Generator | undefined): Generator {
  return generator ?? new Generator(seedFromGlobal());
}

/** The options-spec entry of a `generator` option. */
export const GENERATOR_SPEC = { check: (v: unknown) => v instanceof Generator, expected: 'an sg.data.Generator' };
