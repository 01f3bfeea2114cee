// Transformer stacks and other nn argument checks whose messages no test asserted (or never ran):
// an options object followed by another argument, PositionalEncoding past maxLen, an integer
// attention mask, PackedSequence's unsortedIndices-without-sortedIndices and to() after dispose,
// init's interval checks, tripletMarginWithDistanceLoss's margin, RNNCell's feature count; and the
// defaults of the Transformer layers and PositionalEncoding, pinned to PyTorch 1.13's documented
// ones (dim_feedforward 2048, dropout 0.1, relu, layer_norm_eps 1e-5, batch_first False,
// norm_first False, 6 + 6 layers; the tutorial's PositionalEncoding: max_len 5000, dropout 0.1).
// Fixed here (source): TransformerEncoder.forward(src, options, extra) ignored `extra`; it is now
// an Error as in the layers and the decoder.
import assert from 'node:assert/strict';
import test from 'node:test';
import { close, sg, throwsWith } from './helpers.mjs';

const { nn, F } = sg;

test('an options object followed by another argument is an Error in every Transformer forward', () => {
  const src = sg.zeros([3, 1, 4]);
  const mem = sg.zeros([2, 1, 4]);
  const enc = new nn.TransformerEncoderLayer(4, 2, { dimFeedforward: 8, dropout: 0 });
  const dec = new nn.TransformerDecoderLayer(4, 2, { dimFeedforward: 8, dropout: 0 });
  throwsWith(() => enc.forward(src, {}, null), /^TransformerEncoderLayer: expected \(src, options\?\) or \(src, srcMask\?, srcKeyPaddingMask\?\)$/);
  throwsWith(() => new nn.TransformerEncoder(enc, 1).forward(src, {}, null), /^TransformerEncoder: expected \(src, options\?\) or \(src, mask\?, srcKeyPaddingMask\?\)$/);
  throwsWith(() => dec.forward(src, mem, {}, null), /^TransformerDecoderLayer: expected \(tgt, memory, options\?\) or positional masks$/);
  throwsWith(() => new nn.TransformerDecoder(dec, 1).forward(src, mem, {}, null), /^TransformerDecoder: expected \(tgt, memory, options\?\) or positional masks$/);
  const tr = new nn.Transformer({ dModel: 4, nhead: 2, numEncoderLayers: 1, numDecoderLayers: 1, dimFeedforward: 8, dropout: 0 });
  throwsWith(() => tr.forward(mem, src, {}, null), /^Transformer: expected \(src, tgt, options\?\) or positional masks$/);
  // Options alone, and positional masks, work; a mask given either way gives the same result.
  const x = sg.randn([3, 1, 4]);
  const mask = nn.generateSquareSubsequentMask(3);
  const te = new nn.TransformerEncoder(enc, 1);
  close(Array.from(te.forward(x, { mask }).dataSync()), Array.from(te.forward(x, mask).dataSync()), 1e-6);
  close(Array.from(te.forward(x, { mask }).dataSync()), Array.from(te.forward(x, { isCausal: true }).dataSync()), 1e-6);
  assert.deepEqual(tr.forward(mem, src, {}).shape, [3, 1, 4]);
});

