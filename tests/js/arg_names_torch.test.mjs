// Every sg op (sg.* and sg.F.*) that PyTorch 1.13 also has, given a wrong value ('oops') as its
// first or second argument (the arguments before it valid), throws an Error that starts with the
// op's own name and names that argument by PyTorch's name, camelCased ("maskedSelect: expected
// 'mask' to be ..."): tests/data/gen_arg_names.py reads PyTorch's signatures. The arguments before
// (and up to two after) the wrong one take a plain valid value chosen by their PyTorch name below.
// NOT_YET lists the calls whose message does not do so today (a composite op reporting the inner
// op it calls, 'A' for PyTorch's 'input', a list argument named by its element): each is a gap to
// close, and it leaves this list when it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readRef, sg } from './helpers.mjs';

const ref = readRef('arg_names_ref.json');
const snake = (s) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (s) => s.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
// PyTorch parameters that are sg options or absent in JavaScript, not positions.
const NOT_POSITIONAL = new Set(['out', 'dtype', 'layout', 'device', 'requires_grad', 'pin_memory', 'size_average', 'reduce', 'generator', 'memory_format', 'names']);
const VALID = {
  input: () => sg.ones([2, 3]), self: () => sg.ones([2, 3]), other: () => sg.ones([2, 3]), x: () => sg.ones([2, 3]), y: () => sg.ones([2, 3]),
  source: () => sg.ones([2, 3]), src: () => sg.ones([2, 3]), tensor1: () => sg.ones([2, 3]), tensor2: () => sg.ones([2, 3]),
  end: () => sg.ones([2, 3]), target: () => sg.ones([2, 3]), weight: () => sg.ones([3]),
  mask: () => sg.ones([2, 3], { dtype: 'bool' }), condition: () => sg.ones([2, 3], { dtype: 'bool' }), index: () => sg.zeros([2, 3], { dtype: 'int32' }),
  dim: () => 0, dim0: () => 0, dim1: () => 1, k: () => 1, chunks: () => 1, shifts: () => 1, exponent: () => 2, value: () => 0,
  num_samples: () => 1, start: () => 0, length: () => 1,
};
const NOT_YET = new Set([
  // "expected a Tensor" (or an unquoted name) without the argument's name
  'F.alphaDropout 0', 'F.featureAlphaDropout 0', 'F.ctcLoss 0', 'F.dropout3d 0', 'F.localResponseNorm 0',
  'sg.zerosLike 0', 'sg.onesLike 0', 'sg.fullLike 0', 'sg.fullLike 1', 'sg.randLike 0', 'sg.randnLike 0', 'sg.emptyLike 0',
  // composites whose first check is an inner op's (named after it)
  'sg.amax 0', 'sg.amax 1', 'sg.amin 0', 'sg.amin 1', 'sg.nansum 1', 'sg.nanmean 1', 'sg.varMean 0', 'sg.stdMean 0',
  'sg.narrowCopy 0', 'sg.narrowCopy 1', 'sg.swapaxes 0', 'sg.swapaxes 1',
  // a scalar PyTorch takes positionally, which sg takes in the options object
  'sg.nanToNum 1', 'sg.aminmax 1', 'sg.diff 1', 'sg.cov 1', 'sg.cholesky 1', 'sg.nonzero 1', 'sg.bincount 1',
  'sg.histc 1', 'F.hardtanh 1', 'F.rrelu 1', 'sg.sliceScatter 0', 'sg.sliceScatter 1',
  'F.alphaDropout 1', 'F.featureAlphaDropout 1', 'F.dropout1d 1', 'F.dropout3d 1', 'F.interpolate 1', 'F.normalize 1',
  // another name than PyTorch's, or a list argument named by its element (xlogy, isinf, isfinite
  // name 'input' and 'other' as PyTorch's documentation does; its overrides table says x, y and tensor)
  'sg.xlogy 0', 'sg.xlogy 1', 'sg.isinf 0', 'sg.isfinite 0',
  'sg.permute 0', 'sg.permute 1', 'sg.reshape 1', 'sg.tile 1', 'sg.cat 0', 'sg.stack 0', 'sg.where 0', 'sg.where 1', 'sg.broadcastTo 0',
  'sg.broadcastTo 1', 'sg.movedim 1', 'sg.diagEmbed 1', 'sg.hstack 0', 'sg.vstack 0', 'sg.rowStack 0', 'sg.dstack 0', 'sg.columnStack 0',
  'sg.inverse 0', 'sg.det 0', 'sg.logdet 0', 'sg.slogdet 0', 'sg.cholesky 0', 'sg.polygamma 0', 'sg.polygamma 1', 'sg.logsumexp 1',
  'sg.tensorSplit 1', 'sg.hsplit 1', 'sg.vsplit 1', 'sg.repeatInterleave 1', 'F.dropout1d 0', 'F.pad 1',
  // another argument is checked first (one the table below cannot make valid, or a shape check)
  'sg.narrow 0', 'sg.select 0', 'sg.scatterReduce 0', 'sg.outer 0', 'sg.bmm 1', 'sg.dot 1', 'sg.addmm 0', 'sg.baddbmm 0', 'sg.addbmm 0',
  'sg.addmv 0', 'sg.combinations 1', 'sg.dsplit 1', 'F.maxPool1d 0', 'F.maxPool2d 0', 'F.adaptiveMaxPool2d 1', 'F.maxUnpool1d 0',
  'F.maxUnpool2d 0', 'F.maxPool3d 1', 'F.adaptiveAvgPool3d 1', 'F.adaptiveMaxPool3d 1', 'F.cosineEmbeddingLoss 0',
  'F.embeddingBag 0', 'F.layerNorm 0', 'F.lpPool1d 0', 'F.lpPool2d 0', 'F.pad 0', 'F.localResponseNorm 1', 'F.unfold 1',
]);

