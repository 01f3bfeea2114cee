// sg.autograd.gradcheck and gradgradcheck: PyTorch's torch.autograd.gradcheck/gradgradcheck for
// users' own functions. The analytical Jacobian (one backward per output element) is compared
// element by element with central differences (two evaluations per input element), in double;
// the worst mismatch is reported in an Error (PyTorch's raise_exception=True).
//
// A mismatch is |analytical − numerical| > atol + rtol·|numerical|. When an input that requires
// grad is float64 the defaults are PyTorch's (eps 1e-6, atol 1e-5, rtol 1e-3), and the step is
// added in float64, so the central difference sees exactly ±eps. Otherwise they are float32's:
// eps = 1e-3 balances the step's truncation error (∝ eps²) against rounding (∝ 1e-7/eps
// relative), with atol = 1e-3, rtol = 1e-2 (PyTorch's float64 settings would drown in float32
// rounding).
import { enableGrad, gradOf } from './backward.js';
import * as H from '../runtime/handles.js';
import { tidy } from '../runtime/memory.js';
import { checkOptions, describe } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';

export interface GradcheckOptions {
  /** The central-difference step (default 1e-6 for float64 inputs, else 1e-3). */
  eps?: number;
  /** Absolute tolerance (default 1e-5 for float64 inputs, else 1e-3). */
  atol?: number;
  /** Relative tolerance, times |numerical| (default 1e-3 for float64 inputs, else 1e-2). */
  rtol?: number;
}

export interface GradgradcheckOptions extends GradcheckOptions {
  /** The gradients of fn's outputs to differentiate through (default: seeded random values in [-1, 1)). */
  gradOutputs?: Tensor | Tensor[];
}

export type CheckedFn = (...inputs: Tensor[]) => Tensor | Tensor[];

