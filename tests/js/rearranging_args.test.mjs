// tensor/rearranging.ts: rot90's values for every k in -5..6 and every ordered pair of dims (negative
// dims too) of a 3-D tensor against a plain-JS rotation (torch.rot90's rule: one turn maps
// out[.., i at d0, .., j at d1, ..] = in[.., j at d0, .., n1 - 1 - i at d1, ..]), and the whole
// message of every Error the file's ops raise, as the method and as the function: each names the
// op, the argument and what it got. The texts are written from that rule (API.md), not read from
// the code, so a wrong name, index or shape in a message fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

/** One quarter turn of a row-major array in the plane (d0, d1), from d0 towards d1. */
function turn({ data, shape }, d0, d1) {
  const out = shape.slice();
  [out[d0], out[d1]] = [shape[d1], shape[d0]];
  const strides = (s) => s.map((_, i) => s.slice(i + 1).reduce((a, b) => a * b, 1));
  const si = strides(shape), so = strides(out);
  const res = new Array(data.length);
  for (let f = 0; f < data.length; f++) {
    const idx = so.map((st, i) => Math.floor(f / st) % out[i]);
    const src = idx.slice();
    src[d0] = idx[d1];
    src[d1] = shape[d1] - 1 - idx[d0];
    res[f] = data[src.reduce((a, v, i) => a + v * si[i], 0)];
  }
  return { data: res, shape: out };
}

test('rot90 against a plain-JS rotation: k -5..6, every ordered pair of distinct dims, negative dims', () => {
  const shape = [2, 3, 4];
  const data = Array.from({ length: 24 }, (_, i) => i * 1.5 - 7);
  const x = sg.tensor(data, { shape });
  const live = sg.memory().tensors;
  for (let k = -5; k <= 6; k++) {
    for (const [a, b] of [[0, 1], [1, 0], [0, 2], [2, 0], [1, 2], [2, 1]]) {
      let want = { data, shape };
      for (let t = 0; t < ((k % 4) + 4) % 4; t++) want = turn(want, a, b);
      for (const [da, db] of [[a, b], [a - 3, b], [a, b - 3]]) {
        const got = x.rot90(k, [da, db]);
        assert.deepEqual(got.shape, want.shape, `rot90(${k}, [${da}, ${db}]) shape`);
        assert.deepEqual(Array.from(got.dataSync()), want.data, `rot90(${k}, [${da}, ${db}])`);
        got.dispose();
      }
      const kw = sg.rot90(x, { k, dims: [a, b] });
      assert.deepEqual(Array.from(kw.dataSync()), want.data, `sg.rot90(x, { k: ${k}, dims: [${a}, ${b}] })`);
      kw.dispose();
    }
  }
  // The defaults: k = 1, dims = [0, 1].
  const d = sg.rot90(x);
  assert.deepEqual(Array.from(d.dataSync()), turn({ data, shape }, 0, 1).data);
  d.dispose();
  // k = 0 (and 4) is a copy, not the input itself.
  const c = x.rot90(4, [0, 2]);
  assert.notEqual(c, x);
  c.dispose();
  assert.equal(sg.memory().tensors, live);
  x.dispose();
});

