// sg.F.interpolate and sg.nn.Upsample (nearest, nearest-exact, linear, bilinear, area; size or
// scaleFactor, alignCorners, recomputeScaleFactor) against PyTorch 1.13 (tests/data/
// interpolate_ref.json from gen_interpolate.py: outputs and input gradients), central-difference
// gradient checks, closed forms and argument errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith } from './helpers.mjs';
import { closeTo, fromRef, gradcheck, lcg, readRef } from './gradcheck_helpers.mjs';

const ref = readRef('interpolate_ref.json');
const { F, nn } = sg;

for (const c of ref.cases) {
  test(`interpolate ${c.name}: output and gradient match PyTorch`, () => {
    sg.tidy(() => {
      const x = fromRef(c.input, { requiresGrad: true });
      const out = F.interpolate(x, c.options);
      // Source indices must be PyTorch's exactly: a wrong one shows as an O(1) error.
      closeTo(out, c.output, 1e-6, 'output');
      out.mul(fromRef(c.r)).sum().backward();
      closeTo(x.grad, c.grad, 1e-6, 'gradient');
    });
  });
}

test('nn.Upsample and its 2-D shorthands call interpolate with their options', () => {
  sg.tidy(() => {
    const pick = (name) => ref.cases.find((c) => c.name === name);
    const b = pick('bilinear size alignCorners');
    closeTo(new nn.Upsample({ size: [7, 9], mode: 'bilinear', alignCorners: true }).forward(fromRef(b.input)), b.output, 1e-6, 'Upsample');
    closeTo(new nn.UpsamplingBilinear2d({ size: [7, 9] }).forward(fromRef(b.input)), b.output, 1e-6, 'UpsamplingBilinear2d');
    const n = pick('nearest scale 1.7');
    closeTo(new nn.UpsamplingNearest2d({ scaleFactor: 1.7 }).forward(fromRef(n.input)), n.output, 1e-8, 'UpsamplingNearest2d');
    assert.equal(String(new nn.Upsample({ scaleFactor: 2, mode: 'bilinear' })), 'Upsample(scale_factor=2, mode=bilinear)');
  });
});

test('gradcheck: every mode by central differences', () => {
  const x4 = { shape: [1, 2, 3, 4], data: lcg(3, 24) };
  for (const options of [
    { scaleFactor: 1.7 },
    { size: [5, 7], mode: 'bilinear' },
    { scaleFactor: 0.6, mode: 'bilinear', alignCorners: true },
    { size: [2, 3], mode: 'area' },
    { scaleFactor: 2.2, mode: 'nearest-exact' },
  ]) {
    gradcheck(JSON.stringify(options), (x) => F.interpolate(x, options), [x4]);
  }
  gradcheck('linear', (x) => F.interpolate(x, { size: 7, mode: 'linear' }), [{ shape: [1, 2, 4], data: lcg(4, 8) }]);
});

test('closed forms: nearest repeats, bilinear with alignCorners is the linear ramp between corners', () => {
  sg.tidy(() => {
    const x = sg.tensor([[[[1, 2], [3, 4]]]]);
    assert.deepEqual(F.interpolate(x, { scaleFactor: 2 }).toArray(), [[[[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]]]]);
    // corners 1, 2, 3, 4 on a 3×3 grid: the centre is their mean 2.5
    close(F.interpolate(x, { size: 3, mode: 'bilinear', alignCorners: true }).toArray(), [[[[1, 1.5, 2], [2, 2.5, 3], [3, 3.5, 4]]]], 1e-7);
    // without alignCorners, 2× upsampling of [0, 4]: source coordinates −0.25 (clamped), 0.25, 0.75, 1.25
    close(F.interpolate(sg.tensor([[[0, 4]]]), { scaleFactor: 2, mode: 'linear' }).toArray(), [[[0, 1, 3, 4]]], 1e-7);
  });
});

test('bad arguments name interpolate, the option, what was expected and what was got', () => {
  sg.tidy(() => {
    const x = sg.zeros([1, 1, 4, 4]);
    throwsWith(() => F.interpolate(x), 'interpolate', 'either size or scaleFactor should be defined');
    throwsWith(() => F.interpolate(x, { size: 2, scaleFactor: 2 }), 'interpolate', 'only one of size or scaleFactor');
    throwsWith(() => F.interpolate(x, { size: [2, 2, 2] }), 'interpolate', 'same number of spatial dims', 'size [2, 2, 2]');
    throwsWith(() => F.interpolate(x, { scaleFactor: 2, alignCorners: true }), 'interpolate', 'alignCorners', "mode 'nearest'");
    throwsWith(() => F.interpolate(x, { scaleFactor: 2, mode: 'bicubic' }), 'interpolate', "'mode'", "'bilinear'", "'bicubic'");
    throwsWith(() => F.interpolate(x, { scaleFactor: 2, mode: 'linear' }), 'interpolate', "mode 'linear' expects a 3-D input", '[1, 1, 4, 4]');
    throwsWith(() => F.interpolate(sg.zeros([4, 4]), { scaleFactor: 2 }), 'interpolate', 'expects a 3-D, 4-D or 5-D input');
    throwsWith(() => F.interpolate(x, { scaleFactor: 0.1 }), 'interpolate', 'greater than 0', 'output [0, 0]');
    throwsWith(() => F.interpolate(x, { scaleFactor: -2 }), 'interpolate', "'scaleFactor'", 'positive number', '-2');
    throwsWith(() => F.interpolate(x, { size: 3, recomputeScaleFactor: true }), 'interpolate', 'recomputeScaleFactor is not meaningful');
    throwsWith(() => new nn.Upsample({ scale: 2 }), 'Upsample', "unknown option 'scale'", 'scaleFactor');
  });
});
