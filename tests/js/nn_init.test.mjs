// sg.nn.init and the default initialization of the layers, against PyTorch's formulas:
// bounds (every value inside, the extremes close to the bound for large tensors), means and
// standard deviations of the sampled values, fan computation, gains, and reproducibility
// from sg.manualSeed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { close, sg, throwsWith } from './helpers.mjs';

function stats(t) {
  const v = Array.from(t.dataSync());
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  const std = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length);
  return { v, mean, std, min: v.reduce((a, b) => Math.min(a, b)), max: v.reduce((a, b) => Math.max(a, b)) };
}

/** U(−b, b): inside the bound, reaching near it, std b/√3. */
function assertUniform(t, bound, what) {
  const s = stats(t);
  assert.ok(s.max <= bound * (1 + 1e-6) && s.min >= -bound * (1 + 1e-6), `${what}: values inside ±${bound} (got [${s.min}, ${s.max}])`);
  assert.ok(s.max > 0.95 * bound && s.min < -0.95 * bound, `${what}: values reach the bound ${bound} (got [${s.min}, ${s.max}])`);
  close(s.std, bound / Math.sqrt(3), 0.03, `${what}: std`);
  assert.ok(Math.abs(s.mean) < 0.05 * bound, `${what}: mean ${s.mean}`);
}

test('Linear default init: weight and bias U(±1/√fanIn) (kaiming_uniform_ with a = √5)', () => {
  sg.tidy(() => {
    const lin = new sg.nn.Linear(400, 300);
    assertUniform(lin.weight, 1 / Math.sqrt(400), 'weight');
    assertUniform(lin.bias, 1 / Math.sqrt(400), 'bias');
  });
});

test('Conv and ConvTranspose default init use PyTorch fan_in (size(1)·kernel)', () => {
  sg.tidy(() => {
    const conv = new sg.nn.Conv2d(32, 64, 3, { groups: 2 });
    assertUniform(conv.weight, 1 / Math.sqrt((32 / 2) * 9), 'Conv2d weight');
    const c1 = new sg.nn.Conv1d(8, 512, 5);
    assertUniform(c1.bias, 1 / Math.sqrt(8 * 5), 'Conv1d bias');
    const ct = new sg.nn.ConvTranspose2d(64, 40, 3, { groups: 4 });
    assertUniform(ct.weight, 1 / Math.sqrt((40 / 4) * 9), 'ConvTranspose2d weight');
  });
});

test('other defaults: Embedding N(0, 1) with a zero padding row, norms ones/zeros, MHA xavier and zero biases', () => {
  sg.tidy(() => {
    const e = new sg.nn.Embedding(2000, 50, { paddingIdx: -1 });
    assert.equal(e.paddingIdx, 1999);
    const rows = e.weight.toArray();
    assert.ok(rows[1999].every((v) => v === 0));
    const s = stats(e.weight.narrow(0, 0, 1999));
    close(s.mean, 0, 0.02);
    close(s.std, 1, 0.02);
    const bn = new sg.nn.BatchNorm2d(3);
    assert.deepEqual(bn.weight.toArray(), [1, 1, 1]);
    assert.deepEqual(bn.bias.toArray(), [0, 0, 0]);
    assert.deepEqual(bn.running_var.toArray(), [1, 1, 1]);
    const ln = new sg.nn.LayerNorm([2, 2]);
    assert.deepEqual(ln.weight.toArray(), [[1, 1], [1, 1]]);
    const mha = new sg.nn.MultiheadAttention(256, 4);
    assertUniform(mha.in_proj_weight, Math.sqrt(6 / (256 + 768)), 'in_proj_weight');
    assert.ok(mha.in_proj_bias.dataSync().every((v) => v === 0));
    assert.ok(mha.out_proj.bias.dataSync().every((v) => v === 0));
    assertUniform(mha.out_proj.weight, 1 / 16, 'out_proj.weight (Linear default)');
    const pr = new sg.nn.PReLU();
    close(pr.weight.toArray(), [0.25]);
  });
});

test('init functions: bounds and stds by PyTorch formulas', () => {
  sg.tidy(() => {
    const t = sg.zeros([300, 200]);
    assert.equal(sg.nn.init.uniform_(t, -2, 3), t, 'returns the tensor');
    const u = stats(t);
    assert.ok(u.min >= -2 && u.max <= 3);
    close(u.mean, 0.5, 0.02);
    sg.nn.init.normal_(t, 1, 3);
    const n = stats(t);
    close(n.mean, 1, 0.03);
    close(n.std, 3, 0.02);
    sg.nn.init.xavierUniform_(t, { gain: 2 });
    assertUniform(t, 2 * Math.sqrt(6 / 500), 'xavierUniform_');
    sg.nn.init.xavierNormal_(t, 0.5);
    close(stats(t).std, 0.5 * Math.sqrt(2 / 500), 0.02);
    sg.nn.init.kaimingUniform_(t, { nonlinearity: 'relu' });
    assertUniform(t, Math.sqrt(2) * Math.sqrt(3 / 200), 'kaimingUniform_ relu fan_in');
    sg.nn.init.kaimingUniform_(t, { a: 0.2, mode: 'fan_out' });
    assertUniform(t, Math.sqrt(2 / 1.04) * Math.sqrt(3 / 300), 'kaimingUniform_ leaky 0.2 fan_out');
    sg.nn.init.kaimingNormal_(t);
    close(stats(t).std, Math.sqrt(2) / Math.sqrt(200), 0.02);
    sg.nn.init.truncNormal_(t, 0, 1, -0.5, 1);
    const tn = stats(t);
    assert.ok(tn.min >= -0.5 && tn.max <= 1);
    sg.nn.init.constant_(t, 0.3);
    assert.ok(t.dataSync().every((v) => Math.abs(v - 0.3) < 1e-7));
    sg.nn.init.zeros_(t);
    assert.ok(t.dataSync().every((v) => v === 0));
    sg.nn.init.ones_(t);
    assert.ok(t.dataSync().every((v) => v === 1));
    const e = sg.zeros([2, 3]);
    assert.deepEqual(sg.nn.init.eye_(e).toArray(), [[1, 0, 0], [0, 1, 0]]);
    // 4-D fans: fan_in = size(1)·kH·kW.
    const w = sg.zeros([64, 16, 3, 3]);
    sg.nn.init.kaimingUniform_(w, { a: Math.sqrt(5) });
    assertUniform(w, 1 / Math.sqrt(16 * 9), 'kaimingUniform_ 4-D');
  });
});

