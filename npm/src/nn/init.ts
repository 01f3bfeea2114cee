// sg.nn.init: torch.nn.init's fills, in place on a tensor's data (no graph is recorded, as
// under torch.no_grad()), with PyTorch's fan computation and gains. Random values come from
// the library generator, so sg.manualSeed(s) makes every initialization reproducible.
import { checkOptions, describe, isOptionsObject, numberArg } from '../runtime/options.js';
import type { Tensor } from '../tensor/tensor.js';
import { checkWritable, draw, writeInto } from './tensor_data.js';
import { runList } from '../tensor/call.js';
import { tensor } from '../tensor/creation.js';
import { tidy } from '../runtime/memory.js';

export type Nonlinearity =
  | 'linear'
  | 'conv1d'
  | 'conv2d'
  | 'conv3d'
  | 'conv_transpose1d'
  | 'conv_transpose2d'
  | 'conv_transpose3d'
  | 'sigmoid'
  | 'tanh'
  | 'relu'
  | 'leaky_relu'
  | 'selu';

export interface KaimingOptions {
  /** Negative slope of the leaky_relu that follows (0 by default). */
  a?: number;
  mode?: 'fan_in' | 'fan_out';
  nonlinearity?: Nonlinearity;
}

const NONLINEARITIES: readonly string[] = [
  'linear',
  'conv1d',
  'conv2d',
  'conv3d',
  'conv_transpose1d',
  'conv_transpose2d',
  'conv_transpose3d',
  'sigmoid',
  'tanh',
  'relu',
  'leaky_relu',
  'selu',
];

/** torch.nn.init.calculate_gain: the recommended gain for a nonlinearity. */
export function calculateGain(nonlinearity: Nonlinearity, param?: number | null): number {
  if (!NONLINEARITIES.includes(nonlinearity)) {
    throw new Error(`calculateGain: unsupported nonlinearity ${describe(nonlinearity)} (expected one of: ${NONLINEARITIES.join(', ')})`);
  }
  switch (nonlinearity) {
    case 'tanh':
      return 5 / 3;
    case 'relu':
      return Math.SQRT2;
    case 'leaky_relu': {
      const slope = param === undefined || param === null ? 0.01 : numberArg('calculateGain', 'param', param);
      return Math.sqrt(2 / (1 + slope * slope));
    }
    case 'selu':
      return 3 / 4;
    default:
      return 1;
  }
}

/** [fanIn, fanOut] as torch.nn.init._calculate_fan_in_and_fan_out: size(1)·receptive, size(0)·receptive. */
export function calculateFanInAndFanOut(t: Tensor, fn = 'init'): [number, number] {
  const s = t.shape;
  if (s.length < 2) {
    throw new Error(`${fn}: fan in and fan out can not be computed for a tensor with fewer than 2 dimensions (got shape [${s.join(', ')}])`);
  }
  const receptive = s.slice(2).reduce((a, b) => a * b, 1);
  return [s[1]! * receptive, s[0]! * receptive];
}

// While withoutInit runs a construction every fill below does nothing (transformers' no_init_weights):
// sg.models.fromPretrained overwrites every parameter with the checkpoint's, so drawing random values
// first would only cost time, and float32 temporaries beside bfloat16 parameters.
let skipping = false;

/** @internal Runs make() with every sg.nn.init fill skipped (tensors keep what they hold), restored afterwards, also when make throws. */
export function withoutInit<T>(make: () => T): T {
  const before = skipping;
  skipping = true;
  try {
    return make();
  } finally {
    skipping = before;
  }
}

/** @internal Whether withoutInit is running (layers skip their other initial writes too, such as Embedding's padding row). */
export function initSkipped(): boolean {
  return skipping;
}

// The dtypes each random fill takes: PyTorch 1.13's CPU kernels (uniform_ and normal_ have
// float16 and bfloat16 kernels; trunc_normal_'s erfinv has bfloat16 but not float16; orthogonal_'s
// QR neither). Integer targets: PyTorch's "not implemented for 'Long'".
const FLOATING = ['float32', 'float64', 'float16', 'bfloat16'];
const TAKES: Record<string, readonly string[]> = {
  truncNormal_: ['float32', 'float64', 'bfloat16'],
  orthogonal_: ['float32', 'float64'],
};

function checkFloat(fn: string, t: Tensor): void {
  checkWritable(fn, t);
  const takes = TAKES[fn] ?? FLOATING;
  if (!takes.includes(t.dtype) && !skipping) {
    throw new Error(`${fn}: expected a ${takes.join(', ')} tensor to fill with random values, got ${t.dtype}`);
  }
}

