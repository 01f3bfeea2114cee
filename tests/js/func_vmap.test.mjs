// sg.func.vmap: results equal the function applied to each slice (the unbatched ops, which other
// tests check against PyTorch), per-sample gradients of nn models through functionalCall equal
// PyTorch's loop of one backward per sample (tests/data/gen_func.py), nesting, inDims/outDims,
// randomness, and that batched ops run as one op (no fallback loop) for the MLP/CNN/token models.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { close, readRef, sg } from './helpers.mjs';

const ref = readRef('func_ref.json');
const T = (a) => sg.tensor(a);
const TOL = 2e-5;

/** fn applied to slice i of every mapped argument, stacked: the meaning of vmap. */
function byLoop(fn, args, inDims, n) {
  const outs = [];
  for (let i = 0; i < n; i++) outs.push(fn(...args.map((a, k) => (inDims[k] === null ? a : a.select(inDims[k], i)))));
  return sg.stack(outs, 0);
}

/** Counts console.warn lines (the fallback's announcement) while fn runs. */
function warnings(fn) {
  const seen = [];
  const orig = console.warn;
  console.warn = (...a) => seen.push(a.join(' '));
  try {
    fn();
  } finally {
    console.warn = orig;
  }
  return seen;
}

test('vmap of pointwise, reduction, softmax, shape and matmul ops equals the per-slice results', () => {
  sg.manualSeed(1);
  const A = sg.randn([4, 3, 5]), W = sg.randn([5, 2]), v = sg.randn([5]);
  const cases = [
    [(a) => a.exp().mul(2).add(a.sin()), [A], [0]],
    [(a) => a.sum(1), [A], [0]],
    [(a) => a.mean(), [A], [0]],
    [(a) => a.softmax(-1).logSoftmax(0), [A], [0]],
    [(a) => a.max(0), [A], [0]],
    [(a) => a.argmax(), [A], [0]],
    [(a) => a.var(1), [A], [0]],
    [(a) => a.transpose(0, 1).reshape(-1).unsqueeze(0), [A], [0]],
    [(a) => a.permute(1, 0).flatten().narrow(0, 2, 4), [A], [0]],
    [(a) => a.unsqueeze(1).expand(3, 2, 5).squeeze(), [A], [0]],
    [(a) => sg.cat([a, a.mul(2)], 1), [A], [0]],
    [(a, b) => sg.stack([a, b], 0), [A, A.mul(3)], [0, 0]],
    [(a) => a.matmul(W), [A], [0]],
    [(a) => a.matmul(v), [A], [0]],
    [(a, w) => a.matmul(w), [A, sg.randn([4, 5, 2])], [0, 0]],
    [(a, w) => w.matmul(a), [sg.randn([4, 5]), sg.randn([3, 5])], [0, null]],
    [(a, b) => a.matmul(b), [sg.randn([4, 5]), sg.randn([4, 5])], [0, 0]],
    [(a, b) => a.add(b), [A, sg.randn([5])], [0, null]],
    [(a, b) => sg.where(a.gt(0), a, b), [A, sg.randn([4, 5])], [0, 0]],
    [(a) => a.split(2, 1)[1], [A], [0]],
    [(a) => a.gather(1, sg.tensor([[0, 1], [2, 2], [4, 0]], { dtype: 'int32' })), [A], [0]],
    [(a) => a.indexSelect(1, sg.tensor([4, 0], { dtype: 'int32' })), [A], [0]],
    [(a) => sg.pad(a, [1, 2]), [A], [0]],
    [(a) => a.cumsum(1).flip([0]), [A], [0]],
    [(a) => sg.F.layerNorm(a, [5]), [A], [0]],
    [(a) => sg.F.gelu(sg.F.linear(a, W.T)), [A], [0]],
    [(a) => a.sum(0), [A], [2]], // a mapped dim other than 0
  ];
  const fell = warnings(() => {
    for (const [k, [fn, args, inDims]] of cases.entries()) {
      const got = sg.func.vmap(fn, { inDims })(...args);
      const n = args[inDims.findIndex((d) => d !== null)].shape[inDims.find((d) => d !== null)];
      const want = byLoop(fn, args, inDims, n);
      assert.deepEqual(got.shape, want.shape, `case ${k}: shape`);
      close(got.toArray(), want.toArray(), 1e-5, `case ${k}`);
    }
  });
  assert.deepEqual(fell, [], 'no op fell back to the loop');
});