test('every Error of rearranging.ts names the op, the argument and what it got', () => {
  const x = sg.tensor([[1, 2, 3], [4, 5, 6]]);
  const v = sg.tensor([1, 2, 3]);
  const s = sg.tensor(5);
  const cases = [
    ['rot90 k 1.5', () => x.rot90(1.5), "rot90: expected 'k' to be an integer, got 1.5"],
    ['rot90 k a string', () => sg.rot90(x, '1'), "rot90: expected 'k' to be an integer, got '1'"],
    ['rot90 one dim', () => x.rot90(1, [0]), "rot90: expected 'dims' to be two dims, got [0]"],
    ['rot90 three dims', () => sg.rot90(x, 1, [0, 1, 0]), "rot90: expected 'dims' to be two dims, got [0, 1, 0]"],
    ['rot90 dims a number', () => x.rot90({ dims: 1 }), "rot90: expected 'dims' to be two dims, got 1"],
    ['rot90 of a vector', () => v.rot90(), 'rot90: expected an input with at least 2 dims, got shape [3]'],
    ['rot90 of a scalar', () => sg.rot90(s), 'rot90: expected an input with at least 2 dims, got shape []'],
    ['rot90 dims[0] out of range', () => x.rot90(1, [2, 1]), "rot90: expected 'dims[0]' to be an integer in [-2, 1], got 2"],
    ['rot90 dims[1] out of range', () => x.rot90(1, [0, -3]), "rot90: expected 'dims[1]' to be an integer in [-2, 1], got -3"],
    ['rot90 the same dim twice', () => x.rot90(1, [1, -1]), 'rot90: expected two different dims, got 1 and 1'],
    ['rot90 the same dim', () => x.rot90(1, [0, 0]), 'rot90: expected two different dims, got 0 and 0'],
    ['flipud of a scalar', () => s.flipud(), 'flipud: expected an input with at least 1 dim, got a 0-d tensor'],
    ['fliplr of a vector', () => sg.fliplr(v), 'fliplr: expected an input with at least 2 dims, got shape [3]'],
    ['flip by a string', () => x.flip('0'), "flip: expected 'dims' to be integers (spread or one array), got ['0']"],
    ['flip by 0.5 in an array', () => sg.flip(x, [0, 0.5]), "flip: expected 'dims' to be integers (spread or one array), got [0, 0.5]"],
    ['roll by 1.5', () => x.roll(1.5), "roll: expected 'shifts' to be an integer or an array of integers, got 1.5"],
    ['roll over a string dim', () => sg.roll(x, 1, '0'), "roll: expected 'dims' to be an integer or an array of integers, got '0'"],
    ['repeatInterleave -1', () => x.repeatInterleave(-1), "repeatInterleave: expected 'repeats' to be an integer >= 0 (a tensor of repeats is not supported), got -1"],
    ['repeatInterleave by a tensor', () => sg.repeatInterleave(x, v), "repeatInterleave: expected 'repeats' to be an integer >= 0 (a tensor of repeats is not supported), got a Tensor of shape [3] (float32)"],
    ['movedim lengths', () => x.movedim([0, 1], [1]), "movedim: expected 'source' and 'destination' of one length, got 2 and 1"],
    ['movedim repeated', () => sg.movedim(x, [0, -2], [1, 0]), 'movedim: repeated dims in source or destination'],
    ['movedim destination[1] out of range', () => x.movedim([0, 1], [1, 2]), "movedim: expected 'destination[1]' to be an integer in [-2, 1], got 2"],
    ['unbind dim 2', () => x.unbind(2), "unbind: expected 'dim' to be an integer in [-2, 1], got 2"],
    ['meshgrid of nothing', () => sg.meshgrid([]), 'meshgrid: expected at least one tensor'],
    ['meshgrid of a matrix', () => sg.meshgrid(v, x), "meshgrid: expected 'tensors[1]' to be 1-D, got shape [2, 3]"],
    ...['rot90', 'flipud', 'fliplr', 'unbind'].map((op) => [`${op} of a string`, () => sg[op]('x'), `${op}: expected 'input' to be a Tensor, got 'x'`]),
    ['repeatInterleave of a string', () => sg.repeatInterleave('x', 2), "repeatInterleave: expected 'input' to be a Tensor, got 'x'"],
    ['movedim of a string', () => sg.movedim('x', 0, 1), "movedim: expected 'input' to be a Tensor, got 'x'"],
    ['meshgrid of a string', () => sg.meshgrid([v, 'x']), "meshgrid: expected 'tensors[1]' to be a Tensor, got 'x'"],
    ['meshgrid indexing', () => sg.meshgrid(v, v, { indexing: 'yx' }), "meshgrid: option 'indexing' must be one of 'ij', 'xy', got 'yx'"],
  ];
  const live = sg.memory().tensors;
  for (const [name, f, message] of cases) {
    assert.throws(f, (e) => e instanceof Error && e.message === message, `${name}: ${message}`);
  }
  assert.equal(sg.memory().tensors, live, 'a refused call keeps nothing');
  sg.dispose([x, v, s]);
});
