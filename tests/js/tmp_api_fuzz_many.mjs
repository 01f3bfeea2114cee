// Random calls across the tensor API (seeded, reproducible): odd shapes (0-size dims, 0-d,
// strided views), every dtype, NaN/Infinity/huge values, and arguments of every wrong kind.
// Whatever happens, a call either works or throws an Error whose message starts with the
// name of a function ("sum: ..."); never a wasm trap, a number or an "unknown C++ exception";
// no tensor or byte is leaked, and the module still computes afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

const CALLS = 4000;

/** A small deterministic generator (LCG), so that a failure names a reproducible seed. */
function generator(seed) {
  let s = seed >>> 0;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return { next, pick: (a) => a[Math.floor(next() * a.length)] };
}

const METHODS = [
  'add', 'sub', 'mul', 'div', 'pow', 'maximum', 'minimum', 'neg', 'clamp', 'exp', 'log', 'sqrt', 'abs', 'sign',
  'relu', 'leakyRelu', 'elu', 'gelu', 'sigmoid', 'tanh', 'softplus', 'softmax', 'logSoftmax', 'matmul', 'transpose',
  'permute', 'sum', 'mean', 'prod', 'logsumexp', 'max', 'min', 'var', 'std', 'argmax', 'argmin', 'norm', 'reshape',
  'view', 'expand', 'flatten', 'squeeze', 'unsqueeze', 'split', 'chunk', 'narrow', 'slice', 'indexSelect', 'gather',
  'contiguous', 'clone', 'eq', 'ne', 'lt', 'gt', 'maskedFill', 'prelu', 'to', 'item', 'backward',
];
const FUNCTIONS = [
  (a, b, c) => sg.cat([a, b], c), (a, b, c) => sg.stack([a, b], c), (a, b, c) => sg.where(a, b, c), (a, b, c) => sg.pad(a, b, c),
  (a, b, c) => sg.F.crossEntropy(a, b, c), (a, b) => sg.F.mseLoss(a, b), (a, b, c) => sg.F.linear(a, b, c),
  (a, b, c) => sg.F.conv1d(a, b, null, c), (a, b, c) => sg.F.conv2d(a, b, null, c), (a, b, c) => sg.F.maxPool2d(a, b, c),
  (a, b) => sg.F.avgPool1d(a, b), (a, b, c) => sg.F.layerNorm(a, b, c), (a, b) => sg.F.embedding(a, b), (a, b) => sg.F.oneHot(a, b),
  (a, b) => sg.F.nllLoss(a, b), (a, b) => sg.F.binaryCrossEntropy(a, b), (a, b) => sg.F.klDiv(a, b), (a, b) => sg.F.groupNorm(a, b),
  (a, b, c) => sg.F.batchNorm(a, b, c), (a, b) => sg.F.dropout(a, b), (a, b) => sg.F.adaptiveAvgPool2d(a, b),
];

function randomCalls(seed, n) {
  const { next, pick } = generator(seed);
  const numbers = [0, 1, -1, 2.5, NaN, Infinity, -Infinity, 1e30, -0, 2 ** 31, 1e-40];
  const dims = [-4, -3, -2, -1, 0, 1, 2, 3, 4, 0.5, NaN, 1e9, -1e9, 2 ** 31, undefined, null, [0, 1], [], [0, 0]];
  const shape = () => Array.from({ length: Math.floor(next() * 4) }, () => pick([0, 1, 2, 3, 5]));
  const tensor = () => {
    const s = shape();
    const dtype = pick(['float32', 'float32', 'int32', 'bool']);
    const size = s.reduce((a, b) => a * b, 1);
    const values = Array.from({ length: size }, () =>
      dtype === 'bool' ? next() < 0.5 : dtype === 'int32' ? Math.floor(next() * 7) - 3 : pick(numbers),
    );
    let t = sg.tensor(values, { dtype, shape: s });
    if (next() < 0.2 && t.ndim >= 2) t = t.transpose(0, 1);
    if (next() < 0.2 && dtype === 'float32') t = t.detach().requiresGrad_();
    return t;
  };
  const arg = () => pick([tensor, tensor, () => pick(numbers), () => pick(dims), shape, () => ({ bogus: 1 }), () => 'x', () => ({ stride: pick(dims) })])();
  const bad = [];
  let threw = 0;
  for (let i = 0; i < n; i++) {
    sg.tidy(() => {
      const a = tensor();
      const args = [arg(), arg(), arg()].slice(0, Math.floor(next() * 4));
      const useFunction = next() < 0.3;
      const f = useFunction ? pick(FUNCTIONS) : null;
      const name = useFunction ? `F#${FUNCTIONS.indexOf(f)}` : pick(METHODS);
      try {
        const r = useFunction ? f(a, ...args) : a[name](...args);
        if (next() < 0.3 && r instanceof sg.Tensor && r.requiresGrad) (r.numel === 1 ? r : r.sum()).backward();
      } catch (e) {
        threw++;
        const ok = e instanceof Error && !(e instanceof WebAssembly.RuntimeError) && /^[A-Za-z_][\w.]*: /.test(e.message) && !/unknown C\+\+ exception|internal error/.test(e.message);
        if (!ok && bad.length < 10) {
          const show = (x) => (x instanceof sg.Tensor ? `Tensor${JSON.stringify(x.shape)}${x.dtype}` : JSON.stringify(x));
          bad.push(`call ${i}: ${name} on ${show(a)} with (${args.map(show).join(', ')}): ${e instanceof Error ? e.message : typeof e + ' ' + String(e)}`);
        }
      }
    });
  }
  return { bad, threw };
}

for (const seed of Array.from({ length: 40 }, (_, i) => i + 100)) {
  test(`${CALLS} random calls (seed ${seed}) throw only named Errors and leak nothing`, () => {
    const before = sg.memory();
    const { bad, threw } = randomCalls(seed, CALLS);
    assert.deepEqual(bad, [], `unexpected failures:\n${bad.join('\n')}`);
    assert.ok(threw > CALLS / 4, `the calls must mostly be mistakes (${threw} threw)`);
    const after = sg.memory();
    assert.equal(after.tensors, before.tensors);
    assert.equal(after.bytes, before.bytes);
    sg.tidy(() => assert.deepEqual(sg.tensor([[1, 2], [3, 4]]).matmul(sg.tensor([[1], [1]])).toArray(), [[3], [7]]));
  });
}