const GROUPS = [['sg', sg, ref.torch], ['F', sg.F, ref.F]];

/** The ops of a group that PyTorch has, with PyTorch's positional parameters. */
function* opsWithSignatures() {
  for (const [group, obj, table] of GROUPS) {
    for (const name of Object.keys(obj).sort()) {
      if (typeof obj[name] !== 'function' || /^[A-Z]/.test(name)) continue;
      const params = (table[snake(name)] ?? table[name])?.filter((p) => !NOT_POSITIONAL.has(p));
      if (params) yield { group, obj, name, params };
    }
  }
}

/**
 * Calls op with 'oops' as argument k: null where an argument before it cannot be made valid or
 * the call is accepted (a string where PyTorch takes one, e.g. a mode); else the message and
 * whether it starts with the op's name and names PyTorch's argument.
 */
function probe({ obj, name, params }, k) {
  if (params.slice(0, k).some((p) => !VALID[p])) return null;
  const args = params.slice(0, k).map((p) => VALID[p]());
  args.push('oops');
  for (let j = k + 1; j <= k + 2; j++) {
    // a third 'weight' is PyTorch's positional one of the losses, which sg takes in the options
    if (!VALID[params[j]] || (j >= 2 && params[j] === 'weight')) break;
    args.push(VALID[params[j]]());
  }
  let message = null;
  try {
    sg.dispose(obj[name](...args));
  } catch (e) {
    message = e instanceof Error ? e.message : `not an Error: ${String(e)}`;
  }
  sg.dispose(args.filter((a) => a instanceof sg.Tensor));
  if (message === null) return null;
  return { message, ok: message.startsWith(`${name}:`) && message.includes(`'${camel(params[k])}'`) };
}

test('a wrong argument to an op: the Error starts with the op\'s name and names the argument as PyTorch 1.13 does', () => {
  const before = sg.memory().tensors;
  const wrong = [];
  let checked = 0;
  for (const op of opsWithSignatures()) {
    for (let k = 0; k < Math.min(2, op.params.length); k++) {
      if (NOT_YET.has(`${op.group}.${op.name} ${k}`)) continue;
      const r = probe(op, k);
      if (r === null) continue;
      checked++;
      if (!r.ok) wrong.push(`${op.group}.${op.name} argument ${k} ('${camel(op.params[k])}'): ${r.message}`);
    }
  }
  assert.deepEqual(wrong, []);
  assert.ok(checked >= 330, `${checked} calls checked`);
  assert.equal(sg.memory().tensors, before, 'no tensor left');
});

test('every NOT_YET entry is an op PyTorch has and still misses: a gap closed must leave the list', () => {
  const seen = new Set();
  const closed = [];
  for (const op of opsWithSignatures()) {
    for (const k of [0, 1]) {
      const key = `${op.group}.${op.name} ${k}`;
      if (!NOT_YET.has(key)) continue;
      seen.add(key);
      const r = probe(op, k);
      if (r === null || r.ok) closed.push(key);
    }
  }
  assert.deepEqual(closed, [], 'these now name themselves and their argument: remove them from NOT_YET');
  assert.deepEqual([...NOT_YET].filter((k) => !seen.has(k)), [], 'NOT_YET entries that name no op with a PyTorch signature');
});

test('a Tensor where the options object goes (PyTorch\'s positional weight) is named as a Tensor; a prototype-less options object is accepted', () => {
  const x = sg.ones([2, 3]), t = sg.tensor([0, 2], { dtype: 'int32' }), w = sg.ones([3]);
  // it had been read for its fields: "crossEntropy: unknown option '_h' ..."
  assert.throws(() => sg.F.crossEntropy(x, t, w), { message: 'crossEntropy: expected an options object, got a Tensor of shape [3] (float32)' });
  assert.throws(() => sg.F.nllLoss(x, t, w), { message: 'nllLoss: expected an options object, got a Tensor of shape [3] (float32)' });
  const bare = Object.assign(Object.create(null), { reduction: 'sum' });
  const loss = sg.F.crossEntropy(x, t, bare);
  assert.ok(Math.abs(loss.item() - 2 * Math.log(3)) < 1e-6); // uniform logits: −log(1/3) a sample, summed
  sg.dispose([x, t, w, loss]);
});
