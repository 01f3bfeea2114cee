// sg.compile: a compiled function gives what the eager one gives (bit for bit for values, within
// 1e-6 for gradients, whose sums may be ordered otherwise through fused kernels), recompiles per
// signature, keeps its stats, frees what it makes, refuses what it cannot follow, and trains.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, assertMemoryFlat, throwsWith, scoped, sameTensor as same, nearTensor as near } from './helpers.mjs';

test('an elementwise chain: compiled equals eager bit for bit, fused into one kernel', scoped(() => {
  const w = sg.randn([5]);
  const f = (x) => x.mul(w).add(0.5).tanh().square().neg().exp().mul(x.sigmoid()).clamp(-1, 0.75);
  const c = sg.compile(f);
  for (const shape of [[3, 5], [7, 5], [1000, 5]]) {
    const x = sg.randn(shape);
    same(c(x), f(x), `shape ${shape}`);
  }
  const s = c.stats();
  assert.equal(s.fused, 1);
  assert.ok(s.fusedOps >= 8, `${s.fusedOps} fused ops`);
  assert.equal(s.stages, 1);
  assert.equal(s.callbacks, 0);
  assert.deepEqual([s.compiles, s.calls, s.cacheHits], [3, 3, 0]);
}));

test('one trace per signature: same shapes hit the cache, a new shape or dtype recompiles', scoped(() => {
  let traces = 0;
  const c = sg.compile((x, k) => {
    traces++;
    return x.mul(k);
  });
  const a = sg.ones([2, 3]);
  same(c(a, 2), sg.full([2, 3], 2));
  same(c(sg.zeros([2, 3]), 2), sg.zeros([2, 3]));
  assert.equal(traces, 1);
  same(c(a, 3), sg.full([2, 3], 3));  // another static value: another graph
  c(sg.ones([4]), 2);
  c(sg.ones([2, 3], { dtype: 'int32' }), 2);
  assert.equal(traces, 4);
  assert.deepEqual(c.stats().compiles, 4);
  assert.deepEqual(c.stats().cacheHits, 1);
  // requiresGrad is part of the signature.
  c(sg.ones([2, 3], { requiresGrad: true }), 2);
  assert.equal(traces, 5);
}));

test('the grad mode at the call is part of the signature; manualSeed inside fn reseeds every call', scoped(() => {
  let traces = 0;
  const w = sg.ones([2], { requiresGrad: true });
  const c = sg.compile((x) => (traces++, x.mul(w)));
  assert.equal(c(sg.ones([2])).requiresGrad, true);
  assert.equal(sg.noGrad(() => c(sg.ones([2]))).requiresGrad, false);
  assert.equal(traces, 2);
  const r = sg.compile(() => {
    sg.manualSeed(5);
    return sg.rand([3]);
  });
  const a = r(), b = r();
  sg.manualSeed(5);
  same(a, sg.rand([3]));
  same(b, a);
}));

test('the cache is bounded: the least recently used graph is dropped', scoped(() => {
  let traces = 0;
  const c = sg.compile((x) => (traces++, x.add(1)), { cacheSize: 2 });
  const [a, b, d] = [[1], [2], [3]].map((s) => sg.ones(s));
  c(a); c(b); c(a); c(d);  // d evicts b (a was used after b)
  assert.equal(traces, 3);
  c(a);
  assert.equal(traces, 3);
  c(b);
  assert.equal(traces, 4);
}));

test('results keep their structure; static results come back as traced; arguments may nest', scoped(() => {
  const c = sg.compile(({ x, y }, [s]) => ({ sum: x.add(y), prod: [x.mul(y), 'tag'], scale: s }));
  const x = sg.tensor([1, 2]), y = sg.tensor([3, 4]);
  const r = c({ x, y }, [7]);
  assert.deepEqual(r.sum.toArray(), [4, 6]);
  assert.deepEqual(r.prod[0].toArray(), [3, 8]);
  assert.equal(r.prod[1], 'tag');
  assert.equal(r.scale, 7);
}));

test('parameters are held by reference: in-place updates are seen by later calls', scoped(() => {
  const lin = new sg.nn.Linear(3, 2);
  const c = sg.compile((x) => lin(x));
  const x = sg.randn([4, 3]);
  same(c(x), lin(x));
  sg.nn.init.constant_(lin.weight, 0.25);
  same(c(x), lin(x));
  assert.equal(c.stats().compiles, 1);
}));

test('random ops draw fresh values on every call, the same as eager code from the same seed', scoped(() => {
  const f = (x) => x.add(sg.rand([3])).mul(sg.randn([3]));
  const c = sg.compile(f);
  const x = sg.ones([3]);
  sg.manualSeed(11);
  const a1 = c(x), a2 = c(x);
  sg.manualSeed(11);
  const e1 = f(x), e2 = f(x);
  same(a1, e1);
  same(a2, e2);
  assert.notDeepEqual(a1.toArray(), a2.toArray());
}));

