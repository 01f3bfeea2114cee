// The shape ops on empty tensors (a dim of size 0): result shapes, values and, after
// sum(results).backward(), the gradients of the inputs, against PyTorch 1.13
// (tests/data/gen_empty_shapes.py → empty_shapes_ref.json; the cases are run here by name).
// The all-empty cat keeps autograd (PyTorch's CatBackward0 with empty gradients).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sg, close, throwsWith } from './helpers.mjs';

const ref = JSON.parse(readFileSync(new URL('../data/empty_shapes_ref.json', import.meta.url), 'utf8'));

const z = (...shape) => sg.zeros(shape, { requiresGrad: true });
const o = (...shape) => sg.ones(shape, { requiresGrad: true });
const idx = (...shape) => sg.zeros(shape, { dtype: 'int32' });

// name -> [inputs that require grad, the call] (the same calls as the generator's).
const CASES = {
  'cat 1-D empties': [() => [z(0), z(0)], (a, b) => sg.cat([a, b], 0)],
  'cat [0, 3] along 0': [() => [z(0, 3), z(0, 3)], (a, b) => sg.cat([a, b], 0)],
  'cat [2, 0] along 1': [() => [z(2, 0), z(2, 0)], (a, b) => sg.cat([a, b], 1)],
  'cat [0, 3] along 1': [() => [z(0, 3), z(0, 2)], (a, b) => sg.cat([a, b], 1)],
  'cat empty and full along 1': [() => [z(2, 0), o(2, 3)], (a, b) => sg.cat([a, b], 1)],
  'cat skips [0] beside [2, 3]': [() => [z(0), o(2, 3)], (a, b) => sg.cat([a, b], 0)],
  'stack 1-D empties': [() => [z(0), z(0)], (a, b) => sg.stack([a, b], 0)],
  'stack [2, 0] along 1': [() => [z(2, 0), z(2, 0), z(2, 0)], (a, b, c) => sg.stack([a, b, c], 1)],
  'stack [0, 3] along -1': [() => [z(0, 3), z(0, 3)], (a, b) => sg.stack([a, b], -1)],
  'split size 2 of [0, 3]': [() => [z(0, 3)], (a) => a.split(2, 0)],
  'split size 2 of [4, 0]': [() => [z(4, 0)], (a) => a.split(2, 0)],
  'split sections [0, 0] of [2, 0]': [() => [z(2, 0)], (a) => a.split([0, 0], 1)],
  'split sections [0, 3] of [2, 3]': [() => [o(2, 3)], (a) => a.split([0, 3], 1)],
  'chunk 2 of [0, 3]': [() => [z(0, 3)], (a) => a.chunk(2, 0)],
  'chunk 3 of [2, 0]': [() => [z(2, 0)], (a) => a.chunk(3, 0)],
  'narrow to length 0': [() => [o(2, 3)], (a) => a.narrow(1, 1, 0)],
  'narrow of [0, 3]': [() => [z(0, 3)], (a) => a.narrow(1, 0, 2)],
  'reshape [2, 0, 3] to [3, 0]': [() => [z(2, 0, 3)], (a) => a.reshape(3, 0)],
  'reshape [2, 0, 3] to [0]': [() => [z(2, 0, 3)], (a) => a.reshape(0)],
  'reshape [2, 0, 3] to [-1, 3]': [() => [z(2, 0, 3)], (a) => a.reshape(-1, 3)],
  'reshape [0, 3] to [0, -1] is ambiguous': [() => [z(0, 3)], (a) => a.reshape(0, -1)],
  'view [0, 3] as [3, 0]': [() => [z(0, 3)], (a) => a.view(3, 0)],
  'view [0, 3] as [0, 1, 3]': [() => [z(0, 3)], (a) => a.view(0, 1, 3)],
  'squeeze all of [1, 0, 1]': [() => [z(1, 0, 1)], (a) => a.squeeze()],
  'squeeze dim 0 of [1, 0, 1]': [() => [z(1, 0, 1)], (a) => a.squeeze(0)],
  'squeeze dim 1 of [1, 0, 1] (size 0 stays)': [() => [z(1, 0, 1)], (a) => a.squeeze(1)],
  'unsqueeze [0] at 0': [() => [z(0)], (a) => a.unsqueeze(0)],
  'unsqueeze [0] at -1': [() => [z(0)], (a) => a.unsqueeze(-1)],
  'flatten [2, 0, 3]': [() => [z(2, 0, 3)], (a) => a.flatten()],
  'flatten [2, 0, 3] from 1': [() => [z(2, 0, 3)], (a) => a.flatten(1)],
  'flatten [2, 0, 3] dims 0..1': [() => [z(2, 0, 3)], (a) => a.flatten(0, 1)],
  'permute [2, 0, 3] to (2, 0, 1)': [() => [z(2, 0, 3)], (a) => a.permute(2, 0, 1)],
  'transpose [2, 0, 3] dims 0, 1': [() => [z(2, 0, 3)], (a) => a.transpose(0, 1)],
  'expand [0, 1] to [0, 4]': [() => [z(0, 1)], (a) => a.expand(0, 4)],
  'expand [1, 3] to [0, 3]': [() => [o(1, 3)], (a) => a.expand(0, 3)],
  'expand [2, 0] to [3, 2, 0]': [() => [z(2, 0)], (a) => a.expand(3, 2, 0)],
  'repeat [2, 0] by (2, 3)': [() => [z(2, 0)], (a) => a.repeat(2, 3)],
  'repeat [2, 3] by (0, 1)': [() => [o(2, 3)], (a) => a.repeat(0, 1)],
  'flip [2, 0] along 0': [() => [z(2, 0)], (a) => a.flip(0)],
  'flip [0, 3] along both': [() => [z(0, 3)], (a) => a.flip(0, 1)],
  'roll [2, 0] by 1 along 1': [() => [z(2, 0)], (a) => a.roll(1, 1)],
  'roll [0, 3] flattened': [() => [z(0, 3)], (a) => a.roll(1)],
  'gather with an empty index': [() => [o(2, 3)], (a) => a.gather(1, idx(2, 0))],
  'gather from [2, 0]': [() => [z(2, 0)], (a) => a.gather(1, idx(2, 0))],
  'indexSelect with an empty index': [() => [o(2, 3)], (a) => a.indexSelect(1, idx(0))],
  'indexSelect of [0, 3] along 0': [() => [z(0, 3)], (a) => a.indexSelect(0, idx(0))],
  'pad [2, 0] by (1, 1)': [() => [z(2, 0)], (a) => sg.pad(a, [1, 1])],
  'pad [0, 3] by (1, 2)': [() => [z(0, 3)], (a) => sg.pad(a, [1, 2], { value: 5 })],
  'pad [0, 3] by (0, 0, 1, 1)': [() => [z(0, 3)], (a) => sg.pad(a, [0, 0, 1, 1])],
  'unbind [0, 3] along 0': [() => [z(0, 3)], (a) => a.unbind(0)],
  'unbind [2, 0] along 0': [() => [z(2, 0)], (a) => a.unbind(0)],
  'slice [2, 3] past the end': [() => [o(2, 3)], (a) => a.slice(1, 3)],
};

