// Every op of tensor/ops.ts that takes PyTorch's keyword arguments (keywords()): an unknown name in its
// options object is an Error that names the op (as the method, x.op, and as the function, sg.op or
// sg.F.op) and lists the keyword names it does take, in PyTorch's order. The names are the ops'
// documented parameters (API.md); a wrong op name in a message (say 'norm' written as '') fails here.
import assert from 'node:assert/strict';
import test from 'node:test';
import { sg } from './helpers.mjs';

const KEYWORDS = {
  clamp: 'min, max', leakyRelu: 'negativeSlope', elu: 'alpha', transpose: 'dim0, dim1', permute: 'dims',
  argmax: 'dim, keepdim', argmin: 'dim, keepdim', norm: 'p, dim, keepdim', reshape: 'shape', view: 'size',
  expand: 'size', flatten: 'startDim, endDim', squeeze: 'dim', split: 'splitSizeOrSections, dim',
  chunk: 'chunks, dim', narrow: 'dim, start, length', slice: 'dim, start, end, step', indexSelect: 'dim, index',
  gather: 'dim, index', maskedFill: 'mask, value',
};

test("an unknown keyword is \"<op>: unknown option 'bogus' (expected one of: ...)\" from x.op and sg.op", () => {
  const x = sg.tensor([[1, 5, 3], [4, 2, 6]]);
  const live = sg.memory().tensors;
  for (const [op, names] of Object.entries(KEYWORDS)) {
    const message = `${op}: unknown option 'bogus' (expected one of: ${names})`;
    assert.throws(() => x[op]({ bogus: 1 }), (e) => e instanceof Error && e.message === message, `x.${op}: ${message}`);
    assert.throws(() => sg[op](x, { bogus: 1 }), (e) => e instanceof Error && e.message === message, `sg.${op}: ${message}`);
  }
  for (const f of [sg.pad, sg.F.pad]) {
    assert.throws(() => f(x, [1, 1], { bogus: 1 }), (e) => e.message === "pad: unknown option 'bogus' (expected one of: pad, mode, value)");
  }
  assert.equal(sg.memory().tensors, live);
  x.dispose();
});
