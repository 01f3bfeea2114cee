// sg.nn.utils.rnn's packed sequences (npm/src/nn/packed_sequence.ts) and nn.RNN / LSTM / GRU over
// a PackedSequence, against PyTorch 1.13 (tests/data/packed_sequence_ref.json from
// gen_packed_sequence.py: values and gradients on every backend); central-difference gradient
// checks; sg.compile = eager; tidy/dispose of a PackedSequence; bad input; memory flat over
// training steps with packed input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { forEachBackend } from './backends.mjs';
import { gradcheck, lcg, readRef } from './gradcheck_helpers.mjs';
import { assertCompiledEqualsEager, assertCompiledStepEqualsEager, checkRefCasesAsync } from './ref_cases.mjs';

const REF = readRef('packed_sequence_ref.json');
const R = () => sg.nn.utils.rnn;
// float32 rounding: PyTorch's BLAS sums in another order (as nn_rnn.test.mjs).
const TOL = 2e-6;

/**
 * A PackedSequence's tensors as PyTorch's namedtuple lists them (indices only when present).
 * batchSizes lives on the CPU (as PyTorch's); it is moved to data's device so that the harness
 * can weight it with an upstream tensor made there (its own device is checked below).
 */
function fields(p) {
  assert.equal(p.batchSizes.device, 'cpu', 'batchSizes on the CPU');
  assert.equal(p.batchSizes.dtype, 'int32');
  return [p.data, p.batchSizes.to(p.data.device), ...(p.sortedIndices ? [p.sortedIndices, p.unsortedIndices] : [])];
}
const padded = ([x, lengths]) => {
  assert.equal(lengths.device, 'cpu', 'lengths on the CPU');
  return [x, lengths.to(x.device)];
};

const CALLS = {
  'pack sorted': (x) => fields(R().packPaddedSequence(x, [4, 3, 3, 1])),
  'pack unsorted batchFirst': (x) => fields(R().packPaddedSequence(x, [2, 5, 1, 5], { batchFirst: true, enforceSorted: false })),
  'pack equal lengths trailing dims': (x) => fields(R().packPaddedSequence(x, sg.tensor([3, 3], { dtype: 'int32', device: 'cpu' }))),
  'pack shorter than padded': (x) => fields(R().packPaddedSequence(x, [2, 1], { enforceSorted: false })),
  pad: (x) => padded(R().padPackedSequence(R().packPaddedSequence(x, [1, 3, 2], { enforceSorted: false }))),
  'pad batchFirst value totalLength': (x) =>
    padded(R().padPackedSequence(R().packPaddedSequence(x, [3, 3, 1], { batchFirst: true }), { batchFirst: true, paddingValue: -2.5, totalLength: 5 })),
  packSequence: (a, b, c) => fields(R().packSequence([a, b, c])),
  'packSequence unsorted': (a, b, c) => fields(R().packSequence([a, b, c], { enforceSorted: false })),
  unpackSequence: (a, b, c) => R().unpackSequence(R().packSequence([a, b, c], { enforceSorted: false })),
};

forEachBackend('pack, pad, packSequence and unpackSequence equal PyTorch (values and gradients)', async (backend) => {
  await checkRefCasesAsync({ cases: REF.ops }, CALLS);
  if (backend !== 'webgpu') return;
  // A batch packed on the CPU moves to the GPU whole (batchSizes stays on the CPU, as PyTorch's).
  const x = sg.randn([3, 2, 2], { device: 'cpu' });
  const p = R().packPaddedSequence(x, [1, 3], { enforceSorted: false });
  const g = p.to('webgpu');
  assert.deepEqual([g.data.device, g.sortedIndices.device, g.unsortedIndices.device, g.batchSizes.device], ['webgpu', 'webgpu', 'webgpu', 'cpu']);
  assert.deepEqual(Array.from(await g.data.data()), Array.from(p.data.dataSync()));
  sg.dispose([x, p, g]);
});

const toArr = async (t) => Array.from(await t.data());

function near(got, want, what, tol = TOL) {
  assert.deepEqual(got.shape, want.shape, `${what}: shape`);
  let worst = 0;
  want.data.forEach((w, i) => {
    const err = Math.abs(got.values[i] - w) / (1 + Math.abs(w));
    if (!(err <= worst)) worst = err;
  });
  assert.ok(worst <= tol, `${what}: largest relative error ${worst} > ${tol}`);
}

