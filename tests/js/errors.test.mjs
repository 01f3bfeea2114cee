// Bad input gives an Error that names the function and says what was expected and got,
// and the module keeps working afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith, scoped } from './helpers.mjs';

test('matmul of misaligned shapes names both shapes; the module still works', scoped(() => {
  const a = sg.zeros(2, 3);
  const b = sg.zeros(4, 5);
  const e = throwsWith(() => a.matmul(b), 'matmul', /\[2, ?3\]/, /\[4, ?5\]/);
  assert.ok(e instanceof Error);
  assert.deepEqual(sg.ones(2, 3).matmul(sg.ones(3, 1)).toArray(), [[3], [3]]);
}));

test('shape errors from shape ops and broadcasting', scoped(() => {
  throwsWith(() => sg.zeros(2, 3).add(sg.zeros(4)), 'add');
  throwsWith(() => sg.zeros(2, 3).reshape(4, 2), 'reshape');
  throwsWith(() => sg.zeros(2, 3).transpose(0, 5), 'transpose');
  throwsWith(() => sg.zeros(2, 3).sum(2), 'sum');
  throwsWith(() => sg.cat([sg.zeros(2, 3), sg.zeros(2, 4)]), 'cat');
  throwsWith(() => sg.zeros(3).expand(2, 4), 'expand');
  throwsWith(() => sg.zeros(2, 3).softmax(3), 'softmax');
  throwsWith(() => sg.zeros(2, 3).T.view(6), 'view');
  assert.deepEqual(sg.zeros(2, 3).T.reshape(6).shape, [6]);
}));

test('bad dtypes', scoped(() => {
  throwsWith(() => sg.zeros(2, { dtype: 'complex64' }), 'zeros', 'dtype', "'complex64'");
  throwsWith(() => sg.tensor([1], { dtype: 'int128' }), 'tensor', 'dtype');
  const f = sg.tensor([1.5, 2]);
  throwsWith(() => f.indexSelect(0, sg.tensor([0])), /index_?select/i, 'int32');
  throwsWith(() => f.maskedFill(sg.tensor([1, 0]), 0), /masked_?fill/i, 'bool');
  throwsWith(() => sg.tensor([1, 2], { dtype: 'int32', requiresGrad: true }));
  throwsWith(() => sg.rand(2, { dtype: 'int32' }), 'rand', 'dtype');
}));

test('unknown options and wrongly typed options', scoped(() => {
  const x = sg.tensor([[1, 2], [3, 4]]);
  throwsWith(() => x.gelu({ approx: 'tanh' }), "gelu: unknown option 'approx' (expected one of: approximate)");
  throwsWith(() => x.gelu({ approximate: 'fast' }), 'gelu', "'approximate'", "'none', 'tanh'", "'fast'");
  throwsWith(() => x.var(0, false, { unbiasd: true }), "var: unknown option 'unbiasd'");
  throwsWith(() => x.var(0, false, { unbiased: 1 }), 'var', "'unbiased'", 'boolean', '1');
  throwsWith(() => x.softplus({ beta: NaN }), 'softplus', "'beta'", 'NaN');
  throwsWith(() => x.softplus({ beta: Infinity }), 'softplus', "'beta'", 'Infinity');
  throwsWith(() => sg.pad(x, [1, 1], { mode: 'wrap' }), 'pad', "'mode'", "'wrap'");
  throwsWith(() => sg.pad(x, [1, 1], { fill: 1 }), "pad: unknown option 'fill'");
  throwsWith(() => sg.zeros([2], { requires_grad: true }), "zeros: unknown option 'requires_grad'");
  throwsWith(() => sg.tensor([1], { shap: [1] }), "tensor: unknown option 'shap'");
  throwsWith(() => x.sum(0).backward(undefined, { retain: true }), "backward: unknown option 'retain'");
}));

test('wrong positional argument types', scoped(() => {
  const x = sg.tensor([[1, 2], [3, 4]]);
  throwsWith(() => x.add('1'), 'add', "'other'", "'1'");
  throwsWith(() => x.add([1, 2]), 'add', 'Tensor or a number');
  throwsWith(() => x.sum('0'), 'sum', 'dim');
  throwsWith(() => x.sum(0.5), 'sum', 'dim');
  throwsWith(() => x.sum(0, 'yes'), 'sum', 'keepdim');
  throwsWith(() => x.softmax(), 'softmax', 'dim');
  throwsWith(() => x.reshape(2, '2'), 'reshape', 'shape');
  throwsWith(() => x.leakyRelu(NaN), 'leakyRelu', 'negativeSlope');
  throwsWith(() => x.clamp('a'), 'clamp', 'min');
  throwsWith(() => sg.zeros(-1), 'zeros');
  throwsWith(() => sg.arange(0, 1, 0), 'arange', 'step');
  throwsWith(() => sg.manualSeed(-1), 'manualSeed');
  throwsWith(() => sg.setBackend('cuda'), 'setBackend', "'cuda'");
}));

test('disposed tensors throw "Tensor is disposed"; dispose is idempotent', () => {
  const t = sg.tensor([1, 2, 3]);
  t.dispose();
  t.dispose();
  assert.equal(t.isDisposed, true);
  throwsWith(() => t.toArray(), 'Tensor is disposed');
  throwsWith(() => t.shape, 'Tensor is disposed');
  throwsWith(() => t.add(1), 'Tensor is disposed');
  throwsWith(() => sg.add(1, t), 'Tensor is disposed');
  throwsWith(() => t.item(), 'Tensor is disposed');
  throwsWith(() => t.backward(), 'Tensor is disposed');
  assert.equal(t.toString(), 'Tensor(disposed)');
  const u = sg.tensor([1]);
  u[Symbol.dispose]();
  assert.equal(u.isDisposed, true);
  // A shape read before disposing is kept on the wrapper: reading it afterwards throws all the same,
  // and what it returns is a copy (editing it leaves the tensor's shape alone).
  const v = sg.tensor([[1, 2, 3]]);
  const shape = v.shape;
  shape[0] = 7;
  assert.deepEqual(v.shape, [1, 3]);
  v.dispose();
  throwsWith(() => v.shape, 'Tensor is disposed');
});

test('C++ errors arrive as real Errors with the op message, repeatedly', () => {
  for (let i = 0; i < 50; i++) {
    throwsWith(() => sg.tidy(() => sg.zeros(2, 3).matmul(sg.zeros(4, 5))), 'matmul');
  }
  assert.equal(sg.tidy(() => sg.ones(3).sum().item()), 3);
});