/**
 * The draws for a fill of t: float64 ones (53 random bits each) for a float64 target, float32 ones
 * otherwise (a 16-bit target rounds them once on the write, as PyTorch's half kernels round the
 * float they draw).
 */
function drawFor(t: Tensor, op: 'rand' | 'randn', n: number): Float32Array | Float64Array {
  return draw(op, n, t.dtype === 'float64' ? 'float64' : 'float32');
}

function fill(fn: string, t: Tensor, f: (n: number) => ArrayLike<number>, random = false): Tensor {
  if (random) checkFloat(fn, t);
  checkWritable(fn, t);
  if (skipping) return t;
  writeInto(fn, t, f(t.numel));
  return t;
}

function affine(u: Float32Array | Float64Array, scale: number, shift: number): Float64Array {
  const out = new Float64Array(u.length);
  for (let i = 0; i < u.length; i++) out[i] = shift + scale * u[i]!;
  return out;
}

/** Fills with U(a, b). */
export function uniform_(t: Tensor, a = 0, b = 1): Tensor {
  numberArg('uniform_', 'a', a);
  numberArg('uniform_', 'b', b);
  if (a > b) throw new Error(`uniform_: expected a <= b, got a = ${a} and b = ${b}`);
  return fill('uniform_', t, (n) => affine(drawFor(t, 'rand', n), b - a, a), true);
}

/** Fills with N(mean, std²). */
export function normal_(t: Tensor, mean = 0, std = 1): Tensor {
  numberArg('normal_', 'mean', mean);
  numberArg('normal_', 'std', std);
  if (std < 0) throw new Error(`normal_: expected std >= 0, got ${std}`);
  return fill('normal_', t, (n) => affine(drawFor(t, 'randn', n), std, mean), true);
}

/** Fills with N(mean, std²) redrawn until inside [a, b] (torch.nn.init.trunc_normal_). */
export function truncNormal_(t: Tensor, mean = 0, std = 1, a = -2, b = 2): Tensor {
  for (const [k, v] of [['mean', mean], ['std', std], ['a', a], ['b', b]] as [string, number][]) numberArg('truncNormal_', k, v);
  if (!(a < b)) throw new Error(`truncNormal_: expected a < b, got a = ${a} and b = ${b}`);
  checkFloat('truncNormal_', t);
  return fill('truncNormal_', t, (n) => {
    const out = new Float64Array(n);
    let filled = 0;
    // Rejection sampling; each round draws enough for the expected acceptance.
    for (let round = 0; filled < n; round++) {
      if (round > 1000) throw new Error(`truncNormal_: [${a}, ${b}] is too far from the distribution N(${mean}, ${std}²)`);
      const z = drawFor(t, 'randn', Math.max(16, 2 * (n - filled)));
      for (let i = 0; i < z.length && filled < n; i++) {
        const v = mean + std * z[i]!;
        if (v >= a && v <= b) out[filled++] = v;
      }
    }
    return out;
  });
}

/**
 * Fills t with value (torch.nn.init.constant_, a fill_): NaN and ±Infinity too where t holds them
 * (floating dtypes; a bool tensor takes any nonzero value, NaN included, as true); an integer
 * tensor takes finite values only (PyTorch: "value cannot be converted to type int without overflow").
 */
export function constant_(t: Tensor, value: number): Tensor {
  if (typeof value !== 'number') throw new Error(`constant_: expected 'value' to be a number, got ${describe(value)}`);
  const { dtype } = checkWritable('constant_', t);
  if (!(dtype === 'bool' || dtype.startsWith('float') || dtype === 'bfloat16')) numberArg('constant_', 'value', value);
  return fill('constant_', t, (n) => new Float64Array(n).fill(value));
}

export function zeros_(t: Tensor): Tensor {
  return fill('zeros_', t, (n) => new Float64Array(n));
}

export function ones_(t: Tensor): Tensor {
  return fill('ones_', t, (n) => new Float64Array(n).fill(1));
}

/** Identity matrix for a 2-D tensor. */
export function eye_(t: Tensor): Tensor {
  checkWritable('eye_', t);
  const s = t.shape;
  if (s.length !== 2) throw new Error(`eye_: expected a 2-D tensor, got shape [${s.join(', ')}]`);
  return fill('eye_', t, (n) => {
    const out = new Float64Array(n);
    for (let i = 0; i < Math.min(s[0]!, s[1]!); i++) out[i * s[1]! + i] = 1;
    return out;
  });
}

function gainArg(fn: string, gain: unknown): number {
  if (gain === undefined) return 1;
  if (isOptionsObject(gain)) return checkOptions<{ gain: number }>(fn, gain, { gain: 'number' }).gain ?? 1;
  return numberArg(fn, 'gain', gain);
}