test('inDims null, outDims, nested vmap and outputs that do not depend on the batch', () => {
  sg.manualSeed(2);
  const x = sg.randn([3, 4]), y = sg.randn([5, 4]);
  // an outer product of dot products by two nested vmaps: [3, 5]
  const dots = sg.func.vmap(sg.func.vmap((a, b) => a.mul(b).sum(), { inDims: [null, 0] }), { inDims: [0, null] })(x, y);
  close(dots.toArray(), x.matmul(y.T).toArray(), 1e-5);
  // outDims 1 puts the mapped dim second
  const t = sg.func.vmap((a) => a.mul(2), { outDims: 1 })(x);
  close(t.toArray(), x.mul(2).T.toArray(), 1e-6);
  // several outputs, one with outDims null (it depends on no mapped input)
  const [s, c] = sg.func.vmap((a) => [a.sum(), y.sum()], { outDims: [0, null] })(x);
  close(s.toArray(), x.sum(1).toArray(), 1e-5);
  close(c.item(), y.sum().item(), 1e-6);
  // an output that does not depend on the batch is expanded with outDims 0
  const e = sg.func.vmap(() => y.sum(0))(x);
  assert.deepEqual(e.shape, [3, 4]);
  // nested over the same tensor's two dims: vmap(vmap(f)) is f elementwise
  const A = sg.randn([2, 3, 4]);
  close(sg.func.vmap(sg.func.vmap((r) => r.softmax(0)))(A).toArray(), A.softmax(2).toArray(), 1e-6);
  close(sg.func.vmap(sg.func.vmap((r) => r.sum(), { inDims: 1 }), { inDims: 0 })(A).toArray(), A.sum(1).toArray(), 1e-5);
});

test('vmap(grad(f)) gives per-sample gradients, also for unmapped weights', () => {
  sg.manualSeed(3);
  const X = sg.randn([6, 3]), W = sg.randn([3, 2]);
  const loss = (w, x) => x.matmul(w).tanh().square().sum();
  const per = sg.func.vmap(sg.func.grad(loss), { inDims: [null, 0] })(W, X);
  assert.deepEqual(per.shape, [6, 3, 2]);
  for (let i = 0; i < 6; i++) close(per.select(0, i).toArray(), sg.func.grad(loss)(W, X.select(0, i)).toArray(), 1e-5, `sample ${i}`);
  // with respect to the mapped argument
  const gx = sg.func.vmap(sg.func.grad(loss, { argnums: 1 }), { inDims: [null, 0] })(W, X);
  for (let i = 0; i < 6; i++) close(gx.select(0, i).toArray(), sg.func.grad(loss, { argnums: 1 })(W, X.select(0, i)).toArray(), 1e-5);
  // vmap of jvp and of jacrev
  const V = sg.randn([6, 3]);
  const jv = sg.func.vmap((x, v) => sg.func.jvp((x) => x.matmul(W).tanh(), [x], [v])[1])(X, V);
  for (let i = 0; i < 6; i++) close(jv.select(0, i).toArray(), sg.func.jvp((x) => x.matmul(W).tanh(), [X.select(0, i)], [V.select(0, i)])[1].toArray(), 1e-5);
  const jr = sg.func.vmap(sg.func.jacrev((x) => x.matmul(W).tanh()))(X);
  assert.deepEqual(jr.shape, [6, 2, 3]);
  close(jr.select(0, 4).toArray(), sg.func.jacrev((x) => x.matmul(W).tanh())(X.select(0, 4)).toArray(), 1e-5);
});

function loadInto(model, params) {
  model.loadStateDict(Object.fromEntries(Object.entries(params).map(([k, v]) => [k, T(v)])));
  return Object.fromEntries(model.namedParameters());
}

function checkPerSample(per, want, tol) {
  for (const [name, samples] of Object.entries(want)) {
    assert.ok(name in per, `gradient of ${name}`);
    close(per[name].toArray(), samples, tol, name);
  }
}

test('per-sample gradients of an MLP through functionalCall equal PyTorch (a loop of backwards)', () => {
  const m = ref.mlp;
  const model = new sg.nn.Sequential(new sg.nn.Linear(4, 6), new sg.nn.Tanh(), new sg.nn.Linear(6, 3));
  const params = loadInto(model, m.params);
  const loss = (p, x, y) => sg.F.crossEntropy(sg.func.functionalCall(model, p, [x.unsqueeze(0)]), y.unsqueeze(0));
  const fell = warnings(() => {
    const per = sg.func.vmap(sg.func.grad(loss), { inDims: [null, 0, 0] })(params, T(m.x), sg.tensor(m.y, { dtype: 'int32' }));
    checkPerSample(per, m.per_sample, TOL);
  });
  assert.deepEqual(fell, []);
  // the module's own parameters are back in place, untouched
  assert.equal(model[0].weight, params['0.weight']);
  close(model[0].weight.toArray(), m.params['0.weight'], 1e-7);
});

test('per-sample gradients of a token model (embedding, layerNorm, linear) equal PyTorch', () => {
  const m = ref.tok;
  class Tok extends sg.nn.Module {
    constructor() {
      super();
      this.emb = new sg.nn.Embedding(7, 4);
      this.ln = new sg.nn.LayerNorm(4);
      this.head = new sg.nn.Linear(4, 7);
    }
    forward(ids) {
      return this.head(this.ln(this.emb(ids)).relu());
    }
  }
  const model = new Tok();
  const params = loadInto(model, m.params);
  const loss = (p, ids, tgt) => sg.F.crossEntropy(sg.func.functionalCall(model, p, ids).reshape(-1, 7), tgt.reshape(-1));
  const fell = warnings(() => {
    const per = sg.func.vmap(sg.func.grad(loss), { inDims: [null, 0, 0] })(params, sg.tensor(m.ids, { dtype: 'int32' }), sg.tensor(m.tgt, { dtype: 'int32' }));
    checkPerSample(per, m.per_sample, TOL);
  });
  assert.deepEqual(fell, []);
});