test('calculateGain and errors', () => {
  close(sg.nn.init.calculateGain('tanh'), 5 / 3);
  close(sg.nn.init.calculateGain('relu'), Math.SQRT2);
  close(sg.nn.init.calculateGain('leaky_relu'), Math.sqrt(2 / (1 + 1e-4)));
  close(sg.nn.init.calculateGain('leaky_relu', Math.sqrt(5)), Math.sqrt(1 / 3));
  close(sg.nn.init.calculateGain('selu'), 0.75);
  close(sg.nn.init.calculateGain('conv2d'), 1);
  throwsWith(() => sg.nn.init.calculateGain('swish'), "calculateGain: unsupported nonlinearity 'swish'");
  sg.tidy(() => {
    throwsWith(() => sg.nn.init.xavierUniform_(sg.zeros([5])), 'fewer than 2 dimensions');
    throwsWith(() => sg.nn.init.kaimingUniform_(sg.zeros([2, 2]), { mode: 'fan_avg' }), "kaimingUniform_: option 'mode' must be one of 'fan_in', 'fan_out'");
    throwsWith(() => sg.nn.init.normal_(sg.zeros([2, 2]).transpose(0, 1)), 'normal_: cannot write in place into a strided view');
    const empty = sg.zeros([0, 3]);
    assert.equal(sg.nn.init.kaimingUniform_(empty), empty, 'zero-element tensors are left alone');
  });
});

test('sg.manualSeed makes model initialization reproducible', () => {
  sg.tidy(() => {
    const make = () => new sg.nn.Sequential(new sg.nn.Linear(5, 4), new sg.nn.Conv1d(4, 2, 3), new sg.nn.Embedding(6, 2));
    sg.manualSeed(123);
    const a = Object.values(make().stateDict()).map((t) => Array.from(t.dataSync()));
    sg.manualSeed(123);
    const b = Object.values(make().stateDict()).map((t) => Array.from(t.dataSync()));
    assert.deepEqual(a, b);
    sg.manualSeed(124);
    const c = Object.values(make().stateDict()).map((t) => Array.from(t.dataSync()));
    assert.notDeepEqual(a, c);
  });
});

test('init works in place on a parameter without touching the graph', () => {
  sg.tidy(() => {
    const lin = new sg.nn.Linear(3, 2);
    const before = lin.weight;
    sg.nn.init.constant_(lin.weight, 0.5);
    assert.equal(lin.weight, before);
    assert.equal(lin.weight.isLeaf, true);
    assert.equal(lin.weight.requiresGrad, true);
    close(lin(sg.ones([1, 3])).sub(lin.bias).toArray(), [[1.5, 1.5]], 1e-6);
  });
});

test('constant_ fills NaN and ±Infinity where the dtype holds them; a bool takes NaN as true; an integer refuses them by name', () => {
  // torch.nn.init.constant_ is a fill_: float tensors hold NaN/inf; bool(x) is x != 0, so NaN and
  // inf are true and -0 false; an int tensor refuses them ("cannot be converted to type int").
  sg.tidy(() => {
    const f = sg.nn.init.constant_(sg.zeros([2]), NaN);
    assert.ok(Array.from(f.dataSync()).every(Number.isNaN));
    const h = sg.nn.init.constant_(sg.zeros([2], { dtype: 'bfloat16' }), -Infinity);
    assert.deepEqual(Array.from(h.dataSync(), Number), [-Infinity, -Infinity]);
    assert.deepEqual(sg.nn.init.constant_(sg.zeros([3], { dtype: 'bool' }), NaN).toArray(), [true, true, true]);
    assert.deepEqual(sg.nn.init.constant_(sg.ones([2], { dtype: 'bool' }), -0).toArray(), [false, false]);
    const i = sg.zeros([2], { dtype: 'int32' });
    throwsWith(() => sg.nn.init.constant_(i, NaN), "constant_: expected 'value' to be a finite number, got NaN");
    throwsWith(() => sg.nn.init.constant_(i, '1'), "constant_: expected 'value' to be a number, got");
    assert.deepEqual(i.toArray(), [0, 0]);
  });
});
