// F.normalize and F.oneHot (nn/functional_layers.ts) with every option given and left to its
// default, against plain-JS re-implementations of PyTorch 1.13's definitions: normalize is
// x / max(‖x‖_p over dim, eps) (defaults p = 2, dim = 1, eps = 1e-12), oneHot's numClasses
// defaults to max + 1. The inputs are chosen so that each default matters (rows and columns of
// different norms, an eps above some norms), so a changed default or an ignored option fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

const F = sg.F;

/** x [R, C] (nested rows) normalized along dim 0 or 1 with the p-norm, clamped below at eps. */
function normalizeRef(rows, p, dim, eps) {
  const norm = (v) => {
    const a = v.map(Math.abs);
    if (p === Infinity) return Math.max(...a);
    return a.reduce((s, t) => s + t ** p, 0) ** (1 / p);
  };
  const R = rows.length, C = rows[0].length;
  const col = (j) => rows.map((r) => r[j]);
  const n = dim === 1 ? rows.map(norm) : Array.from({ length: C }, (_, j) => norm(col(j)));
  return rows.map((r, i) => r.map((v, j) => v / Math.max(dim === 1 ? n[i] : n[j], eps)));
}

function close(got, want, what) {
  got.flat(Infinity).forEach((g, i) => {
    const w = want.flat(Infinity)[i];
    assert.ok(Math.abs(g - w) <= 2e-6 * (1 + Math.abs(w)), `${what} [${i}]: ${g} vs ${w}`);
  });
}

test('F.normalize: p, dim and eps given and defaulted, against x / max(‖x‖_p, eps)', () => {
  const rows = [[3, -4, 1, 0.5], [0.1, 0.2, -0.05, 0], [-2, 7, 0, 1], [0, 0, 0, 0]];
  const x = sg.tensor(rows);
  for (const p of [1, 2, 3, 0.5, Infinity]) {
    for (const dim of [0, 1, -1, -2]) {
      for (const eps of [1e-12, 0.5, 3]) {
        const d = dim < 0 ? dim + 2 : dim;
        close(F.normalize(x, { p, dim, eps }).toArray(), normalizeRef(rows, p, d, eps), `p=${p} dim=${dim} eps=${eps}`);
      }
      close(F.normalize(x, { p, dim }).toArray(), normalizeRef(rows, p, dim < 0 ? dim + 2 : dim, 1e-12), `p=${p} dim=${dim} eps default`);
    }
    close(F.normalize(x, { p }).toArray(), normalizeRef(rows, p, 1, 1e-12), `p=${p}, dim default 1`);
  }
  close(F.normalize(x).toArray(), normalizeRef(rows, 2, 1, 1e-12), 'all defaults');
  close(F.normalize(x, { dim: 0 }).toArray(), normalizeRef(rows, 2, 0, 1e-12), 'p default 2 along dim 0');
  close(F.normalize(x, { eps: 2 }).toArray(), normalizeRef(rows, 2, 1, 2), 'eps 2, p 2, dim 1');
  // 3-D: dim 1 is the default, not the last dim.
  const cube = sg.tensor([[[1, 2], [3, 4], [5, 6]]]);
  const c = [[1, 3, 5], [2, 4, 6]].map((v) => Math.hypot(...v));
  close(F.normalize(cube).toArray(), [[[1 / c[0], 2 / c[1]], [3 / c[0], 4 / c[1]], [5 / c[0], 6 / c[1]]]], '3-D default dim 1');
  sg.dispose([x, cube]);
});

test('F.normalize refuses bad options with the option named', () => {
  const x = sg.ones([2, 2]);
  assert.throws(() => F.normalize(x, { dim: 0.5 }), { message: "normalize: option 'dim' must be an integer, got 0.5" });
  assert.throws(() => F.normalize(x, { eps: '1' }), { message: "normalize: option 'eps' must be a finite number, got '1'" });
  assert.throws(() => F.normalize(x, { q: 2 }), { message: "normalize: unknown option 'q' (expected one of: p, dim, eps)" });
  x.dispose();
});

test('F.oneHot: numClasses positional, keyword and defaulted to max + 1; non-integers refused by name', () => {
  const idx = [2, 0, 3];
  const ref = (n) => idx.map((c) => Array.from({ length: n }, (_, j) => (j === c ? 1 : 0)));
  const i = sg.tensor(idx, { dtype: 'int32' });
  for (const [what, got, n] of [
    ['default', F.oneHot(i), 4], ['-1', F.oneHot(i, -1), 4], ['positional 6', F.oneHot(i, 6), 6],
    ['keyword 5', F.oneHot(i, { numClasses: 5 }), 5], ['array input', F.oneHot(idx, 4), 4],
  ]) {
    assert.equal(got.dtype, 'int32', what);
    assert.deepEqual(got.toArray(), ref(n), what);
    got.dispose();
  }
  assert.throws(() => F.oneHot(i, 2.5), { message: "oneHot: expected 'numClasses' to be an integer, got 2.5" });
  assert.throws(() => F.oneHot(i, { numClasses: '4' }), { message: "oneHot: expected 'numClasses' to be an integer, got '4'" });
  i.dispose();
});
