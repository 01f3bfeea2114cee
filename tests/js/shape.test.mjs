// Shape ops and views: reshape/view/expand with array or spread shapes, transpose/permute/
// slice views read correctly, cat/stack/split/chunk/narrow, indexSelect/gather with arrays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith, scoped } from './helpers.mjs';

const M = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]; // arange(12).reshape(3, 4)

test('reshape, view, flatten, squeeze, unsqueeze, expand', scoped(() => {
  const a = sg.arange(12);
  assert.deepEqual(a.reshape(3, 4).toArray(), M);
  assert.deepEqual(a.reshape([3, 4]).toArray(), M);
  assert.deepEqual(a.reshape(-1, 6).shape, [2, 6]);
  assert.deepEqual(sg.reshape(a, [2, -1]).shape, [2, 6]);
  assert.deepEqual(a.view(2, 2, 3).toArray(), [[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9, 10, 11]]]);
  const m = a.reshape(3, 4);
  assert.deepEqual(m.view([12]).toArray(), M.flat());
  assert.deepEqual(a.reshape(2, 3, 2).flatten().toArray(), M.flat());
  assert.deepEqual(a.reshape(2, 3, 2).flatten(1).shape, [2, 6]);
  assert.deepEqual(a.reshape(2, 3, 2).flatten(0, 1).shape, [6, 2]);
  const u = m.unsqueeze(0);
  assert.deepEqual(u.shape, [1, 3, 4]);
  assert.deepEqual(m.unsqueeze(-1).shape, [3, 4, 1]);
  assert.deepEqual(u.squeeze().shape, [3, 4]);
  assert.deepEqual(sg.zeros(1, 3, 1).squeeze(0).shape, [3, 1]);
  assert.deepEqual(sg.tensor([[1], [2]]).expand(2, 3).toArray(), [[1, 1, 1], [2, 2, 2]]);
  assert.deepEqual(sg.tensor([1, 2]).expand([3, 2]).toArray(), [[1, 2], [1, 2], [1, 2]]);
  assert.deepEqual(sg.tensor([[1], [2]]).expand(-1, 2).toArray(), [[1, 1], [2, 2]]);
}));

test('transpose, permute and T are views with the right values', scoped(() => {
  const m = sg.arange(12).reshape(3, 4);
  const t = m.transpose(0, 1);
  assert.deepEqual(t.shape, [4, 3]);
  assert.deepEqual(t.toArray(), [[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]]);
  assert.deepEqual(Array.from(t.dataSync()), [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]);
  assert.deepEqual(m.T.toArray(), t.toArray());
  assert.deepEqual(sg.transpose(m, -1, -2).toArray(), t.toArray());
  throwsWith(() => sg.arange(3).T, 'T', '2-D');

  const c = sg.arange(24).reshape(2, 3, 4);
  const p = c.permute(2, 0, 1);
  assert.deepEqual(p.shape, [4, 2, 3]);
  // p[k][i][j] = c[i][j][k] = 12i + 4j + k
  const want = [0, 1, 2, 3].map((k) => [0, 1].map((i) => [0, 1, 2].map((j) => 12 * i + 4 * j + k)));
  assert.deepEqual(p.toArray(), want);
  assert.deepEqual(c.permute([2, 0, 1]).toArray(), want);
  // a view of a view, then an op on it
  assert.deepEqual(p.transpose(1, 2).add(0).toArray(), [0, 1, 2, 3].map((k) => [0, 1, 2].map((j) => [0, 1].map((i) => 12 * i + 4 * j + k))));
  assert.deepEqual(t.contiguous().toArray(), t.toArray());
  assert.deepEqual(t.clone().toArray(), t.toArray());
}));

test('slice and narrow, with negative and stepped ranges', scoped(() => {
  const m = sg.arange(12).reshape(3, 4);
  assert.deepEqual(m.slice(1, 1, 3).toArray(), M.map((r) => r.slice(1, 3)));
  assert.deepEqual(m.slice(0, 1).toArray(), M.slice(1));
  assert.deepEqual(m.slice(1, 0, 4, 2).toArray(), M.map((r) => [r[0], r[2]]));
  assert.deepEqual(m.slice(-1, -2).toArray(), M.map((r) => r.slice(-2)));
  assert.deepEqual(m.slice(0, null, -1).toArray(), M.slice(0, -1));
  assert.deepEqual(m.slice(1, 1, 100).toArray(), M.map((r) => r.slice(1)));
  assert.deepEqual(sg.slice(m, 0, 0, 3, 2).toArray(), [M[0], M[2]]);
  assert.deepEqual(m.narrow(1, 1, 2).toArray(), M.map((r) => r.slice(1, 3)));
  assert.deepEqual(m.narrow(0, 2, 1).toArray(), [M[2]]);
  // a slice of a transpose
  assert.deepEqual(m.T.slice(0, 1, 3).toArray(), [[1, 5, 9], [2, 6, 10]]);
}));