const fromRef = (e, requiresGrad = false) => sg.tensor(Float32Array.from(e.data), { shape: e.shape, requiresGrad });

/** One layer case: the module over the packed input → [results, inputs, module]. */
function runLayerCase(c, k) {
  const module = new sg.nn[c.cls](c.inputSize, c.hiddenSize, c.opts);
  module.loadStateDict(Object.fromEntries(Object.entries(c.state).map(([n, v]) => [n, fromRef(v)])));
  if (c.mode === 'train') module.train();
  else module.eval();
  const inputs = c.inputs.map((e) => fromRef(e, true));
  const [x, ...states] = inputs;
  // Every other case gives the lengths as an int32 tensor on the CPU.
  const lengths = k % 2 ? sg.tensor(c.lengths, { dtype: 'int32', device: 'cpu' }) : c.lengths;
  const packed = R().packPaddedSequence(x, lengths, { batchFirst: c.opts.batchFirst ?? false, enforceSorted: c.enforceSorted });
  let out, hs;
  if (c.cls === 'LSTM') {
    const [o, [h, cc]] = module.forward(packed, states.length ? states : undefined);
    [out, hs] = [o, [h, cc]];
  } else {
    const [o, h] = module.forward(packed, states[0]);
    [out, hs] = [o, [h]];
  }
  assert.ok(out instanceof R().PackedSequence, 'a PackedSequence output');
  assert.deepEqual(Array.from(out.batchSizes.dataSync()), c.batchSizes, 'output batchSizes');
  assert.equal(out.sortedIndices === null, c.enforceSorted, 'sortedIndices present iff enforceSorted is false');
  return { results: [out.data, ...hs], inputs, module };
}

forEachBackend('RNN, LSTM and GRU over a PackedSequence equal PyTorch (outputs, h_n, c_n and every gradient)', async () => {
  const live = sg.memory().tensors;
  for (const [k, c] of REF.layers.entries()) {
    const { grads, results, names, module } = sg.tidy(() => {
      const { results, inputs, module } = runLayerCase(c, k);
      results.map((r, i) => r.mul(fromRef(c.weights[i])).sum()).reduce((a, b) => a.add(b)).backward();
      const named = module.namedParameters();
      return { results, grads: [...inputs.map((t) => t.grad), ...named.map(([, p]) => p.grad)], names: named.map(([n]) => n), module };
    });
    for (const [i, r] of results.entries()) near({ shape: r.shape, values: await toArr(r) }, c.results[i], `${c.name}: result ${i} on ${r.device}`);
    const wants = [...c.inputGrads, ...names.map((n) => c.paramGrads[n])];
    for (const [i, g] of grads.entries()) near({ shape: g.shape, values: await toArr(g) }, wants[i], `${c.name}: gradient ${i < c.inputGrads.length ? `of input ${i}` : `of ${names[i - c.inputGrads.length]}`}`);
    sg.dispose([results, grads]);
    module.dispose();
  }
  assert.equal(sg.memory().tensors, live, 'no tensor left behind');
});

test('central-difference gradient checks: pack/pad, packSequence/unpackSequence, a packed bidirectional LSTM', () => {
  const x = { shape: [4, 3, 2], data: lcg(21, 24) };
  gradcheck('pack then pad', (t) => {
    const [p] = R().padPackedSequence(R().packPaddedSequence(t, [2, 4, 1], { enforceSorted: false }), { batchFirst: true, totalLength: 5, paddingValue: 0.5 });
    return p.mul(p); // nonlinear, so that a wrong routing of values shows in the gradient too
  }, [x]);
  gradcheck('packSequence then data', (a, b) => R().packSequence([a, b], { enforceSorted: false }).data.exp(), [{ shape: [2, 2], data: lcg(22, 4) }, { shape: [3, 2], data: lcg(23, 6) }]);
  gradcheck('unpackSequence', (a, b) => sg.cat(R().unpackSequence(R().packSequence([a, b])).map((t) => t.square().flatten()), 0), [{ shape: [3, 2], data: lcg(24, 6) }, { shape: [1, 2], data: lcg(25, 2) }]);
  const lstm = new sg.nn.LSTM(2, 3, { numLayers: 2, bidirectional: true });
  gradcheck('packed LSTM', (xx, h0, c0) => {
    const [out, [h, c]] = lstm.forward(R().packPaddedSequence(xx, [3, 4, 1], { enforceSorted: false }), [h0, c0]);
    return sg.cat([out.data.flatten(), h.flatten(), c.flatten()], 0);
  }, [x, { shape: [4, 3, 3], data: lcg(26, 36, -0.5, 0.5) }, { shape: [4, 3, 3], data: lcg(27, 36, -0.5, 0.5) }]);
  lstm.dispose();
});

