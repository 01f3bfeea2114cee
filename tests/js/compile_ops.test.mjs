// sg.compile over the ops that came after the graph compiler: in-place Tensor methods (kept in
// place and in order, applied once per call, the trace's own change undone), the sorting,
// scanning, triangle, einsum and indexing ops, and higher-order gradients (refused inside a
// compiled function with a message saying to take them eagerly).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, assertMemoryFlat, throwsWith, scoped, sameTensor as same, nearTensor as near } from './helpers.mjs';

test('in-place ops on a parameter run once per call, even when nothing reads their result', scoped(() => {
  const p = sg.zeros([3]);
  const f = sg.compile((t) => {
    p.add_(t);  // result unused: not dead code
    return t.mul(2);
  });
  const x = sg.tensor([1, 2, 3]);
  f(x);
  assert.deepEqual(p.toArray(), [1, 2, 3]);  // the trace's own add_ was put back
  f(x);
  assert.deepEqual(p.toArray(), [2, 4, 6]);
  assert.equal(f.stats().compiles, 1);
}));

test('an argument changed in place is changed once per call, as eagerly', scoped(() => {
  const fn = (t) => {
    t.mul_(3);
    return t.add(0);
  };
  const f = sg.compile(fn);
  const a = sg.ones([3]), b = sg.ones([3]);
  same(f(a), fn(b));
  same(a, b);
  same(f(a), fn(b));
  same(a, b);
}));

test('reads before an in-place op see the old values, reads after it the new ones (no fusion or CSE across it)', scoped(() => {
  const fn = (t) => {
    const before = t.exp();
    const neg = t.neg();
    const u = t.mul(2);
    u.add_(1);
    const again = t.mul(2);  // not the same value as u any more
    t.copy_(sg.zeros([3]));
    return [before.add(neg).add(t), u.add(again)];
  };
  const f = sg.compile(fn);
  const mk = () => sg.tensor([0, 1, 2]);
  const [c0, c1] = f(mk());
  const [e0, e1] = fn(mk());
  same(c0, e0, 'fused reads');
  same(c1, e1, 'cse');
}));

test('every in-place method inside a compiled function equals eager', scoped(() => {
  const other = sg.tensor([0.5, 2, -1, 3]);
  const mask = sg.tensor([true, false, true, false]);
  const changes = [
    ['add_', (t) => t.add_(other, { alpha: 2 })], ['sub_', (t) => t.sub_(other)], ['mul_', (t) => t.mul_(other)],
    ['div_', (t) => t.div_(other)], ['pow_', (t) => t.abs_().pow_(2)], ['clamp_', (t) => t.clamp_(-0.5, 0.5)],
    ['maskedFill_', (t) => t.maskedFill_(mask, 7)], ['addcmul_', (t) => t.addcmul_(other, other, { value: 0.5 })],
    ['addcdiv_', (t) => t.addcdiv_(other, other.abs().add(1))], ['neg_', (t) => t.neg_()], ['exp_', (t) => t.exp_()],
    ['log_', (t) => t.abs_().add_(1).log_()], ['sqrt_', (t) => t.abs_().sqrt_()], ['sigmoid_', (t) => t.sigmoid_()],
    ['tanh_', (t) => t.tanh_()], ['relu_', (t) => t.relu_()], ['fill_', (t) => t.fill_(4)], ['zero_', (t) => t.zero_()],
    ['copy_', (t) => t.copy_(other)],
  ];
  for (const [name, change] of changes) {
    const fn = (x) => {
      const y = x.mul(1.5);
      change(y);
      return y.add(x);
    };
    const x = sg.tensor([0.25, -1.5, 2, -0.75]);
    same(sg.compile(fn)(x), fn(x), name);
  }
  // random fills draw from the generator on every call, as eager code does
  const fn = (x) => sg.zeros([4]).normal_(0, 1).add(x.uniform_(0, 1));
  const c = sg.compile(fn);
  sg.manualSeed(4);
  const a = c(sg.zeros([4])), b = c(sg.zeros([4]));
  sg.manualSeed(4);
  same(a, fn(sg.zeros([4])));
  same(b, fn(sg.zeros([4])));
}));

test('an in-place update inside noGrad (a hand-written SGD step) trains as the eager one', scoped(() => {
  const mk = () => sg.tensor([1, -2, 0.5], { requiresGrad: true });
  const step = (w, x) => {
    w.grad = null;
    const loss = w.mul(x).sum().square();
    loss.backward();
    sg.noGrad(() => w.sub_(w.grad, { alpha: 0.1 }));
    return loss;
  };
  const we = mk(), wc = mk();
  const c = sg.compile((x) => step(wc, x));
  const x = sg.tensor([0.5, 1, -1]);
  for (let i = 0; i < 3; i++) {
    same(c(x), step(we, x), `loss ${i}`);
    same(wc.detach(), we.detach(), `w ${i}`);
  }
}));

