// nn/functional_layers.ts and nn/functional_args.ts guards: sizeArg's empty array, convTranspose1d's input rank,
// dropoutArgs' null/undefined p and 'training' type, glu's even-size check (and an out-of-range dim left to
// chunk), scaledDotProductAttention's rank and enableGqa head checks, each part alone. Oracle: PyTorch 1.13
// (F.max_pool2d refuses kernel_size=(); conv_transpose1d takes 2-D and 3-D input only; F.glu: "Halving dimension
// must be even", an out-of-range dim an IndexError; F.dropout(x, training='yes') a TypeError); enableGqa is
// PyTorch 2.5's documented rule (Hq divisible by Hk and Hv); messages are sg's contract (read from the source).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith, close } from './helpers.mjs';

const F = sg.F;

test('sizeArg: [] and non-integer arrays refused, [k] and k taken', () => sg.tidy(() => {
  const x = sg.ones([1, 1, 4, 4]);
  throwsWith(() => F.maxPool2d(x, []), "maxPool2d: expected 'kernelSize' to be an integer or an array of integers, got []");
  throwsWith(() => F.avgPool2d(x, [2, 1.5]), "avgPool2d: expected 'kernelSize' to be an integer or an array of integers, got [2, 1.5]");
  assert.deepEqual(F.maxPool2d(x, [2]).shape, [1, 1, 2, 2]);
  assert.deepEqual(F.maxPool2d(x, [2, 2]).shape, [1, 1, 2, 2]);
  assert.deepEqual(F.adaptiveAvgPool1d(sg.ones([1, 4]), [2]).shape, [1, 2]);
}));

test('convTranspose1d: 2-D and 3-D input taken, 1-D and 4-D refused', () => sg.tidy(() => {
  const w = sg.ones([1, 1, 1]);
  assert.deepEqual(F.convTranspose1d(sg.ones([1, 3]), w).shape, [1, 3]);
  assert.deepEqual(F.convTranspose1d(sg.ones([1, 1, 3]), w).shape, [1, 1, 3]);
  throwsWith(() => F.convTranspose1d(sg.ones([3]), w), 'convTranspose1d: expected a 2-D or 3-D input ([Cin, L] or [N, Cin, L]), got shape [3]');
  throwsWith(() => F.convTranspose1d(sg.ones([1, 1, 1, 3]), w), 'convTranspose1d: expected a 2-D or 3-D input ([Cin, L] or [N, Cin, L]), got shape [1, 1, 1, 3]');
}));

test('dropout arguments: null and undefined p are the options form; a non-boolean training refused, booleans taken', () => sg.tidy(() => {
  const x = sg.ones([4]);
  assert.deepEqual(F.dropout(x, null).shape, [4]);
  close(F.dropout(x, { p: 0.5, training: false }).toArray(), [1, 1, 1, 1]);
  throwsWith(() => F.dropout(x, null, false), 'dropout: expected (input, options?) or (input, p, training?, inplace?), got an options object and more');
  throwsWith(() => F.dropout(x, undefined, false), 'dropout: expected (input, options?) or (input, p, training?, inplace?), got an options object and more');
  throwsWith(() => F.dropout(x, 0.5, 'yes'), "dropout: expected 'training' to be a boolean, got 'yes'");
  throwsWith(() => F.dropout(x, 0.5, 1), "dropout: expected 'training' to be a boolean, got 1");
  close(F.dropout(x, 0.5, false).toArray(), [1, 1, 1, 1]);
  close(F.dropout(x, 1, true).toArray(), [0, 0, 0, 0]);
  close(F.dropout(x, 1).toArray(), [0, 0, 0, 0]);
}));

test('glu: an odd halving dim refused, even taken; an out-of-range dim is a dim Error, not the halving one', () => sg.tidy(() => {
  throwsWith(() => F.glu(sg.ones([2, 3])), 'glu: halving dimension must be even, but dim -1 of the input of shape [2, 3] has size 3');
  throwsWith(() => F.glu(sg.ones([3, 2]), 0), 'glu: halving dimension must be even, but dim 0 of the input of shape [3, 2] has size 3');
  assert.deepEqual(F.glu(sg.ones([2, 3]), 0).shape, [1, 3]);
  const e = throwsWith(() => F.glu(sg.ones([2, 3]), 2), /out of range/);
  assert.doesNotMatch(e.message, /halving/);
}));

test('scaledDotProductAttention: query or key below 2 dims refused alone; enableGqa heads: key and value each alone', () => sg.tidy(() => {
  const m = sg.ones([3, 2]);
  assert.deepEqual(F.scaledDotProductAttention(m, m, m).shape, [3, 2]);
  throwsWith(() => F.scaledDotProductAttention(sg.ones([2]), m, m), 'scaledDotProductAttention: expected query and key with at least 2 dims, got [2] and [3, 2]');
  throwsWith(() => F.scaledDotProductAttention(m, sg.ones([2]), m), 'scaledDotProductAttention: expected query and key with at least 2 dims, got [3, 2] and [2]');
  const q = sg.ones([4, 3, 2]);
  assert.deepEqual(F.scaledDotProductAttention(q, sg.ones([2, 3, 2]), sg.ones([1, 3, 2]), { enableGqa: true }).shape, [4, 3, 2]);
  throwsWith(() => F.scaledDotProductAttention(q, sg.ones([3, 3, 2]), sg.ones([2, 3, 2]), { enableGqa: true }),
    "scaledDotProductAttention: enableGqa needs query's heads (4) to be a multiple of key's (3) and value's (2) (dim -3)");
  throwsWith(() => F.scaledDotProductAttention(q, sg.ones([2, 3, 2]), sg.ones([3, 3, 2]), { enableGqa: true }),
    "enableGqa needs query's heads (4) to be a multiple of key's (2) and value's (3) (dim -3)");
  throwsWith(() => F.scaledDotProductAttention(q, sg.ones([0, 3, 2]), sg.ones([2, 3, 2]), { enableGqa: true }), "key's (0) and value's (2)");
  throwsWith(() => F.scaledDotProductAttention(q, sg.ones([2, 3, 2]), sg.ones([0, 3, 2]), { enableGqa: true }), "key's (2) and value's (0)");
}));