test('a packed batch gives each sequence what it gives alone (h_n at its own last step, reverse from its own end)', () => {
  // An oracle independent of PyTorch: run every sequence by itself (unpacked, batch 1).
  sg.tidy(() => {
    sg.manualSeed(5);
    const gru = new sg.nn.GRU(2, 3, { bidirectional: true, numLayers: 2 });
    const seqs = [sg.randn([2, 2]), sg.randn([5, 2]), sg.randn([1, 2]), sg.randn([5, 2])];
    const h0 = sg.randn([4, 4, 3]);
    const [out, h] = gru.forward(R().packSequence(seqs, { enforceSorted: false }), h0);
    const [padded, lengths] = R().padPackedSequence(out, { batchFirst: true });
    assert.deepEqual(Array.from(lengths.dataSync()), [2, 5, 1, 5]);
    seqs.forEach((s, b) => {
      const [o1, h1] = gru.forward(s.unsqueeze(1), h0.narrow(1, b, 1));
      const L = s.shape[0];
      const close = (a, e, what) => Array.from(a.dataSync()).forEach((v, i) => assert.ok(Math.abs(v - e[i]) < 1e-6, `${what}[${i}]: ${v} vs ${e[i]}`));
      close(padded.narrow(0, b, 1).narrow(1, 0, L).flatten(), Array.from(o1.flatten().dataSync()), `output of sequence ${b}`);
      close(h.narrow(1, b, 1).flatten(), Array.from(h1.flatten().dataSync()), `h_n of sequence ${b}`);
      if (L < 5) assert.ok(Array.from(padded.narrow(0, b, 1).narrow(1, L, 5 - L).dataSync()).every((v) => v === 0), 'zeros past the end');
    });
    gru.dispose();
  });
});

test('inside sg.compile: packing, the layers and padding equal eager; a PackedSequence passes in and out', () => {
  const live = sg.memory().tensors;
  sg.manualSeed(7);
  const lstm = new sg.nn.LSTM(2, 3, { bidirectional: true, numLayers: 2 });
  const x = sg.randn([4, 3, 2], { requiresGrad: true });
  const h0 = sg.randn([4, 3, 3]);
  const c0 = sg.randn([4, 3, 3]);
  const fn = (xx, hh, cc) => {
    const [out, [h, c]] = lstm.forward(R().packPaddedSequence(xx, [2, 4, 1], { enforceSorted: false }), [hh, cc]);
    const [p] = R().padPackedSequence(out, { batchFirst: true, paddingValue: -1 });
    return sg.cat([p.flatten(), h.flatten(), c.flatten()], 0);
  };
  assertCompiledEqualsEager(fn, [x, h0, c0]);
  assertCompiledStepEqualsEager(() => {
    const loss = fn(x, h0, c0).square().sum();
    loss.backward();
    return loss;
  }, x);

  // A PackedSequence as argument and result: its tensors are graph inputs and outputs, its sizes part of the key.
  const gru = new sg.nn.GRU(2, 3);
  const f = sg.compile((p) => gru.forward(p)[0]);
  const eager = (p) => sg.tidy(() => Array.from(gru.forward(p)[0].data.dataSync()));
  for (let k = 0; k < 3; k++) {
    const p = sg.tidy(() => R().packPaddedSequence(sg.randn([3, 2, 2]), [3, 2]));
    const out = f(p);
    assert.ok(out instanceof R().PackedSequence);
    assert.deepEqual(Array.from(out.batchSizes.dataSync()), [2, 2, 1]);
    assert.deepEqual(Array.from(out.data.dataSync()), eager(p), `call ${k}`);
    sg.dispose([p, out]);
  }
  assert.equal(f.stats().compiles, 1);
  const q = sg.tidy(() => R().packPaddedSequence(sg.randn([3, 2, 2]), [3, 1])); // other sizes: a new trace
  sg.dispose([f(q), q]);
  assert.equal(f.stats().compiles, 2);
  f.clear();

  const lengthsAsTensor = sg.compile((xx, l) => R().packPaddedSequence(xx, l).data);
  sg.tidy(() => throwsWith(() => lengthsAsTensor(sg.zeros([2, 2, 1]), sg.tensor([2, 1], { dtype: 'int32', device: 'cpu' })),
    'packPaddedSequence: cannot read \'lengths\' from a Tensor while sg.compile traces', 'as an array of numbers'));
  lengthsAsTensor.clear();
  sg.dispose([x, h0, c0]);
  lstm.dispose();
  gru.dispose();
  assert.equal(sg.memory().tensors, live, 'no tensor left behind');
});

