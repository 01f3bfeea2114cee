// Central-difference gradient checks of JS-level functions (compositions of ops, layers,
// losses), the JS twin of tests/native/gradcheck.h: the output is projected on a fixed random
// direction r, L = Σ out·r; autograd's dL/dx is compared with (L(x+h) − L(x−h)) / 2h per
// element. Also: reading reference tensors from the tests/data JSON files.
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

export { readRef } from './helpers.mjs';

/** { shape, data } → float32 Tensor. */
export function fromRef(e, opts = {}) {
  return sg.tensor(Float32Array.from(e.data), { shape: e.shape, ...opts });
}

/** Asserts a tensor's values equal a reference { shape, data } within abs+rel tolerance. */
export function closeTo(t, e, tol, what) {
  assert.deepEqual(t.shape, e.shape, `${what}: shape`);
  const a = t.dataSync();
  let worst = 0;
  for (let i = 0; i < e.data.length; i++) {
    const err = Math.abs(a[i] - e.data[i]) / (1 + Math.abs(e.data[i]));
    if (!(err <= worst)) worst = err;
  }
  assert.ok(worst <= tol, `${what}: largest relative error ${worst} > ${tol}`);
}

/** Deterministic values in [lo, hi) (a 32-bit LCG), as a Float32Array. */
export function lcg(seed, n, lo = -1, hi = 1) {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return lo + (s / 2 ** 32) * (hi - lo);
  });
}

/**
 * A gradcheck input { shape, data }: values in [lo, hi) from the C library's LCG (seeded per
 * input; the same sequence the composite-op tests always used, so their inputs did not move).
 */
export function gradInput(shape, seed, lo = -1, hi = 1) {
  const n = shape.reduce((a, b) => a * b, 1);
  let s = seed;
  return { shape, data: Float32Array.from({ length: n }, () => ((s = (s * 1103515245 + 12345) % 2 ** 31), lo + ((hi - lo) * s) / 2 ** 31)) };
}

/**
 * fn(...tensors) → Tensor. Checks the gradient of every input (given as { shape, data }
 * objects or Tensors; all get requiresGrad) by central differences. With dtype 'float64' the
 * inputs, the step and the projection are float64 and the defaults are PyTorch's gradcheck ones
 * (eps 1e-6, atol 1e-5, rtol 1e-3), which float32's rounding would not pass.
 */
export function gradcheck(name, fn, inputs, { dtype = 'float32', ...tol } = {}) {
  const f64 = dtype === 'float64';
  const { eps = f64 ? 1e-6 : 1e-3, atol = f64 ? 1e-5 : 2e-3, rtol = f64 ? 1e-3 : 2e-2 } = tol;
  const Arr = f64 ? Float64Array : Float32Array;
  const values = inputs.map((x) => (x instanceof sg.Tensor ? { shape: x.shape, data: Arr.from(x.dataSync()) } : { shape: x.shape, data: Arr.from(x.data) }));
  const project = (out, r) => {
    const o = out.dataSync();
    let s = 0;
    for (let i = 0; i < o.length; i++) s += o[i] * r[i];
    return s;
  };
  sg.tidy(() => {
    const leaves = values.map((v) => sg.tensor(Arr.from(v.data), { shape: v.shape, requiresGrad: true }));
    const out = fn(...leaves);
    if (f64) assert.equal(out.dtype, 'float64', `${name}: float64 inputs give a float64 result`);
    const r = Arr.from(lcg(99, out.numel));
    out.backward(sg.tensor(r, { shape: out.shape }));
    values.forEach((v, k) => {
      const g = leaves[k].grad;
      assert.ok(g, `${name}: input ${k} got no gradient`);
      const analytic = g.dataSync();
      for (let i = 0; i < v.data.length; i++) {
        const at = (delta) =>
          sg.tidy(() => {
            const shifted = values.map((w, j) => {
              const d = Arr.from(w.data);
              if (j === k) d[i] += delta;
              return sg.tensor(d, { shape: w.shape });
            });
            return project(sg.noGrad(() => fn(...shifted)), r);
          });
        const numeric = (at(eps) - at(-eps)) / (2 * eps);
        assert.ok(
          Math.abs(numeric - analytic[i]) <= atol + rtol * Math.abs(numeric),
          `${name}: d/d input${k}[${i}] autograd ${analytic[i]} vs central difference ${numeric}`,
        );
      }
    });
  });
}