test('Transformer layer and stack defaults are PyTorch 1.13\'s', () => {
  const enc = new nn.TransformerEncoderLayer(4, 2);
  const dec = new nn.TransformerDecoderLayer(4, 2);
  for (const l of [enc, dec]) {
    assert.deepEqual(l.linear1.weight.shape, [2048, 4]);
    assert.equal(l.dropout.p, 0.1);
    assert.equal(l.dropout1.p, 0.1);
    assert.equal(l.self_attn.dropout, 0.1);
    assert.equal(l.norm1.eps, 1e-5);
    assert.equal(l.norm_first, false);
    assert.equal(l.batchFirst, false);
    assert.equal(l.self_attn.batchFirst, false);
    assert.equal(l.activation, F.relu);
  }
  const tr = new nn.Transformer({ dModel: 4, nhead: 2, dimFeedforward: 8 });
  assert.equal(tr.encoder.layers.length, 6);
  assert.equal(tr.decoder.layers.length, 6);
  assert.equal(tr.encoder.layers.get(0).dropout.p, 0.1);
  assert.equal(tr.encoder.norm.eps, 1e-5);
  assert.equal(tr.decoder.layers.get(5).norm_first, false);
  assert.equal(tr.decoder.layers.get(0).activation, F.relu);
  // batch_first False: a [T, N, E] input keeps T first.
  tr.eval();
  assert.deepEqual(tr.forward(sg.zeros([5, 2, 4]), sg.zeros([3, 2, 4])).shape, [3, 2, 4]);
});

test('PositionalEncoding: defaults (maxLen 5000, dropout 0.1, [L, N, E]) and a sequence past maxLen is an Error naming both', () => {
  const pe = new nn.PositionalEncoding(4);
  assert.deepEqual(pe.pe.shape, [5000, 1, 4]);
  assert.equal(pe.dropout.p, 0.1);
  assert.equal(pe.batchFirst, false);
  pe.eval();
  // Position 1 of a [L = 2, N = 1, E = 4] zero input: [sin 1, cos 1, sin 1e-2, cos 1e-2] (10000^(-2/4) = 1e-2).
  close(pe.forward(sg.zeros([2, 1, 4])).toArray()[1][0], [Math.sin(1), Math.cos(1), Math.sin(0.01), Math.cos(0.01)], 1e-6);
  const small = new nn.PositionalEncoding(4, { maxLen: 5, dropout: 0 });
  throwsWith(() => small.forward(sg.ones([6, 2, 4])), /^PositionalEncoding: sequence length 6 exceeds maxLen 5$/);
  assert.deepEqual(small.forward(sg.ones([5, 2, 4])).shape, [5, 2, 4]);
});

test('an integer attention mask is an Error naming its dtype (bool and float masks only, as PyTorch)', () => {
  const mha = new nn.MultiheadAttention(4, 2);
  const q = sg.zeros([3, 1, 4]);
  throwsWith(() => mha.forward(q, q, q, { attnMask: sg.zeros([3, 3], { dtype: 'int32' }) }), /^attention: expected a bool or float32 mask, got int32$/);
  throwsWith(() => mha.forward(q, q, q, { keyPaddingMask: sg.zeros([1, 3], { dtype: 'uint8' }) }), 'attention: expected a bool or float32 mask, got uint8');
  assert.deepEqual(mha.forward(q, q, q, { attnMask: sg.zeros([3, 3], { dtype: 'bool' }) })[0].shape, [3, 1, 4]);
});

test('PackedSequence: unsortedIndices without sortedIndices, and to() after dispose, are Errors', () => {
  const PS = nn.utils.rnn.PackedSequence;
  throwsWith(() => new PS(sg.zeros([3, 1]), [2, 1], null, [1, 0]), /^PackedSequence: 'unsortedIndices' was given without 'sortedIndices'$/);
  const p = new PS(sg.zeros([3, 1]), [2, 1], [1, 0], [1, 0]);
  const q = p.to('cpu');
  assert.deepEqual(Array.from(q.unsortedIndices.dataSync()), [1, 0]);
  p[Symbol.dispose]();
  assert.equal(p.isDisposed, true);
  throwsWith(() => p.to('cpu'), /^PackedSequence\.to: the PackedSequence is disposed$/);
  assert.equal(q.isDisposed, false);
});