test('sg.grad and sg.valueAndGrad of a compiled function equal the eager ones', scoped(() => {
  const w = sg.randn([4, 3]);
  const f = (x) => x.matmul(w).tanh().mul(x.sum(1, true)).square().mean();
  const c = sg.compile(f);
  const x = sg.randn([5, 4]);
  for (let i = 0; i < 2; i++) {
    near(sg.grad(c)(x), sg.grad(f)(x), 'grad');
    const [v, g] = sg.valueAndGrad(c)(x);
    const [ve, ge] = sg.valueAndGrad(f)(x);
    same(v, ve, 'value');
    near(g, ge, 'valueAndGrad');
  }
}));

test('gradients through a fused chain: backward of the compiled result equals eager', scoped(() => {
  const w = sg.randn([6], { requiresGrad: true });
  const f = (x) => x.mul(w).sin().mul(x.exp()).add(w.square()).sum();
  const c = sg.compile(f);
  const x1 = sg.randn([4, 6], { requiresGrad: true }), x2 = x1.detach().requiresGrad_();
  const l1 = c(x1);
  l1.backward();
  const gw = w.grad.clone();
  w.grad = null;
  const l2 = f(x2);
  l2.backward();
  same(l1, l2);
  near(x1.grad, x2.grad, 'x');
  near(gw, w.grad, 'w');
  assert.ok(c.stats().fused >= 1);
}));

test('the backward of a fused chain runs as one fused gradient kernel, bit for bit the eager gradients, selections and special values included', scoped(() => {
  const w = sg.randn([6], { requiresGrad: true });
  // The gradients of x (a copy of it for the eager side) and of w, compiled against eager.
  const compare = (f, c, x1, what) => {
    const x2 = x1.detach().requiresGrad_();
    w.grad = null;
    c(x1).backward();
    const gw = w.grad.clone();
    w.grad = null;
    f(x2).backward();
    same(x1.grad, x2.grad, `${what}: x`);
    same(gw, w.grad, `${what}: w`);
    w.grad = null;
  };
  // x meets two contributions and w one (two adds commute exactly, so nothing is reordered).
  const f = (x) => x.mul(w).tanh().mul(x.exp()).gelu().mul(1.5).sum();
  const c = sg.compile(f);
  for (let call = 1; call <= 2; call++) {
    compare(f, c, sg.randn([40, 6], { requiresGrad: true }), `call ${call}`);
    assert.deepEqual(c.stats().fusedBackward, { fused: call, replayed: 0 });
  }
  // Gradients that select (maximum's ties and sides, clamp's range, leakyRelu's sign) are
  // written with masks in the fused kernel; special values and ties included.
  const m = (x) => x.mul(w).maximum(x.neg()).clamp(-0.5, 2).leakyRelu(0.1).exp().sum();
  const cm = sg.compile(m);
  const special = sg.tensor([[0, -0, 0.5, -0.5, NaN, Infinity], [1, -1, 2, -2, 0.25, -3]], { requiresGrad: true });
  compare(m, cm, special, 'selecting formulas');
  assert.deepEqual(cm.stats().fusedBackward, { fused: 1, replayed: 0 });
}));

test('second derivatives of a compiled function equal eager ones (its fused kernel replays, recorded)', scoped(() => {
  const f = (x) => x.mul(x).tanh().mul(3).sin().sum();
  const c = sg.compile(f);
  const x = sg.tensor([0.3, -0.7, 1.1, 0.05]);
  const second = (fn) => {
    const g1 = sg.grad(fn);
    return [g1(x), sg.grad((t) => g1(t).sum())(x)];
  };
  const [ge, gge] = second(f), [gc, ggc] = second(c);
  near(gc, ge, 'first');
  near(ggc, gge, 'second', 1e-5);
  assert.ok(c.stats().fused >= 1);
  assert.ok(c.stats().fusedBackward.replayed >= 1);
  // Against central differences of the first derivative (float64 arithmetic on float32 values).
  const h = 1e-2, xs = Array.from(x.dataSync());
  const d1 = (v) => {
    const u = Math.tanh(v * v);
    return Math.cos(3 * u) * 3 * (1 - u * u) * 2 * v;
  };
  ggc.dataSync().forEach((v, i) => {
    const fd = (d1(xs[i] + h) - d1(xs[i] - h)) / (2 * h);
    assert.ok(Math.abs(v - fd) <= 2e-3 * Math.max(1, Math.abs(fd)), `element ${i}: ${v} vs ${fd}`);
  });
}));

test('a compiled training step (zeroGrad, forward, backward, Adam step, scheduler) follows the eager one', scoped(() => {
  const make = () => {
    sg.manualSeed(3);
    const model = new sg.nn.Sequential(new sg.nn.Linear(6, 16), new sg.nn.ReLU(), new sg.nn.Dropout(0.2), new sg.nn.Linear(16, 3));
    const opt = new sg.optim.Adam(model.parameters(), { lr: 0.05 });
    const sched = new sg.optim.lrScheduler.StepLR(opt, 2, { gamma: 0.5 });
    return { model, opt, sched };
  };
  const step = ({ model, opt }, x, y) => {
    opt.zeroGrad();
    const loss = sg.F.crossEntropy(model(x), y);
    loss.backward();
    opt.step();
    return loss;
  };
  const eager = make(), comp = make();
  const compiled = sg.compile((x, y) => step(comp, x, y));
  const x = sg.randn([8, 6]), y = sg.tensor([0, 1, 2, 0, 1, 2, 0, 1], { dtype: 'int32' });
  for (let i = 0; i < 5; i++) {
    sg.manualSeed(100 + i);  // dropout draws the same masks on both sides
    const le = step(eager, x, y);
    eager.sched.step();
    sg.manualSeed(100 + i);
    const lc = compiled(x, y);
    comp.sched.step();  // outside: the next call reads the new lr
    near(lc, le, `loss ${i}`);
    eager.model.parameters().forEach((p, k) => near(comp.model.parameters()[k], p, `step ${i} param ${k}`));
  }
  assert.equal(compiled.stats().compiles, 1);
  assert.equal(comp.opt.paramGroups[0].lr, eager.opt.paramGroups[0].lr);
}));

