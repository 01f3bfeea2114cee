// sg.compile's and sg.jsCall's argument errors that no other test reached: a traced fn that returns
// a tensor it disposed, and a vjp that returns the wrong number of gradients (eager and compiled).
// Oracle: the messages of npm/src/compile (the contract), and for the working calls after each
// error, hand values (d/dw Σ w³ = 3w²).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith, scoped } from './helpers.mjs';

test('a traced fn whose result tensor is disposed: an Error naming the result, and the compiled fn is not poisoned', scoped(() => {
  let dispose = true;
  const f = sg.compile((x) => {
    const a = x.mul(2);
    const b = x.add(1);
    if (dispose) b.dispose();
    return [a, b];
  });
  const x = sg.tensor([1, 2]);
  throwsWith(() => f(x), /^compile: result tensor 1 of fn is disposed$/);
  assert.equal(f.stats().compiles, 0, 'the failed trace is not kept');
  dispose = false;
  const [a, b] = f(x);
  assert.deepEqual(Array.from(a.dataSync()), [2, 4]);
  assert.deepEqual(Array.from(b.dataSync()), [2, 3]);
}));

// y = w³ computed in JavaScript.
const cubeJs = (u) => sg.tensor(Array.from(u.dataSync(), (v) => v * v * v), { shape: u.shape, dtype: u.dtype });
const cubeVjp = ({ inputs: [u] }, [g]) => [g.mul(u).mul(u).mul(3)];

test('a vjp that returns two gradients for one tensor input: the error counts both (singular "gradient")', scoped(() => {
  const w = sg.tensor([1, 2], { requiresGrad: true });
  const y = sg.jsCall({ shape: [2], dtype: 'float32' }, [w], cubeJs, { vjp: (_, [g]) => [g, g] });
  throwsWith(() => y.sum().backward(), /^jsCall: the vjp of callback 'cubeJs' raised: expected 1 gradient \(one per tensor input, null for none\), got 2$/);
  // A right vjp on the same callback works: 3w².
  const w2 = sg.tensor([1, 2], { requiresGrad: true });
  sg.jsCall({ shape: [2], dtype: 'float32' }, [w2], cubeJs, { vjp: cubeVjp }).sum().backward();
  assert.deepEqual(Array.from(w2.grad.dataSync()), [3, 12]);
}));

test('a vjp that returns one gradient for two tensor inputs: plural "gradients", got 1', scoped(() => {
  const a = sg.tensor([1, 2], { requiresGrad: true });
  const b = sg.tensor([3, 4], { requiresGrad: true });
  const mul = (p, q) => p.mul(q);
  const y = sg.jsCall({ shape: [2], dtype: 'float32' }, [a, b], mul, { vjp: (_, [g]) => g });
  throwsWith(() => y.sum().backward(), /expected 2 gradients \(one per tensor input, null for none\), got 1$/);
}));

test('inside a compiled fn, a vjp with the wrong count fails the same way (the callback label names its jsCall)', scoped(() => {
  const step = (w) => {
    const l = sg.jsCall({ shape: [2], dtype: 'float32' }, [w], cubeJs, { vjp: (_, [g]) => [g, g, g] }).sum();
    l.backward();
    return l;
  };
  const w = sg.tensor([1, 2], { requiresGrad: true });
  throwsWith(() => sg.compile(step)(w), /the vjp of callback 'cubeJs' \(jsCall #\d+\) raised: expected 1 gradient \(one per tensor input, null for none\), got 3$/);
  const ok = sg.compile((v) => {
    const l = sg.jsCall({ shape: [2], dtype: 'float32' }, [v], cubeJs, { vjp: cubeVjp }).sum();
    l.backward();
    return l;
  });
  const w2 = sg.tensor([1, 2], { requiresGrad: true });
  assert.equal(ok(w2).item(), 9);
  assert.deepEqual(Array.from(w2.grad.dataSync()), [3, 12]);
}));

test('{ async: true }: a callback that throws at once, or whose promise rejects, rejects the call with its message and cause; the next call runs', async () => {
  const boom = new Error('boom');
  let mode = 'sync';
  const cb = (u) => {
    if (mode === 'sync') throw boom;
    if (mode === 'reject') return Promise.reject(new Error('later'));
    return Promise.resolve(u.mul(2));
  };
  const f = sg.compile((x) => sg.jsCall({ shape: [2], dtype: 'float32' }, [x], cb).add(1), { async: true });
  const x = sg.tensor([1, 2]);
  await assert.rejects(f(x), (e) => {
    assert.equal(e.message, 'jsCall: JavaScript callback raised: boom');
    assert.equal(e.cause, boom);
    return true;
  });
  mode = 'reject';
  await assert.rejects(f(x), { message: 'jsCall: JavaScript callback raised: later' });
  mode = 'ok';
  assert.deepEqual(Array.from((await f(x)).dataSync()), [3, 5]);
  x.dispose();
});
