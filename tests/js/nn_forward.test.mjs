// Forward (and backward) of every sg.nn module against PyTorch 1.13: tests/data/gen_nn_forward.py
// builds each module in PyTorch, writes its state dict, inputs and outputs (and gradients);
// here the same module is built in JS, loads that state dict with loadStateDict, and must give
// the same outputs within 1e-4. Covers layers, norms in train and eval mode (running stats
// after the call), activations, MultiheadAttention with bool/float masks, Transformer layers
// in eval mode, PositionalEncoding and the loss modules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { close, sg } from './helpers.mjs';
import { build, decode, readRef } from './nn_helpers.mjs';

const ref = readRef('nn_forward_ref.json');
const TOL = 1e-4;

function compare(actual, expected, what) {
  if (expected === null) {
    assert.equal(actual, null, `${what}: expected null`);
    return;
  }
  assert.ok(actual instanceof sg.Tensor, `${what}: expected a Tensor`);
  assert.deepEqual(actual.shape, expected.shape, `${what}: shape`);
  const got = Array.from(actual.dataSync());
  close(got, expected.data, TOL, what);
}

function runCase(c) {
  sg.tidy(() => {
    const m = build(c.js);
    const sd = Object.fromEntries(Object.entries(c.state).map(([k, e]) => [k, decode(e)]));
    const res = m.loadStateDict(sd);
    assert.deepEqual(res, { missingKeys: [], unexpectedKeys: [] });
    m.train(c.mode === 'train');
    const inputs = c.inputs.map((e) => (e !== null && typeof e === 'object' && 'dtype' in e ? decode(e) : e));
    const byOption = new Set();
    let fwd = null;
    if (c.forward) {
      fwd = {};
      for (const [k, v] of Object.entries(c.forward)) {
        if (Number.isInteger(v)) {
          fwd[k] = inputs[v];
          byOption.add(v);
        } else fwd[k] = v;
      }
    }
    for (const g of Object.keys(c.grads ?? {})) if (g.startsWith('input')) inputs[Number(g.slice(5))].requiresGrad = true;
    const positional = inputs.filter((_, i) => !byOption.has(i));
    const out = fwd ? m(...positional, fwd) : m(...positional);
    if (Array.isArray(c.output)) {
      assert.ok(Array.isArray(out) && out.length === c.output.length, 'a [output, weights] pair');
      c.output.forEach((e, i) => compare(out[i], e, `output[${i}]`));
    } else compare(out, c.output, 'output');
    if (c.after) {
      const now = m.stateDict();
      for (const [k, e] of Object.entries(c.after)) compare(now[k], e, `state '${k}' after forward`);
    }
    if (c.grads) {
      const main = Array.isArray(out) ? out[0] : out;
      main.mul(decode(c.gradOutput)).sum().backward();
      const params = Object.fromEntries(m.namedParameters());
      for (const [g, e] of Object.entries(c.grads)) {
        const t = g.startsWith('input') ? inputs[Number(g.slice(5))] : params[g];
        compare(t.grad, e, `grad of ${g}`);
      }
      m.zeroGrad();
    }
    m.dispose();
  });
}

// Every case on the default (SIMD) backend and on the scalar reference backend.
for (const backend of ['wasm', 'reference']) {
  for (const c of ref.cases) {
    test(`forward vs PyTorch (${backend}): ${c.name}`, () => {
      const previous = sg.getBackend();
      sg.setBackend(backend);
      try {
        runCase(c);
      } finally {
        sg.setBackend(previous);
      }
    });
  }
}

test('module calls: m(x) is m.forward(x) and m.call(x)', () => {
  sg.tidy(() => {
    const lin = new sg.nn.Linear(3, 2);
    const x = sg.randn([4, 3]);
    const a = lin(x).dataSync();
    assert.deepEqual(lin.forward(x).dataSync(), a);
    assert.deepEqual(lin.call(x).dataSync(), a);
    assert.equal(typeof lin, 'function');
    assert.ok(lin instanceof sg.nn.Linear && lin instanceof sg.nn.Module);
    lin.dispose();
  });
});

test('Linear and Conv2d by hand', () => {
  sg.tidy(() => {
    const lin = new sg.nn.Linear(2, 2);
    lin.loadStateDict({ weight: sg.tensor([[1, 2], [3, -1]]), bias: sg.tensor([0.5, -0.5]) });
    close(lin(sg.tensor([[1, 1], [2, 0]])).toArray(), [[3.5, 1.5], [2.5, 5.5]]);
    // 1x1x3x3 input of 1..9, all-ones 2x2 kernel, bias 1: window sums + 1.
    const conv = new sg.nn.Conv2d(1, 1, 2);
    conv.loadStateDict({ weight: sg.ones([1, 1, 2, 2]), bias: sg.tensor([1]) });
    close(conv(sg.arange(1, 10, { dtype: 'float32' }).reshape(1, 1, 3, 3)).toArray(), [[[[13, 17], [25, 29]]]]);
    lin.dispose();
    conv.dispose();
  });
});