test('the scheduler and gradient clipping inside the compiled step run on every call', scoped(() => {
  const mk = () => {
    const p = sg.tensor([1, -2, 3], { requiresGrad: true });
    const opt = new sg.optim.SGD([p], { lr: 0.1, momentum: 0.9 });
    const sched = new sg.optim.lrScheduler.ExponentialLR(opt, 0.5);
    return { p, opt, sched };
  };
  const step = ({ p, opt, sched }) => {
    opt.zeroGrad();
    p.mul(p).sum().mul(10).backward();
    sg.nn.utils.clipGradNorm_([p], 1.0);
    sg.nn.utils.clipGradValue_([p], 0.3);
    opt.step();
    sched.step();
  };
  const e = mk(), c = mk();
  const compiled = sg.compile(() => step(c));
  for (let i = 0; i < 4; i++) {
    step(e);
    compiled();
    near(c.p, e.p, `step ${i}`);
    assert.equal(c.opt.paramGroups[0].lr, e.opt.paramGroups[0].lr);
  }
}));

test('BatchNorm in a compiled training step updates its running stats and count every call', scoped(() => {
  const mk = () => new sg.nn.BatchNorm1d(3);
  const e = mk(), c = mk();
  const compiled = sg.compile((x) => c(x).square().mean());
  for (let i = 0; i < 3; i++) {
    const x = sg.randn([5, 3]);
    same(compiled(x), e(x).square().mean());
    same(c.running_mean, e.running_mean);
    same(c.running_var, e.running_var);
  }
  assert.equal(c.num_batches_tracked.item(), 3);
}));

