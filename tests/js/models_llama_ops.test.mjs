// RMSNorm (nn.RMSNorm, F.rmsNorm: PyTorch 2.4) and F.scaledDotProductAttention (PyTorch 2.5's positional
// attnMask, isCausal, scale, enableGqa), against tests/data/gen_llama_ops.py (the formulas in float64
// PyTorch 1.13) and central differences.
import assert from 'node:assert/strict';
import test from 'node:test';
import { sg, throwsWith } from './helpers.mjs';
import { closeTo, fromRef, gradcheck, gradInput, readRef } from './gradcheck_helpers.mjs';

const ref = readRef('llama_ops_ref.json');
const F = sg.F;

test('F.rmsNorm and nn.RMSNorm equal the formula (PyTorch 2.4): 1-d and 2-d normalizedShape, eps null = finfo.eps, no weight', () => {
  sg.tidy(() => {
    for (const c of ref.rms) {
      const x = fromRef(c.x);
      const w = c.w ? fromRef(c.w) : null;
      const opts = c.eps === null ? {} : { eps: c.eps };
      closeTo(F.rmsNorm(x, c.normalizedShape, w, opts), c.y, 1e-5, `F.rmsNorm ${c.name}`);
      const m = new sg.nn.RMSNorm(c.normalizedShape, { ...opts, elementwiseAffine: c.w !== null });
      if (w) sg.noGrad(() => m.weight.copy_(w));
      closeTo(m.forward(x), c.y, 1e-5, `nn.RMSNorm ${c.name}`);
    }
    // eps null is finfo(float32).eps, as PyTorch.
    const x = sg.tensor([1e-4, -1e-4], { shape: [1, 2] });
    const expect = 1e-4 / Math.sqrt(1e-8 + sg.finfo('float32').eps);
    assert.ok(Math.abs(F.rmsNorm(x, 2, null, { eps: null }).dataSync()[0] - expect) < 1e-6 * expect);
  });
});

test('nn.RMSNorm: parameters, names and repr as PyTorch', () => {
  const m = new sg.nn.RMSNorm([3, 4], { eps: 1e-6 });
  assert.deepEqual(Object.keys(m.stateDict()), ['weight']);
  assert.deepEqual(Array.from(m.weight.dataSync()), new Array(12).fill(1));
  assert.equal(String(m), 'RMSNorm((3, 4), eps=1e-06, elementwise_affine=True)');
  const n = new sg.nn.RMSNorm(5, { elementwiseAffine: false });
  assert.equal(n.weight, null);
  assert.equal(n.parameters().length, 0);
  assert.match(String(n), /eps=None, elementwise_affine=False/);
  m.dispose();
  n.dispose();
});

test('F.rmsNorm: gradients of input and weight by central differences', () => {
  gradcheck('rmsNorm 1-d', (x, w) => F.rmsNorm(x, [4], w, { eps: 1e-5 }), [gradInput([3, 4], 1), gradInput([4], 2, 0.5, 1.5)]);
  gradcheck('rmsNorm 2-d', (x, w) => F.rmsNorm(x, [2, 3], w), [gradInput([2, 2, 3], 3), gradInput([2, 3], 4, 0.5, 1.5)]);
});

test('F.rmsNorm: bad input names the argument', () => {
  sg.tidy(() => {
    throwsWith(() => F.rmsNorm(sg.ones([2, 3]), [4]), /rmsNorm/, /last dims are \[4\]/);
    throwsWith(() => F.rmsNorm(sg.ones([2, 3]), 3, sg.ones([2])), /rmsNorm/, /weight/);
    throwsWith(() => F.rmsNorm(sg.ones([2, 3]), 3, null, { eps: -1 }), /rmsNorm/, /eps/);
    throwsWith(() => new sg.nn.RMSNorm('3'), /RMSNorm/, /normalizedShape/);
  });
});

test('F.scaledDotProductAttention: PyTorch 2.5 positional attnMask, isCausal, scale, bool and float masks', () => {
  sg.tidy(() => {
    const i = ref.sdpa_inputs;
    const [q, k, v] = [fromRef(i.q), fromRef(i.k), fromRef(i.v)];
    const boolMask = sg.tensor(i.boolMask.data, { shape: i.boolMask.shape, dtype: 'bool' });
    const floatMask = fromRef(i.floatMask);
    closeTo(F.scaledDotProductAttention(q, k, v), ref.sdpa.plain, 1e-5, 'plain');
    closeTo(F.scaledDotProductAttention(q, k, v, null), ref.sdpa.plain, 1e-5, 'null mask');
    closeTo(F.scaledDotProductAttention(q, k, v, null, { isCausal: true }), ref.sdpa.causal, 1e-5, 'null, { isCausal }');
    closeTo(F.scaledDotProductAttention(q, k, v, undefined, { isCausal: true }), ref.sdpa.causal, 1e-5, 'undefined, { isCausal }');
    closeTo(F.scaledDotProductAttention(q, k, v, boolMask), ref.sdpa.bool, 1e-5, 'bool mask');
    closeTo(F.scaledDotProductAttention(q, k, v, floatMask), ref.sdpa.float, 1e-5, 'float mask');
    closeTo(F.scaledDotProductAttention(q, k, v, null, { scale: 0.3 }), ref.sdpa.scale, 1e-5, 'scale');
    closeTo(F.scaledDotProductAttention(q, k, v, boolMask, { dropoutP: 0 }), ref.sdpa.bool, 1e-5, 'bool mask + options');
    // The older form (mask inside the options, no 5th argument) still reads the same.
    closeTo(F.scaledDotProductAttention(q, k, v, { isCausal: true }), ref.sdpa.causal, 1e-5, 'old form isCausal');
    closeTo(F.scaledDotProductAttention(q, k, v, { attnMask: boolMask }), ref.sdpa.bool, 1e-5, 'old form attnMask');
    throwsWith(() => F.scaledDotProductAttention(q, k, v, { isCausal: true }, { scale: 1 }), /scaledDotProductAttention/, /attnMask/);
    throwsWith(() => F.scaledDotProductAttention(q, k, v, boolMask, { isCausal: true }), /attnMask and isCausal/);
    throwsWith(() => F.scaledDotProductAttention(q, k, v, null, { isCasual: true }), /isCasual/);
    throwsWith(() => F.scaledDotProductAttention(q, k, v, 3), /attnMask/);
  });
});

test('F.scaledDotProductAttention: grouped-query attention with enableGqa (and an Error without it)', () => {
  sg.tidy(() => {
    const i = ref.sdpa_inputs;
    const [q, k, v] = [fromRef(i.qg), fromRef(i.kg), fromRef(i.vg)];
    closeTo(F.scaledDotProductAttention(q, k, v, null, { isCausal: true, enableGqa: true }), ref.sdpa.gqa_causal, 1e-5, 'gqa causal');
    assert.throws(() => F.scaledDotProductAttention(q, k, v, null, { isCausal: true }));
    throwsWith(() => F.scaledDotProductAttention(q, sg.ones([2, 3, 5, 8]), sg.ones([2, 3, 5, 8]), null, { enableGqa: true }), /enableGqa/, /multiple/);
  });
  gradcheck('sdpa gqa causal', (q, k, v) => F.scaledDotProductAttention(q, k, v, null, { isCausal: true, enableGqa: true }), [gradInput([1, 4, 3, 2], 5), gradInput([1, 2, 3, 2], 6), gradInput([1, 2, 3, 2], 7)]);
});
