// F.unfold (nn/unfold.ts) with padding on one axis only (ph > 0, pw = 0 and the reverse), both and
// none, against a plain-JS im2col (torch.nn.functional.unfold's definition: column l holds the
// kH·kW window at block l of the zero-padded input, channel-major); and the Error for an input
// that is not 3-D or 4-D, naming unfold and the shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

/** x [C, H, W] as nested arrays → [C·kH·kW, L]. */
function im2col(x, [kh, kw], [ph, pw], [sh, sw]) {
  const C = x.length, H = x[0].length, W = x[0][0].length;
  const oh = Math.floor((H + 2 * ph - kh) / sh) + 1, ow = Math.floor((W + 2 * pw - kw) / sw) + 1;
  const at = (c, i, j) => (i < 0 || j < 0 || i >= H || j >= W ? 0 : x[c][i][j]);
  const rows = [];
  for (let c = 0; c < C; c++) for (let a = 0; a < kh; a++) for (let b = 0; b < kw; b++) {
    const row = [];
    for (let r = 0; r < oh; r++) for (let q = 0; q < ow; q++) row.push(at(c, r * sh + a - ph, q * sw + b - pw));
    rows.push(row);
  }
  return rows;
}

test('unfold with padding on one axis, both and none equals a plain-JS im2col', () => {
  const x = [[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], [[-1, -2, -3, -4], [-5, -6, -7, -8], [-9, -10, -11, -12]]];
  const t = sg.tensor(x);
  for (const padding of [[1, 0], [0, 1], [2, 1], [0, 0]]) {
    for (const stride of [[1, 1], [2, 1]]) {
      const want = im2col(x, [2, 3], padding, stride);
      const got = sg.F.unfold(t, [2, 3], { padding, stride });
      assert.deepEqual(got.toArray(), want, `padding [${padding}] stride [${stride}]`);
      const batched = sg.F.unfold(t.unsqueeze(0), [2, 3], { padding, stride });
      assert.deepEqual(batched.toArray(), [want], `batched, padding [${padding}]`);
      sg.dispose([got, batched]);
    }
  }
  t.dispose();
});

test('unfold of a 2-D or 5-D input: "unfold: expected a 3-D or 4-D input ..., got shape [...]"', () => {
  const m = sg.ones([3, 4]), v = sg.ones([1, 1, 1, 3, 4]);
  assert.throws(() => sg.F.unfold(m, 2), { message: 'unfold: expected a 3-D or 4-D input ([C, H, W] or [N, C, H, W]), got shape [3, 4]' });
  assert.throws(() => sg.F.unfold(v, 2), { message: 'unfold: expected a 3-D or 4-D input ([C, H, W] or [N, C, H, W]), got shape [1, 1, 1, 3, 4]' });
  sg.dispose([m, v]);
});
