// fmod, remainder, floorDivide and div's roundingMode against PyTorch 1.13 (tests/data/modulo_ref.json,
// from gen_modulo.py): values bit for bit (special values, int32, int32 by a float), the gradients
// of fmod, remainder and the rounding divisions; central differences; the errors (a zero integer
// divisor, bool, floorDivide's derivative, a bad rounding mode); the int32 wrap PyTorch cannot
// compute; the methods; inside sg.compile; nothing left behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { gradcheck, readRef } from './gradcheck_helpers.mjs';
import { dec, makeRef } from './ref_cases.mjs';

const REF = readRef('modulo_ref.json');
const make = makeRef;

const CALLS = {
  fmod: (a, b) => sg.fmod(a, b),
  remainder: (a, b) => a.remainder(b),
  floorDivide: (a, b) => sg.floorDivide(a, b),
  'div trunc': (a, b) => sg.div(a, b, { roundingMode: 'trunc' }),
  'div floor': (a, b) => a.div(b, { roundingMode: 'floor' }),
};
const callOf = (id) => CALLS[Object.keys(CALLS).find((k) => id === k || id.startsWith(`${k} `))];

/**
 * Bit for bit, NaN equal to NaN; with `rtol`, within rtol·|w| (a gradient summed over a
 * broadcast, whose sum PyTorch orders otherwise).
 */
function same(t, e, what, rtol = 0) {
  assert.deepEqual(t.shape, e.shape, `${what}: shape`);
  assert.equal(t.dtype, e.dtype, `${what}: dtype`);
  const got = Array.from(t.dataSync());
  e.data.map(dec).forEach((v, i) => {
    const w = e.dtype === 'float32' ? Math.fround(v) : v;  // 9 digits name a float32 exactly
    const g = got[i];
    assert.ok(Object.is(g, w) || (Number.isNaN(w) && Number.isNaN(g)) || Math.abs(g - w) <= rtol * Math.abs(w), `${what}[${i}]: PyTorch ${Object.is(w, -0) ? '-0' : w}, got ${Object.is(g, -0) ? '-0' : g}`);
  });
}

test('fmod, remainder, floorDivide and div roundingMode equal PyTorch 1.13 bit for bit: special values, int32, gradients', () => {
  const live = sg.memory().tensors;
  for (const c of REF.cases) {
    const call = callOf(c.id);
    assert.ok(call, `a JS call for ${c.id}`);
    sg.tidy(() => {
      const ins = c.inputs.map((e) => make(e, e.grad));
      const out = call(...ins);
      same(out, c.outputs[0], `${c.id} value`);
      if (!c.grads) return;
      out.mul(make(c.upstream[0])).sum().backward();
      c.inputs.filter((e) => e.grad).forEach((e, j) => {
        const x = ins[c.inputs.indexOf(e)];
        assert.ok(x.grad, `${c.id}: input ${j} got no gradient`);
        same(x.grad, c.grads[j], `${c.id} grad ${j}`, 1e-6);
        x.grad = null;
      });
    });
  }
  assert.equal(sg.memory().tensors, live, 'no tensor left behind');
});

test('fmod and remainder: central-difference gradient checks (away from the jumps)', () => {
  // a in (0.2, 2.8) against b in (3, 4) and (−4, −3): no multiple of b within ±eps of a.
  const a = { shape: [5], data: Float32Array.of(0.3, 1.1, 2.7, 1.9, 0.6) };
  const b = { shape: [5], data: Float32Array.of(3.2, 3.9, 3.5, -3.3, -3.7) };
  gradcheck('fmod', (x, y) => sg.fmod(x, y), [a, b]);
  gradcheck('remainder', (x, y) => sg.remainder(x, y), [a, b]);
  // With a quotient of 2 or more the gradient of b is −2, −3, ...
  const big = { shape: [3], data: Float32Array.of(7.3, -9.1, 11.6) };
  const d = { shape: [3], data: Float32Array.of(3.1, 2.9, -2.5) };
  gradcheck('remainder, quotients ≥ 2', (x, y) => sg.remainder(x, y), [big, d]);
});

test('int32 modulo wraps where PyTorch traps; bad input is an Error naming the op; nothing leaks', () => {
  const min = sg.tensor([-2147483648], { dtype: 'int32' });
  assert.deepEqual(sg.fmod(min, -1).toArray(), [0]);
  assert.deepEqual(sg.remainder(min, -1).toArray(), [0]);
  assert.deepEqual(sg.floorDivide(min, -1).toArray(), [-2147483648]);  // 2^31 wraps, as int32 arithmetic
  assert.deepEqual(sg.div(min, -1, { roundingMode: 'trunc' }).toArray(), [-2147483648]);
  assert.equal(sg.remainder(sg.tensor([7], { dtype: 'int32' }), 3).dtype, 'int32');
  const x = sg.tensor([1.5, -2], { requiresGrad: true });
  const live = sg.memory().tensors;
  const i = sg.tensor([4, 5], { dtype: 'int32' });
  throwsWith(() => sg.tidy(() => sg.fmod(i, sg.tensor([1, 0], { dtype: 'int32' }))), 'fmod: expected nonzero divisors for integer tensors, got 0', 'ZeroDivisionError');
  throwsWith(() => sg.tidy(() => sg.remainder(i, 0)), 'remainder: expected nonzero divisors');
  throwsWith(() => sg.tidy(() => sg.div(i, 0, { roundingMode: 'floor' })), 'div: expected nonzero divisors');
  throwsWith(() => sg.tidy(() => sg.remainder(sg.tensor([true]), sg.tensor([true]))), 'remainder', 'bool is not supported', 'bool and bool');
  throwsWith(() => sg.tidy(() => sg.floorDivide(x, 2).sum().backward()), 'floorDivide: its derivative is not implemented', "roundingMode: 'floor'");
  throwsWith(() => sg.tidy(() => sg.div(x, 2, { roundingMode: 'round' })), 'div', 'roundingMode', "'trunc', 'floor' or null", 'round');
  throwsWith(() => sg.tidy(() => sg.fmod(x, sg.zeros([3]))), 'fmod', '[2]', '[3]');
  throwsWith(() => sg.tidy(() => sg.fmod(x, 2, { foo: 1 })), 'fmod: takes no options');
  i.dispose();
  assert.equal(sg.memory().tensors, live);
  // The module is still usable, and a null roundingMode is true division.
  assert.deepEqual(sg.div(x, 2, { roundingMode: null }).toArray(), [0.75, -1]);
  assert.equal(x.grad, null);
  sg.dispose([min, x]);
});

test('modulo ops inside sg.compile equal the eager ones, gradients included', () => {
  const a = sg.randn([4, 5], { requiresGrad: true }), b = sg.rand([5]).add(0.5);
  const fn = (p) => sg.remainder(p.mul(7), b).add(sg.fmod(p, 0.3)).add(sg.div(p, b, { roundingMode: 'floor' })).sum();
  const compiled = sg.compile(fn);
  const grads = (f) => {
    a.grad = null;
    f(a).backward();
    const g = a.grad.clone();
    a.grad = null;
    return g;
  };
  const ge = grads(fn);
  grads(compiled);  // traces
  const gc = grads(compiled);
  assert.deepEqual(Array.from(gc.dataSync()), Array.from(ge.dataSync()));
  assert.ok(Object.is(fn(a).item(), compiled(a).item()));
  compiled.clear();
  sg.dispose([a, b, ge, gc]);
});
