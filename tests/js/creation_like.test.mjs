// zerosLike, onesLike, fullLike, randLike and randnLike (tensor/creation.ts) as torch.*_like: the
// result takes the input's shape and dtype unless `dtype` is given, and the given dtype wins;
// values are the op's (0, 1, the fill value); randLike's values lie in [0, 1). A *Like that dropped the input's
// dtype (made float32 from an int32 input) or ignored the option fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

test('*Like keep the input\'s shape and dtype, and take a given dtype instead', () => {
  const ints = sg.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'int32' });
  const floats = sg.ones([3, 1]);
  const cases = [
    ['zerosLike', (t, o) => sg.zerosLike(t, o), () => 0],
    ['onesLike', (t, o) => sg.onesLike(t, o), () => 1],
    ['fullLike', (t, o) => sg.fullLike(t, 7, o), () => 7],
  ];
  for (const [name, make, value] of cases) {
    for (const [x, opts, dtype] of [[ints, undefined, 'int32'], [floats, undefined, 'float32'], [ints, { dtype: 'float32' }, 'float32'], [floats, { dtype: 'int32' }, 'int32']]) {
      const r = make(x, opts);
      assert.equal(r.dtype, dtype, `${name}(${x.dtype}, ${JSON.stringify(opts)})`);
      assert.deepEqual(r.shape, x.shape);
      assert.ok(Array.from(r.dataSync()).every((v) => v === value()), `${name} values`);
      assert.equal(r.device, x.device);
      r.dispose();
    }
  }
  const f16 = sg.ones([2], { dtype: 'float16' });
  for (const make of [sg.zerosLike, sg.onesLike, sg.randLike, sg.randnLike]) {
    const r = make(f16);
    assert.equal(r.dtype, 'float16', `${make.name} of float16`);
    r.dispose();
  }
  // randLike/randnLike as torch.rand_like: a floating input's dtype (float16, bfloat16, float64) is kept,
  // a given dtype wins; an integer input (which PyTorch refuses) gets float32 samples.
  for (const dtype of ['bfloat16', 'float64']) {
    const x = sg.ones([4], { dtype });
    for (const make of [sg.randLike, sg.randnLike]) {
      const r = make(x);
      assert.equal(r.dtype, dtype, `${make.name} of ${dtype}`);
      const given = make(x, { dtype: 'float32' });
      assert.equal(given.dtype, 'float32', `${make.name} of ${dtype} with dtype float32`);
      sg.dispose([r, given]);
    }
    x.dispose();
  }
  for (const make of [sg.randLike, sg.randnLike]) {
    const r = make(ints);
    assert.equal(r.dtype, 'float32', `${make.name} of int32`);
    r.dispose();
  }
  const u = sg.randLike(floats);
  assert.ok(Array.from(u.dataSync()).every((v) => v >= 0 && v < 1));
  sg.dispose([ints, floats, f16, u]);
});
