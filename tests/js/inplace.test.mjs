// In-place Tensor methods (add_, mul_, fill_, copy_, ...): values against the out-of-place ops
// and hand values, chaining, PyTorch's autograd rules (the version check at backward with its
// message, the leaf rule, rebased history, refused views), and memory.
import assert from 'node:assert/strict';
import test from 'node:test';

import { sg, close, throwsWith } from './helpers.mjs';

const data = [[0.5, -1.25, 2], [3, -0.75, 1.5]];

test('each in-place method gives its out-of-place op and returns this', () => {
  const cases = [
    ['add_', [sg.tensor([1, 2, 3])], (x) => x.add(sg.tensor([1, 2, 3]))],
    ['add_', [sg.tensor([1, 2, 3]), { alpha: -0.5 }], (x) => x.add(sg.tensor([-0.5, -1, -1.5]))],
    ['sub_', [2, { alpha: 3 }], (x) => x.sub(6)],
    ['mul_', [sg.tensor([[2], [-1]])], (x) => x.mul(sg.tensor([[2], [-1]]))],
    ['div_', [4], (x) => x.div(4)],
    ['pow_', [2], (x) => x.pow(2)],
    ['clamp_', [-1, 1], (x) => x.clamp(-1, 1)],
    ['clamp_', [null, 0], (x) => x.clamp(null, 0)],
    ['maskedFill_', [sg.tensor([true, false, true], { dtype: 'bool' }), 9], (x) => x.maskedFill(sg.tensor([true, false, true], { dtype: 'bool' }), 9)],
    ['addcmul_', [sg.tensor([1, 2, 3]), 2, { value: 0.5 }], (x) => x.add(sg.tensor([1, 2, 3]))],
    ['addcdiv_', [sg.tensor([1, 2, 3]), 2, { value: -1 }], (x) => x.sub(sg.tensor([0.5, 1, 1.5]))],
    ['neg_', [], (x) => x.neg()],
    ['exp_', [], (x) => x.exp()],
    ['abs_', [], (x) => x.abs()],
    ['sigmoid_', [], (x) => x.sigmoid()],
    ['tanh_', [], (x) => x.tanh()],
    ['relu_', [], (x) => x.relu()],
    ['fill_', [7.5], (x) => x.mul(0).add(7.5)],
    ['zero_', [], (x) => x.mul(0)],
    ['copy_', [sg.tensor([4, 5, 6])], () => sg.tensor([[4, 5, 6], [4, 5, 6]])],
  ];
  for (const [name, args, expected] of cases) {
    const x = sg.tensor(data);
    const want = expected(sg.tensor(data));
    const r = x[name](...args);
    assert.equal(r, x, `${name} returns this`);
    close(x.toArray(), want.toArray(), 1e-6, name);
    sg.dispose([x, want, ...args.filter((a) => a instanceof sg.Tensor)]);
  }
  const p = sg.tensor([[0.25, 4], [9, 2]]);
  close(p.log_().toArray(), [[Math.log(0.25), Math.log(4)], [Math.log(9), Math.log(2)]], 1e-6, 'log_');
  p.abs_().sqrt_();
  close(p.toArray(), [[Math.sqrt(Math.log(4)), Math.sqrt(Math.log(4))], [Math.sqrt(Math.log(9)), Math.sqrt(Math.log(2))]], 1e-6, 'sqrt_');
  p.dispose();
});

