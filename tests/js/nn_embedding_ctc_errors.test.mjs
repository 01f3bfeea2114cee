// Embedding, EmbeddingBag and ctcLoss argument checks no other test reached or asserted (each
// message with its "got ..." part, the call working after), Embedding.fromPretrained (never run
// before) and the layers' printing. Oracles: PyTorch 1.13 (from_pretrained freezes by default,
// shares the table and leaves a paddingIdx row as given while its gradient stays zero; the printed
// forms are torch 1.13's: `EmbeddingBag(10, 3, mode=mean)`, `EmbeddingBag(10, 3, mode=sum,
// padding_idx=2)`, `Embedding(5, 2, padding_idx=1)`), and hand sums/means of table rows.
import assert from 'node:assert/strict';
import test from 'node:test';
import { close, sg, throwsWith } from './helpers.mjs';

const { F, nn } = sg;
const i32 = (a) => sg.tensor(a, { dtype: 'int32' });
const W = () => sg.tensor([[1, 2], [3, 4], [5, 6]]);

test('embeddingBag: input not a 1-D/2-D int32 Tensor is an Error naming it', () => {
  throwsWith(() => F.embeddingBag(sg.tensor([0, 1]), W(), { offsets: i32([0]) }),
    /^embeddingBag: expected 'input' to be a 1-D or 2-D int32 Tensor of indices, got a Tensor of shape \[2\] \(float32\)$/);
  throwsWith(() => F.embeddingBag(i32([[[0]]]), W()), "embeddingBag: expected 'input' to be a 1-D or 2-D int32 Tensor of indices, got a Tensor of shape [1, 1, 1] (int32)");
  throwsWith(() => F.embeddingBag([[0, 1]], W()), "embeddingBag: expected 'input' to be a 1-D or 2-D int32 Tensor of indices, got [[0, 1]]");
  // mode 'mean' by default (as PyTorch): the mean of rows 0 and 1.
  close(F.embeddingBag(i32([[0, 1]]), W()).toArray(), [[2, 3]]);
});