test('compiled equals eager on every nn layer and loss: values, input and parameter gradients', scoped(() => {
  const { nn, F } = sg;
  const x2 = () => sg.randn([4, 6]), img = () => sg.randn([2, 3, 8, 8]), seq = () => sg.randn([2, 5, 8]);
  const layers = [
    ['Linear', () => new nn.Linear(6, 4), x2],
    ['Bilinear', () => new nn.Bilinear(6, 6, 3), () => [sg.randn([4, 6]), sg.randn([4, 6])]],
    ['Conv1d', () => new nn.Conv1d(3, 4, 3, { padding: 1 }), () => sg.randn([2, 3, 9])],
    ['Conv2d', () => new nn.Conv2d(3, 4, 3, { stride: 2, padding: 1 }), img],
    ['ConvTranspose2d', () => new nn.ConvTranspose2d(3, 2, 3, { stride: 2 }), img],
    ['MaxPool1d', () => new nn.MaxPool1d(2), () => sg.randn([2, 3, 8])],
    ['MaxPool2d', () => new nn.MaxPool2d(2), img],
    ['AvgPool1d', () => new nn.AvgPool1d(2), () => sg.randn([2, 3, 8])],
    ['AvgPool2d', () => new nn.AvgPool2d(2), img],
    ['AdaptiveAvgPool2d', () => new nn.AdaptiveAvgPool2d(3), img],
    ['BatchNorm1d', () => new nn.BatchNorm1d(6), x2],
    ['BatchNorm2d eval', () => new nn.BatchNorm2d(3).eval(), img],
    ['BatchNorm2d', () => new nn.BatchNorm2d(3), img],
    ['LayerNorm', () => new nn.LayerNorm(8), seq],
    ['RMSNorm', () => new nn.RMSNorm(8), seq],
    ['GroupNorm', () => new nn.GroupNorm(3, 3), img],
    ['InstanceNorm2d', () => new nn.InstanceNorm2d(3), img],
    ['Dropout', () => new nn.Dropout(0.3), x2],
    ['Dropout2d', () => new nn.Dropout2d(0.3), img],
    ['Embedding', () => new nn.Embedding(10, 4), () => sg.tensor([[1, 2, 9], [0, 2, 2]], { dtype: 'int32' })],
    ['EmbeddingBag', () => new nn.EmbeddingBag(10, 4, { mode: 'max' }), () => sg.tensor([[1, 2, 9], [0, 2, 2]], { dtype: 'int32' })],
    ['Flatten', () => new nn.Flatten(), img],
    ['Identity', () => new nn.Identity(), x2],
    ['ReLU', () => new nn.ReLU(), x2],
    ['LeakyReLU', () => new nn.LeakyReLU(0.1), x2],
    ['PReLU', () => new nn.PReLU(), x2],
    ['ELU', () => new nn.ELU(), x2],
    ['GELU', () => new nn.GELU(), x2],
    ['Sigmoid', () => new nn.Sigmoid(), x2],
    ['Tanh', () => new nn.Tanh(), x2],
    ['SiLU', () => new nn.SiLU(), x2],
    ['Softmax', () => new nn.Softmax(1), x2],
    ['LogSoftmax', () => new nn.LogSoftmax(1), x2],
    ['Sequential', () => new nn.Sequential(new nn.Linear(6, 5), new nn.GELU(), new nn.Linear(5, 2)), x2],
    ['MultiheadAttention', () => new nn.MultiheadAttention(8, 2, { batchFirst: true }), () => [seq(), seq(), seq()]],
    ['TransformerEncoderLayer', () => new nn.TransformerEncoderLayer(8, 2, { dimFeedforward: 16, dropout: 0.1, batchFirst: true }), seq],
    ['TransformerDecoderLayer', () => new nn.TransformerDecoderLayer(8, 2, { dimFeedforward: 16, dropout: 0, batchFirst: true }), () => [seq(), seq()]],
    ['TransformerEncoder', () => new nn.TransformerEncoder(new nn.TransformerEncoderLayer(8, 2, { dimFeedforward: 16, dropout: 0, batchFirst: true }), 2), seq],
    ['PositionalEncoding', () => new nn.PositionalEncoding(8, { dropout: 0.1 }), seq],
    ['Unflatten', () => new nn.Unflatten(1, [2, 3]), x2],
    ['AdaptiveAvgPool1d', () => new nn.AdaptiveAvgPool1d(3), () => sg.randn([2, 3, 8])],
    ['InstanceNorm1d', () => new nn.InstanceNorm1d(3), () => sg.randn([2, 3, 8])],
    ['Upsample', () => new nn.Upsample({ scaleFactor: 2, mode: 'bilinear' }), img],
    ['PixelShuffle', () => new nn.PixelShuffle(2), () => sg.randn([2, 8, 3, 3])],
    ['PixelUnshuffle', () => new nn.PixelUnshuffle(2), img],
    ['CosineSimilarity', () => new nn.CosineSimilarity(), () => [sg.randn([4, 6]), sg.randn([4, 6])]],
    ['PairwiseDistance', () => new nn.PairwiseDistance(), () => [sg.randn([4, 6]), sg.randn([4, 6])]],
    ['ZeroPad2d', () => new nn.ZeroPad2d(1), img],
    ['ConstantPad1d', () => new nn.ConstantPad1d([1, 2], 0.5), () => sg.randn([2, 3, 8])],
    ['ConstantPad2d', () => new nn.ConstantPad2d(1, -1), img],
    ['ReflectionPad1d', () => new nn.ReflectionPad1d(2), () => sg.randn([2, 3, 8])],
    ['ReflectionPad2d', () => new nn.ReflectionPad2d([1, 2, 0, 1]), img],
    ['ReplicationPad1d', () => new nn.ReplicationPad1d([0, 3]), () => sg.randn([2, 3, 8])],
    ['ReplicationPad2d', () => new nn.ReplicationPad2d(1), img],
    ['UpsamplingNearest2d', () => new nn.UpsamplingNearest2d({ scaleFactor: 2 }), img],
    ['UpsamplingBilinear2d', () => new nn.UpsamplingBilinear2d({ scaleFactor: 2 }), img],
    ['ReLU6', () => new nn.ReLU6(), () => sg.randn([4, 6]).mul(4)],
    ['SELU', () => new nn.SELU(), x2],
    ['Mish', () => new nn.Mish(), x2],
    ['Softplus', () => new nn.Softplus(), x2],
    ['Softsign', () => new nn.Softsign(), x2],
    ['Hardtanh', () => new nn.Hardtanh(), x2],
    ['Hardsigmoid', () => new nn.Hardsigmoid(), () => sg.randn([4, 6]).mul(4)],
    ['Hardswish', () => new nn.Hardswish(), () => sg.randn([4, 6]).mul(4)],
    ['LogSigmoid', () => new nn.LogSigmoid(), x2],
    ['Softmin', () => new nn.Softmin(1), x2],
    ['GLU', () => new nn.GLU(), x2],
    ['RNN', () => new nn.RNN(8, 6, { batchFirst: true }), seq],
    ['LSTM', () => new nn.LSTM(8, 6, { batchFirst: true, numLayers: 2 }), seq],
    ['GRU', () => new nn.GRU(8, 6, { batchFirst: true }), seq],
    ['RNNCell', () => new nn.RNNCell(6, 5), x2],
    ['LSTMCell', () => new nn.LSTMCell(6, 5), x2],
    ['GRUCell', () => new nn.GRUCell(6, 5), x2],
    ['TransformerDecoder', () => new nn.TransformerDecoder(new nn.TransformerDecoderLayer(8, 2, { dimFeedforward: 16, dropout: 0, batchFirst: true }), 2), () => [seq(), seq()]],
    ['Transformer', () => new nn.Transformer({ dModel: 8, nhead: 2, numEncoderLayers: 1, numDecoderLayers: 1, dimFeedforward: 16, dropout: 0, batchFirst: true }), () => [seq(), seq()]],
    ['ConvTranspose1d', () => new nn.ConvTranspose1d(3, 4, 3, { stride: 2, groups: 1 }), () => sg.randn([2, 3, 7])],
    ['Unfold', () => new nn.Unfold(3, { padding: 1, stride: 2 }), img],
    ['Fold', () => new nn.Fold([4, 5], 2), () => sg.randn([2, 12, 12])],
    ['Hardshrink', () => new nn.Hardshrink(), x2],
    ['Softshrink', () => new nn.Softshrink(0.3), x2],
    ['Tanhshrink', () => new nn.Tanhshrink(), x2],
    ['CELU', () => new nn.CELU(0.7), x2],
    ['Threshold', () => new nn.Threshold(0.1, -2), x2],
    ['RReLU', () => new nn.RReLU(), x2],  // (random slopes: the same seed on both sides)
    ['Softmax2d', () => new nn.Softmax2d(), img],
    ['BatchNorm3d', () => new nn.BatchNorm3d(3), () => sg.randn([2, 3, 2, 3, 3])],
    ['InstanceNorm3d', () => new nn.InstanceNorm3d(3), () => sg.randn([2, 3, 2, 3, 3])],
    ['Dropout1d', () => new nn.Dropout1d(0.3), () => sg.randn([2, 3, 8])],
    ['Dropout3d', () => new nn.Dropout3d(0.3), () => sg.randn([2, 3, 2, 2, 2])],
    ['AlphaDropout', () => new nn.AlphaDropout(0.3), x2],
    ['FeatureAlphaDropout', () => new nn.FeatureAlphaDropout(0.3), img],
    ['LocalResponseNorm', () => new nn.LocalResponseNorm(3), img],
    ['LPPool1d', () => new nn.LPPool1d(2, 3), () => sg.randn([2, 3, 8])],
    ['LPPool2d', () => new nn.LPPool2d(2, 2), img],
    ['ChannelShuffle', () => new nn.ChannelShuffle(3), () => sg.randn([2, 6, 3, 3])],
    ['ConstantPad3d', () => new nn.ConstantPad3d(1, 0.5), () => sg.randn([1, 2, 2, 2, 2])],
    ['ReflectionPad3d', () => new nn.ReflectionPad3d(1), () => sg.randn([1, 2, 2, 2, 2])],
    ['ReplicationPad3d', () => new nn.ReplicationPad3d(1), () => sg.randn([1, 2, 2, 2, 2])],
    ['AdaptiveMaxPool2d', () => new nn.AdaptiveMaxPool2d([3, 2]), img],
    ['AdaptiveMaxPool1d', () => new nn.AdaptiveMaxPool1d(3), () => sg.randn([2, 3, 8])],
    ['MaxPool2d returnIndices', () => new nn.MaxPool2d(3, { stride: 2, padding: 1, returnIndices: true }), img],
    ['MaxUnpool2d', () => new nn.MaxUnpool2d(2), () => F.maxPool2d(img(), 2, { returnIndices: true })],
    ['MaxUnpool1d', () => new nn.MaxUnpool1d(2), () => F.maxPool1d(sg.randn([2, 3, 8]), 2, { returnIndices: true })],
    ['Conv3d', () => new nn.Conv3d(4, 6, [3, 2, 3], { stride: [2, 1, 1], padding: [1, 0, 1], groups: 2 }), () => sg.randn([2, 4, 5, 4, 5])],
    ['ConvTranspose3d', () => new nn.ConvTranspose3d(4, 6, [2, 3, 2], { stride: [2, 1, 2], padding: [0, 1, 1], outputPadding: [1, 0, 0], groups: 2 }), () => sg.randn([2, 4, 3, 4, 3])],
    ['MaxPool3d', () => new nn.MaxPool3d(3, { stride: 2, padding: 1, ceilMode: true }), () => sg.randn([2, 3, 5, 6, 5])],
    ['AvgPool3d', () => new nn.AvgPool3d([3, 2, 3], { stride: 2, padding: [1, 0, 1], ceilMode: true, countIncludePad: false }), () => sg.randn([2, 3, 5, 6, 5])],
    ['AdaptiveAvgPool3d', () => new nn.AdaptiveAvgPool3d([2, null, 3]), () => sg.randn([2, 3, 5, 4, 5])],
    ['AdaptiveMaxPool3d', () => new nn.AdaptiveMaxPool3d([3, 2, 2], { returnIndices: true }), () => sg.randn([2, 3, 5, 4, 5])],
    // nn.Sequential turns Conv2d → ReLU → MaxPool2d into the one fused op conv2dReluMaxPool2d.
    ['Sequential(Conv2d, ReLU, MaxPool2d)', () => new nn.Sequential(new nn.Conv2d(3, 4, 3, { padding: 1 }), new nn.ReLU(), new nn.MaxPool2d(2)), img],
  ];
  for (const [name, make, input] of layers) {
    sg.tidy(() => {
      sg.manualSeed(7);
      const layer = make();
      const args = [input()].flat();
      const first = (out) => (Array.isArray(out) ? out[0] : out);
      const loss = (...a) => {
        const out = first(layer(...a));
        return out.mul(sg.linspace(-1, 1, out.numel).reshape(out.shape)).sum();
      };
      const compiled = sg.compile(loss);
      const run = (fn) => {
        const leaves = args.map((a) => (a.dtype === 'float32' ? a.detach().requiresGrad_() : a));
        for (const p of layer.parameters()) p.grad = null;
        sg.manualSeed(21);
        const l = fn(...leaves);
        l.backward();
        return { l, gx: leaves.filter((t) => t.requiresGrad).map((t) => t.grad), gp: layer.parameters().map((p) => p.grad) };
      };
      const e = run(loss);
      const c = run(compiled);
      near(c.l, e.l, `${name}: value`);
      e.gx.forEach((g, k) => near(c.gx[k], g, `${name}: input gradient ${k}`));
      e.gp.forEach((g, k) => (g === null ? assert.equal(c.gp[k], null) : near(c.gp[k], g, `${name}: parameter gradient ${k}`)));
    });
  }
  const cls = () => sg.tensor([0, 4, 2, 1], { dtype: 'int32' });
  const losses = [
    ['crossEntropy', (x, t) => F.crossEntropy(x, t), () => [sg.randn([4, 5]), sg.tensor([0, 4, 2, 1], { dtype: 'int32' })]],
    ['crossEntropy smoothing weight', (x, t) => F.crossEntropy(x, t, { labelSmoothing: 0.1, weight: sg.tensor([1, 2, 1, 0.5, 1]) }), () => [sg.randn([4, 5]), sg.tensor([0, 4, 2, 1], { dtype: 'int32' })]],
    ['crossEntropy probabilities', (x, t) => F.crossEntropy(x, t), () => [sg.randn([4, 5]), sg.randn([4, 5]).softmax(1)]],
    ['nllLoss', (x, t) => F.nllLoss(x.logSoftmax(1), t), () => [sg.randn([4, 5]), sg.tensor([0, 4, 2, 1], { dtype: 'int32' })]],
    ['mseLoss', (x, t) => F.mseLoss(x, t), () => [sg.randn([4, 5]), sg.randn([4, 5])]],
    ['l1Loss', (x, t) => F.l1Loss(x, t, { reduction: 'sum' }), () => [sg.randn([4, 5]), sg.randn([4, 5])]],
    ['smoothL1Loss', (x, t) => F.smoothL1Loss(x, t, { beta: 0.5 }), () => [sg.randn([4, 5]), sg.randn([4, 5])]],
    ['huberLoss', (x, t) => F.huberLoss(x, t, { delta: 0.7 }), () => [sg.randn([4, 5]), sg.randn([4, 5])]],
    ['binaryCrossEntropy', (x, t) => F.binaryCrossEntropy(x.sigmoid(), t), () => [sg.randn([4, 5]), sg.rand([4, 5])]],
    ['binaryCrossEntropyWithLogits', (x, t) => F.binaryCrossEntropyWithLogits(x, t, { posWeight: sg.full([5], 2) }), () => [sg.randn([4, 5]), sg.rand([4, 5])]],
    ['klDiv', (x, t) => F.klDiv(x.logSoftmax(1), t, { reduction: 'batchmean' }), () => [sg.randn([4, 5]), sg.randn([4, 5]).softmax(1)]],
    ['cosineEmbeddingLoss', (x, t) => F.cosineEmbeddingLoss(x, t, sg.tensor([1, -1, 1, -1], { dtype: 'int32' })), () => [sg.randn([4, 5]), sg.randn([4, 5])]],
    ['tripletMarginLoss', (x, t) => F.tripletMarginLoss(x, t, t.flip(0)), () => [sg.randn([4, 5]), sg.randn([4, 5])]],
    ['marginRankingLoss', (x, t) => F.marginRankingLoss(x, t, sg.tensor([1, -1, 1, -1])), () => [sg.randn([4]), sg.randn([4])]],
    ['hingeEmbeddingLoss', (x, t) => F.hingeEmbeddingLoss(x, t), () => [sg.randn([4, 5]), sg.tensor([1, -1, 1, -1, 1])]],
    ['multilabelSoftMarginLoss', (x, t) => F.multilabelSoftMarginLoss(x, t), () => [sg.randn([4, 5]), sg.rand([4, 5]).gt(0.5).float()]],
    ['poissonNllLoss', (x, t) => F.poissonNllLoss(x, t), () => [sg.randn([4, 5]), sg.rand([4, 5]).mul(3)]],
    ['gaussianNllLoss', (x, t) => F.gaussianNllLoss(x, t, t.abs().add(0.1)), () => [sg.randn([4, 5]), sg.randn([4, 5])]],
    ['sigmoidFocalLoss', (x, t) => F.sigmoidFocalLoss(x, t, { reduction: 'mean' }), () => [sg.randn([4, 5]), sg.rand([4, 5]).gt(0.5).float()]],
    ['softMarginLoss', (x, t) => F.softMarginLoss(x, t), () => [sg.randn([4, 5]), sg.rand([4, 5]).gt(0.5).float().mul(2).sub(1)]],
    ['multiMarginLoss', (x, t) => F.multiMarginLoss(x, t, { p: 2, weight: sg.tensor([0.5, 1, 2, 1, 0.7]) }), () => [sg.randn([4, 5]), cls()]],
    ['multilabelMarginLoss', (x, t) => F.multilabelMarginLoss(x, t), () => [sg.randn([4, 5]), sg.tensor([[0, 3, -1, 0, 0], [4, -1, 1, 1, 1], [1, 2, 3, 4, 0], [-1, 0, 0, 0, 0]], { dtype: 'int32' })]],
    ['tripletMarginWithDistanceLoss', (x, t) => F.tripletMarginWithDistanceLoss(x, t, t.flip(0), { swap: true }), () => [sg.randn([4, 5]), sg.randn([4, 5])]],
    ['ctcLoss', (x, t) => F.ctcLoss(x.reshape([4, 1, 5]).logSoftmax(-1), t, [4], [2]), () => [sg.randn([4, 5]), sg.tensor([[1, 3]], { dtype: 'int32' })]],
  ];
  // The loss modules, as modules.
  const lossModules = [
    ['CrossEntropyLoss', () => new nn.CrossEntropyLoss({ labelSmoothing: 0.05 }), cls],
    ['NLLLoss', () => new nn.NLLLoss(), cls, (x) => x.logSoftmax(1)],
    ['MSELoss', () => new nn.MSELoss()],
    ['L1Loss', () => new nn.L1Loss()],
    ['SmoothL1Loss', () => new nn.SmoothL1Loss()],
    ['HuberLoss', () => new nn.HuberLoss()],
    ['BCELoss', () => new nn.BCELoss(), () => sg.rand([4, 5]), (x) => x.sigmoid()],
    ['BCEWithLogitsLoss', () => new nn.BCEWithLogitsLoss(), () => sg.rand([4, 5])],
    ['KLDivLoss', () => new nn.KLDivLoss({ reduction: 'batchmean' }), () => sg.randn([4, 5]).softmax(1), (x) => x.logSoftmax(1)],
    ['CosineEmbeddingLoss', () => new nn.CosineEmbeddingLoss(), null, null, (m, x, t) => m(x, t, sg.tensor([1, -1, 1, -1]))],
    ['TripletMarginLoss', () => new nn.TripletMarginLoss(), null, null, (m, x, t) => m(x, t, t.flip(0))],
    ['MarginRankingLoss', () => new nn.MarginRankingLoss(), () => sg.randn([4]), null, (m, x, t) => m(x.sum(1), t, sg.tensor([1, -1, 1, -1]))],
    ['HingeEmbeddingLoss', () => new nn.HingeEmbeddingLoss(), () => sg.tensor([1, -1, 1, -1, 1])],
    ['MultiLabelSoftMarginLoss', () => new nn.MultiLabelSoftMarginLoss(), () => sg.rand([4, 5]).gt(0.5).float()],
    ['PoissonNLLLoss', () => new nn.PoissonNLLLoss(), () => sg.rand([4, 5]).mul(3)],
    ['GaussianNLLLoss', () => new nn.GaussianNLLLoss(), null, null, (m, x, t) => m(x, t, sg.ones([4, 5]).mul(0.5))],
    ['SoftMarginLoss', () => new nn.SoftMarginLoss(), () => sg.tensor([1, -1, 1, -1, 1])],
    ['MultiMarginLoss', () => new nn.MultiMarginLoss({ margin: 0.5 }), cls],
    ['MultiLabelMarginLoss', () => new nn.MultiLabelMarginLoss(), () => sg.tensor([[1, -1, 0, 0, 0], [2, 3, -1, 0, 0], [0, 1, 2, 3, 4], [4, -1, 0, 0, 0]], { dtype: 'int32' })],
    ['TripletMarginWithDistanceLoss', () => new nn.TripletMarginWithDistanceLoss({ margin: 2 }), null, null, (m, x, t) => m(x, t, t.flip(0))],
    ['CTCLoss', () => new nn.CTCLoss({ reduction: 'sum' }), () => sg.tensor([[2, 2, 3]], { dtype: 'int32' }), null, (m, x, t) => m(x.reshape([5, 1, 4]).logSoftmax(-1), t, [5], [3])],
  ];
  for (const [name, make, target, pre, call] of lossModules) {
    const m = make();
    const t = target ? target() : sg.randn([4, 5]);
    losses.push([name, (x, tt) => (call ? call(m, x, tt) : m(pre ? pre(x) : x, tt)), () => [sg.randn([4, 5]), t]]);
  }
  // Every layer and loss the API lists has a row here (a new one fails this until it gets one).
  const covered = new Set([...layers.map(([n]) => n), ...losses.map(([n]) => n)]);
  const containers = ['Module', 'Parameter', 'ModuleList', 'ModuleDict', 'ParameterList', 'ParameterDict'];
  const missing = Object.keys(nn).filter((k) => /^[A-Z]/.test(k) && !containers.includes(k) && !covered.has(k));
  assert.deepEqual(missing, [], 'nn classes without a compiled = eager row');
  const lossFns = Object.keys(F).filter((k) => /Loss$|^crossEntropy$|^binaryCrossEntropy|^klDiv$/.test(k));
  assert.deepEqual(lossFns.filter((k) => !covered.has(k)), [], 'loss functions without a compiled = eager row');
  for (const [name, fn, input] of losses) {
    sg.tidy(() => {
      const [x, t] = input();
      const compiled = sg.compile(fn);
      const a = x.detach().requiresGrad_(), b = x.detach().requiresGrad_();
      const le = fn(a, t), lc = compiled(b, t);
      le.backward();
      lc.backward();
      same(lc, le, `${name}: value`);
      near(b.grad, a.grad, `${name}: gradient`);
    });
  }
}));

