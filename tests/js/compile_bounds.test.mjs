// sg.jsCall's guards at each part alone: the output template (null, a number, a string, a nested array;
// a shape entry that is a string, a fraction, a negative, or bad after a good one; 0 is a size), the template
// copied when the call is made (a callback that edits the spec it was given is still checked against it),
// a vjp's "no gradient" (null and undefined each alone give none; 0 is refused), and timeoutMs's bound on a
// synchronous callback (taking exactly timeoutMs is in time, a little more is not: performance.now faked).
// Oracles: the messages of npm/src/compile/jscall_template.ts / host.ts / jscall_invoke.ts (the contract);
// hand values for the gradients (d(u·v)/dv = u).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

const f32 = (shape) => ({ shape, dtype: 'float32' });

test('outputTemplate: null, a number, a string, a nested array are refused; a shape entry must be an integer >= 0', () => {
  const spec = (got, where = 'outputTemplate') => `jsCall: expected ${where} to be a Tensor or a { shape, dtype } spec, got ${got}`;
  throwsWith(() => sg.jsCall(null, [], () => sg.zeros([1])), spec('null'));
  throwsWith(() => sg.jsCall(5, [], () => sg.zeros([1])), spec('5'));
  throwsWith(() => sg.jsCall('x', [], () => sg.zeros([1])), spec("'x'"));
  throwsWith(() => sg.jsCall([[2]], [], () => [sg.zeros([2])]), spec('[2]', 'outputTemplate[0]'));
  const dim = (i, got) => `jsCall: expected outputTemplate.shape[${i}] to be a non-negative integer, got ${got}`;
  throwsWith(() => sg.jsCall({ shape: ['2'] }, [], () => sg.zeros([2])), dim(0, "'2'"));
  throwsWith(() => sg.jsCall({ shape: [1.5] }, [], () => sg.zeros([1])), dim(0, '1.5'));
  throwsWith(() => sg.jsCall({ shape: [-1] }, [], () => sg.zeros([1])), dim(0, '-1'));
  throwsWith(() => sg.jsCall({ shape: [2, -1] }, [], () => sg.zeros([2])), dim(1, '-1'));
  const empty = sg.jsCall({ shape: [0] }, [], () => sg.zeros([0]));
  assert.deepEqual(empty.shape, [0]);
  const z = sg.jsCall({ shape: [2, 0] }, [], () => sg.zeros([2, 0]));
  assert.deepEqual(z.shape, [2, 0]);
  sg.dispose([empty, z]);
});

test('outputTemplate is copied when the call is made: a callback that edits the spec is checked against the original', () => {
  const spec = { shape: [2], dtype: 'float32' };
  const r = sg.jsCall(spec, [], () => {
    spec.shape.push(3);
    return sg.tensor([1, 2]);
  });
  assert.deepEqual(Array.from(r.dataSync()), [1, 2]);
  r.dispose();
});

test('a vjp gives no gradient for an input with null or with undefined, each alone; 0 is refused', () => {
  for (const none of [null, undefined]) {
    const a = sg.tensor([1, 2], { requiresGrad: true }), b = sg.tensor([3, 4], { requiresGrad: true });
    const y = sg.jsCall(f32([2]), [a, b], (u, v) => u.mul(v), { vjp: ({ inputs: [u] }, [g]) => [none, g.mul(u)] });
    y.sum().backward();
    assert.equal(a.grad, null, `${none}: no gradient for a`);
    assert.deepEqual(Array.from(b.grad.dataSync()), [1, 2]);
    // compiled
    const c = sg.tensor([1, 2], { requiresGrad: true }), d = sg.tensor([3, 4], { requiresGrad: true });
    const f = sg.compile((p, q) => {
      const l = sg.jsCall(f32([2]), [p, q], (u, v) => u.mul(v), { vjp: ({ inputs: [u] }, [g]) => [none, g.mul(u)] }).sum();
      l.backward();
      return l;
    });
    assert.equal(f(c, d).item(), 11);
    assert.equal(c.grad, null, `${none}: no gradient for c (compiled)`);
    assert.deepEqual(Array.from(d.grad.dataSync()), [1, 2]);
    sg.dispose([a, b, c, d, y]);
  }
  const a = sg.tensor([1, 2], { requiresGrad: true }), b = sg.tensor([3, 4], { requiresGrad: true });
  const y = sg.jsCall(f32([2]), [a, b], (u, v) => u.mul(v), { vjp: ({ inputs: [u] }, [g]) => [0, g.mul(u)], name: 'zeroGrad' });
  throwsWith(() => y.sum().backward(), "jsCall: the vjp of callback 'zeroGrad' raised: gradient 0 must be a Tensor or null, got 0");
  sg.dispose([a, b, y]);
});

test('timeoutMs on a synchronous callback: exactly timeoutMs is in time, more is not (a faked clock)', () => {
  let t = 0;
  const orig = performance.now;
  performance.now = () => t;
  try {
    const call = (took, limit) => sg.jsCall(f32([1]), [], () => (t += took, sg.ones([1])), { timeoutMs: limit, name: 'clock' });
    assert.deepEqual(Array.from(call(10, 10).dataSync()), [1]);
    throwsWith(() => call(10, 9.5), /^jsCall: callback 'clock' timed out after 9\.5 ms$/);
    assert.deepEqual(Array.from(call(0, 1e-9).dataSync()), [1]);
    const compiled = (took, limit) => sg.compile(() => sg.jsCall(f32([1]), [], () => (t += took, sg.ones([1])), { timeoutMs: limit, name: 'clock' }))();
    assert.deepEqual(Array.from(compiled(10, 10).dataSync()), [1]);
    throwsWith(() => compiled(10, 9.5), /^jsCall: callback 'clock' \(jsCall #\d+\) timed out after 9\.5 ms$/);
  } finally {
    performance.now = orig;
  }
});
