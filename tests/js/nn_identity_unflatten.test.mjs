// nn.Identity and nn.Unflatten (torch.nn.Identity / torch.nn.Unflatten): values against their
// closed forms (Unflatten keeps row-major order: out[i, j, k] = x[i, j·3 + k]), -1 inference
// and negative dims as PyTorch, gradients by central differences, PyTorch's repr, no leaks.
// Their bad input is in bad_input_cases.mjs (the 'module' group).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close } from './helpers.mjs';
import { gradcheck, lcg } from './gradcheck_helpers.mjs';

const { nn } = sg;

test('Identity returns its input (the same tensor), ignores its arguments, prints as PyTorch', () => {
  const x = sg.tensor([[1, 2], [3, 4]]);
  const m = new nn.Identity(54, { unused: 0.1 });
  assert.equal(m.forward(x), x);
  assert.equal(String(m), 'Identity()');
  assert.equal(m.parameters().length, 0);
  sg.dispose([x, m]);
});

test('Unflatten: out[i, j, k] = x[i, j·3 + k]; -1 inferred; negative dim; repr', () => {
  const before = sg.memory().tensors;
  sg.tidy(() => {
    const data = Array.from({ length: 2 * 6 }, (_, i) => i - 5.5);
    const x = sg.tensor(data, { shape: [2, 6] });
    const want = [0, 1].map((i) => [0, 1].map((j) => [0, 1, 2].map((k) => data[i * 6 + j * 3 + k])));
    for (const m of [new nn.Unflatten(1, [2, 3]), new nn.Unflatten(-1, [-1, 3]), new nn.Unflatten(1, [2, -1])]) {
      const out = m.forward(x);
      assert.deepEqual(out.shape, [2, 2, 3]);
      close(out.toArray(), want, 0);
    }
    // The leading dim, with a size-1 piece: [2, 6] → [1, 2, 6].
    assert.deepEqual(new nn.Unflatten(0, [1, 2]).forward(x).shape, [1, 2, 6]);
    // An empty dim splits when the -1 piece can be 0.
    assert.deepEqual(new nn.Unflatten(1, [-1, 3]).forward(sg.zeros([2, 0])).shape, [2, 0, 3]);
    assert.equal(String(new nn.Unflatten(1, [2, 3])), 'Unflatten(dim=1, unflattened_size=(2, 3))');
  });
  assert.equal(sg.memory().tensors, before);
});

test('Unflatten: gradient by central differences (inside a Sequential, after a Linear)', () => {
  sg.manualSeed(3);
  const lin = new nn.Linear(4, 6);
  const m = new nn.Sequential(lin, new nn.Unflatten(1, [3, -1]));
  const x = sg.tensor(lcg(7, 8), { shape: [2, 4], requiresGrad: true });
  gradcheck('Unflatten(Linear(x))', (t) => m.forward(t).mul(m.forward(t)), [x]);
  sg.dispose([x, m]);
});
