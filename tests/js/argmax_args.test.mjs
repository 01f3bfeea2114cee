// x.argmax / x.argmin and sg.argmax / sg.argmin: every way to give dim and keepdim (positional, keyword,
// null and undefined meaning all elements, negative dims) against the index computed here in plain
// JavaScript (torch.argmax's definition: the flat index over all elements, or the index along dim,
// keepdim keeping it as size 1), and the exact Error for each bad argument, naming the op and the
// argument. No ties in the data, so the first-index rule is not what is tested.
import assert from 'node:assert/strict';
import test from 'node:test';
import { sg } from './helpers.mjs';

const X = [[1, 5, 3, -2], [4, 2, 6, 0], [9, -1, 7, 8]];
const better = { argmax: (a, b) => a > b, argmin: (a, b) => a < b };
/** The index of the best value of a list. */
const best = (op, list) => list.reduce((bi, v, i) => (better[op](v, list[bi]) ? i : bi), 0);
const along = (op, dim) => (dim === 0 ? X[0].map((_, j) => best(op, X.map((r) => r[j]))) : X.map((r) => best(op, r)));

for (const op of ['argmax', 'argmin']) {
  test(`${op}: all elements, along a dim, keepdim, positional and keyword, method and function`, () => {
    const x = sg.tensor(X);
    const flat = best(op, X.flat());
    const cases = [
      [() => x[op](), [], flat],
      [() => x[op](null), [], flat],
      [() => x[op](undefined, false), [], flat],
      [() => x[op](null, true), [1, 1], [[flat]]],
      [() => x[op]({ keepdim: true }), [1, 1], [[flat]]],
      [() => x[op](0), [4], along(op, 0)],
      [() => x[op](1), [3], along(op, 1)],
      [() => x[op](-1), [3], along(op, 1)],
      [() => x[op](-2, true), [1, 4], [along(op, 0)]],
      [() => x[op](1, true), [3, 1], along(op, 1).map((v) => [v])],
      [() => x[op]({ dim: 1, keepdim: true }), [3, 1], along(op, 1).map((v) => [v])],
      [() => x[op](0, { keepdim: false }), [4], along(op, 0)],
      [() => sg[op](x, 1), [3], along(op, 1)],
      [() => sg[op](x, { dim: 0, keepdim: true }), [1, 4], [along(op, 0)]],
    ];
    for (const [call, shape, want] of cases) {
      const y = call();
      assert.equal(y.dtype, 'int32', String(call));
      assert.deepEqual(y.shape, shape, String(call));
      assert.deepEqual(y.toArray(), want, String(call));
      y.dispose();
    }
    x.dispose();
  });

  test(`${op}: bad arguments are Errors naming ${op} and the argument`, () => {
    const x = sg.tensor(X);
    const gone = sg.tensor([1, 2]);
    gone.dispose();
    const live = sg.memory().tensors;
    const bad = [
      [() => x[op](0.5), `${op}: expected 'dim' to be an integer, got 0.5`],
      [() => x[op]('1'), `${op}: expected 'dim' to be an integer, got '1'`],
      [() => x[op]({ dim: 1.5 }), `${op}: expected 'dim' to be an integer, got 1.5`],
      [() => x[op](0, 'yes'), `${op}: expected 'keepdim' to be a boolean, got 'yes'`],
      [() => x[op]({ dim: 1, keepdim: 1 }), `${op}: expected 'keepdim' to be a boolean, got 1`],
      [() => x[op]({ axis: 1 }), `${op}: unknown option 'axis' (expected one of: dim, keepdim)`],
      [() => sg[op](gone), `${op}: Tensor is disposed (argument 'input')`],
      [() => sg[op]('x'), `${op}: expected 'input' to be a Tensor or a number, got 'x'`],
    ];
    for (const [call, message] of bad) assert.throws(call, (e) => e instanceof Error && e.message === message, message);
    assert.equal(sg.memory().tensors, live);
    x.dispose();
  });
}