test('a recorded in-place op (its history rebased) gives the eager gradients', scoped(() => {
  const fn = (x) => {
    const y = x.mul(2);
    y.mul_(x).add_(1);
    return y.sum();
  };
  const c = sg.compile(fn);
  const a = sg.tensor([1, 2, 3], { requiresGrad: true }), b = sg.tensor([1, 2, 3], { requiresGrad: true });
  const la = c(a), lb = fn(b);
  la.backward();
  lb.backward();
  same(la, lb);
  same(a.grad, b.grad);  // d(2x²+1)/dx = 4x
  assert.deepEqual(a.grad.toArray(), [4, 8, 12]);
}));

test('the sorting, scanning, triangle, einsum and indexing ops: compiled equals eager, gradients too', scoped(() => {
  const fns = [
    ['tril/triu', (x) => x.tril().add(x.triu(1).mul(2))],
    ['cumsum/cumprod', (x) => x.cumsum(1).add(x.cumprod(0))],
    ['sort', (x) => { const { values, indices } = x.sort(1, { descending: true }); return values.add(indices.float()); }],
    ['topk', (x) => x.topk(2, 1).values.mul(3)],
    ['argsort', (x) => x.argsort(0).float().add(x)],
    ['einsum', (x) => sg.einsum('ij,kj->ik', x, x.flip(0))],
    ['index', (x) => x.index([2, 0], null).add(x.index(1).sum())],
    ['gather/scatterAdd', (x) => x.gather(1, sg.tensor([[0, 0, 1], [2, 1, 0], [1, 1, 1]], { dtype: 'int32' })).scatterAdd(0, sg.tensor([[0, 1, 2]], { dtype: 'int32' }), x.index([0]))],
    ['flip/roll/repeat', (x) => x.flip(1).add(x.roll(1, 0)).repeat(1, 2)],
    ['diag/outer', (x) => x.diag().outer(x.diag()).add(x)],
    ['atan2/trig', (x) => sg.atan2(x, x.flip(0).add(0.5)).add(x.tan().sinh())],
  ];
  for (const [name, fn] of fns) {
    const c = sg.compile(fn);
    const x0 = sg.tensor([[0.3, -0.2, 0.9], [0.1, 0.5, -0.7], [-0.4, 0.8, 0.2]]);
    const a = x0.detach().requiresGrad_(), b = x0.detach().requiresGrad_();
    const ra = c(a), rb = fn(b);
    same(ra, rb, name);
    const w = sg.linspace(-1, 1, ra.numel).reshape(ra.shape);
    ra.mul(w).sum().backward();
    rb.mul(w).sum().backward();
    near(a.grad, b.grad, `${name}: gradient`);
  }
}));

test('higher-order gradients inside sg.compile are refused with what to do; eager ones still work', scoped(() => {
  const x = sg.tensor([1, 2], { requiresGrad: true });
  throwsWith(() => sg.compile((t) => {
    t.pow(3).sum().backward({ createGraph: true });
    return t.grad.sum();
  })(x), 'backward: createGraph (double backward) is not supported inside sg.compile yet', 'take higher-order gradients eagerly');
  throwsWith(() => sg.compile((t) => sg.autograd.grad(t.pow(3).sum(), [t], { createGraph: true })[0])(x), 'computeGrads: createGraph', 'eagerly');
  assert.equal(x.grad, null);  // the failed trace left nothing behind
  const [g] = sg.autograd.grad(x.pow(3).sum(), [x], { createGraph: true });
  assert.deepEqual(g.toArray(), [3, 12]);
}));

test('long loops of a compiled step with in-place updates keep sg.memory() flat', () => {
  const w = sg.randn([8, 8], { requiresGrad: true });
  const m = sg.zeros([8, 8]);
  const step = sg.compile((x) => {
    w.grad = null;
    const l = x.matmul(w).tanh().square().mean();
    l.backward();
    sg.noGrad(() => {
      m.mul_(0.9).add_(w.grad);
      w.sub_(m, { alpha: 0.01 });
    });
    return l;
  });
  const x = sg.randn([4, 8]);
  const run = () => sg.tidy(() => void step(x));
  assertMemoryFlat(run, { warmup: 3, steps: 200 });
  step.clear();
  w.grad = null;
  sg.dispose([w, m, x]);
});

test('random draws of bernoulli and multinomial are never merged or dropped by the compiler: compiled draws equal eager ones', scoped(() => {
  const p = sg.full([64], 0.5);
  const probs = sg.ones([4, 16]);
  const draws = (x, w) => {
    const a = x.bernoulli();
    const b = x.bernoulli(); // the same op on the same input: a second, independent draw
    w.multinomial(3); // unused: must still take its numbers from the generator
    const m1 = w.multinomial(3, { replacement: true });
    const m2 = w.multinomial(3, { replacement: true });
    return [a, b, m1, m2, sg.rand([5])];
  };
  const f = sg.compile(draws);
  for (let call = 0; call < 2; call++) {
    sg.manualSeed(11 + call);
    const want = draws(p, probs);
    sg.manualSeed(11 + call);
    const got = f(p, probs);
    want.forEach((t, i) => same(got[i], t, `call ${call}, result ${i}`));
    assert.notDeepEqual(Array.from(got[0].dataSync()), Array.from(got[1].dataSync()), 'two bernoulli draws');
  }
}));