test('cat, stack, split, chunk', scoped(() => {
  const a = sg.tensor([[1, 2], [3, 4]]);
  const b = sg.tensor([[5, 6]]);
  assert.deepEqual(sg.cat([a, b]).toArray(), [[1, 2], [3, 4], [5, 6]]);
  assert.deepEqual(sg.cat([a, a], 1).toArray(), [[1, 2, 1, 2], [3, 4, 3, 4]]);
  assert.deepEqual(sg.cat([a, a], -1).shape, [2, 4]);
  assert.deepEqual(sg.stack([a, a]).shape, [2, 2, 2]);
  assert.deepEqual(sg.stack([a, a.neg()], 2).toArray(), [[[1, -1], [2, -2]], [[3, -3], [4, -4]]]);
  const parts = sg.arange(5).split(2);
  assert.equal(parts.length, 3);
  assert.deepEqual(parts.map((p) => p.toArray()), [[0, 1], [2, 3], [4]]);
  const secs = sg.arange(12).reshape(3, 4).split([1, 3], 1);
  assert.deepEqual(secs.map((p) => p.toArray()), [M.map((r) => [r[0]]), M.map((r) => r.slice(1))]);
  const ch = sg.arange(6).chunk(3);
  assert.deepEqual(ch.map((p) => p.toArray()), [[0, 1], [2, 3], [4, 5]]);
  const ch2 = sg.chunk(sg.arange(12).reshape(3, 4), 2, 1);
  assert.deepEqual(ch2.map((p) => p.toArray()), [M.map((r) => r.slice(0, 2)), M.map((r) => r.slice(2))]);
  throwsWith(() => sg.cat([]), 'cat');
  throwsWith(() => sg.cat([a, 1]), 'cat', 'Tensor');
}));

test('indexSelect and gather accept int32 tensors and plain arrays', scoped(() => {
  const m = sg.arange(12).reshape(3, 4);
  assert.deepEqual(m.indexSelect(0, [2, 0]).toArray(), [M[2], M[0]]);
  assert.deepEqual(m.indexSelect(1, sg.tensor([3, 3, 1], { dtype: 'int32' })).toArray(), M.map((r) => [r[3], r[3], r[1]]));
  assert.deepEqual(sg.indexSelect(m, -1, [0]).toArray(), M.map((r) => [r[0]]));
  const idx = [[0, 3], [1, 1], [2, 0]];
  assert.deepEqual(m.gather(1, idx).toArray(), idx.map((r, i) => r.map((j) => M[i][j])));
  const idx0 = [[2, 1, 0, 0]];
  assert.deepEqual(sg.gather(m, 0, idx0).toArray(), [[M[2][0], M[1][1], M[0][2], M[0][3]]]);
  throwsWith(() => m.indexSelect(0, [5]), /index_?select/i, '5');
  throwsWith(() => m.indexSelect(0, [0.5]), 'indexSelect', 'integer');
}));

test('views share storage: no new bytes for transpose, permute, slice, expand, reshape', scoped(() => {
  const m = sg.arange(24).reshape(2, 3, 4);
  const bytes = sg.memory().bytes;
  const views = [m.transpose(0, 2), m.permute(1, 2, 0), m.slice(2, 1, 3), m.narrow(1, 0, 2), m.reshape(6, 4),
    m.unsqueeze(0), m.slice(0, 0, 1).squeeze(0), m.slice(2, 0, 1).expand(2, 3, 5), m.detach()];
  assert.equal(sg.memory().bytes, bytes);
  // and they read the base's values
  assert.deepEqual(views[2].toArray(), [0, 1].map((i) => [0, 1, 2].map((j) => [1, 2].map((k) => 12 * i + 4 * j + k))));
  assert.deepEqual(views[7].toArray(), [0, 1].map((i) => [0, 1, 2].map((j) => Array(5).fill(12 * i + 4 * j))));
}));
