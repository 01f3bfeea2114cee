// sg.randperm(n, { dtype, device, generator }) (API.md): a permutation of 0..n-1, int32 unless
// dtype says otherwise, reproducible under sg.manualSeed (or from an sg.data.Generator), a new
// one on every call of a compiled function; a bad n or option is an Error leaving memory as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

const isPermutation = (values, n) => values.length === n && [...values].sort((a, b) => a - b).every((v, i) => v === i);

test('randperm(n) is a permutation of 0..n-1 (int32) for n in {0, 1, 2, 17, 1000}', () => {
  for (const n of [0, 1, 2, 17, 1000]) {
    const p = sg.randperm(n);
    assert.equal(p.dtype, 'int32');
    assert.deepEqual(p.shape, [n]);
    assert.ok(isPermutation(Array.from(p.dataSync()), n), `n = ${n}`);
    p.dispose();
  }
});

test('reproducible after manualSeed; different seeds differ; successive draws differ', () => {
  const draw = (seed) => {
    sg.manualSeed(seed);
    const p = sg.randperm(50);
    const v = Array.from(p.dataSync());
    p.dispose();
    return v;
  };
  assert.deepEqual(draw(1), draw(1));
  assert.notDeepEqual(draw(1), draw(2));
  sg.manualSeed(5);
  const [a, b] = [sg.randperm(50), sg.randperm(50)];
  assert.notDeepEqual(Array.from(a.dataSync()), Array.from(b.dataSync()));
  sg.dispose([a, b]);
});

test('every position takes every value about equally often (uniform permutations)', () => {
  sg.manualSeed(123);
  const n = 4, trials = 2400;
  const counts = Array.from({ length: n }, () => new Array(n).fill(0));
  for (let t = 0; t < trials; t++) {
    const p = sg.randperm(n);
    Array.from(p.dataSync()).forEach((v, pos) => counts[pos][v]++);
    p.dispose();
  }
  // Each count ~ Binomial(2400, 1/4): mean 600, sd ≈ 21.2; 5 sd.
  for (const row of counts) for (const c of row) assert.ok(Math.abs(c - 600) < 106, JSON.stringify(counts));
});

test('dtype and generator options', () => {
  const f = sg.randperm(5, { dtype: 'float32' });
  assert.equal(f.dtype, 'float32');
  assert.ok(isPermutation(Array.from(f.dataSync()), 5));
  f.dispose();
  const g1 = sg.randperm(30, { generator: new sg.data.Generator(9) });
  const g2 = sg.randperm(30, { generator: new sg.data.Generator(9) });
  assert.deepEqual(Array.from(g1.dataSync()), Array.from(g2.dataSync()));
  assert.ok(isPermutation(Array.from(g1.dataSync()), 30));
  // The generator's own stream: the same as its permutation().
  assert.deepEqual(Array.from(g1.dataSync()), Array.from(new sg.data.Generator(9).permutation(30)));
  sg.dispose([g1, g2]);
});

test('inside sg.compile: a new permutation on every call, from the global generator', () => {
  const f = sg.compile((x) => x.indexSelect(0, sg.randperm(20)));
  const x = sg.arange(20).float();
  sg.manualSeed(7);
  const outs = [f(x), f(x), f(x)];
  const vals = outs.map((t) => Array.from(t.dataSync()));
  for (const v of vals) assert.ok(isPermutation(v, 20));
  assert.ok(vals[0].join() !== vals[1].join() || vals[1].join() !== vals[2].join(), 'not one frozen permutation');
  sg.dispose(outs);
  // With a generator (drawn in JavaScript) it refuses, naming why.
  const h = sg.compile((t) => t.indexSelect(0, sg.randperm(20, { generator: new sg.data.Generator(1) })));
  throwsWith(() => h(x), 'randperm', 'sg.compile');
  f.clear();
  h.clear();
  x.dispose();
});

test('bad n and bad options are Errors naming randperm; memory unchanged', () => {
  const live = sg.memory().tensors;
  throwsWith(() => sg.randperm(-1), "randperm: expected 'n' to be an integer in [0, 2^31 - 1], got -1");
  throwsWith(() => sg.randperm(2.5), "randperm: expected 'n'", '2.5');
  throwsWith(() => sg.randperm('3'), "randperm: expected 'n'", "'3'");
  throwsWith(() => sg.randperm(), "randperm: expected 'n'", 'undefined');
  throwsWith(() => sg.randperm(3, { dtype: 'bool' }), "randperm: option 'dtype' must be a numeric dtype");
  throwsWith(() => sg.randperm(3, { seed: 1 }), "randperm: unknown option 'seed'");
  throwsWith(() => sg.randperm(3, { generator: {} }), "randperm: option 'generator' must be a generator");
  throwsWith(() => sg.randperm(3, { device: 'gpu' }), "randperm: option 'device' must be one of 'cpu', 'webgpu'");
  assert.equal(sg.memory().tensors, live);
});
