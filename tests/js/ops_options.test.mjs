// Options of the elementwise and shape ops: add/sub with PyTorch's `alpha` (input ± alpha·other), checked against the closed form in
// float32 (alpha·other rounded, then the sum rounded, as torch.add without FMA) and its
// gradients (1 and ±alpha); and ops without options refusing an options object instead of
// silently ignoring it, while extra plain arguments (xs.map(sg.exp)) still pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith } from './helpers.mjs';

const f = Math.fround;

test('add and sub with alpha equal input ± alpha·other in float32, with broadcasting, numbers and methods', () => {
  const av = [0.1, -2.5, 3.75, 1e-3, 7, -0.3];
  const bv = [1.3, 0.25, -4.5];
  const a = sg.tensor(av, { shape: [2, 3] });
  const b = sg.tensor(bv);  // broadcast over a's rows
  for (const alpha of [2, -0.5, 0.1, 0]) {
    const sum = sg.tidy(() => Array.from(sg.add(a, b, { alpha }).dataSync()));
    const diff = sg.tidy(() => Array.from(a.sub(b, { alpha }).dataSync()));
    av.forEach((x, i) => {
      const scaled = f(f(alpha) * f(bv[i % 3]));
      assert.equal(sum[i], f(f(x) + scaled), `add alpha ${alpha} at ${i}`);
      assert.equal(diff[i], f(f(x) - scaled), `sub alpha ${alpha} at ${i}`);
    });
  }
  // A number as other: input + alpha·other; alpha 1 or absent is plain add.
  assert.deepEqual(sg.tidy(() => Array.from(sg.add(a, 3, { alpha: 2 }).dataSync())), av.map((x) => f(f(x) + 6)));
  assert.deepEqual(sg.tidy(() => Array.from(a.add(b, { alpha: 1 }).dataSync())), sg.tidy(() => Array.from(a.add(b).dataSync())));
  // int32 stays int32, as torch.add(int, int, alpha=int).
  const i = sg.tensor([1, 2, 3], { dtype: 'int32' });
  const r = sg.add(i, i, { alpha: 3 });
  assert.equal(r.dtype, 'int32');
  assert.deepEqual(Array.from(r.dataSync()), [4, 8, 12]);
  sg.dispose([a, b, i, r]);
});

test('add/sub with alpha: gradients 1 and ±alpha (summed over the broadcast), no tensor left behind', () => {
  const a = sg.tensor([1, 2, 3, 4, 5, 6], { shape: [2, 3], requiresGrad: true });
  const b = sg.tensor([0.5, -1, 2], { requiresGrad: true });
  const live = sg.memory().tensors;
  const grad = (t) => sg.tidy(() => Array.from(t.grad.dataSync()));
  sg.tidy(() => sg.add(a, b, { alpha: -1.5 }).sum().backward());
  close(grad(a), [1, 1, 1, 1, 1, 1]);
  close(grad(b), [-3, -3, -3]);  // −1.5 per row, two rows
  a.grad = null;
  b.grad = null;
  sg.tidy(() => sg.sub(a, b, { alpha: 0.25 }).sum().backward());
  close(grad(b), [-0.5, -0.5, -0.5]);
  a.grad = null;
  b.grad = null;
  assert.equal(sg.memory().tensors, live);
  sg.dispose([a, b]);
});

test('add/sub with alpha compile to the eager result', () => {
  const a = sg.tensor([0.1, 0.2, 0.3]);
  const b = sg.tensor([1, -1, 0.5]);
  const fn = (x, y) => sg.add(x, y, { alpha: 0.7 }).sub(y, { alpha: 2 });
  const compiled = sg.compile(fn);
  const eager = sg.tidy(() => Array.from(fn(a, b).dataSync()));
  const got = sg.tidy(() => Array.from(compiled(a, b).dataSync()));
  assert.deepEqual(got, eager);
  compiled.clear();
  sg.dispose([a, b]);
});

test('bad alpha, unknown options, and options given to ops that take none are Errors; the module stays usable', () => {
  const a = sg.tensor([1, 2]);
  const live = sg.memory().tensors;
  throwsWith(() => sg.add(a, a, { alpha: 'two' }), 'add', 'alpha', 'finite number');
  throwsWith(() => sg.sub(a, a, { alpha: NaN }), 'sub', 'alpha');
  throwsWith(() => sg.add(a, a, { alhpa: 2 }), 'add', 'alhpa');
  throwsWith(() => sg.exp(a, { foo: 1 }), 'exp: takes no options', 'foo');
  throwsWith(() => a.relu({ inplace: true }), 'relu: takes no options', 'inplace');
  throwsWith(() => sg.mul(a, 2, { alpha: 2 }), 'mul: takes no options');
  // Ops with positional arguments: an options object past them naming a keyword PyTorch would
  // refuse (their own keywords, dim and the like, are accepted: keyword_options.test.mjs).
  const m = sg.tensor([[1, -2], [3, 4]]);
  throwsWith(() => sg.tidy(() => sg.where(m.gt(0), m, 0, { foo: 1 })), 'where: takes no options', 'keys: ');
  const past = {
    softmax: () => sg.softmax(m, 1, { dtype: 'float32' }),
    sum: () => m.sum(0, true, { foo: 1 }),
    max: () => sg.max(m, 1, false, { foo: 1 }),
    argmax: () => m.argmax(0, false, { foo: 1 }),
    transpose: () => m.transpose(0, 1, { foo: 1 }),
    flatten: () => m.flatten(0, -1, { foo: 1 }),
    unsqueeze: () => m.unsqueeze(0, { foo: 1 }),
    clamp: () => sg.clamp(m, 0, 1, { foo: 1 }),
    cat: () => sg.cat([m, m], 0, { foo: 1 }),
    cumsum: () => m.cumsum(1, { foo: 1 }),
    tril: () => m.tril(0, { foo: 1 }),
  };
  for (const [name, call] of Object.entries(past)) throwsWith(() => sg.tidy(call), `${name}: unknown option`, name === 'softmax' ? "'dtype'" : "'foo'");
  assert.equal(sg.memory().tensors, live + 1);  // m
  m.dispose();
  // Array callbacks pass indices, not options: still fine.
  const outs = [a, a].map(sg.exp);
  close(Array.from(outs[1].dataSync()), [Math.E, Math.E ** 2], 1e-6);
  sg.dispose([...outs, a]);
});