test('Sequential chains its children and frees the intermediate tensors', () => {
  sg.tidy(() => {
    const seq = new sg.nn.Sequential(new sg.nn.Linear(3, 4), new sg.nn.ReLU(), new sg.nn.Linear(4, 1));
    const x = sg.randn([5, 3]);
    const before = sg.memory().tensors;
    const y = seq(x);
    assert.equal(sg.memory().tensors, before + 1, 'only the result survives');
    const [l1, , l2] = [...seq];
    const expected = l2(l1(x).relu());
    close(Array.from(y.dataSync()), Array.from(expected.dataSync()), 1e-6);
    seq.dispose();
  });
});

test('Dropout: identity in eval, zeroes about p of the elements and scales the rest in train', () => {
  sg.tidy(() => {
    const d = new sg.nn.Dropout(0.25);
    const x = sg.ones([4000]);
    d.eval();
    assert.deepEqual(Array.from(d(x).dataSync()), Array.from(x.dataSync()));
    d.train();
    sg.manualSeed(7);
    const y = d(x).dataSync();
    const zeros = y.filter((v) => v === 0).length;
    assert.ok(Math.abs(zeros / 4000 - 0.25) < 0.03, `zeroed fraction ${zeros / 4000}`);
    for (const v of y) assert.ok(v === 0 || Math.abs(v - 1 / 0.75) < 1e-6);
    sg.manualSeed(7);
    assert.deepEqual(Array.from(d(x).dataSync()), Array.from(y), 'reproducible from the seed');
    // Dropout2d zeroes whole channels.
    const d2 = new sg.nn.Dropout2d(0.5);
    const z = d2(sg.ones([2, 8, 3, 3])).toArray();
    for (const n of z) for (const ch of n) {
      const flat = ch.flat();
      assert.ok(flat.every((v) => v === 0) || flat.every((v) => Math.abs(v - 2) < 1e-6));
    }
  });
});

test('BatchNorm: train updates running stats and num_batches_tracked, eval uses them', () => {
  sg.tidy(() => {
    const bn = new sg.nn.BatchNorm1d(2, { momentum: 0.5 });
    const x = sg.tensor([[1, 10], [3, 20], [5, 60]]);
    const y = bn(x);
    // Batch mean [3, 30], biased var [8/3, 1400/3]; output (x - mean)/sqrt(var + eps).
    const v0 = 8 / 3 + 1e-5;
    const v1 = 1400 / 3 + 1e-5;
    close(y.toArray(), [[-2 / Math.sqrt(v0), -20 / Math.sqrt(v1)], [0, -10 / Math.sqrt(v1)], [2 / Math.sqrt(v0), 30 / Math.sqrt(v1)]], 1e-5);
    // running = 0.5·old + 0.5·batch, with the unbiased var [4, 700].
    close(bn.running_mean.toArray(), [1.5, 15]);
    close(bn.running_var.toArray(), [0.5 + 2, 0.5 + 350]);
    assert.equal(bn.num_batches_tracked.item(), 1);
    assert.equal(bn.num_batches_tracked.dtype, 'int32');
    bn.eval();
    const z = bn(sg.tensor([[1.5, 15]]));
    close(z.toArray(), [[0, 0]], 1e-6);
    assert.equal(bn.num_batches_tracked.item(), 1, 'eval does not count');
    close(bn.running_mean.toArray(), [1.5, 15], 1e-6, 'eval leaves the stats');
    assert.throws(() => bn(sg.ones([2, 2, 2, 2])), /BatchNorm1d: expected 2D or 3D input \(got 4D input\)/);
    bn.dispose();
  });
});

test('PositionalEncoding: pe holds the sinusoids of the PyTorch tutorial', () => {
  sg.tidy(() => {
    const pe = new sg.nn.PositionalEncoding(4, { maxLen: 10, dropout: 0 });
    assert.deepEqual(pe.pe.shape, [10, 1, 4]);
    const v = pe.pe.toArray();
    for (let pos = 0; pos < 10; pos++) {
      close(v[pos][0], [Math.sin(pos), Math.cos(pos), Math.sin(pos / 100), Math.cos(pos / 100)], 1e-5);
    }
    const x = sg.zeros([3, 2, 4]);
    close(pe(x).toArray()[2][1], v[2][0], 1e-6);
    const bf = new sg.nn.PositionalEncoding(4, { maxLen: 10, dropout: 0, batchFirst: true });
    close(bf(sg.zeros([2, 3, 4])).toArray()[1][2], v[2][0], 1e-6);
  });
});

