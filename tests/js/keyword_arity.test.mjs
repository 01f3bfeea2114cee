// Too many arguments to an op that takes PyTorch's keywords (keywords(), tensor/keywords.ts): PyTorch raises
// TypeError for torch.argmin(x, 0, True, 5); here every such op throws an Error naming the op, how many
// arguments it takes after the input and how many it got, instead of dropping the extra one unread.
// Table-driven: each row is a full valid call (which must still work: the Error comes from the one extra
// argument alone) and the same call with one more. The counts and names are PyTorch's signatures (API.md),
// written here by hand, not read from the code.
import assert from 'node:assert/strict';
import test from 'node:test';
import { sg } from './helpers.mjs';

const F = sg.F;

// [label, call(args), valid args, the op's parameters after the input as the message lists them, bad args?].
// `bad` defaults to the valid args and one more (7); ops with an options object need the options slot
// left empty (undefined) so that the extra value is not read as the options.
function rows(t) {
  const { x, idx, idx2, mask, y3, v, x4 } = t;
  const both = (op, args, names, bad) => [
    [`x.${op}`, (a) => x[op](...a), args, names, bad],
    [`sg.${op}`, (a) => sg[op](x, ...a), args, names, bad],
  ];
  return [
    ...both('argmin', [0, true], 'dim, keepdim'),
    ...both('argmax', [1, false], 'dim, keepdim'),
    ...both('clamp', [0, 4], 'min, max'),
    ...both('leakyRelu', [0.1], 'negativeSlope'),
    ...both('elu', [0.5], 'alpha'),
    ...both('transpose', [0, 1], 'dim0, dim1'),
    ...both('norm', [2, 1, false], 'p, dim, keepdim'),
    ...both('flatten', [0, -1], 'startDim, endDim'),
    ...both('squeeze', [0], 'dim'),
    ...both('split', [1, 1], 'splitSizeOrSections, dim'),
    ...both('chunk', [2, 1], 'chunks, dim'),
    ...both('narrow', [1, 0, 2], 'dim, start, length'),
    ...both('slice', [1, 0, 2, 1], 'dim, start, end, step'),
    ...both('indexSelect', [1, idx], 'dim, index'),
    ...both('gather', [1, idx2], 'dim, index'),
    ...both('maskedFill', [mask, 0], 'mask, value'),
    ...both('sum', [1, false], 'dim, keepdim'),
    ...both('mean', [0, true], 'dim, keepdim'),
    ...both('max', [1, false], 'dim, keepdim'),
    ...both('amin', [1, false], 'dim, keepdim'),
    ...both('nansum', [1, false], 'dim, keepdim'),
    ...both('var', [1, false, { unbiased: false }], 'dim, keepdim, then an options object', [1, false, undefined, 7]),
    ...both('softmax', [1], 'dim'),
    ...both('cumsum', [0], 'dim'),
    ...both('sort', [1, { descending: true }], 'dim, then an options object', [1, undefined, 7]),
    ...both('topk', [2, 1, { largest: false }], 'k, dim, then an options object', [2, 1, undefined, 7]),
    ...both('kthvalue', [1, 1, false], 'k, dim, keepdim'),
    ...both('median', [1, false], 'dim, keepdim'),
    ...both('cummax', [1], 'dim'),
    ...both('logcumsumexp', [1], 'dim'),
    ...both('countNonzero', [1], 'dim'),
    ...both('roll', [1, 1], 'shifts, dims'),
    ...both('rot90', [1, [0, 1]], 'k, dims'),
    ...both('repeatInterleave', [2, 0], 'repeats, dim'),
    ...both('movedim', [0, 1], 'source, destination'),
    ...both('swapaxes', [0, 1], 'axis0, axis1'),
    ...both('unbind', [0], 'dim'),
    ...both('triu', [1], 'diagonal'),
    ...both('diagonal', [0, 0, 1], 'offset, dim1, dim2'),
    ...both('tensorSplit', [2, 1], 'indicesOrSections, dim'),
    ...both('scatter', [1, idx2, 0.5], 'dim, index, src'),
    ...both('takeAlongDim', [idx2, 1], 'indices, dim'),
    ...both('indexFill', [1, idx, 0], 'dim, index, value'),
    ['x.logit', (a) => x.sigmoid().logit(...a), [1e-3], 'eps'],
    ['y.cross', (a) => y3.cross(...a), [y3.flip(1), 1], 'other, dim'],
    ['sg.cat', (a) => sg.cat([x, x], ...a), [1], 'dim'],
    ['sg.stack', (a) => sg.stack([x, x], ...a), [0], 'dim'],
    ['sg.pad', (a) => sg.pad(x, ...a), [[1, 1], { value: 2 }], 'pad, then an options object', [[1, 1], undefined, 7]],
    ['F.softmin', (a) => F.softmin(x, ...a), [1], 'dim'],
    ['F.glu', (a) => F.glu(x, ...a), [0], 'dim'],
    ['F.hardshrink', (a) => F.hardshrink(x, ...a), [0.5], 'lambd'],
    ['F.celu', (a) => F.celu(x, ...a), [1], 'alpha'],
    ['F.threshold', (a) => F.threshold(x, ...a), [2, 0], 'threshold, value'],
    ['F.oneHot', (a) => F.oneHot(idx, ...a), [3], 'numClasses'],
    ['F.pixelShuffle', (a) => F.pixelShuffle(x4, ...a), [2], 'upscaleFactor'],
    ['sg.linalg.vectorNorm', (a) => sg.linalg.vectorNorm(x, ...a), [2, 1, false], 'ord, dim, keepdim'],
    ['sg.combinations', (a) => sg.combinations(v, ...a), [2, { withReplacement: true }], 'r, then an options object', [2, undefined, 7]],
  ];
}

