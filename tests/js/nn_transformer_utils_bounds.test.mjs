// Each part of the guards of nn/transformer.ts (an options object vs positional masks), nn/utils.ts
// (the parameters argument, vectorToParameters on the cpu), nn/rms_norm.ts (normalizedShape,
// the input's trailing dims, an optional weight) and nn/tensor_data.ts (writes into tensors that
// existed before an sg.compile trace, the last one included) decides a test. Oracle: PyTorch
// (1.13; F.rms_norm 2.4) semantics and hand values; messages are the library's own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sg, close, throwsWith } from './helpers.mjs';

const nn = sg.nn;
const F = sg.nn.functional;

test('TransformerDecoderLayer and Transformer: a positional mask equals the same mask given as an option', () => {
  const dec = new nn.TransformerDecoderLayer(4, 2, { dimFeedforward: 8, dropout: 0 });
  const tgt = sg.randn([3, 1, 4]);
  const mem = sg.randn([2, 1, 4]);
  const mask = nn.generateSquareSubsequentMask(3);
  const want = Array.from(dec.forward(tgt, mem, { tgtMask: mask }).dataSync());
  close(Array.from(dec.forward(tgt, mem, mask).dataSync()), want, 1e-6);
  const unmasked = Array.from(dec.forward(tgt, mem).dataSync());
  assert.ok(unmasked.some((v, i) => Math.abs(v - want[i]) > 1e-4), 'the mask changes the result');
  const tr = new nn.Transformer({ dModel: 4, nhead: 2, numEncoderLayers: 1, numDecoderLayers: 1, dimFeedforward: 8, dropout: 0 });
  const src = sg.randn([2, 1, 4]);
  const srcMask = nn.generateSquareSubsequentMask(2);
  const wantT = Array.from(tr.forward(src, tgt, { srcMask }).dataSync());
  close(Array.from(tr.forward(src, tgt, srcMask).dataSync()), wantT, 1e-6);
  close(Array.from(tr.forward(src, tgt, undefined, mask).dataSync()), Array.from(tr.forward(src, tgt, { tgtMask: mask }).dataSync()), 1e-6);
  throwsWith(() => tr.forward(src, tgt, null, null, null, null, null, null, null), /^Transformer: expected at most 6 masks after src and tgt, got 7$/);
});

test('clipGradNorm_ / clipGradValue_ / parametersToVector: a Tensor or an iterable of Tensors only', () => {
  for (const [name, call] of [['clipGradNorm_', (p) => nn.utils.clipGradNorm_(p, 1)], ['clipGradValue_', (p) => nn.utils.clipGradValue_(p, 1)]]) {
    const msg = (got) => `${name}: expected a Tensor or an array of Tensors (e.g. model.parameters()), got ${got}`;
    throwsWith(() => call(null), msg('null'));
    throwsWith(() => call(5), msg('5'));
    throwsWith(() => call({}), msg('an object'));
    throwsWith(() => call('ab'), msg("'ab'"));
    throwsWith(() => call([sg.zeros([1]), 3]), `${name}: expected parameters[1] to be a Tensor, got 3`);
  }
  const p = new nn.Parameter(sg.tensor([3, 4]));
  p.grad = sg.tensor([3, 4]);
  close(nn.utils.clipGradNorm_(new Set([p]), 100), 5);
  close(nn.utils.clipGradNorm_([p], 1), 5);
  close(p.grad.toArray(), [0.6, 0.8], 1e-5);
  nn.utils.clipGradValue_(new nn.Linear(1, 1).parameters(), 1);
  close(nn.utils.parametersToVector((function* () { yield sg.tensor([1, 2]); yield sg.tensor([[3]]); })()).toArray(), [1, 2, 3]);
});

test('vectorToParameters on the cpu writes the vector into the parameters', () => {
  const a = sg.zeros([2]), b = sg.zeros([1, 2]);
  nn.utils.vectorToParameters(sg.tensor([1, 2, 3, 4]), [a, b]);
  close(a.toArray(), [1, 2]);
  close(b.toArray(), [[3, 4]]);
});