test('embeddingBag: perSampleWeights outside mode sum, or of another shape than input, is an Error naming it', () => {
  throwsWith(() => F.embeddingBag(i32([[0, 1]]), W(), { perSampleWeights: sg.tensor([[1, 2]]) }),
    /^embeddingBag: perSampleWeights is only supported for mode 'sum', got mode 'mean'$/);
  throwsWith(() => F.embeddingBag(i32([[0, 1]]), W(), { mode: 'max', perSampleWeights: sg.tensor([[1, 2]]) }), "perSampleWeights is only supported for mode 'sum', got mode 'max'");
  throwsWith(() => F.embeddingBag(i32([[0, 1]]), W(), { mode: 'sum', perSampleWeights: sg.tensor([1, 2]) }),
    /^embeddingBag: expected perSampleWeights of input's shape \[1, 2\], got \[2\]$/);
  throwsWith(() => F.embeddingBag(i32([0, 1, 2]), W(), { offsets: i32([0, 2]), mode: 'sum', perSampleWeights: sg.tensor([1, 2]) }),
    "expected perSampleWeights of input's shape [3], got [2]");
  // 1·row0 + 2·row1 = [7, 10]
  close(F.embeddingBag(i32([[0, 1]]), W(), { mode: 'sum', perSampleWeights: sg.tensor([[1, 2]]) }).toArray(), [[7, 10]]);
});

test('embeddingBag: a 1-D input without a 1-D int32 offsets Tensor is an Error naming what was given', () => {
  throwsWith(() => F.embeddingBag(i32([0, 1]), W()), /^embeddingBag: a 1-D input needs 'offsets', a 1-D int32 Tensor of bag starts, got undefined$/);
  throwsWith(() => F.embeddingBag(i32([0, 1]), W(), { offsets: i32([[0]]) }), "a 1-D input needs 'offsets', a 1-D int32 Tensor of bag starts, got a Tensor of shape [1, 1] (int32)");
  throwsWith(() => F.embeddingBag(i32([0, 1]), W(), { offsets: sg.tensor([0]) }), "a 1-D input needs 'offsets', a 1-D int32 Tensor of bag starts, got a Tensor of shape [1] (float32)");
  // bags [0] and [1, 2]: means [1, 2] and [4, 5]
  close(F.embeddingBag(i32([0, 1, 2]), W(), { offsets: i32([0, 1]) }).toArray(), [[1, 2], [4, 5]]);
});

test('EmbeddingBag and Embedding print as torch 1.13', () => {
  assert.equal(String(new nn.EmbeddingBag(10, 3)), 'EmbeddingBag(10, 3, mode=mean)');
  assert.equal(String(new nn.EmbeddingBag(10, 3, { mode: 'sum', paddingIdx: 2 })), 'EmbeddingBag(10, 3, mode=sum, padding_idx=2)');
  assert.equal(String(new nn.Embedding(5, 2)), 'Embedding(5, 2)');
  assert.equal(String(new nn.Embedding(5, 2, { paddingIdx: 1 })), 'Embedding(5, 2, padding_idx=1)');
});

test('Embedding: a _weight of another shape is an Error naming both shapes', () => {
  throwsWith(() => new nn.Embedding(3, 2, { _weight: sg.zeros([2, 2]) }), /^Embedding: _weight has shape \[2, 2\], expected \[3, 2\]$/);
  throwsWith(() => new nn.Embedding(3, 2, { _weight: sg.zeros([3, 3]) }), 'Embedding: _weight has shape [3, 3], expected [3, 2]');
  throwsWith(() => new nn.Embedding(3, 2, { _weight: sg.zeros([3, 2, 1]) }), 'Embedding: _weight has shape [3, 2, 1], expected [3, 2]');
  const e = new nn.Embedding(3, 2, { _weight: W() });
  close(e.forward(i32([2, 0])).toArray(), [[5, 6], [1, 2]]);
});

test('Embedding.fromPretrained: frozen by default, sharing the table; freeze false trains; a non-2-D table is an Error', () => {
  throwsWith(() => nn.Embedding.fromPretrained(sg.zeros([2])), /^Embedding\.fromPretrained: expected a 2-D Tensor, got a Tensor of shape \[2\] \(float32\)$/);
  throwsWith(() => nn.Embedding.fromPretrained([[1, 2]]), 'Embedding.fromPretrained: expected a 2-D Tensor, got [[1, 2]]');
  const table = W();
  const e = nn.Embedding.fromPretrained(table);
  assert.equal(e.numEmbeddings, 3);
  assert.equal(e.embeddingDim, 2);
  assert.equal(e.paddingIdx, null);
  assert.equal(e.weight.requiresGrad, false);
  close(e.forward(i32([1])).toArray(), [[3, 4]]);
  table.mul_(2);
  close(e.weight.toArray(), [[2, 4], [6, 8], [10, 12]]);

  const t = nn.Embedding.fromPretrained(W(), { freeze: false, paddingIdx: 0 });
  assert.equal(t.weight.requiresGrad, true);
  assert.equal(t.paddingIdx, 0);
  // The padding row keeps its given values (from_pretrained does not zero it) ...
  close(t.weight.toArray(), [[1, 2], [3, 4], [5, 6]]);
  // ... and gets no gradient: rows 0 (padding), 1 and 1 again.
  t.forward(i32([0, 1, 1])).sum().backward();
  close(t.weight.grad.toArray(), [[0, 0], [2, 2], [0, 0]]);
  const n = nn.Embedding.fromPretrained(W(), { paddingIdx: -1 });
  assert.equal(n.paddingIdx, 2);
});

test('ctcLoss: logProbs not a float32 [T, N, C] or [T, C] Tensor is an Error naming it', () => {
  const t = i32([[1]]);
  throwsWith(() => F.ctcLoss(sg.zeros([3, 1, 3], { dtype: 'float64' }), t, [3], [1]),
    /^ctcLoss: expected logProbs to be a float32 Tensor \[T, N, C\] \(or \[T, C\]\), got a Tensor of shape \[3, 1, 3\] \(float64\)$/);
  throwsWith(() => F.ctcLoss(sg.zeros([3, 1, 3, 1]), t, [3], [1]), 'ctcLoss: expected logProbs to be a float32 Tensor [T, N, C] (or [T, C]), got a Tensor of shape [3, 1, 3, 1] (float32)');
  throwsWith(() => F.ctcLoss(sg.zeros([3]), i32([1]), 3, 1), 'got a Tensor of shape [3] (float32)');
  throwsWith(() => F.ctcLoss([[0]], t, [3], [1]), 'ctcLoss: expected logProbs to be a float32 Tensor [T, N, C] (or [T, C]), got [[0]]');
  // Uniform log-probabilities over 2 classes, T = 1, target [1]: the one path has p = 1/2,
  // loss -log(1/2), divided by the target length 1 (reduction 'mean').
  close(F.ctcLoss(sg.full([1, 1, 2], Math.log(0.5)), t, [1], [1]).item(), Math.log(2), 1e-6);
});

test('ctcLoss: lengths, targets and blank checks, each naming what it got; lengths as int32 tensors work', () => {
  const lp = sg.full([5, 2, 3], Math.log(1 / 3));
  const tg = i32([[1, 2], [1, 1]]);
  throwsWith(() => F.ctcLoss(lp, tg, sg.tensor([5, 5]), [1, 1]), /^ctcLoss: expected 'inputLengths' as numbers or an int32 tensor on the CPU \(they are read synchronously\), got a float32 tensor on 'cpu'$/);
  throwsWith(() => F.ctcLoss(lp, tg, [5, 5], [1, -1]), /^ctcLoss: expected 'targetLengths' to be 2 non-negative integers, got \[1, -1\]$/);
  throwsWith(() => F.ctcLoss(lp, tg, [5, 5], [1.5, 1]), "ctcLoss: expected 'targetLengths' to be 2 non-negative integers, got [1.5, 1]");
  throwsWith(() => F.ctcLoss(lp, sg.tensor([[1, 2], [1, 1]]), [5, 5], [1, 1]), /^ctcLoss: expected targets to be an int32 Tensor, got a Tensor of shape \[2, 2\] \(float32\)$/);
  throwsWith(() => F.ctcLoss(lp, tg, [5, 5], [1, 1], { blank: -1 }), /^ctcLoss: expected blank in \[0, 3\) \(the classes\), got -1$/);
  throwsWith(() => F.ctcLoss(lp, tg, [0, 5], [1, 1]), /^ctcLoss: expected inputLengths\[0\] in \[1, 5\] \(the frames\), got 0$/);
  const shapeErr = (s, l) => `ctcLoss: expected targets [N, S] (or [S] for one sample) holding every target length, got shape [${s}] for targetLengths [${l}]`;
  throwsWith(() => F.ctcLoss(lp, i32([[[1], [2]], [[1], [1]]]), [5, 5], [1, 1]), shapeErr('2, 2, 1', '1, 1'));
  throwsWith(() => F.ctcLoss(lp, i32([[1, 2], [1, 1], [1, 1]]), [5, 5], [1, 1]), shapeErr('3, 2', '1, 1'));
  throwsWith(() => F.ctcLoss(sg.full([5, 3], Math.log(1 / 3)), i32([[1, 2]]), 5, 1), shapeErr('1, 2', '1'));
  // Uniform 1/3 over 5 frames, target [1]: the 15 frame strings collapsing to "1" (one block of
  // 1s among blanks) each have probability 3^-5: loss -log(15 / 243) per sample.
  close(F.ctcLoss(lp, tg, i32([5, 5]), i32([1, 1]), { reduction: 'none' }).toArray(), [Math.log(243 / 15), Math.log(243 / 15)], 1e-5);
});

// After a Stryker run on embedding_bag.ts:66-96 with this file (91 mutants, 63 killed; the rest
// below): the weight and paddingIdx checks, offsets with a 2-D input, and paddingIdx's exclusion
// (torch 1.13: embedding_bag([[0, 1], [2, 1]], W, padding_idx=1) = [[1, 2], [5, 6]] in mean and
// sum; with offsets [0, 2] over [0, 1, 2] the same).
test('embeddingBag: weight, paddingIdx and offsets checks; paddingIdx entries are left out of each bag', () => {
  throwsWith(() => F.embeddingBag(i32([[0, 1]]), sg.tensor([1, 2])), /^embeddingBag: expected 'weight' to be a 2-D Tensor \[num, dim\], got a Tensor of shape \[2\] \(float32\)$/);
  throwsWith(() => F.embeddingBag(i32([[0, 1]]), [[1, 2]]), "embeddingBag: expected 'weight' to be a 2-D Tensor [num, dim], got [[1, 2]]");
  throwsWith(() => F.embeddingBag(i32([[0, 1]]), W(), { paddingIdx: 3 }), /^embeddingBag: paddingIdx must be within the 3 embeddings, got 3$/);
  throwsWith(() => F.embeddingBag(i32([[0, 1]]), W(), { paddingIdx: -4 }), 'embeddingBag: paddingIdx must be within the 3 embeddings, got -4');
  throwsWith(() => F.embeddingBag(i32([[0, 1]]), W(), { offsets: i32([0]) }), /^embeddingBag: offsets must be null for a 2-D input \(each row is a bag\)$/);
  throwsWith(() => F.embeddingBag(i32([[0, 1]]), W(), { mode: 'sum', perSampleWeights: sg.tensor([[1], [2]]) }), "expected perSampleWeights of input's shape [1, 2], got [2, 1]");
  const rows = i32([[0, 1], [2, 1]]);
  close(F.embeddingBag(rows, W(), { paddingIdx: 1 }).toArray(), [[1, 2], [5, 6]]);
  close(F.embeddingBag(rows, W(), { paddingIdx: -2, mode: 'sum' }).toArray(), [[1, 2], [5, 6]]);
  close(F.embeddingBag(i32([0, 1, 2]), W(), { offsets: i32([0, 2]), paddingIdx: 1 }).toArray(), [[1, 2], [5, 6]]);
  // paddingIdx -3 is row 0 (the lowest index accepted): bag 0 keeps row 1 alone.
  close(F.embeddingBag(rows, W(), { paddingIdx: -3 }).toArray(), [[3, 4], [4, 5]]);
  // Without paddingIdx every entry counts: means [2, 3] and [4, 5].
  close(F.embeddingBag(rows, W()).toArray(), [[2, 3], [4, 5]]);
});