test('init.uniform_ with a > b and truncNormal_ with a >= b are Errors naming a and b', () => {
  const t = sg.zeros([4]);
  throwsWith(() => nn.init.uniform_(t, 2, 1), /^uniform_: expected a <= b, got a = 2 and b = 1$/);
  throwsWith(() => nn.init.truncNormal_(t, 0, 1, 2, 2), /^truncNormal_: expected a < b, got a = 2 and b = 2$/);
  throwsWith(() => nn.init.truncNormal_(t, 0, 1, 1, -1), 'truncNormal_: expected a < b, got a = 1 and b = -1');
  // a = b is allowed for uniform_ (every value is a).
  close(nn.init.uniform_(t, 3, 3).toArray(), [3, 3, 3, 3]);
});

test('tripletMarginWithDistanceLoss: margin <= 0 is an Error naming it', () => {
  const z = sg.zeros([1, 2]);
  throwsWith(() => F.tripletMarginWithDistanceLoss(z, z, z, { margin: -1 }), /^tripletMarginWithDistanceLoss: expected 'margin' > 0, got -1$/);
  throwsWith(() => F.tripletMarginWithDistanceLoss(z, z, z, { margin: 0 }), "expected 'margin' > 0, got 0");
  // Default margin 1: anchor = positive = negative gives max(0, 1 + d - d) = 1.
  close(F.tripletMarginWithDistanceLoss(z, z, z).item(), 1, 1e-6);
});

test('RNNCell: an input with the wrong feature count is an Error naming both counts', () => {
  const cell = new nn.RNNCell(3, 4);
  throwsWith(() => cell.forward(sg.ones([2, 5])), /^RNNCell: input has 5 features, expected inputSize 3$/);
  throwsWith(() => new nn.GRUCell(3, 4).forward(sg.ones([2])), /^GRUCell: input has 2 features, expected inputSize 3$/);
  assert.deepEqual(cell.forward(sg.ones([2, 3])).shape, [2, 4]);
});

test('Transformer.forward: src/tgt not live Tensors, batch or feature sizes that differ, and too many masks are Errors naming them', () => {
  const tr = new nn.Transformer({ dModel: 4, nhead: 2, numEncoderLayers: 1, numDecoderLayers: 1, dimFeedforward: 8, dropout: 0 });
  const src = sg.zeros([3, 2, 4]), tgt = sg.zeros([2, 2, 4]);
  const d = sg.zeros([3, 2, 4]);
  d.dispose();
  throwsWith(() => tr.forward([[0]], tgt), /^Transformer: expected 'src' to be a Tensor, got \[\[0\]\]$/);
  throwsWith(() => tr.forward(src, d), /^Transformer: expected 'tgt' to be a Tensor, got a disposed Tensor$/);
  throwsWith(() => tr.forward(src, sg.zeros([2, 1, 4])), /^Transformer: the batch number of src and tgt must be equal, got src \[3, 2, 4\] and tgt \[2, 1, 4\]$/);
  throwsWith(() => tr.forward(sg.zeros([3, 2, 5]), tgt), /^Transformer: the feature number of src and tgt must be equal to dModel \(4\), got src \[3, 2, 5\] and tgt \[2, 2, 4\]$/);
  throwsWith(() => tr.forward(src, sg.zeros([2, 2, 5])), 'the feature number of src and tgt must be equal to dModel (4), got src [3, 2, 4] and tgt [2, 2, 5]');
  throwsWith(() => tr.forward(src, tgt, null, null, null, null, null, null, null), /^Transformer: expected at most 6 masks after src and tgt, got 7$/);
  assert.deepEqual(tr.forward(src, tgt).shape, [2, 2, 4]);
});

test('Embedding: a paddingIdx outside [-numEmbeddings, numEmbeddings) is an Error naming it', () => {
  throwsWith(() => new nn.Embedding(3, 2, { paddingIdx: 3 }), /^Embedding: paddingIdx must be within numEmbeddings \(3\), got 3$/);
  throwsWith(() => new nn.Embedding(3, 2, { paddingIdx: -4 }), 'Embedding: paddingIdx must be within numEmbeddings (3), got -4');
  assert.equal(new nn.Embedding(3, 2, { paddingIdx: -3 }).paddingIdx, 0);
});