// The op's name as the message gives it: the label without its receiver (x., sg., F.).
const opName = (label) => label.replace(/^(x|y|sg|F)\./, '');

test('one argument too many is an Error naming the op, how many it takes after the input and how many it got', () => {
  sg.tidy(() => {
    const t = {
      x: sg.tensor([[1, 5, 3], [4, 2, 6]]),
      idx: sg.tensor([0, 2], { dtype: 'int32' }),
      idx2: sg.tensor([[1], [0]], { dtype: 'int32' }),
      y3: sg.tensor([[1, 2, 3], [4, 5, 6]]),
      v: sg.tensor([1, 2, 3]),
      x4: sg.ones([1, 4, 2, 2]),
    };
    t.mask = t.x.gt(3);
    const table = rows(t);
    assert.ok(table.length >= 100, `${table.length} rows`);
    for (const [label, call, args, names, badArgs] of table) {
      call(args);  // the full valid call works
      const bad = badArgs ?? [...args, 7];
      const most = names.split(', ').length;
      const message = `${opName(label)}: expected at most ${most} argument${most === 1 ? '' : 's'} after the input (${names}), got ${bad.length}`;
      assert.throws(() => call(bad), (e) => e instanceof Error && e.message === message, `${label}: ${message}`);
    }
  });
});

test('x.argmin(0, true, 5) and sg.argmax(x, 1, false, 5, 6): the counts in the message; the module stays usable', () => {
  const x = sg.tensor([[1, 5, 3], [4, 2, 6]]);
  const live = sg.memory().tensors;
  assert.throws(() => x.argmin(0, true, 5), { message: 'argmin: expected at most 2 arguments after the input (dim, keepdim), got 3' });
  assert.throws(() => sg.argmax(x, 1, false, 5, 6), { message: 'argmax: expected at most 2 arguments after the input (dim, keepdim), got 4' });
  // No tensor was made or left behind by the failed calls, and the same ops work right after.
  assert.equal(sg.memory().tensors, live);
  sg.tidy(() => {
    assert.deepEqual(Array.from(x.argmin(0, true).dataSync()), [0, 1, 0]);
    assert.deepEqual(Array.from(sg.argmax(x, 1).dataSync()), [1, 2]);
    assert.deepEqual(x.argmin(0, true).shape, [1, 3]);
  });
  x.dispose();
});

test('what is not too many: trailing undefineds, the options object after the positionals, rest parameters', () => {
  sg.tidy(() => {
    const x = sg.tensor([[1, 5, 3], [4, 2, 6]]);
    // undefined is a left-out argument in JavaScript (its defaults read it so).
    assert.deepEqual(Array.from(x.argmin(0, true, undefined, undefined).dataSync()), [0, 1, 0]);
    assert.deepEqual(Array.from(x.sum(1, undefined, undefined).dataSync()), [9, 12]);
    // An options object right after all the positionals is the options (its keys checked by name).
    assert.deepEqual(x.argmin(0, true, {}).shape, [1, 3]);
    assert.deepEqual(x.argmin(0, { keepdim: true }).shape, [1, 3]);
    assert.throws(() => x.argmin(0, true, { x: 1 }), { message: "argmin: unknown option 'x' (expected one of: dim, keepdim)" });
    // A value after the options object keeps its own message.
    assert.throws(() => x.argmin(0, { keepdim: true }, 5), { message: 'argmin: unexpected argument 5 after the options object' });
    // Rest parameters take any number.
    assert.deepEqual(x.reshape(1, 1, 3, 2).shape, [1, 1, 3, 2]);
    assert.deepEqual(x.permute(1, 0).shape, [3, 2]);
    assert.deepEqual(x.unsqueeze(0).expand(2, 2, 3).shape, [2, 2, 3]);
  });
});