test('a compiled function called while another is traced is inlined into its graph', scoped(() => {
  const inner = sg.compile((x) => x.exp().add(1));
  const outer = sg.compile((x) => inner(x).mul(2));
  const x = sg.randn([3]);
  same(outer(x), x.exp().add(1).mul(2));
  assert.equal(inner.stats().calls, 0);
  assert.equal(outer.stats().fused, 1);
}));

test('reading values while tracing is an Error naming the operation', scoped(() => {
  const x = sg.randn([3]);
  for (const [what, fn] of [
    ['item', (t) => t.mul(t.sum().item())],
    ['dataSync', (t) => t.mul(t.dataSync()[0])],
    ['toArray', (t) => t.mul(t.toArray()[0])],
  ]) {
    throwsWith(() => sg.compile(fn)(x), `${what}: cannot read tensor values while sg.compile traces the function`, 'Return the tensor and read it after the call');
  }
  // data-dependent control flow reads values too
  throwsWith(() => sg.compile((t) => (t.sum().item() > 0 ? t : t.neg()))(x), 'item: cannot read');
  // writes into existing tensors would happen only while tracing
  const lin = new sg.nn.Linear(2, 2);
  throwsWith(() => sg.compile(() => sg.nn.init.constant_(lin.weight, 1))(), 'cannot write into an existing tensor inside sg.compile');
  throwsWith(() => sg.compile((t) => { t.registerHook((g) => g); return t; })(sg.ones([1], { requiresGrad: true })), 'registerHook: hooks cannot be registered inside sg.compile');
  // clipGradNorm_'s total norm is not available to traced code
  const p = sg.ones([2], { requiresGrad: true });
  throwsWith(() => sg.compile(() => {
    p.sum().backward();
    return sg.full([1], sg.nn.utils.clipGradNorm_([p], 1) + 1);
  })(), 'clipGradNorm_: inside sg.compile the total norm is not available');
  // an async function cannot be traced
  throwsWith(() => sg.compile(async (t) => t)(x), 'compile: fn returned a Promise');
}));

