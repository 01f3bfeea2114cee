// Memory accounting: dispose and tidy return sg.memory() to its baseline (JS tensor count
// and C++ bytes), nested tidy and keep() behave, and a 1000-step training loop under tidy
// stays flat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { sg } from './helpers.mjs';

function snapshot() {
  const m = sg.memory();
  return { tensors: m.tensors, bytes: m.bytes };
}

test('memory() reports tensors and bytes; dispose frees them', () => {
  const base = snapshot();
  const m = sg.memory();
  assert.equal(typeof m.storages, 'number');
  assert.equal(typeof m.peakBytes, 'number');
  const t = sg.zeros(1000);
  const after = snapshot();
  assert.equal(after.tensors, base.tensors + 1);
  assert.ok(after.bytes >= base.bytes + 4000, `bytes grew by ${after.bytes - base.bytes}`);
  const v = t.reshape(10, 100); // a view: no new storage
  assert.equal(snapshot().bytes, after.bytes);
  t.dispose();
  assert.equal(snapshot().bytes, after.bytes, 'the view keeps the storage alive');
  v.dispose();
  assert.deepEqual(snapshot(), base);
});

test('tidy frees everything but what it returns', () => {
  const base = snapshot();
  const kept = sg.tidy(() => {
    const a = sg.randn(50, 50);
    const b = a.matmul(a).relu().add(1);
    b.sum();
    return b.mean(0);
  });
  assert.deepEqual(kept.shape, [50]);
  assert.equal(snapshot().tensors, base.tensors + 1);
  kept.dispose();
  assert.deepEqual(snapshot(), base);

  const [x, { y }, s] = sg.tidy(() => [sg.ones(3), { y: sg.zeros(2) }, sg.ones(4).sum()]);
  assert.deepEqual(x.toArray(), [1, 1, 1]);
  assert.deepEqual(y.toArray(), [0, 0]);
  assert.equal(s.item(), 4);
  assert.equal(snapshot().tensors, base.tensors + 3);
  sg.dispose([x, y, s]);
  assert.deepEqual(snapshot(), base);
});

test('tidy returns to baseline after a backward pass and on exceptions', () => {
  const w = sg.randn([4, 1], { requiresGrad: true });
  const base = snapshot();
  sg.tidy(() => {
    const x = sg.randn(8, 4);
    const loss = x.matmul(w).square().mean();
    loss.backward();
    w.grad.mul(2);
    w.zeroGrad();
  });
  assert.deepEqual(snapshot(), base);
  assert.throws(() => sg.tidy(() => {
    sg.ones(100).add(1);
    sg.zeros(2, 3).matmul(sg.zeros(4, 5));
  }), /matmul/);
  assert.deepEqual(snapshot(), base);
  w.dispose();
});

test('nested tidy and keep', () => {
  const base = snapshot();
  let inner;
  let keptOne;
  const outer = sg.tidy(() => {
    const a = sg.ones(2);
    inner = sg.tidy(() => {
      const b = a.add(1);
      keptOne = sg.keep(b.mul(3));
      return b.add(1);
    });
    assert.deepEqual(inner.toArray(), [3, 3]);
    assert.equal(a.isDisposed, false);
    return a.add(inner);
  });
  assert.equal(inner.isDisposed, true, 'the inner result joins the outer scope');
  assert.deepEqual(outer.toArray(), [4, 4]);
  assert.equal(keptOne.isDisposed, false);
  assert.deepEqual(keptOne.toArray(), [6, 6]);
  sg.dispose([outer, keptOne]);
  assert.deepEqual(snapshot(), base);
  assert.throws(() => sg.tidy(async () => sg.ones(1)), /synchronous/);
  assert.deepEqual(snapshot(), base);
});

test('numbers as operands leave no temporaries', () => {
  const x = sg.ones(10);
  const mask = x.gt(0);
  const base = snapshot();
  for (let i = 0; i < 100; i++) {
    for (const y of [x.add(1), x.mul(2), sg.sub(0.5, x), x.div(3), x.pow(2), x.gt(0.5), sg.where(mask, 1, 0), sg.where(mask, x, 2.5)]) y.dispose();
  }
  sg.tidy(() => {
    x.add(1).mul(2).sub(sg.tensor(3)).div(x.sum());
  });
  assert.deepEqual(snapshot(), base);
  sg.dispose([x, mask]);
});

test('hooks and sg.grad do not leak', () => {
  const base = snapshot();
  sg.tidy(() => {
    const x = sg.ones([5], { requiresGrad: true });
    const h = x.mul(2);
    h.registerHook((g) => g.mul(3).add(1));
    h.sum().backward();
  });
  assert.deepEqual(snapshot(), base);
  const x = sg.randn(6);
  const mid = snapshot();
  for (let i = 0; i < 20; i++) {
    const [v, g] = sg.valueAndGrad((t) => t.square().sum())(x);
    sg.dispose([v, g]);
  }
  assert.deepEqual(snapshot(), mid);
  x.dispose();
  assert.deepEqual(snapshot(), base);
});