test('every reference case has its call here, and every call its reference', () => {
  assert.deepEqual(Object.keys(CASES).sort(), Object.keys(ref.cases).sort());
});

for (const [name, want] of Object.entries(ref.cases)) {
  test(`empty shapes: ${name}`, () => {
    const [make, call] = CASES[name];
    const live = sg.memory().tensors;
    const inputs = make();
    try {
      if (want.error) {
        // PyTorch refuses: so do we, naming the op.
        throwsWith(() => sg.tidy(() => call(...inputs)), /reshape/);
        return;
      }
      sg.tidy(() => {
        const out = call(...inputs);
        const outs = Array.isArray(out) ? out : [out];
        assert.equal(Array.isArray(out), want.list, 'a list result exactly where PyTorch gives one');
        assert.deepEqual(outs.map((t) => t.shape), want.shapes);
        outs.forEach((t, i) => close(Array.from(t.dataSync()), want.values[i]));
        const grads = want.grads.some((g) => g !== null);
        if (!grads) return;
        // Every result carries autograd back to the inputs (even when all are empty).
        for (const t of outs) assert.equal(t.requiresGrad, true, 'the result requires grad');
        outs.map((t) => t.sum()).reduce((a, b) => a.add(b)).backward();
      });
      inputs.forEach((t, i) => {
        const g = want.grads[i];
        if (g === null) {
          assert.equal(t.grad, null);
          return;
        }
        assert.ok(t.grad !== null, `input ${i} has a gradient`);
        assert.deepEqual(t.grad.shape, g.shape);
        close(Array.from(t.grad.dataSync()), g.values);
      });
    } finally {
      // The gradients' wrappers too (reading t.grad makes one).
      sg.dispose(inputs.map((t) => t.grad).filter((g) => g !== null));
      sg.dispose(inputs);
    }
    assert.equal(sg.memory().tensors, live, 'nothing leaks');
  });
}

test('an all-empty cat that requires grad backpropagates (it used to drop autograd)', () => {
  const a = sg.zeros([0], { requiresGrad: true }), b = sg.zeros([0], { requiresGrad: true });
  const c = sg.cat([a, b]);
  assert.deepEqual(c.shape, [0]);
  assert.equal(c.requiresGrad, true);
  assert.equal(c.gradFn, 'cat');
  sg.tidy(() => c.sum().backward());
  assert.deepEqual(a.grad.shape, [0]);
  assert.deepEqual(b.grad.shape, [0]);
  // Without grad nothing is recorded.
  const d = sg.noGrad(() => sg.cat([a, b]));
  assert.equal(d.requiresGrad, false);
  sg.dispose([a, b, c, d]);
});
