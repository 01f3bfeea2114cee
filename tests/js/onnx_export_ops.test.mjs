// sg.onnx.export of single ops whose ONNX form has a name or layout of its own: Clip with one or
// both bounds (clamp), ReduceMax / ReduceMin / ReduceProd (opset 17: axes an attribute, not an input) with and
// without keepdim, the (values, indices) forms of max / min over a dim (ArgMax / ArgMin), and
// NegativeLogLikelihoodLoss. onnxruntime (code nobody here wrote) runs each exported file, and its
// outputs must equal simdgrad's (onnx_helpers.mjs roundTrip); clamp's are also checked by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { checkWritten, roundTrip } from './onnx_helpers.mjs';

const F = sg.nn.functional;
const x = () => sg.tensor([[0.5, -1.25, 2, 0.25], [1.5, 0.75, -0.5, -2]]);

test('clamp with both bounds, min only, max only: Clip under onnxruntime', async () => {
  const cases = [
    ['clamp_both', (a) => a.clamp(-0.5, 1), [[0.5, -0.5, 1, 0.25], [1, 0.75, -0.5, -0.5]]],
    ['clamp_min', (a) => a.clamp(0, null), [[0.5, 0, 2, 0.25], [1.5, 0.75, 0, 0]]],
    ['clamp_max', (a) => a.clamp(null, 0.6), [[0.5, -1.25, 0.6, 0.25], [0.6, 0.6, -0.5, -2]]],
  ];
  for (const [name, fn, want] of cases) {
    const got = fn(x());
    assert.deepEqual(got.toArray().flat().map(Math.fround), want.flat().map(Math.fround), `${name} by hand`);
    got.dispose();
    await roundTrip(name, fn, [x()], undefined, [[x()], [sg.randn([2, 4])]]);
  }
});

test('amax / amin / max / min / prod over a dim or all (keepdim or not, values and indices): ReduceMax, ReduceMin, ReduceProd, ArgMax, ArgMin', async () => {
  const fns = {
    amax: (a) => a.amax(1),
    amin_keepdim: (a) => a.amin(0, true),
    max_dim: (a) => a.max(1),
    min_dim_keepdim: (a) => a.min(1, true),
    max_all: (a) => a.max(),
    min_all: (a) => a.min(),
    prod_dim: (a) => a.prod(1),
    prod_all: (a) => a.prod(),
  };
  for (const [name, fn] of Object.entries(fns)) await roundTrip(name, fn, [x()], undefined, [[x()], [sg.randn([2, 4])]]);
});

test('nllLoss with class indices (mean, sum, ignoreIndex): NegativeLogLikelihoodLoss', async () => {
  const t = sg.tensor([3, 0], { dtype: 'int64' });
  const logp = () => x().logSoftmax(1);
  await roundTrip('nll_mean', (a, b) => F.nllLoss(a, b), [logp(), t], undefined, [[logp(), t]]);
  await roundTrip('nll_sum_ignore', (a, b) => F.nllLoss(a, b, { reduction: 'sum', ignoreIndex: 0 }), [logp(), t], undefined, [[logp(), t]]);
});

test('add / sub with alpha: the second operand times alpha (a Mul before Add / Sub), under onnxruntime', async () => {
  // No exported file had an alpha. add / sub scale other in JS before the traced op, so onnx_ops.ts binary()'s own
  // alpha branch is never reached (seed 21's mutants there: .ci/mutation-equivalent.txt); this checks what is exported.
  const y = () => sg.tensor([[1, 2, -3, 0.5], [0.25, -1, 4, 2]]);
  const cases = [
    ['add_alpha', (a, b) => a.add(b, { alpha: 2 }), [[2.5, 2.75, -4, 1.25], [2, -1.25, 7.5, 2]]],
    ['sub_alpha', (a, b) => sg.sub(a, b, { alpha: 0.5 }), [[0, -2.25, 3.5, 0], [1.375, 1.25, -2.5, -3]]],
  ];
  for (const [name, fn, want] of cases) {
    const got = fn(x(), y());
    assert.deepEqual(got.toArray().flat(), want.flat(), `${name} by hand`);
    got.dispose();
    await roundTrip(name, fn, [x(), y()], undefined, [[x(), y()], [sg.randn([2, 4]), sg.randn([2, 4])]]);
  }
});

test('python3-onnx checker (full_check) accepts every file written here', (t) => checkWritten(t, 15));