test('tidy keeps a returned PackedSequence; dispose() and sg.dispose free all its tensors; layer outputs own theirs', () => {
  const live = sg.memory().tensors;
  const p = sg.tidy(() => R().packPaddedSequence(sg.randn([3, 2, 2]), [1, 3], { enforceSorted: false }));
  assert.equal(sg.memory().tensors, live + 4, 'data, batchSizes, sortedIndices, unsortedIndices');
  assert.deepEqual(Array.from(p.unsortedIndices.dataSync()), [1, 0]);
  const rnn = new sg.nn.RNN(2, 3);
  const before = sg.memory().tensors;
  const [out, h] = rnn.forward(p);
  assert.equal(sg.memory().tensors, before + 5);
  const moved = p.to('cpu');
  assert.ok(moved instanceof R().PackedSequence && moved !== p && moved.data.device === 'cpu');
  assert.equal(sg.memory().tensors, before + 9, 'its own four tensors');
  p.dispose();
  assert.ok(p.isDisposed);
  assert.deepEqual(Array.from(moved.sortedIndices.dataSync()), [1, 0], 'the copy outlives the original');
  assert.equal(moved.data.shape.join(), '4,2');
  moved.dispose();
  p.dispose(); // twice is fine
  assert.deepEqual(Array.from(out.batchSizes.dataSync()), [2, 1, 1], 'still readable after the input is disposed');
  sg.dispose([out, h]);
  assert.ok(out.isDisposed && out.sortedIndices.isDisposed && out.batchSizes.isDisposed);
  rnn.dispose();
  assert.equal(sg.memory().tensors, live);
  // Built from given tensors, as PyTorch's constructor (it takes ownership of them).
  const q = new (R().PackedSequence)(sg.randn([3, 2]), sg.tensor([2, 1], { dtype: 'int32' }), [1, 0]);
  assert.deepEqual(Array.from(q.unsortedIndices.dataSync()), [1, 0]);
  assert.equal(String(q), 'PackedSequence(data=[3, 2], batchSizes=[2, 1], sortedIndices=[1, 0])');
  q.dispose();
  assert.equal(sg.memory().tensors, live);
});