test('1000 steps of a tiny training loop under tidy keep tensors and bytes flat', () => {
  sg.manualSeed(3);
  const X = sg.randn(32, 3);
  const Y = X.matmul(sg.tidy(() => sg.tensor([[2], [-1], [0.5]]))).add(0.3);
  let w = sg.zeros([3, 1], { requiresGrad: true });
  let b = sg.zeros([1], { requiresGrad: true });
  const lr = 0.1;
  let first = null;
  let last = null;
  let start = null;
  for (let step = 0; step < 1000; step++) {
    const [nw, nb, lossValue] = sg.tidy(() => {
      const loss = X.matmul(w).add(b).sub(Y).square().mean();
      loss.backward();
      // SGD without in-place ops: new leaves replace the old parameters.
      const [uw, ub] = sg.noGrad(() => [w.sub(w.grad.mul(lr)), b.sub(b.grad.mul(lr))]);
      return [uw.requiresGrad_(), ub.requiresGrad_(), loss.item()];
    });
    w.dispose();
    b.dispose();
    w = nw;
    b = nb;
    if (step === 0) first = lossValue;
    last = lossValue;
    if (step === 10) start = snapshot();
  }
  assert.deepEqual(snapshot(), start);
  assert.ok(first > 1, `first loss ${first}`);
  assert.ok(last < 1e-6, `last loss ${last}`);
  const learned = w.toArray().flat();
  [2, -1, 0.5].forEach((v, i) => assert.ok(Math.abs(learned[i] - v) < 1e-3, `w[${i}] = ${learned[i]}`));
  assert.ok(Math.abs(b.item() - 0.3) < 1e-3, `b = ${b.item()}`);
  sg.dispose([X, Y, w, b]);
});

test('forgotten tensors are reclaimed by the FinalizationRegistry backstop', () => {
  // A child Node with --expose-gc, so collection can be forced. Tensors made inside tidy are not
  // registered while a scope owns them; those returned from the outermost tidy, or kept, are.
  const entry = new URL('../../npm/dist/index.mjs', import.meta.url).href;
  const script = `
    import { init } from ${JSON.stringify(entry)};
    const sg = await init();
    const before = sg.memory();
    (() => {
      for (let i = 0; i < 200; i++) sg.ones(1000).add(1);
      for (let i = 0; i < 100; i++) sg.tidy(() => sg.ones(1000).add(1));
      sg.tidy(() => { for (let i = 0; i < 100; i++) sg.keep(sg.ones(1000).mul(2)); });
    })();
    const made = sg.memory();
    for (let i = 0; i < 20 && sg.memory().tensors > before.tensors; i++) {
      globalThis.gc();
      await new Promise((r) => setTimeout(r, 10));
    }
    const after = sg.memory();
    console.log(JSON.stringify({ before, made, after }));
  `;
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const { before, made, after } = JSON.parse(r.stdout.trim().split('\n').pop());
  assert.equal(made.tensors, before.tensors + 600);
  assert.ok(made.bytes >= before.bytes + 600 * 4000);
  assert.equal(made.handles, made.tensors, 'one handle id per tensor');
  assert.equal(after.tensors, before.tensors);
  assert.equal(after.handles, before.handles);
  assert.equal(after.bytes, before.bytes);
});

// Autograd keeps only what a formula needs (as PyTorch): x * c and x / c with a constant c need
// neither x nor the quotient for x's gradient, so dropping the JS handles frees their storage
// before backward; x * w with both needing gradients keeps both.
test('mul and div by a constant save nothing their backward does not read', () => {
  const start = sg.memory().bytes;
  const leaf = sg.tensor([1, 2, 3, 4], { requiresGrad: true });
  const heldBytes = (make) => {
    const base = sg.memory().bytes;
    const a = leaf.add(1);  // add saves nothing
    const [keep, loss] = make(a);
    a.dispose();
    keep.dispose();
    const held = sg.memory().bytes - base;
    loss.backward();
    loss.dispose();
    return held;
  };
  const c = sg.tensor([2]);
  const gradOf = (t) => sg.tidy(() => Array.from(t.grad.dataSync()));  // the .grad handle is freed too
  // mul by a constant: neither a nor the product is kept by the graph: only the loss remains.
  assert.equal(heldBytes((a) => { const y = a.mul(c); return [y, y.sum()]; }), 4);
  assert.deepEqual(gradOf(leaf), [2, 2, 2, 2]);
  leaf.grad = null;
  // div by a constant: the quotient is not kept (only b's gradient would read it).
  assert.equal(heldBytes((a) => { const y = a.div(c); return [y, y.sum()]; }), 4);
  assert.deepEqual(gradOf(leaf), [0.5, 0.5, 0.5, 0.5]);
  leaf.grad = null;
  // both sides need gradients: a is kept for w's gradient.
  const w = sg.tensor([3, 3, 3, 3], { requiresGrad: true });
  assert.equal(heldBytes((a) => { const y = a.mul(w); return [y, y.sum()]; }), 4 + 16);
  assert.deepEqual(gradOf(leaf), [3, 3, 3, 3]);
  assert.deepEqual(gradOf(w), [2, 3, 4, 5]);
  leaf.grad = null;
  w.grad = null;
  sg.dispose([leaf, c, w]);
  assert.equal(sg.memory().bytes, start);
});