test('bad input: clear Errors, and nothing leaks from a failed call', () => {
  const x = sg.randn([2, 3]);
  const before = sg.memory();
  throwsWith(() => sg.compile(42), 'compile: expected fn to be a function, got 42');
  throwsWith(() => sg.compile((t) => t, { async: 'yes' }), 'compile', 'async');
  throwsWith(() => sg.compile((t) => t, { backend: 'gpu' }), 'compile', "'wasm', 'reference' or 'auto'");
  throwsWith(() => sg.compile((t) => t, { cacheSize: 0 }), 'compile', 'cacheSize');
  const c = sg.compile((a, b) => a.add(b));
  sg.tidy(() => void c(x, x));
  throwsWith(() => c(x), 'compiled function: expected 2 arguments (as in its first call), got 1');
  const gone = sg.randn([2, 3]);
  gone.dispose();
  throwsWith(() => c(x, gone), 'compiled function: argument 1 is a disposed Tensor');
  throwsWith(() => sg.compile((t) => t.matmul(t))(x), 'matmul', 'not aligned');
  const m = sg.memory();
  assert.equal(m.tensors, before.tensors);
  assert.equal(m.bytes, before.bytes);
  x.dispose();
});

test('a tensor the function captured (not an argument) and disposed after tracing is an Error, not its old data', () => {
  const w = sg.tensor([1, 2, 3]);
  const keep = sg.tensor([10, 20, 30]);
  const x = sg.tensor([1, 1, 1]);
  const f = sg.compile((t) => t.mul(w).add(keep));
  assert.deepEqual(sg.tidy(() => Array.from(f(x).dataSync())), [11, 22, 33]);
  const before = sg.memory();
  w.dispose();
  throwsWith(() => f(x), 'compiled function: a tensor it uses from outside its arguments (shape [3]', 'disposed');
  assert.equal(sg.memory().tensors, before.tensors - 1, 'the failed call made nothing');
  // Tensors it only read the shape of, or made itself, are not captured: disposing them is fine.
  const probe = sg.tensor([0, 0, 0]);
  const g = sg.compile((t) => t.reshape(probe.shape).add(keep));
  assert.deepEqual(sg.tidy(() => Array.from(g(x).dataSync())), [11, 21, 31]);
  probe.dispose();
  assert.deepEqual(sg.tidy(() => Array.from(g(x).dataSync())), [11, 21, 31]);
  f.clear();
  g.clear();
  sg.dispose([keep, x]);
});

test('long loops of compiled calls keep sg.memory() flat', () => {
  const w = sg.randn([16, 16], { requiresGrad: true });
  const opt = new sg.optim.SGD([w], { lr: 0.01 });
  const step = sg.compile((x) => {
    opt.zeroGrad();
    const l = x.matmul(w).relu().square().mean();
    l.backward();
    opt.step();
    return l;
  });
  const x = sg.randn([8, 16]);
  const run = () => sg.tidy(() => void step(x));
  assertMemoryFlat(run, { warmup: 5, steps: 200 });
  step.clear();
  sg.dispose([w, x]);
  opt.zeroGrad();
});
