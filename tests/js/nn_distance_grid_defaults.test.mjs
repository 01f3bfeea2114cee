// Defaults no test pinned, against torch 1.13 (values printed by /usr/bin/python3 for the same
// inputs): F.pairwiseDistance (p 2, eps 1e-6 added to the difference, keepdim false: identical
// rows are sqrt(2)·1e-6 apart in 2-D), F.gridSample's paddingMode 'zeros' (a sample left of the
// image reads 0 there; 'border' would read the edge), sg.linalg.cholesky's upper false (the lower
// factor: cholesky([[4, 2], [2, 3]]) = [[2, 0], [1, √2]]).
import assert from 'node:assert/strict';
import test from 'node:test';
import { close, sg } from './helpers.mjs';

const F = sg.F;

test('pairwiseDistance defaults: p 2, eps 1e-6, keepdim false', () => {
  const a = sg.tensor([[1, 2], [3, 4]]);
  const d = F.pairwiseDistance(a, sg.tensor([[0, 0], [3, 5]]));
  assert.deepEqual(d.shape, [2]);
  close(d.toArray(), [2.2360692024230957, 0.9999989867210388], 1e-6);
  const same = F.pairwiseDistance(a, a).toArray();
  close(same, [1.4142135569272796e-6, 1.4142135569272796e-6], 1e-3);
  assert.ok(same[0] > 1e-6, `${same[0]}`);
});

test('gridSample pads with zeros by default', () => {
  const x = sg.arange(1, 5).float().reshape([1, 1, 2, 2]);
  const g = sg.tensor([[[[-1.5, 0], [0.5, 0.5]]]]);
  close(F.gridSample(x, g).toArray(), [[[[0, 4]]]], 1e-6);
  close(F.gridSample(x, g, { paddingMode: 'border' }).toArray()[0][0][0][0], 2, 1e-6);
});

test('linalg.cholesky gives the lower factor by default', () => {
  close(sg.linalg.cholesky(sg.tensor([[4, 2], [2, 3]])).toArray(), [[2, 0], [1, Math.SQRT2]], 1e-6);
});