test('chaining, views that see the change, int32 tensors and casts', () => {
  const x = sg.tensor([[1, 2, 3], [4, 5, 6]]);
  const t = x.T;
  x.add_(1).mul_(2).sub_(1);
  close(x.toArray(), [[3, 5, 7], [9, 11, 13]]);
  close(t.toArray(), [[3, 9], [5, 11], [7, 13]]);
  t.zero_(); // through the transposed (non-contiguous) view
  close(x.toArray(), [[0, 0, 0], [0, 0, 0]]);
  const i = sg.tensor([1, 2, 3], { dtype: 'int32' });
  i.add_(2).mul_(3);
  assert.deepEqual(i.toArray(), [9, 12, 15]);
  assert.equal(i.dtype, 'int32');
  i.copy_(sg.tensor([1.9, -2.9, 0.5]));
  assert.deepEqual(i.toArray(), [1, -2, 0]); // float → int truncates, as PyTorch's copy_
  throwsWith(() => i.add_(0.5), 'add_', /result type float32 can't be cast/, /int32/);
  throwsWith(() => i.exp_(), 'exp_', /int32/);
  throwsWith(() => sg.tensor([1, 2, 3]).add_(sg.ones(2, 3)), 'add_', /output with shape \[3\]/, /broadcast shape \[2, 3\]/);
  sg.dispose([x, t, i]);
});

test('normal_ and uniform_ draw from the global generator, seeded', () => {
  sg.manualSeed(42);
  const a = sg.zeros(20000).normal_(2, 0.5);
  sg.manualSeed(42);
  const b = sg.zeros(20000).normal_(2, 0.5);
  assert.deepEqual(Array.from(a.dataSync()), Array.from(b.dataSync()));
  close(a.mean().item(), 2, 0.01);
  close(a.std().item(), 0.5, 0.02);
  const u = sg.zeros(20000).uniform_(-1, 3);
  assert.ok(u.min().item() >= -1 && u.max().item() < 3);
  close(u.mean().item(), 1, 0.03);
  sg.dispose([a, b, u]);
});

test('a leaf that requires grad can only be changed inside noGrad', () => {
  const w = sg.tensor([1, 2, 3], { requiresGrad: true });
  throwsWith(() => w.add_(1), 'add_', /a leaf Variable that requires grad is being used in an in-place operation/, /noGrad/);
  sg.noGrad(() => w.mul_(2).add_(1));
  close(w.toArray(), [3, 5, 7]);
  assert.ok(w.isLeaf && w.requiresGrad);
  w.dispose();
});

test("a tensor saved for backward and changed afterwards: backward throws PyTorch's explanation", () => {
  const w = sg.tensor([1, 2, 3], { requiresGrad: true });
  const y = w.mul(2);
  const z = y.mul(y); // saves y (version 0)
  y.add_(1); // version 1
  throwsWith(
    () => z.sum().backward(),
    'backward',
    'one of the variables needed for gradient computation has been modified by an inplace operation: [float32 [3]]',
    'is at version 1; expected version 0 instead',
  );
  const s = w.sigmoid(); // saves its output
  s.mul_(2);
  throwsWith(() => s.sum().backward(), "output 0 of 'sigmoid'", 'is at version 1; expected version 0');
  assert.equal(w.grad, null);
  sg.dispose([w, y, z, s]);
});

test("a recorded change rebases the tensor's history (PyTorch: ones(3).mul_(w))", () => {
  const w = sg.tensor([1, 2, 3], { requiresGrad: true });
  const b = sg.tensor([0.5, -1, 2], { requiresGrad: true });
  const h = w.mul(1);
  h.mul_(w).add_(b).exp_(); // exp(w² + b)
  assert.equal(h.gradFn, 'exp');
  h.sum().backward();
  const e = [1, 2, 3].map((v, i) => Math.exp(v * v + [0.5, -1, 2][i]));
  close(w.grad.toArray(), e.map((v, i) => 2 * (i + 1) * v), 1e-5);
  close(b.grad.toArray(), e, 1e-5);
  const t = sg.tensor([2, 2, 2]);
  t.mul_(w); // t had no history: it joins the graph
  assert.ok(t.requiresGrad && !t.isLeaf);
  w.grad = null;
  t.sum().backward();
  close(w.grad.toArray(), [2, 2, 2]);
  sg.dispose([w, b, h, t]);
});

test('changes that would be recorded on a view of a graph tensor are refused', () => {
  const w = sg.tensor([[1, 2], [3, 4]], { requiresGrad: true });
  const h = w.mul(1);
  const v = h.T;
  throwsWith(() => v.add_(1), 'add_', /a view in the autograd graph/, /out-of-place op, or change a clone\(\)/);
  throwsWith(() => h.mul_(2), 'mul_', /a view in the autograd graph/);
  sg.noGrad(() => v.add_(1)); // not recorded: allowed
  close(h.toArray(), [[2, 3], [4, 5]]);
  sg.dispose([w, h, v]);
});

test('in-place ops in a loop keep memory flat', () => {
  const x = sg.zeros(64);
  const w = sg.ones(64, { requiresGrad: true });
  const before = sg.memory();
  for (let i = 0; i < 50; i++) {
    sg.tidy(() => {
      sg.noGrad(() => {
        w.sub_(x.add_(0.01).mul(0.1)).clamp_(-1, 1);
      });
    });
    x.fill_(i % 3).normal_().uniform_().zero_();
  }
  const after = sg.memory();
  assert.equal(after.tensors, before.tensors);
  assert.equal(after.bytes, before.bytes);
  sg.dispose([x, w]);
});
