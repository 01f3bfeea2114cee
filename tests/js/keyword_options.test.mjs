// PyTorch's keyword arguments in the trailing options object (API.md "Indexing, assignment and
// keyword arguments"): F.softmax(x, { dim: -1 }), sg.cat(list, { dim: 1 }), x.topk(5, { dim: -1 }),
// x.multinomial({ numSamples: 1 }), reductions, shape ops, ... Expected values are closed forms
// of a small matrix (written out or computed with Math.*); giving a value both positionally and
// by name, an unknown name, or a wrong type is an Error naming the function and the argument,
// and leaves sg.memory() unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith } from './helpers.mjs';

const X = [[1, 5, 3], [4, 2, 6]];
const x = () => sg.tensor(X);
const F = sg.F;

const softmaxRow = (r) => {
  const m = Math.max(...r);
  const e = r.map((v) => Math.exp(v - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
};
const lse = (r) => Math.log(r.reduce((a, v) => a + Math.exp(v), 0));

/** name -> [call, expected nested array (or a function checking the result)]. */
const CASES = {
  'F.softmax(x, { dim: -1 })': [(t) => F.softmax(t, { dim: -1 }), X.map(softmaxRow)],
  'F.logSoftmax(x, { dim: 1 })': [(t) => F.logSoftmax(t, { dim: 1 }), X.map((r) => softmaxRow(r).map(Math.log))],
  'x.softmax({ dim: 0 })': [(t) => t.softmax({ dim: 0 }), [[1 / (1 + Math.exp(3)), 1 / (1 + Math.exp(-3)), 1 / (1 + Math.exp(3))], [1 / (1 + Math.exp(-3)), 1 / (1 + Math.exp(3)), 1 / (1 + Math.exp(-3))]]],
  'F.softmin(x, { dim: 1 })': [(t) => F.softmin(t, { dim: 1 }), X.map((r) => softmaxRow(r.map((v) => -v)))],
  'sg.cat(list, { dim: 1 })': [(t) => sg.cat([t, t], { dim: 1 }), [[1, 5, 3, 1, 5, 3], [4, 2, 6, 4, 2, 6]]],
  'sg.stack(list, { dim: 2 })': [(t) => sg.stack([t, t.neg()], { dim: 2 }), [[[1, -1], [5, -5], [3, -3]], [[4, -4], [2, -2], [6, -6]]]],
  'sum(x, { dim: 1, keepdim: true })': [(t) => sg.sum(t, { dim: 1, keepdim: true }), [[9], [12]]],
  'x.sum(1, { keepdim: true })': [(t) => t.sum(1, { keepdim: true }), [[9], [12]]],
  'x.sum({ dim: [0, 1] })': [(t) => t.sum({ dim: [0, 1] }), 21],
  'x.mean({ dim: 0 })': [(t) => t.mean({ dim: 0 }), [2.5, 3.5, 4.5]],
  'x.prod({ dim: 1 })': [(t) => t.prod({ dim: 1 }), [15, 48]],
  'x.max({ dim: 1 }) (the values)': [(t) => t.max({ dim: 1 }), [5, 6]],
  'x.min({ dim: 0, keepdim: true })': [(t) => t.min({ dim: 0, keepdim: true }), [[1, 2, 3]]],
  'x.amax({ dim: 0 })': [(t) => t.amax({ dim: 0 }), [4, 5, 6]],
  'x.argmax({ dim: 1 })': [(t) => t.argmax({ dim: 1 }), [1, 2]],
  'x.argmin({ dim: 0, keepdim: true })': [(t) => t.argmin({ dim: 0, keepdim: true }), [[0, 1, 0]]],
  'x.var({ dim: 1, unbiased: false })': [(t) => t.var({ dim: 1, unbiased: false }), [8 / 3, 8 / 3]],
  'x.var(1, { unbiased: false, keepdim: true })': [(t) => t.var(1, { unbiased: false, keepdim: true }), [[8 / 3], [8 / 3]]],
  'x.std({ dim: 0 })': [(t) => t.std({ dim: 0 }), [1.5 * Math.SQRT2, 1.5 * Math.SQRT2, 1.5 * Math.SQRT2]],
  'x.varMean({ dim: 1, unbiased: false })': [(t) => t.varMean({ dim: 1, unbiased: false }), [[8 / 3, 8 / 3], [3, 4]]],
  'x.logsumexp({ dim: 1 })': [(t) => t.logsumexp({ dim: 1 }), X.map(lse)],
  'x.norm({ p: 1, dim: 1 })': [(t) => t.norm({ p: 1, dim: 1 }), [9, 12]],
  'x.norm(2, { dim: 0 })': [(t) => t.norm(2, { dim: 0 }), [Math.sqrt(17), Math.sqrt(29), Math.sqrt(45)]],
  'x.cumsum({ dim: 1 })': [(t) => t.cumsum({ dim: 1 }), [[1, 6, 9], [4, 6, 12]]],
  'sg.cumprod(x, { dim: 0 })': [(t) => sg.cumprod(t, { dim: 0 }), [[1, 5, 3], [4, 10, 18]]],
  'x.nansum({ keepdim: true, dim: 0 })': [(t) => t.nansum({ keepdim: true, dim: 0 }), [[5, 7, 9]]],
  'x.quantile(0.5, { dim: 1 })': [(t) => t.quantile(0.5, { dim: 1 }), [3, 4]],
  'x.quantile({ q: 0.5, dim: 1, interpolation: "lower" })': [(t) => t.quantile({ q: 0.5, dim: 1, interpolation: 'lower' }), [3, 4]],
  'x.split({ splitSizeOrSections: [1, 2], dim: 1 })': [(t) => t.split({ splitSizeOrSections: [1, 2], dim: 1 }), [[[1], [4]], [[5, 3], [2, 6]]]],
  'x.split(2, { dim: 1 })': [(t) => t.split(2, { dim: 1 }), [[[1, 5], [4, 2]], [[3], [6]]]],
  'x.chunk(3, { dim: 1 })': [(t) => t.chunk(3, { dim: 1 }), [[[1], [4]], [[5], [2]], [[3], [6]]]],
  'x.narrow({ dim: 1, start: 1, length: 2 })': [(t) => t.narrow({ dim: 1, start: 1, length: 2 }), [[5, 3], [2, 6]]],
  'x.narrow(1, { start: 2, length: 1 })': [(t) => t.narrow(1, { start: 2, length: 1 }), [[3], [6]]],
  'x.unsqueeze({ dim: -1 }).squeeze({ dim: 2 })': [(t) => t.unsqueeze({ dim: -1 }).squeeze({ dim: 2 }), X],
  'x.flatten({ startDim: 0 })': [(t) => t.flatten({ startDim: 0 }), [1, 5, 3, 4, 2, 6]],
  'x.transpose({ dim0: 0, dim1: 1 })': [(t) => t.transpose({ dim0: 0, dim1: 1 }), [[1, 4], [5, 2], [3, 6]]],
  'x.transpose(1, { dim1: 0 })': [(t) => t.transpose(1, { dim1: 0 }), [[1, 4], [5, 2], [3, 6]]],
  'x.permute({ dims: [1, 0] })': [(t) => t.permute({ dims: [1, 0] }), [[1, 4], [5, 2], [3, 6]]],
  'x.reshape({ shape: [3, 2] })': [(t) => t.reshape({ shape: [3, 2] }), [[1, 5], [3, 4], [2, 6]]],
  'x.view({ size: [6] })': [(t) => t.view({ size: [6] }), [1, 5, 3, 4, 2, 6]],
  'x.flip({ dims: [1] })': [(t) => t.flip({ dims: [1] }), [[3, 5, 1], [6, 2, 4]]],
  'x.roll({ shifts: 1, dims: 1 })': [(t) => t.roll({ shifts: 1, dims: 1 }), [[3, 1, 5], [6, 4, 2]]],
  'x.repeat({ repeats: [1, 2] })': [(t) => t.repeat({ repeats: [1, 2] }), [[1, 5, 3, 1, 5, 3], [4, 2, 6, 4, 2, 6]]],
  'x.movedim({ source: 0, destination: 1 })': [(t) => t.movedim({ source: 0, destination: 1 }), [[1, 4], [5, 2], [3, 6]]],
  'x.gather(1, { index: [[0], [2]] })': [(t) => t.gather(1, { index: [[0], [2]] }), [[1], [6]]],
  'sg.gather(x, { dim: 1, index: [[2, 1], [0, 0]] })': [(t) => sg.gather(t, { dim: 1, index: [[2, 1], [0, 0]] }), [[3, 5], [4, 4]]],
  'x.indexSelect({ dim: 1, index: [2, 0] })': [(t) => t.indexSelect({ dim: 1, index: [2, 0] }), [[3, 1], [6, 4]]],
  'x.clamp({ min: 2, max: 4 })': [(t) => t.clamp({ min: 2, max: 4 }), [[2, 4, 3], [4, 2, 4]]],
  'x.clamp(null, { max: 3 })': [(t) => t.clamp(null, { max: 3 }), [[1, 3, 3], [3, 2, 3]]],
  'sg.pad(x, { pad: [1, 0], value: -1 })': [(t) => sg.pad(t, { pad: [1, 0], value: -1 }), [[-1, 1, 5, 3], [-1, 4, 2, 6]]],
  'x.tril({ diagonal: -1 })': [(t) => sg.ones([3, 3]).tril({ diagonal: -1 }).add(t.sum().mul(0)), [[0, 0, 0], [1, 0, 0], [1, 1, 0]]],
  'x.diagonal({ offset: 1 })': [(t) => t.diagonal({ offset: 1 }), [5, 6]],
  'x.kthvalue(2, { dim: 1 }).values': [(t) => t.kthvalue(2, { dim: 1 }).values, [3, 4]],
  'x.kthvalue({ k: 1, dim: 0, keepdim: true }).indices': [(t) => t.kthvalue({ k: 1, dim: 0, keepdim: true }).indices, [[0, 1, 0]]],
  'x.median({ dim: 1 }).indices': [(t) => t.median({ dim: 1 }).indices, [2, 0]],
  'x.topk(2, { dim: -1, largest: false }).values': [(t) => t.topk(2, { dim: -1, largest: false }).values, [[1, 3], [2, 4]]],
  'x.topk({ k: 1, dim: 0 }).indices': [(t) => t.topk({ k: 1, dim: 0 }).indices, [[1, 0, 1]]],
  'x.sort({ dim: 0, descending: true }).values': [(t) => t.sort({ dim: 0, descending: true }).values, [[4, 5, 6], [1, 2, 3]]],
  'x.argsort({ dim: 1, descending: true })': [(t) => t.argsort({ dim: 1, descending: true }), [[1, 2, 0], [2, 0, 1]]],
  'x.cummax({ dim: 1 }).values': [(t) => t.cummax({ dim: 1 }).values, [[1, 5, 5], [4, 4, 6]]],
  'sg.tensorSplit(x, { indicesOrSections: [1], dim: 1 })': [(t) => sg.tensorSplit(t, { indicesOrSections: [1], dim: 1 }), [[[1], [4]], [[5, 3], [2, 6]]]],
  'F.glu(x4, { dim: 0 })': [(t) => F.glu(sg.cat([t, t]), { dim: 0 }), X.map((r) => r.map((v) => v / (1 + Math.exp(-v))))],
  'F.oneHot(i, { numClasses: 4 })': [() => F.oneHot(sg.tensor([0, 3], { dtype: 'int32' }), { numClasses: 4 }), [[1, 0, 0, 0], [0, 0, 0, 1]]],
  'F.leakyRelu(-x, { negativeSlope: 0.5 })': [(t) => F.leakyRelu(t.neg(), { negativeSlope: 0.5 }), X.map((r) => r.map((v) => -v / 2))],
  'F.hardshrink(x, { lambd: 2 })': [(t) => F.hardshrink(t, { lambd: 2 }), [[0, 5, 3], [4, 0, 6]]],
  'F.threshold(x, { threshold: 3, value: -1 })': [(t) => F.threshold(t, { threshold: 3, value: -1 }), [[-1, 5, -1], [4, -1, 6]]],
  'F.threshold(x, 3, { value: 0 })': [(t) => F.threshold(t, 3, { value: 0 }), [[0, 5, 0], [4, 0, 6]]],
  'F.celu(-x, { alpha: 2 })': [(t) => F.celu(t.neg(), { alpha: 2 }), X.map((r) => r.map((v) => 2 * (Math.exp(-v / 2) - 1)))],
  'F.pixelShuffle(x, { upscaleFactor: 2 })': [(t) => F.pixelShuffle(t.flatten().narrow(0, 0, 4).reshape(1, 4, 1, 1), { upscaleFactor: 2 }), [[[[1, 5], [3, 4]]]]],
  'x.scatterAdd({ dim: 1, index, src })': [(t) => t.scatterAdd({ dim: 1, index: [[0, 0], [2, 2]], src: sg.ones([2, 2]) }), [[3, 5, 3], [4, 2, 8]]],
};

for (const [name, [call, want]] of Object.entries(CASES)) {
  test(`keyword form: ${name}`, () => {
    const live = sg.memory().tensors;
    sg.tidy(() => {
      const out = call(x().float());
      const got = Array.isArray(out) ? out.map((t) => t.toArray()) : out.toArray();
      close(got, want, 1e-5);
    });
    assert.equal(sg.memory().tensors, live);
  });
}

test('multinomial takes numSamples and replacement by keyword', () => {
  sg.tidy(() => {
    const p = sg.tensor([[0, 1, 0], [0, 0, 1]]);
    assert.deepEqual(p.multinomial({ numSamples: 1 }).toArray(), [[1], [2]]);
    assert.deepEqual(sg.multinomial(sg.tensor([0, 0, 1]), { numSamples: 3, replacement: true }).toArray(), [2, 2, 2]);
    assert.deepEqual(sg.multinomial(sg.tensor([0, 0, 1]), 2, { replacement: true }).toArray(), [2, 2]);
  });
});

test('modules take their PyTorch keywords too: nn.Flatten({ startDim }), nn.GLU({ dim })', () => {
  sg.tidy(() => {
    const t = sg.ones([2, 3, 4]);
    assert.deepEqual(new sg.nn.Flatten({ startDim: 0 }).forward(t).shape, [24]);
    assert.deepEqual(new sg.nn.Flatten(0, { endDim: 1 }).forward(t).shape, [6, 4]);
    assert.deepEqual(new sg.nn.GLU({ dim: 1 }).forward(sg.ones([2, 4])).shape, [2, 2]);
    throwsWith(() => new sg.nn.Flatten(0, { startDim: 1 }), "Flatten: got multiple values for argument 'startDim'");
  });
});

test('keyword forms work inside sg.compile', () => {
  const f = sg.compile((a) => [a.sum({ dim: 1 }), F.softmax(a, { dim: -1 }), a.topk(1, { dim: 1 }).values]);
  const a = sg.tensor(X);
  for (let k = 0; k < 2; k++) {
    const [s, p, v] = f(a);
    close(s.toArray(), [9, 12]);
    close(p.toArray(), X.map(softmaxRow));
    close(v.toArray(), [[5], [6]]);
    sg.dispose([s, p, v]);
  }
  f.clear();
  a.dispose();
});

test('a value given both positionally and by keyword is an Error naming the function and the argument', () => {
  const t = x().float();
  const live = sg.memory().tensors;
  const both = [
    [() => F.softmax(t, 1, { dim: 1 }), "softmax: got multiple values for argument 'dim'"],
    [() => t.sum(1, { dim: 1 }), "sum: got multiple values for argument 'dim'"],
    [() => t.sum(0, true, { keepdim: true }), "sum: got multiple values for argument 'keepdim'"],
    [() => t.topk(2, { k: 2 }), "topk: got multiple values for argument 'k'"],
    [() => sg.cat([t, t], 0, { dim: 0 }), "cat: got multiple values for argument 'dim'"],
    [() => t.reshape(3, 2, { shape: [3, 2] }), "reshape: got multiple values for argument 'shape'"],
    [() => t.permute([1, 0], { dims: [1, 0] }), "permute: got multiple values for argument 'dims'"],
    [() => t.multinomial(1, { numSamples: 1 }), "multinomial: got multiple values for argument 'numSamples'"],
    [() => t.var(0, { dim: 0 }), "var: got multiple values for argument 'dim'"],
    [() => t.kthvalue(1, 0, { dim: 0 }), "kthvalue: got multiple values for argument 'dim'"],
    [() => t.gather(1, [[0]], { index: [[0]] }), "gather: got multiple values for argument 'index'"],
    [() => sg.pad(t, [1, 1], { pad: [1, 1] }), "pad: got multiple values for argument 'pad'"],
  ];
  for (const [call, msg] of both) throwsWith(() => sg.tidy(call), msg);
  assert.equal(sg.memory().tensors, live);
  t.dispose();
});

test('unknown keyword names, wrong types and arguments after the options object are Errors', () => {
  const t = x().float();
  const live = sg.memory().tensors;
  const bad = [
    [() => t.sum({ dims: 1 }), "sum: unknown option 'dims'", 'dim, keepdim'],
    [() => F.softmax(t, { dim: -1, dtype: 'float32' }), "softmax: unknown option 'dtype'"],
    [() => t.topk(2, { larges: false }), "topk: unknown option 'larges'", 'largest'],
    [() => t.sort({ descending: 1 }), "sort: option 'descending' must be a boolean"],
    [() => F.softmax(t, { dim: 'last' }), "softmax: expected 'dim' to be an integer", "'last'"],
    [() => t.sum({ dim: 0 }, true), 'sum: unexpected argument true after the options object'],
    [() => t.cumsum({}), "cumsum: expected 'dim' to be an integer, got undefined"],
    [() => t.narrow({ dim: 0, start: 0 }), "narrow: expected 'length' to be an integer, got undefined"],
    [() => t.multinomial({ numSamples: 1, replacment: true }), "multinomial: unknown option 'replacment'"],
    [() => sg.cat([t], { axis: 0 }), "cat: unknown option 'axis'"],
    [() => t.argmax({ dim: 0, keepdim: 'yes' }), "argmax: expected 'keepdim' to be a boolean"],
  ];
  for (const [call, ...msgs] of bad) throwsWith(() => sg.tidy(call), ...msgs);
  assert.equal(sg.memory().tensors, live);
  t.dispose();
});