/** U(−a, a) with a = gain·√(6 / (fanIn + fanOut)) (Glorot). gain: a number or { gain }. */
export function xavierUniform_(t: Tensor, gain?: number | { gain?: number }): Tensor {
  const g = gainArg('xavierUniform_', gain);
  checkFloat('xavierUniform_', t);
  const [fanIn, fanOut] = calculateFanInAndFanOut(t, 'xavierUniform_');
  const a = Math.sqrt(3) * g * Math.sqrt(2 / (fanIn + fanOut));
  return uniform_(t, -a, a);
}

/** N(0, std²) with std = gain·√(2 / (fanIn + fanOut)). */
export function xavierNormal_(t: Tensor, gain?: number | { gain?: number }): Tensor {
  const g = gainArg('xavierNormal_', gain);
  checkFloat('xavierNormal_', t);
  const [fanIn, fanOut] = calculateFanInAndFanOut(t, 'xavierNormal_');
  return normal_(t, 0, g * Math.sqrt(2 / (fanIn + fanOut)));
}

/** std = gain / √fan for kaiming_*; null when the tensor is empty (PyTorch only warns then). */
function kaimingStd(fn: string, t: Tensor, options: unknown): number | null {
  const o = checkOptions<KaimingOptions>(fn, options, {
    a: 'number',
    mode: ['fan_in', 'fan_out'],
    nonlinearity: NONLINEARITIES,
  });
  checkFloat(fn, t);
  // PyTorch returns early (with a warning) for zero-element tensors.
  if (t.numel === 0) return null;
  const [fanIn, fanOut] = calculateFanInAndFanOut(t, fn);
  const fan = (o.mode ?? 'fan_in') === 'fan_in' ? fanIn : fanOut;
  return calculateGain(o.nonlinearity ?? 'leaky_relu', o.a ?? 0) / Math.sqrt(fan);
}

/** U(−bound, bound) with bound = √3·gain/√fan (He). Linear and Conv weights use { a: √5 }. */
export function kaimingUniform_(t: Tensor, options?: KaimingOptions): Tensor {
  const std = kaimingStd('kaimingUniform_', t, options);
  if (std === null) return t;
  const bound = Math.sqrt(3) * std;
  return uniform_(t, -bound, bound);
}

/** N(0, std²) with std = gain/√fan. */
export function kaimingNormal_(t: Tensor, options?: KaimingOptions): Tensor {
  const std = kaimingStd('kaimingNormal_', t, options);
  if (std === null) return t;
  return normal_(t, 0, std);
}

/**
 * A (semi-)orthogonal matrix times gain, PyTorch's algorithm: W viewed as [rows, rest], the QR of
 * an N(0, 1) matrix (transposed when rows < rest) with Q's columns signed by R's diagonal (so Q
 * is Haar-distributed), transposed back. gain: a number or { gain }.
 */
export function orthogonal_(t: Tensor, gain?: number | { gain?: number }): Tensor {
  const fn = 'orthogonal_';
  const g = gainArg(fn, gain);
  checkFloat(fn, t);
  if (t.ndim < 2) throw new Error(`${fn}: only tensors with 2 or more dimensions are supported, got shape [${t.shape.join(', ')}]`);
  if (t.numel === 0 || skipping) return t;
  const rows = t.shape[0]!, cols = t.numel / rows;
  const wide = rows < cols;
  const [m, n] = wide ? [cols, rows] : [rows, cols];  // the tall matrix that is factored
  const values = tidy(() => {
    // In float64 for a float64 target: the QR and its draws in double.
    const dtype = t.dtype === 'float64' ? 'float64' : 'float32';
    const a = tensor(drawFor(t, 'randn', rows * cols), { shape: [rows, cols], dtype });
    const [q, r] = runList(fn, 'linalgQr', [['A', wide ? a.T.contiguous() : a]], { mode: 'reduced' });
    const Q = q!.dataSync() as Float32Array | Float64Array, R = r!.dataSync() as Float32Array | Float64Array;
    const out = new Float64Array(rows * cols);
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        const d = R[j * n + j]!;
        const v = g * Q[i * n + j]! * (d > 0 ? 1 : d < 0 ? -1 : 0);  // torch's sign(): 0 for 0
        if (wide) out[j * cols + i] = v;
        else out[i * cols + j] = v;
      }
    }
    return out;
  });
  writeInto(fn, t, values);
  return t;
}

/** sg.nn.init */
export const init = {
  orthogonal_,
  calculateGain,
  uniform_,
  normal_,
  truncNormal_,
  constant_,
  zeros_,
  ones_,
  eye_,
  xavierUniform_,
  xavierNormal_,
  kaimingUniform_,
  kaimingNormal_,
};