test('per-sample gradients of a CNN equal PyTorch (conv with per-sample weights as one grouped conv)', () => {
  const m = ref.cnn;
  const model = new sg.nn.Sequential(new sg.nn.Conv2d(1, 2, 3), new sg.nn.ReLU(), new sg.nn.Flatten(), new sg.nn.Linear(18, 3));
  const params = loadInto(model, m.params);
  const loss = (p, x, y) => sg.F.crossEntropy(sg.func.functionalCall(model, p, x.unsqueeze(0)), y.unsqueeze(0));
  const run = () => sg.func.vmap(sg.func.grad(loss), { inDims: [null, 0, 0] })(params, T(m.x), sg.tensor(m.y, { dtype: 'int32' }));
  let per;
  const fell = warnings(() => {
    per = run();
    run();
  });
  checkPerSample(per, m.per_sample, TOL);
  assert.deepEqual(fell, []);
  // without per-sample weights (the input mapped only), conv runs batched
  const x = T(m.x);
  const fell2 = warnings(() => {
    const y = sg.func.vmap((xi) => model(xi.unsqueeze(0)).squeeze(0))(x);
    close(y.toArray(), model(x).toArray(), 1e-5);
  });
  assert.deepEqual(fell2, []);
});

test('an op without a batching rule runs once per sample, announced once per op', () => {
  sg.manualSeed(7);
  const A = sg.randn([3, 2, 4]), v = sg.randn([4]);
  const f = (a) => sg.einsum('ij,j->i', a, v);
  let got;
  const fell = warnings(() => {
    got = sg.func.vmap(f)(A);
    sg.func.vmap(f)(A);
  });
  close(got.toArray(), byLoop(f, [A], [0], 3).toArray(), 1e-6);
  assert.equal(fell.length, 1, fell.join(' | '));
  assert.match(fell[0], /op 'einsum' has no batching rule; it runs once per sample/);
  // gradients flow through the loop too
  const g = sg.func.vmap(sg.func.grad((a) => f(a).square().sum()))(A);
  for (let i = 0; i < 3; i++) close(g.select(0, i).toArray(), sg.func.grad((a) => f(a).square().sum())(A.select(0, i)).toArray(), 1e-5);
});

test("randomness: 'error' refuses a random op, 'different' draws per sample, 'same' once", () => {
  const x = sg.ones([4, 64]);
  assert.throws(() => sg.func.vmap((r) => sg.F.dropout(r, 0.5))(x), /vmap: dropout draws random numbers and vmap's randomness is 'error'/);
  assert.throws(() => sg.func.vmap((r) => r.add(sg.randn([64])))(x), /vmap: randn draws random numbers/);
  sg.manualSeed(5);
  const diff = sg.func.vmap((r) => sg.F.dropout(r, 0.5), { randomness: 'different' })(x).toArray();
  assert.ok(diff.some((row) => row.some((v, j) => v !== diff[0][j])), 'rows differ');
  for (const row of diff) for (const v of row) assert.ok(v === 0 || v === 2);
  const same = sg.func.vmap((r) => sg.F.dropout(r, 0.5), { randomness: 'same' })(x).toArray();
  for (const row of same) assert.deepEqual(row, same[0]);
  assert.ok(same[0].some((v) => v === 0) && same[0].some((v) => v === 2));
  const rd = sg.func.vmap((r) => r.add(sg.randn([64])), { randomness: 'different' })(sg.zeros([3, 64])).toArray();
  assert.notDeepEqual(rd[0], rd[1]);
  const rs = sg.func.vmap((r) => r.add(sg.randn([64])), { randomness: 'same' })(sg.zeros([3, 64])).toArray();
  assert.deepEqual(rs[0], rs[1]);
  // dropout in eval mode is no random op
  const ev = sg.func.vmap((r) => sg.F.dropout(r, 0.5, false))(x);
  close(ev.toArray(), x.toArray(), 0);
});

test('vmap and vmap(grad) keep the tensor count flat', () => {
  sg.manualSeed(6);
  const X = sg.randn([8, 3]), W = sg.randn([3, 2]);
  const run = () => sg.tidy(() => {
    sg.func.vmap(sg.func.grad((w, x) => x.matmul(w).tanh().sum()), { inDims: [null, 0] })(W, X);
    sg.func.vmap((x) => x.softmax(0).sum())(X);
  });
  run();
  const before = sg.memory();
  for (let i = 0; i < 10; i++) run();
  const after = sg.memory();
  assert.equal(after.tensors, before.tensors);
  assert.equal(after.handles, before.handles);
});
