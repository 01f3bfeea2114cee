// BatchNorm1d/2d/3d and InstanceNorm1d/2d/3d (nn/norm.ts's NormBase): resetRunningStats() and
// resetParameters() after training, as PyTorch 1.13's _NormBase.reset_running_stats /
// reset_parameters: running_mean zeros, running_var ones, num_batches_tracked 0 (only where the
// module tracks running stats), and, with affine, weight ones and bias zeros. The constructor
// writes the same values, so only a call after a training step (which moves every one of them)
// tells whether each reset happens; the values are PyTorch's documented ones, not read back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

const C = 3;
const MODULES = {
  BatchNorm1d: [2, C, 5], BatchNorm2d: [2, C, 4, 3], BatchNorm3d: [2, C, 2, 3, 2],
  InstanceNorm1d: [2, C, 5], InstanceNorm2d: [2, C, 4, 3], InstanceNorm3d: [2, C, 2, 3, 2],
};
const read = (t) => Array.from(t.dataSync());
const fill = (n, v) => new Array(n).fill(v);

/** A training forward that moves the running stats (non-zero mean, non-unit variance), a batch count of 5, other affine parameters. */
function train(m, shape) {
  m.train();
  sg.tidy(() => {
    const x = sg.randn(shape).mul(3).add(2);
    m.forward(x);
  });
  // InstanceNorm, as PyTorch's, does not count batches: a count is loaded so that its reset shows.
  const count = sg.tensor(5, { dtype: 'int32' });
  if (m.num_batches_tracked) m.loadStateDict({ num_batches_tracked: count }, { strict: false });
  count.dispose();
  if (m.weight) {
    sg.nn.init.constant_(m.weight, 0.25);
    sg.nn.init.constant_(m.bias, -0.5);
  }
}

test('resetRunningStats() after training: mean 0, var 1, num_batches_tracked 0; the affine parameters are kept', () => {
  sg.manualSeed(7);
  for (const [name, shape] of Object.entries(MODULES)) {
    for (const affine of [true, false]) {
      const m = new sg.nn[name](C, { affine, trackRunningStats: true });
      train(m, shape);
      assert.notDeepEqual(read(m.running_mean), fill(C, 0), `${name}: the step moved running_mean`);
      assert.notDeepEqual(read(m.running_var), fill(C, 1), `${name}: the step moved running_var`);
      assert.deepEqual(read(m.num_batches_tracked), [5]);
      m.resetRunningStats();
      assert.deepEqual(read(m.running_mean), fill(C, 0), `${name} affine=${affine}: running_mean`);
      assert.deepEqual(read(m.running_var), fill(C, 1), `${name} affine=${affine}: running_var`);
      assert.deepEqual(read(m.num_batches_tracked), [0], `${name} affine=${affine}: num_batches_tracked`);
      assert.equal(m.num_batches_tracked.dtype, 'int32');
      if (affine) {
        assert.deepEqual(read(m.weight), fill(C, 0.25), `${name}: weight kept`);
        assert.deepEqual(read(m.bias), fill(C, -0.5), `${name}: bias kept`);
      } else {
        assert.equal(m.weight, null);
        assert.equal(m.bias, null);
      }
      m.dispose();
    }
  }
});

test('resetParameters() after training resets the running stats too, and weight 1 / bias 0 with affine', () => {
  sg.manualSeed(8);
  for (const [name, shape] of Object.entries(MODULES)) {
    for (const affine of [true, false]) {
      const m = new sg.nn[name](C, { affine, trackRunningStats: true });
      train(m, shape);
      m.resetParameters();
      assert.deepEqual(read(m.running_mean), fill(C, 0), `${name} affine=${affine}: running_mean`);
      assert.deepEqual(read(m.running_var), fill(C, 1), `${name} affine=${affine}: running_var`);
      assert.deepEqual(read(m.num_batches_tracked), [0], `${name} affine=${affine}: num_batches_tracked`);
      if (affine) {
        assert.deepEqual(read(m.weight), fill(C, 1), `${name}: weight`);
        assert.deepEqual(read(m.bias), fill(C, 0), `${name}: bias`);
        assert.ok(m.weight instanceof sg.nn.Parameter, 'the same Parameters, reset in place');
      }
    }
  }
});

test('without running stats the resets touch no buffer (they are null) and still reset the affine parameters', () => {
  for (const [name, shape] of Object.entries(MODULES)) {
    const m = new sg.nn[name](C, { affine: true, trackRunningStats: false });
    const weight = m.weight;
    train(m, shape);
    m.resetRunningStats();
    assert.deepEqual(read(m.weight), fill(C, 0.25), `${name}: resetRunningStats keeps the weight`);
    m.resetParameters();
    for (const b of ['running_mean', 'running_var', 'num_batches_tracked']) assert.equal(m[b], null, `${name}.${b}`);
    assert.equal(m.weight, weight, 'the same Parameter');
    assert.deepEqual(read(m.weight), fill(C, 1), `${name}: weight`);
    assert.deepEqual(read(m.bias), fill(C, 0), `${name}: bias`);
  }
});
