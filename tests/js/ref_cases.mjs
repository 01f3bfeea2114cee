// Reference cases written by tests/data/ref_json.py (grad_case): tensors as { shape, dtype, data }
// with NaN and infinities as strings; a case's inputs, outputs, upstream gradients and the
// gradients PyTorch gave. Shared by the tests that compare ops with such files.
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

/** A reference number: "nan", "inf", "-inf" as the numbers. */
export const dec = (v) => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v);

/** A reference tensor as a Tensor (its dtype; requiresGrad when asked). */
export const makeRef = (e, requiresGrad = false) => sg.tensor(e.data.map(dec), { shape: e.shape, dtype: e.dtype, requiresGrad });

/**
 * t equals the reference e: shape, dtype, and every value (exactly for int32/bool; for float32
 * NaN where NaN, and within rtol·(1 + |want|), or 1e-6 relative beyond 1e30).
 */
export function sameValues(t, e, what, rtol = 2e-6) {
  assert.deepEqual(t.shape, e.shape, `${what}: shape`);
  assert.equal(t.dtype, e.dtype, `${what}: dtype`);
  const got = Array.from(t.dataSync());
  e.data.map(dec).forEach((w, i) => {
    const g = got[i];
    if (e.dtype !== 'float32') return assert.equal(g, w, `${what}[${i}]`);
    const ok = Object.is(g, w) || (Number.isNaN(w) && Number.isNaN(g)) || Math.abs(g - w) <= rtol * (1 + Math.abs(w)) || (Math.abs(w) > 1e30 && Math.abs(g - w) <= 1e-6 * Math.abs(w));
    assert.ok(ok, `${what}[${i}]: PyTorch ${w}, got ${g}`);
  });
}

/**
 * t is near the reference e: shape, and each value within atol + rtol·(|want| + the largest
 * finite |want|) (a tolerance on the values' scale, for decompositions whose entries span
 * magnitudes); NaN and infinities exactly.
 */
export function nearRef(t, e, rtol, what, atol) {
  assert.deepEqual(t.shape, e.shape, `${what}: shape`);
  const want = e.data.map(dec);
  const got = Array.from(t.dataSync());
  const scale = Math.max(0, ...want.filter(Number.isFinite).map(Math.abs));
  want.forEach((w, i) => {
    const g = got[i];
    const ok = Number.isFinite(w) ? Math.abs(g - w) <= atol + rtol * (Math.abs(w) + scale) : Object.is(g, w) || (Number.isNaN(w) && Number.isNaN(g));
    assert.ok(ok, `${what}[${i}]: PyTorch ${w}, got ${g} (|diff| ${Math.abs(g - w)})`);
  });
}

/**
 * Every case of REF through its JS call (CALLS[id], the same arguments as PyTorch's): each
 * output's values, then, where the case has gradients, backward of Σ out_k·upstream_k and each
 * marked input's gradient. `tolerance(id)` gives a case's rtol (default sameValues'). No tensor
 * is left behind.
 */
export function checkRefCases(REF, CALLS, tolerance = () => undefined) {
  assert.deepEqual(REF.cases.map((c) => c.id).filter((id) => !CALLS[id]), [], 'a JS call for every case');
  const live = sg.memory().tensors;
  for (const c of REF.cases) {
    const rtol = tolerance(c.id);
    sg.tidy(() => {
      const ins = c.inputs.map((e) => makeRef(e, e.grad));
      const out = CALLS[c.id](...ins);
      const outs = Array.isArray(out) ? out : [out];
      assert.equal(outs.length, c.outputs.length, `${c.id}: outputs`);
      outs.forEach((o, k) => sameValues(o, c.outputs[k], `${c.id} output ${k}`, rtol));
      if (!c.grads) return;
      outs.map((o, k) => o.mul(makeRef(c.upstream[k])).sum()).reduce((a, b) => a.add(b)).backward();
      c.inputs.filter((e) => e.grad).forEach((e, j) => {
        const x = ins[c.inputs.indexOf(e)];
        assert.ok(x.grad, `${c.id}: input ${j} got no gradient`);
        sameValues(x.grad, c.grads[j], `${c.id} grad ${j}`, rtol);
        x.grad = null;
      });
    });
  }
  assert.equal(sg.memory().tensors, live, 'no tensor left behind');
}

/**
 * checkRefCases on the current backend (sg.setBackend; forEachBackend), reading every result
 * with `await t.data()` (the one read a GPU tensor allows). `skip(id)`: cases this backend
 * cannot run (say why where it is called).
 */
export async function checkRefCasesAsync(REF, CALLS, tolerance = () => undefined, skip = () => false) {
  const live = sg.memory().tensors;
  for (const c of REF.cases) {
    if (skip(c.id)) continue;
    const ins = c.inputs.map((e) => makeRef(e, e.grad));
    const results = sg.tidy(() => {
      const out = CALLS[c.id](...ins);
      const outs = Array.isArray(out) ? out : [out];
      if (c.grads) outs.map((o, k) => o.mul(makeRef(c.upstream[k])).sum()).reduce((a, b) => a.add(b)).backward();
      const grads = c.inputs.map((e, i) => (e.grad ? ins[i].grad : null)).filter((g) => g !== null);
      return [...outs, ...grads];
    });
    const wants = [...c.outputs, ...(c.grads ?? [])];
    assert.equal(results.length, wants.length, `${c.id}: outputs and gradients`);
    for (const [k, t] of results.entries()) {
      const data = await t.data();
      sameValues({ shape: t.shape, dtype: t.dtype, dataSync: () => data }, wants[k], `${c.id} result ${k} on ${t.device}`, tolerance(c.id));
    }
    for (const x of ins) x.grad = null;
    sg.dispose([...results, ...ins]);
  }
  assert.equal(sg.memory().tensors, live, 'no tensor left behind');
}

/**
 * sg.compile(fn) gives fn's eager values on `inputs` (the first call traces, the second runs the
 * compiled graph); the inputs stay the caller's.
 */
export function assertCompiledEqualsEager(fn, inputs) {
  const compiled = sg.compile(fn);
  const eager = sg.tidy(() => Array.from(fn(...inputs).dataSync()));
  sg.dispose(compiled(...inputs));  // the tracing call
  assert.deepEqual(sg.tidy(() => Array.from(compiled(...inputs).dataSync())), eager);
  compiled.clear();
}

/**
 * A step that calls backward (a training step's loss): compiled, its value and the gradient it
 * leaves in `leaf` equal the eager step's (the second compiled call, after the tracing one).
 */
export function assertCompiledStepEqualsEager(step, leaf) {
  const run = (f) => sg.tidy(() => {
    const l = f();
    const out = [Array.from(l.dataSync()), Array.from(leaf.grad.dataSync())];
    leaf.grad = null;
    return out;
  });
  const eager = run(step);
  const compiled = sg.compile(step);
  run(compiled);
  assert.deepEqual(run(compiled), eager);
  compiled.clear();
}