test('MultiheadAttention: weights are probabilities; masked keys get weight 0', () => {
  sg.tidy(() => {
    const mha = new sg.nn.MultiheadAttention(4, 2);
    const x = sg.randn([3, 1, 4]);
    const [out, w] = mha(x, x, x, { keyPaddingMask: [[false, true, false]] });
    assert.deepEqual(out.shape, [3, 1, 4]);
    const wa = w.toArray()[0];
    for (const row of wa) {
      close(row.reduce((a, b) => a + b, 0), 1, 1e-5);
      assert.equal(row[1], 0);
    }
    // causal float mask from generateSquareSubsequentMask.
    const mask = sg.nn.generateSquareSubsequentMask(3);
    close(mask.toArray(), [[0, -Infinity, -Infinity], [0, 0, -Infinity], [0, 0, 0]]);
    const [, wc] = mha(x, x, x, { attnMask: mask });
    const c = wc.toArray()[0];
    assert.equal(c[0][1], 0);
    assert.equal(c[0][2], 0);
    assert.equal(c[1][2], 0);
    close(c[0][0], 1, 1e-6);
    const [, none] = mha(x, x, x, { needWeights: false });
    assert.equal(none, null);
    assert.throws(() => mha(x, x, x, { attnMask: sg.zeros([2, 2]) }), /the shape of the 2D attnMask is \[2, 2\], but should be \[3, 3\]/);
    assert.throws(() => mha(x, x, x, { keyPadingMask: null }), /MultiheadAttention: unknown option 'keyPadingMask'/);
    assert.throws(() => new sg.nn.MultiheadAttention(6, 4), /embedDim \(6\) must be divisible by numHeads \(4\)/);
  });
});

test('sg.F.scaledDotProductAttention: bool masks keep true entries, isCausal', () => {
  sg.tidy(() => {
    const q = sg.randn([2, 3, 4]);
    const k = sg.randn([2, 3, 4]);
    const v = sg.randn([2, 3, 4]);
    const ref = q.matmul(k.transpose(-2, -1)).div(2).softmax(-1).matmul(v);
    close(Array.from(sg.F.scaledDotProductAttention(q, k, v).dataSync()), Array.from(ref.dataSync()), 1e-5);
    const keep = sg.tensor([[true, false, false], [true, true, false], [true, true, true]]);
    const a = sg.F.scaledDotProductAttention(q, k, v, { attnMask: keep }).dataSync();
    const b = sg.F.scaledDotProductAttention(q, k, v, { isCausal: true }).dataSync();
    close(Array.from(a), Array.from(b), 1e-6);
    // The first query sees only the first key: its output is v[:, 0].
    const first = sg.F.scaledDotProductAttention(q, k, v, { isCausal: true }).narrow(1, 0, 1);
    close(Array.from(first.dataSync()), Array.from(v.narrow(1, 0, 1).dataSync()), 1e-6);
  });
});

// PyTorch 1.13's torch.nn.MultiheadAttention(4, 2, kdim, vdim).state_dict() names and shapes:
// separate q/k/v projection weights as soon as kdim or vdim differs from embedDim (one of them
// is enough), one packed in_proj_weight only when both equal it.
test('MultiheadAttention with kdim/vdim: separate projections as PyTorch, and the forward takes keys and values of those widths', () => {
  const separate = (kdim, vdim) => [
    ['q_proj_weight', [4, 4]], ['k_proj_weight', [4, kdim]], ['v_proj_weight', [4, vdim]],
    ['in_proj_bias', [12]], ['out_proj.weight', [4, 4]], ['out_proj.bias', [4]],
  ];
  const cases = [
    [3, 5, separate(3, 5)],
    [4, 5, separate(4, 5)],
    [3, 4, separate(3, 4)],
    [4, 4, [['in_proj_weight', [12, 4]], ['in_proj_bias', [12]], ['out_proj.weight', [4, 4]], ['out_proj.bias', [4]]]],
  ];
  for (const [kdim, vdim, expected] of cases) {
    const m = new sg.nn.MultiheadAttention(4, 2, { kdim, vdim });
    const sd = m.stateDict();
    assert.deepEqual(Object.entries(sd).map(([k, t]) => [k, t.shape]), expected, `kdim ${kdim}, vdim ${vdim}`);
    sg.tidy(() => {
      const [out] = m.forward(sg.randn([2, 3, 4]), sg.randn([5, 3, kdim]), sg.randn([5, 3, vdim]), { needWeights: false });
      assert.deepEqual(out.shape, [2, 3, 4]);
      assert.ok(Array.from(out.dataSync()).every(Number.isFinite));
    });
  }
});
