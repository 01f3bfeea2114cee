// nn.MultiheadAttention.forward (nn/attention.ts): each part of the shape guards decides a call (key rank alone,
// value rank alone; key/value length, key batch, value batch each alone; each dim of a 3-D attnMask alone;
// keyPaddingMask rank, batch and length each alone). Oracle: PyTorch 1.13's nn.MultiheadAttention refuses each of
// these shapes (and takes the matching ones); messages are sg's contract (read from the source).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

const E = 4, H = 2, L = 3, N = 2, S = 5;

test('MultiheadAttention: key and value ranks each alone, and key/value lengths and batches each alone', () => sg.tidy(() => {
  sg.manualSeed(0);
  const m = new sg.nn.MultiheadAttention(E, H);
  const q = sg.randn([L, N, E]), kv = sg.randn([S, N, E]);
  const [out] = m.forward(q, kv, kv);
  assert.deepEqual(out.shape, [L, N, E]);
  const k2 = sg.randn([S, E]);
  throwsWith(() => m.forward(q, k2, kv), 'MultiheadAttention: query, key and value must have the same number of dims, got [3, 2, 4], [5, 4], [5, 2, 4]');
  throwsWith(() => m.forward(q, kv, k2), 'MultiheadAttention: query, key and value must have the same number of dims, got [3, 2, 4], [5, 2, 4], [5, 4]');
  const v6 = sg.randn([S + 1, N, E]), k3 = sg.randn([S, N + 1, E]);
  throwsWith(() => m.forward(q, kv, v6), 'MultiheadAttention: key [5, 2, 4] and value [6, 2, 4] do not match query [3, 2, 4]');
  throwsWith(() => m.forward(q, k3, kv), 'MultiheadAttention: key [5, 3, 4] and value [5, 2, 4] do not match query [3, 2, 4]');
  throwsWith(() => m.forward(q, kv, k3), 'MultiheadAttention: key [5, 2, 4] and value [5, 3, 4] do not match query [3, 2, 4]');
}));

test('MultiheadAttention: a 3-D attnMask must be [N·H, L, S], each dim alone; a keyPaddingMask [N, S], rank, N and S alone', () => sg.tidy(() => {
  sg.manualSeed(0);
  const m = new sg.nn.MultiheadAttention(E, H);
  const q = sg.randn([L, N, E]), kv = sg.randn([S, N, E]);
  assert.deepEqual(m.forward(q, kv, kv, { attnMask: sg.zeros([N * H, L, S]) })[0].shape, [L, N, E]);
  for (const bad of [[N * H + 1, L, S], [N * H, L + 1, S], [N * H, L, S + 1]]) {
    throwsWith(() => m.forward(q, kv, kv, { attnMask: sg.zeros(bad) }), `MultiheadAttention: the shape of the 3D attnMask is [${bad.join(', ')}], but should be [4, 3, 5].`);
  }
  const f = (shape) => sg.zeros(shape, { dtype: 'bool' });
  assert.deepEqual(m.forward(q, kv, kv, { keyPaddingMask: f([N, S]) })[0].shape, [L, N, E]);
  for (const bad of [[N, S, 1], [N + 1, S], [N, S + 1]]) {
    throwsWith(() => m.forward(q, kv, kv, { keyPaddingMask: f(bad) }), `MultiheadAttention: expected keyPaddingMask of shape [2, 5], got [${bad.join(', ')}]`);
  }
}));
