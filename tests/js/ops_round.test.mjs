// round(x, { decimals }) against PyTorch 1.13 (tests/data/round_decimals_ref.json, from
// gen_round_decimals.py): bit for bit in float32 and bfloat16, ties to even at every scale, ±0, ±inf, NaN;
// and the rounding ops' refusals (bool input, bad decimals) with their messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sg, throwsWith } from './helpers.mjs';
import { dec } from './ref_cases.mjs';

const REF = JSON.parse(readFileSync(new URL('../data/round_decimals_ref.json', import.meta.url), 'utf8'));

test('round with decimals equals PyTorch bit for bit (float32, bfloat16)', () => {
  const x = sg.tensor(REF.x.map(dec));
  for (const c of REF.cases) {
    const got = sg.tidy(() => Array.from(sg.round(x, { decimals: c.decimals }).dataSync()));
    const method = sg.tidy(() => Array.from(x.round({ decimals: c.decimals }).dataSync()));
    c.out.map(dec).forEach((want, i) => {
      const w = Math.fround(want);
      assert.ok(Object.is(got[i], w) || (Number.isNaN(w) && Number.isNaN(got[i])), `decimals ${c.decimals}, x=${REF.x[i]}: got ${got[i]}, PyTorch ${w}`);
      assert.ok(Object.is(method[i], got[i]) || (Number.isNaN(w) && Number.isNaN(method[i])), 'the method gives the function\'s result');
    });
  }
  // bfloat16: PyTorch's kernel rounds the scale to bfloat16 too (10^4 is 9984 there)
  const xb = sg.tensor(REF.bfloat16.x.map(dec), { dtype: 'bfloat16' });
  for (const c of REF.bfloat16.cases) {
    const y = sg.round(xb, { decimals: c.decimals });
    assert.equal(y.dtype, 'bfloat16');
    const got = Array.from(sg.tidy(() => y.float().dataSync()));
    c.out.map(dec).forEach((want, i) => assert.ok(Object.is(got[i], want), `bfloat16, decimals ${c.decimals}, x=${REF.bfloat16.x[i]}: got ${got[i]}, PyTorch ${want}`));
    y.dispose();
  }
  xb.dispose();
  // decimals 0 (and no options) is plain round, half to even.
  assert.deepEqual(sg.tidy(() => Array.from(sg.round(sg.tensor([0.5, 1.5, 2.5, -2.5]), { decimals: 0 }).dataSync())), [0, 2, 2, -2]);
  x.dispose();
});

test('round with decimals: gradient zero, inside sg.compile; int32 only without decimals', () => {
  const x = sg.tensor([1.26, -3.14159], { requiresGrad: true });
  const y = sg.round(x, { decimals: 1 });
  y.sum().backward();
  assert.deepEqual(Array.from(x.grad.dataSync()), [0, 0]);
  const i = sg.tensor([17, -3], { dtype: 'int32' });
  const ri = sg.round(i);
  assert.equal(ri.dtype, 'int32');
  assert.deepEqual(Array.from(ri.dataSync()), [17, -3]);
  throwsWith(() => sg.round(i, { decimals: -1 }), 'round: decimals needs a float32 or bfloat16 tensor, got int32');
  const h = sg.tensor([1.25], { dtype: 'float16' });
  throwsWith(() => sg.round(h, { decimals: 1 }), 'round: decimals needs a float32 or bfloat16 tensor, got float16'); // PyTorch: no Half kernel
  h.dispose();
  const f = sg.compile((t) => t.round({ decimals: 2 }));
  const z = sg.tensor([1.005, 2.675]);
  assert.deepEqual(Array.from(f(z).dataSync()), Array.from(sg.round(z, { decimals: 2 }).dataSync()));
  f.clear();
  sg.dispose([x, y, i, ri, z]);
});

test('rounding ops refuse bool tensors and non-integer decimals, as PyTorch', () => {
  const b = sg.tensor([true, false], { dtype: 'bool' });
  for (const op of ['floor', 'ceil', 'round', 'trunc', 'abs']) throwsWith(() => b[op](), op, 'float32 or int32', 'bool');
  const x = sg.tensor([1.5]);
  throwsWith(() => sg.round(x, { decimals: 1.5 }), 'round', "'decimals'", '1.5');
  throwsWith(() => sg.round(x, { decimals: 'a' }), 'round', "'decimals'");
  throwsWith(() => sg.round(x, { digits: 2 }), 'round', "unknown option 'digits'");
  sg.dispose([b, x]);
});