// backward keeps a leaf's gradient in the buffer its formula made when nothing else holds it
// (before: a copy of every parameter's gradient on every backward, a second buffer at the peak).
test('backward keeps a fresh leaf gradient without copying it; shared ones are still copied', () => {
  const n = 1 << 18;  // 1 MB of float32
  const x = sg.randn([n], { requiresGrad: true });
  const peakOf = (f) => {
    const base = sg.memory().bytes;
    sg.resetPeakMemory();
    f();
    return sg.memory().peakBytes - base;
  };
  // y = Σ x·2: x.grad = 2·1 is mul's fresh result: one buffer of n floats at the peak
  // (the product itself is freed before backward, as the loss is the only handle kept).
  const loss = sg.tidy(() => x.mul(2).sum());
  const p1 = peakOf(() => loss.backward());
  assert.ok(p1 < 1.5 * 4 * n, `backward's peak ${p1} bytes: one gradient buffer expected (${4 * n})`);
  assert.deepEqual(sg.tidy(() => Array.from(x.grad.slice(0, 0, 3).dataSync())), [2, 2, 2]);
  // The gradient is the leaf's own: an in-place change of one .grad reaches no other tensor.
  const w = sg.randn([4], { requiresGrad: true });
  const v = sg.randn([4], { requiresGrad: true });
  const l2 = sg.tidy(() => w.add(v).sum());  // add's backward hands one tensor to both inputs
  l2.backward();
  sg.tidy(() => w.grad.mul_(5));
  assert.deepEqual(sg.tidy(() => Array.from(v.grad.dataSync())), [1, 1, 1, 1]);
  assert.deepEqual(sg.tidy(() => Array.from(w.grad.dataSync())), [5, 5, 5, 5]);
  x.grad = null;
  w.grad = null;
  v.grad = null;
  sg.dispose([x, w, v, loss, l2]);
});

// linear's backward (nn/linear.cpp) drops its saved output and the incoming gradient once ReLU's
// mask is applied, before it allocates dW: an activation held by nothing else is not at the peak.
test('linear with ReLU frees its output and incoming gradient before allocating dW', () => {
  const [batch, inF, hidden, outF] = [64, 1024, 256, 4];
  const x = sg.randn([batch, inF]);
  const w1 = sg.randn([hidden, inF], { requiresGrad: true });
  const w2 = sg.randn([outF, hidden], { requiresGrad: true });
  const forward = () => sg.tidy(() => sg.F.linear(sg.F.linear(x, w1, null, { activation: 'relu' }), w2).sum());
  const grads = () => sg.tidy(() => [w1, w2].map((w) => Array.from(w.grad.dataSync())));
  const clear = () => { w1.grad = null; w2.grad = null; };
  // The hidden activation a1 = relu(x·w1ᵀ) is held only by autograd: layer 2 saves it as its
  // input, layer 1 as its output. At layer 1's dW (hidden·inF floats), what must be live is its
  // masked gradient (batch·hidden) and w2's gradient; a1 and the incoming gradient (batch·hidden
  // each) are not.
  const loss = forward();
  const base = sg.memory().bytes;
  sg.resetPeakMemory();
  loss.backward();
  const peak = sg.memory().peakBytes - base;
  const needed = 4 * (hidden * inF + batch * hidden + outF * hidden + batch * outF);
  const activation = 4 * batch * hidden;
  assert.ok(peak < needed + activation / 2,
    `backward's peak ${peak} bytes; ${needed} needed, ${2 * activation} more if a1 and its gradient were held`);
  const once = grads();
  clear();
  // retainGraph: the saved tensors are handed over as copies, so a second backward still finds them.
  const again = forward();
  again.backward(undefined, { retainGraph: true });
  const first = grads();
  clear();
  again.backward();
  assert.deepEqual(grads(), first);
  assert.deepEqual(first, once);
  // Without retainGraph the node was released: a second backward says so.
  assert.throws(() => again.backward(), /second time/);
  clear();
  sg.dispose([x, w1, w2, loss, again]);
});