test('bad arguments are Errors saying what was expected and what was got; nothing leaks', () => {
  const x = sg.randn([3, 2, 2]);
  const xb = sg.zeros([2, 2, 2]);
  const [x1, x4, z32, z2, z0] = [sg.zeros([3]), sg.zeros([3, 2, 4]), sg.zeros([3, 2]), sg.zeros([1, 3]), sg.zeros([0, 3])];
  const [h133, h123, h113, x3d] = [sg.zeros([1, 3, 3]), sg.zeros([1, 2, 3]), sg.zeros([1, 1, 3]), sg.zeros([3, 2, 2])];
  const fLengths = sg.tensor([3, 2]);
  const lstm = new sg.nn.LSTM(2, 3);
  const gru = new sg.nn.GRU(2, 3);
  const p = R().packPaddedSequence(x, [3, 2]);
  const p4 = R().packPaddedSequence(x4, [3, 2]);
  const PS = R().PackedSequence;
  const live = sg.memory().tensors;
  const pack = (...a) => () => R().packPaddedSequence(...a);
  throwsWith(pack(x, [2, 3]), 'packPaddedSequence: `lengths` array must be sorted in decreasing order when `enforceSorted` is true', 'got [2, 3]', 'enforceSorted: false');
  throwsWith(pack(x, [3, 0], { enforceSorted: false }), 'packPaddedSequence: Length of all samples has to be greater than 0', 'got [3, 0]');
  throwsWith(pack(x, [4, 2]), 'packPaddedSequence: expected every length to be at most the padded length 3, got [4, 2]');
  throwsWith(pack(xb, [3, 2], { batchFirst: true }), 'packPaddedSequence: expected every length to be at most the padded length 2, got [3, 2]');
  throwsWith(pack(x, [3]), 'packPaddedSequence: Expected `len(lengths)` to be equal to batch_size, but got 1 (batch_size=2)');
  throwsWith(pack(x, [3, 1.5]), "packPaddedSequence: expected 'lengths' as an array of integers", '1.5');
  throwsWith(pack(x, fLengths), "packPaddedSequence: expected 'lengths' as an array of integers or a 1-D int32 Tensor on the CPU", 'float32');
  throwsWith(pack(x1, [3]), "packPaddedSequence: expected 'input' to be a Tensor with at least 2 dims");
  throwsWith(pack(x, [3, 2], { batch_first: true }), 'packPaddedSequence', "unknown option 'batch_first'");
  throwsWith(() => R().padPackedSequence(p, { totalLength: 2 }), 'padPackedSequence: Expected totalLength to be at least the length of the longest sequence in input, but got totalLength=2 and max sequence length being 3');
  throwsWith(() => R().padPackedSequence(x), 'padPackedSequence: expected a PackedSequence, got');
  throwsWith(() => R().packSequence([]), 'packSequence: expected a non-empty array of Tensors');
  throwsWith(() => R().packSequence([z32, z2]), 'packSequence: expected every sequence to have the trailing dims [2], got [1, 3] at 1');
  throwsWith(() => R().packSequence([z0]), 'packSequence: Length of all samples has to be greater than 0');
  throwsWith(() => R().unpackSequence('p'), "unpackSequence: expected a PackedSequence, got 'p'");
  throwsWith(() => new PS(z32, [1, 2]), "PackedSequence: expected 'batchSizes' to be positive, non-increasing and to sum to data.shape[0] = 3, got [1, 2]");
  throwsWith(() => new PS(z32, [2, 2]), 'sum to data.shape[0] = 3, got [2, 2]');
  throwsWith(() => new PS(z32, [2, 1], [0, 0]), "PackedSequence: expected 'sortedIndices' to be a permutation of 0..1, got [0, 0]");
  throwsWith(() => new PS(z32, [2, 1], [1, 0], [0, 1]), "expected 'unsortedIndices' to be the inverse of sortedIndices, [1, 0], got [0, 1]");
  throwsWith(() => lstm.forward(p4), 'LSTM: input.size(-1) must be equal to inputSize: expected 2, got 4');
  throwsWith(() => lstm.forward(p, [h133, h123]), 'LSTM: expected h0 of shape [1, 2, 3], got [1, 3, 3]');
  throwsWith(() => gru.forward(p, h113), 'GRU: expected h0 of shape [1, 2, 3], got [1, 1, 3]');
  assert.equal(sg.memory().tensors, live, 'nothing left by the failed calls');
  const bad = new PS(x3d, [2, 1]);
  throwsWith(() => gru.forward(bad), 'GRU: input must have 2 dimensions', 'got 3');
  sg.dispose([p, p4, bad, x, xb, x1, x4, z32, z2, z0, h133, h123, h113, fLengths]);
  const q = sg.tidy(() => R().packPaddedSequence(sg.zeros([3, 2, 2]), [3, 2]));
  q.dispose();
  throwsWith(() => gru.forward(q), 'GRU: the PackedSequence input is disposed');
  lstm.dispose();
  gru.dispose();
});

test('training on packed batches: the loss falls and sg.memory() stays flat across steps', () => {
  sg.manualSeed(12);
  const lstm = new sg.nn.LSTM(3, 8, { bidirectional: true });
  const head = new sg.nn.Linear(16, 1);
  const opt = new sg.optim.Adam([...lstm.parameters(), ...head.parameters()], { lr: 2e-2 });
  const x = sg.randn([12, 4, 3]);
  const lengths = [7, 12, 3, 9];
  const losses = [];
  const seen = [];
  for (let step = 0; step < 15; step++) {
    losses.push(sg.tidy(() => {
      opt.zeroGrad();
      const packed = R().packPaddedSequence(x, lengths, { enforceSorted: false });
      const [out] = lstm.forward(packed);
      const target = packed.data.narrow(1, 0, 1).mul(0.5).tanh();
      const loss = sg.F.mseLoss(head.forward(out.data), target);
      loss.backward();
      opt.step();
      return loss.item();
    }));
    const m = sg.memory();
    seen.push([m.tensors, m.bytes]);
  }
  for (let k = 2; k < seen.length; k++) assert.deepEqual(seen[k], seen[1], `memory after step ${k}`);
  assert.ok(losses.at(-1) < 0.6 * losses[0], `loss ${losses[0]} → ${losses.at(-1)}`);
  x.dispose();
  lstm.dispose();
  head.dispose();
  opt.dispose();
});