const positive = { check: (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0, expected: 'a positive number' };
const nonNegative = { check: (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0, expected: 'a non-negative number' };

// PyTorch's torch.autograd.gradcheck defaults (made for float64), and float32's.
const FLOAT64_DEFAULTS = { eps: 1e-6, atol: 1e-5, rtol: 1e-3 };
const FLOAT32_DEFAULTS = { eps: 1e-3, atol: 1e-3, rtol: 1e-2 };

function tolerances(name: string, options: unknown, inputs: Tensor[], extra: Record<string, unknown> = {}): Required<GradcheckOptions> {
  const o = checkOptions<GradcheckOptions>(name, options, { eps: positive, atol: nonNegative, rtol: nonNegative, ...extra } as never);
  const d = inputs.some((t) => t.requiresGrad && t.dtype === 'float64') ? FLOAT64_DEFAULTS : FLOAT32_DEFAULTS;
  return { eps: o.eps ?? d.eps, atol: o.atol ?? d.atol, rtol: o.rtol ?? d.rtol };
}

// The dtypes gradients are checked in (those autograd records).
const checkedDType = (dtype: string): boolean => dtype === 'float32' || dtype === 'float64';

function inputList(name: string, fn: unknown, inputs: unknown): Tensor[] {
  if (typeof fn !== 'function') throw new Error(`${name}: expected fn to be a function, got ${describe(fn)}`);
  const list = inputs instanceof Tensor ? [inputs] : inputs;
  if (!Array.isArray(list) || list.length === 0) {
    throw new Error(`${name}: expected inputs to be a Tensor or a non-empty array of Tensors, got ${describe(inputs)}`);
  }
  list.forEach((t: unknown, i: number) => {
    if (!(t instanceof Tensor)) throw new Error(`${name}: input ${i} must be a Tensor, got ${describe(t)}`);
    if (t.requiresGrad && !checkedDType(t.dtype)) {
      throw new Error(`${name}: input ${i} requires grad but is ${t.dtype} (expected float32 or float64)`);
    }
  });
  if (!list.some((t: Tensor) => t.requiresGrad)) {
    throw new Error(`${name}: no input requires grad (set requiresGrad on the inputs to check)`);
  }
  return list as Tensor[];
}

function outputsOf(name: string, fn: CheckedFn, inputs: Tensor[]): Tensor[] {
  const r = fn(...inputs);
  const outs = Array.isArray(r) ? r : [r];
  if (outs.length === 0 || !outs.every((o) => o instanceof Tensor)) {
    throw new Error(`${name}: fn must return a Tensor or a non-empty array of Tensors, got ${describe(r)}`);
  }
  return outs;
}

// Read in double: a float64 tensor as it is, others through float32.
function valuesOf(t: Tensor): Float64Array {
  return Float64Array.from((t.dtype === 'float64' ? t : t.float()).dataSync() as ArrayLike<number>);
}

function indexString(shape: number[], flat: number): string {
  if (shape.length === 0) return '[]';
  const idx: number[] = [];
  for (let d = shape.length - 1; d >= 0; d--) {
    idx.unshift(flat % shape[d]!);
    flat = Math.floor(flat / shape[d]!);
  }
  return `[${idx.join(', ')}]`;
}

// value at flat position `at`, zeros elsewhere, in float64 for a float64 partner (an eps of 1e-6
// stored in float32 would be off by 1e-8 relative) and float32 otherwise.
function oneHot(shape: number[], at: number, value: number, dtype: string): Tensor {
  const n = shape.reduce((a, b) => a * b, 1);
  if (dtype === 'float64') {
    const v = new Float64Array(n);
    v[at] = value;
    return new Tensor(H.handleFrom(v, shape, 'float64'));
  }
  const v = new Float32Array(n);
  v[at] = value;
  return new Tensor(H.handleFrom(v, shape, 'float32'));
}

// The analytical Jacobian of every output with respect to input `j`: jac[k][e · n_j + i].
function analytical(outs: Tensor[], inputs: Tensor[], wrt: number[]): Float64Array[][] {
  return outs.map((out) =>
    wrt.map((j) => {
      const nIn = inputs[j]!.numel;
      const jac = new Float64Array(out.numel * nIn);
      if (!out.requiresGrad || !checkedDType(out.dtype)) return jac;  // no dependence: zeros
      for (let e = 0; e < out.numel; e++) {
        tidy(() => {
          const row = gradOf(out, inputs[j]!, { gradOutput: oneHot(out.shape, e, 1, out.dtype), retainGraph: true });
          jac.set(valuesOf(row), e * nIn);
        });
      }
      return jac;
    }),
  );
}

function run(name: string, fn: CheckedFn, inputs: Tensor[], tol: Required<GradcheckOptions>): true {
  const wrt = inputs.map((t, i) => (t.requiresGrad ? i : -1)).filter((i) => i >= 0);
  let worst: { excess: number; message: string } | null = null;
  let failures = 0;
  let total = 0;
  enableGrad(() =>
    tidy(() => {
      const outs = outputsOf(name, fn, inputs);
      const jac = analytical(outs, inputs, wrt);
      wrt.forEach((j, jj) => {
        const x = inputs[j]!;
        for (let i = 0; i < x.numel; i++) {
          // f(x ± eps·e_i), the perturbed input a fresh leaf (requiring grad like x: fn may differentiate it).
          const at = (sign: number): Float64Array[] =>
            tidy(() => {
              const moved = x.detach().add(oneHot(x.shape, i, sign * tol.eps, x.dtype));
              moved.requiresGrad = true;
              const args = inputs.slice();
              args[j] = moved;
              return outputsOf(name, fn, args).map(valuesOf);
            });
          const plus = at(1);
          const minus = at(-1);
          outs.forEach((out, k) => {
            for (let e = 0; e < out.numel; e++) {
              const numerical = (plus[k]![e]! - minus[k]![e]!) / (2 * tol.eps);
              const got = jac[k]![jj]![e * x.numel + i]!;
              const allowed = tol.atol + tol.rtol * Math.abs(numerical);
              const diff = Math.abs(got - numerical);
              total++;
              if (!(diff <= allowed)) {
                failures++;
                const excess = Number.isNaN(diff) ? Infinity : diff - allowed;
                if (worst === null || excess > worst.excess) {
                  worst = {
                    excess,
                    message:
                      `Jacobian mismatch for output ${k} with respect to input ${j}: d output${indexString(out.shape, e)} / ` +
                      `d input${indexString(x.shape, i)} is ${got} by autograd and ${numerical} by central differences ` +
                      `(|difference| ${diff.toPrecision(3)} > atol + rtol·|numerical| = ${allowed.toPrecision(3)})`,
                  };
                }
              }
            }
          });
        }
      });
    }),
  );
  if (worst !== null) {
    const w = worst as { message: string };
    throw new Error(`${name}: ${w.message}; ${failures} of ${total} Jacobian entries differ (eps ${tol.eps}, atol ${tol.atol}, rtol ${tol.rtol})`);
  }
  return true;
}

/**
 * Checks fn's gradients with respect to the inputs that require grad against central
 * differences. Returns true, or throws an Error describing the worst mismatch.
 */
export function gradcheck(fn: CheckedFn, inputs: Tensor | Tensor[], options?: GradcheckOptions): true {
  const list = inputList('gradcheck', fn, inputs);
  return run('gradcheck', fn, list, tolerances('gradcheck', options, list));
}

// Seeded values in [-1, 1) (mulberry32), so that a check is reproducible and leaves the global
// generator alone.
function seeded(shape: number[], seed: number, dtype: string): Tensor {
  const n = shape.reduce((a, b) => a * b, 1);
  const v = dtype === 'float64' ? new Float64Array(n) : new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    v[i] = (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  }
  return new Tensor(H.handleFrom(v, shape, dtype === 'float64' ? 'float64' : 'float32'));
}

/**
 * Checks the gradients of fn's gradients (double backward): gradcheck of
 * (inputs, gradOutputs) ↦ d(Σ outputs·gradOutputs)/d inputs, recorded with createGraph.
 */
export function gradgradcheck(fn: CheckedFn, inputs: Tensor | Tensor[], options?: GradgradcheckOptions): true {
  const name = 'gradgradcheck';
  const list = inputList(name, fn, inputs);
  const given = (options as GradgradcheckOptions | undefined)?.gradOutputs;
  const tol = tolerances(name, options, list, {
    gradOutputs: { check: (v: unknown) => v instanceof Tensor || (Array.isArray(v) && v.every((t) => t instanceof Tensor)), expected: 'a Tensor or an array of Tensors' },
  });
  return tidy(() => {
    const metas = enableGrad(() => tidy(() => outputsOf(name, fn, list).map((o) => ({ shape: o.shape, dtype: o.dtype }))));
    const shapes = metas.map((m) => m.shape);
    // Gradient outputs in each output's dtype where that is float64, else float32.
    const inDType = (g: Tensor, k: number): Tensor => (metas[k]!.dtype === 'float64' ? g.double() : g.float());
    let gos: Tensor[];
    if (given !== undefined) {
      const list = given instanceof Tensor ? [given] : given;
      // The count first: with more gradOutputs than outputs the shape check read shapes[k] of no output.
      if (list.length !== shapes.length) throw new Error(`${name}: expected ${shapes.length} gradOutputs (one per output), got ${list.length}`);
      gos = list.map((g, k) => {
        if (JSON.stringify(g.shape) !== JSON.stringify(shapes[k])) {
          throw new Error(`${name}: gradOutputs[${k}] must have the shape of output ${k}, ${JSON.stringify(shapes[k])}, got ${JSON.stringify(g.shape)}`);
        }
        return inDType(g.detach(), k);
      });
    } else {
      gos = metas.map((m, k) => seeded(m.shape, 1234 + k, m.dtype));
    }
    for (const g of gos) g.requiresGrad = true;
    const n = list.length;
    const firstOrder: CheckedFn = (...all: Tensor[]) => {
      const ins = all.slice(0, n);
      const outs = outputsOf(name, fn, ins);
      let root: Tensor | null = null;
      outs.forEach((o, k) => {
        const term = (o.dtype === 'float64' ? o : o.float()).mul(all[n + k]!).sum();
        root = root === null ? term : root.add(term);
      });
      const wanted = ins.filter((t) => t.requiresGrad);
      if (!(root as Tensor | null)?.requiresGrad) return wanted.map((t) => t.detach().mul(0));
      return gradOf(root as unknown as Tensor, wanted, { createGraph: true });
    };
    return run(name, firstOrder, [...list, ...gos], tol);
  });
}