test('rmsNorm normalizedShape: an integer >= 0 or a non-empty array of them', () => {
  const x = sg.tensor([[3, 4]]);
  const msg = (fn, got) => `${fn}: expected 'normalizedShape' to be an integer or a non-empty array of integers, got ${got}`;
  throwsWith(() => F.rmsNorm(x, []), msg('rmsNorm', '[]'));
  throwsWith(() => F.rmsNorm(x, -1), msg('rmsNorm', '-1'));
  throwsWith(() => F.rmsNorm(x, [2, -1]), msg('rmsNorm', '[2, -1]'));
  throwsWith(() => F.rmsNorm(x, [1.5]), msg('rmsNorm', '[1.5]'));
  throwsWith(() => F.rmsNorm(x, '2'), msg('rmsNorm', "'2'"));
  throwsWith(() => new nn.RMSNorm([]), msg('RMSNorm', '[]'));
  assert.deepEqual(new nn.RMSNorm(0).normalizedShape, [0]);
  assert.deepEqual(new nn.RMSNorm([1, 0]).normalizedShape, [1, 0]);
  const r = Math.sqrt(12.5 + 1e-6);
  close(F.rmsNorm(x, 2, null, { eps: 1e-6 }).toArray(), [[3 / r, 4 / r]]);
});

test('rmsNorm input: its last dims equal normalizedShape (as many dims as the input accepted)', () => {
  const x = sg.tensor([[3, 4]]);
  const r = Math.sqrt(12.5 + 1e-6);
  close(F.rmsNorm(x, [1, 2], undefined, { eps: 1e-6 }).toArray(), [[3 / r, 4 / r]]);
  throwsWith(() => F.rmsNorm(x, [1, 1, 2]), /^rmsNorm: expected an input whose last dims are \[1, 1, 2\], got shape \[1, 2\]$/);
  throwsWith(() => F.rmsNorm(x, [3]), /^rmsNorm: expected an input whose last dims are \[3\], got shape \[1, 2\]$/);
  throwsWith(() => F.rmsNorm(x, [2, 2]), /^rmsNorm: expected an input whose last dims are \[2, 2\], got shape \[1, 2\]$/);
});

test('rmsNorm weight: null or undefined means none; otherwise a Tensor of normalizedShape', () => {
  const x = sg.tensor([[3, 4]]);
  const r = Math.sqrt(12.5 + 1e-6);
  close(F.rmsNorm(x, 2, sg.tensor([2, -1]), { eps: 1e-6 }).toArray(), [[6 / r, -4 / r]]);
  close(F.rmsNorm(x, 2, undefined, { eps: 1e-6 }).toArray(), [[3 / r, 4 / r]]);
  throwsWith(() => F.rmsNorm(x, 2, [2, -1]), /^rmsNorm: expected 'weight' to be a Tensor or null, got \[2, -1\]$/);
  throwsWith(() => F.rmsNorm(x, 2, sg.ones([1, 2])), /^rmsNorm: expected 'weight' of shape \[2\], got \[1, 2\]$/);
  throwsWith(() => F.rmsNorm(x, 2, sg.ones([3])), /^rmsNorm: expected 'weight' of shape \[2\], got \[3\]$/);
});

test('inside sg.compile a write into a tensor made before the trace (the newest one too) is refused; one made in it is not', () => {
  const before = sg.zeros([2]);
  const last = sg.zeros([2]);
  throwsWith(() => sg.compile(() => { nn.init.constant_(before, 1); return sg.ones([1]); })(),
    /^constant_: cannot write into an existing tensor inside sg\.compile \(the write would happen once, while tracing\); do it outside the compiled function$/);
  const newest = sg.zeros([2]);
  throwsWith(() => sg.compile(() => { nn.init.constant_(newest, 1); return sg.ones([1]); })(), 'cannot write into an existing tensor inside sg.compile');
  close(newest.toArray(), [0, 0]);
  const made = sg.compile((x) => { const t = sg.tensor([0, 0]); nn.init.constant_(t, 3); return t.add(x); });
  close(made(sg.ones([2])).toArray(), [4, 4]);
  nn.init.constant_(last, 2);
  close(last.toArray(), [2, 2]);
});
