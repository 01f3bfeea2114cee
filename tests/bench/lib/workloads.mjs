// The benchmark workloads, each written once for simdgrad and once for tfjs over the same
// input data (lib/data.mjs). A side is a factory (lib, data) → { step, check, dispose }:
//   step()    one timed iteration; worker.mjs runs it inside the library's tidy(), so every
//             tensor it creates is freed at the end of the iteration (it must return nothing);
//   check()   returns a Float32Array computed from the initial state, compared across the
//             two libraries before timing (proves both sides compute the same thing);
//   dispose() frees what the factory kept.
// A tfjs side may instead return { unsupported: why }, or carry a `note` (shown under the
// table) and its own `flops` when it does less work than the workload (forwardOnly).
// `flops` is nominal: 2·M·N·K per matrix product (convolutions counted the same way), ×3 for a
// forward+backward step; elementwise ops and sum count 1 per element.
import { labels, normal, permute, uniform } from './data.mjs';
import { ADAMW, GPT, gptData, sgGpt } from './gpt.mjs';
import { RELAXED_WORKLOADS } from './relaxed_workloads.mjs';

const f32 = (v) => Float32Array.of(v);

// ------------------------------------------------------------------------ matmul
function matmul(n, variant) {
  const [ta, tb] = { nn: [false, false], tn: [true, false], nt: [false, true] }[variant];
  const expr = { nn: 'A·B', tn: 'Aᵀ·B', nt: 'A·Bᵀ' }[variant];
  const big = n >= 1024;
  return {
    name: variant === 'nn' ? `matmul_${n}` : `matmul_${n}_${variant}`,
    group: 'matmul',
    desc: `${expr}, ${n}×${n} float32` + (variant === 'nn' ? '' : ' (transposed operand as a view / flag)'),
    flops: 2 * n ** 3,
    peakLine: true,
    iters: big ? { warmup: 1, min: 5, max: 5 } : { warmup: 3, min: 10, max: n <= 256 ? 200 : 60 },
    tol: 1e-4,
    data: () => ({ a: normal(n * n, 1), b: normal(n * n, 2) }),
    sg(sg, d) {
      const a = sg.tensor(d.a, { shape: [n, n] });
      const b = sg.tensor(d.b, { shape: [n, n] });
      // The PyTorch way: .T is a view, matmul takes it as it is.
      const mm = () => sg.matmul(ta ? a.T : a, tb ? b.T : b);
      // A transposed variant also times the plain A·B alternately (the within-10 % goal).
      const baseline = variant === 'nn' ? undefined : { desc: 'A·B', step: () => void sg.matmul(a, b) };
      return { step: () => void mm(), check: () => mm().dataSync(), dispose: () => sg.dispose([a, b]), baseline };
    },
    tf(tf, d) {
      const a = tf.tensor2d(d.a, [n, n]);
      const b = tf.tensor2d(d.b, [n, n]);
      // The tfjs way: transposeA / transposeB flags of matMul.
      const mm = () => tf.matMul(a, b, ta, tb);
      return { step: () => void mm(), check: () => mm().dataSync(), dispose: () => tf.dispose([a, b]) };
    },
  };
}

// A float64 product (issue 27) with the same product in float32 as its in-process baseline: the
// report's "this variant takes X× its time" gives float64's GFLOP/s as 1/X of float32's (goal
// ≥ 0.4: half the lanes). tfjs has no float64.
function matmulF64(n) {
  return {
    name: `matmul_${n}_f64`,
    group: 'matmul',
    desc: `A·B, ${n}×${n} float64 (baseline: the same product in float32)`,
    flops: 2 * n ** 3,
    iters: n >= 1024 ? { warmup: 1, min: 3, max: 3 } : { warmup: 2, min: 5, max: 30 },
    tol: 1e-4,
    data: () => ({ a: normal(n * n, 1), b: normal(n * n, 2) }),
    sg(sg, d) {
      const a = sg.tensor(Float64Array.from(d.a), { shape: [n, n] });
      const b = sg.tensor(Float64Array.from(d.b), { shape: [n, n] });
      const a32 = sg.tensor(d.a, { shape: [n, n] });
      const b32 = sg.tensor(d.b, { shape: [n, n] });
      const baseline = { desc: 'float32 A·B', step: () => void sg.matmul(a32, b32) };
      return {
        step: () => void sg.matmul(a, b),
        check: () => Float32Array.from(sg.matmul(a, b).dataSync()),
        dispose: () => sg.dispose([a, b, a32, b32]),
        baseline,
      };
    },
    tf: () => ({ unsupported: 'tfjs has no float64' }),
  };
}

// A float16 or bfloat16 product (issue 27) with the same product in float32 as its baseline: the
// operands are widened to float32, multiplied by the float32 GEMM and the result rounded once
// (ops/dtype_widening.cpp), so "X× its time" is that widening's cost (goal ≤ 1.15×). tfjs has no
// 16-bit dtypes.
function matmulHalf(n, dtype) {
  return {
    name: `matmul_${n}_${dtype === 'float16' ? 'f16' : 'bf16'}`,
    group: 'matmul',
    desc: `A·B, ${n}×${n} ${dtype} (baseline: the same product in float32)`,
    flops: 2 * n ** 3,
    iters: n >= 1024 ? { warmup: 1, min: 3, max: 3 } : { warmup: 2, min: 5, max: 30 },
    tol: dtype === 'float16' ? 1e-2 : 1e-1,
    data: () => ({ a: normal(n * n, 1), b: normal(n * n, 2) }),
    sg(sg, d) {
      const a = sg.tensor(d.a, { shape: [n, n], dtype });
      const b = sg.tensor(d.b, { shape: [n, n], dtype });
      const a32 = sg.tensor(d.a, { shape: [n, n] });
      const b32 = sg.tensor(d.b, { shape: [n, n] });
      const baseline = { desc: 'float32 A·B', step: () => void sg.matmul(a32, b32) };
      return {
        step: () => void sg.matmul(a, b),
        check: () => sg.matmul(a, b).dataSync(),
        dispose: () => sg.dispose([a, b, a32, b32]),
        baseline,
      };
    },
    tf: () => ({ unsupported: `tfjs has no ${dtype}` }),
  };
}

// The first layer of mlp_train as a plain product: [128, 784] · [784, 256].
const mlpProduct = {
  name: 'matmul_mlp',
  group: 'matmul',
  desc: 'A·B, [128, 784]·[784, 256] float32 (the MLP\'s first layer)',
  flops: 2 * 128 * 784 * 256,
  peakLine: true,
  iters: { warmup: 3, min: 10, max: 200 },
  tol: 1e-4,
  data: () => ({ a: normal(128 * 784, 40), b: normal(784 * 256, 41) }),
  sg(sg, d) {
    const a = sg.tensor(d.a, { shape: [128, 784] });
    const b = sg.tensor(d.b, { shape: [784, 256] });
    const mm = () => sg.matmul(a, b);
    return { step: () => void mm(), check: () => mm().dataSync(), dispose: () => sg.dispose([a, b]) };
  },
  tf(tf, d) {
    const a = tf.tensor2d(d.a, [128, 784]);
    const b = tf.tensor2d(d.b, [784, 256]);
    const mm = () => tf.matMul(a, b);
    return { step: () => void mm(), check: () => mm().dataSync(), dispose: () => tf.dispose([a, b]) };
  },
};

// -------------------------------------------------------------- elementwise (1M)
const ELEMS = 1 << 20;
function elementwise(op) {
  return {
    name: `${op}_1M`,
    group: 'elementwise',
    desc: `${op} over 2^20 float32` + (op === 'sum' ? ' (full reduction)' : ''),
    flops: ELEMS,
    iters: { warmup: 5, min: 20, max: 200 },
    tol: op === 'sum' ? 1e-3 : 1e-5,  // float32 summation order differs between the two
    data: () => ({ a: normal(ELEMS, 3), b: normal(ELEMS, 4) }),
    sg(sg, d) {
      const a = sg.tensor(d.a, { shape: [ELEMS] });
      const b = sg.tensor(d.b, { shape: [ELEMS] });
      const f = { add: () => sg.add(a, b), mul: () => sg.mul(a, b), exp: () => sg.exp(a), sum: () => sg.sum(a) }[op];
      return { step: () => void f(), check: () => f().dataSync(), dispose: () => sg.dispose([a, b]) };
    },
    tf(tf, d) {
      const a = tf.tensor1d(d.a);
      const b = tf.tensor1d(d.b);
      const f = { add: () => tf.add(a, b), mul: () => tf.mul(a, b), exp: () => tf.exp(a), sum: () => tf.sum(a) }[op];
      return { step: () => void f(), check: () => f().dataSync(), dispose: () => tf.dispose([a, b]) };
    },
  };
}

// ------------------------------------------------------------ shared model helpers
/** Copies `arrays` (in namedParameters() order) into a simdgrad module via loadStateDict. */
function loadParams(sg, model, arrays) {
  const named = model.namedParameters();
  if (named.length !== arrays.length) throw new Error(`expected ${arrays.length} parameters, the model has ${named.length}`);
  const sd = Object.fromEntries(named.map(([name, p], i) => [name, sg.tensor(arrays[i], { shape: p.shape })]));
  model.loadStateDict(sd);
  sg.dispose(Object.values(sd));
}

const ADAM = { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8 };
const sgAdam = (sg, params) => new sg.optim.Adam(params, { lr: ADAM.lr, betas: [ADAM.beta1, ADAM.beta2], eps: ADAM.eps });
const tfAdam = (tf) => tf.train.adam(ADAM.lr, ADAM.beta1, ADAM.beta2, ADAM.eps);

/** Wraps a tfjs side whose variables and optimizer must be disposed. */
function tfOwned(tf, owned, opt, rest) {
  return { ...rest, dispose: () => { tf.dispose(owned); opt?.dispose(); } };
}

// ------------------------------------------------------------------ MLP train step
// 784 → 256 → 256 → 10 with ReLU, batch 128, cross-entropy, Adam.
const MLP = { batch: 128, sizes: [784, 256, 256, 10] };
function mlpData() {
  const [i0, h1, h2, o] = MLP.sizes;
  const layer = (fin, fout, seed) => [uniform(fout * fin, seed, 1 / Math.sqrt(fin)), uniform(fout, seed + 1, 1 / Math.sqrt(fin))];
  return {
    params: [...layer(i0, h1, 10), ...layer(h1, h2, 12), ...layer(h2, o, 14)],  // PyTorch layout: W is [out, in]
    x: normal(MLP.batch * i0, 5),
    y: labels(MLP.batch, o, 6),
  };
}
const mlp = {
  name: 'mlp_train',
  group: 'train',
  desc: 'MLP 784→256→256→10 ReLU, batch 128: forward, cross-entropy, backward, Adam step',
  flops: 3 * 2 * MLP.batch * (784 * 256 + 256 * 256 + 256 * 10),
  iters: { warmup: 3, min: 10, max: 40 },
  tol: 1e-4,
  needs: ['nn.Sequential', 'nn.Linear', 'nn.ReLU', 'optim.Adam', 'F.crossEntropy'],
  data: mlpData,
  sg(sg, d) {
    const { nn } = sg;
    const model = new nn.Sequential(new nn.Linear(784, 256), new nn.ReLU(), new nn.Linear(256, 256), new nn.ReLU(), new nn.Linear(256, 10));
    loadParams(sg, model, d.params);
    const opt = sgAdam(sg, model.parameters());
    const x = sg.tensor(d.x, { shape: [MLP.batch, 784] });
    const y = sg.tensor(d.y, { shape: [MLP.batch] });
    const loss = () => sg.F.crossEntropy(model.forward(x), y);
    return {
      step() {
        opt.zeroGrad();
        const l = loss();
        l.backward();
        opt.step();
      },
      check: () => f32(sg.noGrad(() => loss().item())),
      dispose: () => { opt.zeroGrad(); sg.dispose([x, y, ...model.parameters()]); },
    };
  },
  tf(tf, d) {
    const [w1, b1, w2, b2, w3, b3] = d.params;
    const W = (w, fout, fin) => tf.variable(tf.tensor2d(permute(w, [fout, fin], [1, 0]), [fin, fout]));
    const vars = [W(w1, 256, 784), tf.variable(tf.tensor1d(b1)), W(w2, 256, 256), tf.variable(tf.tensor1d(b2)), W(w3, 10, 256), tf.variable(tf.tensor1d(b3))];
    const x = tf.tensor2d(d.x, [MLP.batch, 784]);
    const onehot = tf.cast(tf.oneHot(tf.tensor1d(d.y, 'int32'), 10), 'float32');
    const forward = () => {
      let h = tf.relu(tf.add(tf.matMul(x, vars[0]), vars[1]));
      h = tf.relu(tf.add(tf.matMul(h, vars[2]), vars[3]));
      return tf.add(tf.matMul(h, vars[4]), vars[5]);
    };
    const loss = () => tf.losses.softmaxCrossEntropy(onehot, forward());
    const opt = tfAdam(tf);
    return tfOwned(tf, [...vars, x, onehot], opt, {
      step: () => void opt.minimize(loss, false, vars),
      check: () => f32(loss().dataSync()[0]),
    });
  },
};

// ------------------------------------------------------------------ CNN
// 28×28×1 → conv 3×3 16 (padding 1) + ReLU + maxpool 2 → conv 3×3 32 (padding 1) + ReLU +
// maxpool 2 → flatten (32·7·7) → linear 10; batch 64. simdgrad is NCHW (PyTorch layout),
// tfjs NHWC: the same weights are permuted for tfjs so both compute the same logits.
const CNN = { batch: 64, flat: 32 * 7 * 7 };
const CNN_FWD_FLOPS = 2 * CNN.batch * (28 * 28 * 16 * 9 + 14 * 14 * 32 * 16 * 9 + CNN.flat * 10);
function cnnData() {
  const u = (n, seed, fanIn) => uniform(n, seed, 1 / Math.sqrt(fanIn));
  return {
    params: [u(16 * 9, 20, 9), u(16, 21, 9), u(32 * 16 * 9, 22, 144), u(32, 23, 144), u(10 * CNN.flat, 24, CNN.flat), u(10, 25, CNN.flat)],
    x: normal(CNN.batch * 28 * 28, 7),
    y: labels(CNN.batch, 10, 8),
  };
}
const CNN_NEEDS = ['nn.Sequential', 'nn.Conv2d', 'nn.ReLU', 'nn.MaxPool2d', 'nn.Flatten', 'nn.Linear'];
function sgCnn(sg, d) {
  const { nn } = sg;
  const model = new nn.Sequential(
    new nn.Conv2d(1, 16, 3, { padding: 1 }), new nn.ReLU(), new nn.MaxPool2d(2),
    new nn.Conv2d(16, 32, 3, { padding: 1 }), new nn.ReLU(), new nn.MaxPool2d(2),
    new nn.Flatten(), new nn.Linear(CNN.flat, 10));
  loadParams(sg, model, d.params);
  const x = sg.tensor(d.x, { shape: [CNN.batch, 1, 28, 28] });
  const y = sg.tensor(d.y, { shape: [CNN.batch] });
  return { model, x, y };
}
function tfCnn(tf, d) {
  const [w1, b1, w2, b2, w3, b3] = d.params;
  const vars = [
    tf.variable(tf.tensor4d(permute(w1, [16, 1, 3, 3], [2, 3, 1, 0]), [3, 3, 1, 16])),  // OIHW → HWIO
    tf.variable(tf.tensor1d(b1)),
    tf.variable(tf.tensor4d(permute(w2, [32, 16, 3, 3], [2, 3, 1, 0]), [3, 3, 16, 32])),
    tf.variable(tf.tensor1d(b2)),
    // Linear [10, C·H·W] → [H·W·C, 10]: NHWC flattening order.
    tf.variable(tf.tensor2d(permute(w3, [10, 32, 7, 7], [2, 3, 1, 0]), [CNN.flat, 10])),
    tf.variable(tf.tensor1d(b3)),
  ];
  const x = tf.tensor4d(d.x, [CNN.batch, 28, 28, 1]);  // C = 1: NCHW and NHWC bytes are equal
  const onehot = tf.cast(tf.oneHot(tf.tensor1d(d.y, 'int32'), 10), 'float32');
  const forward = () => {
    let h = tf.maxPool(tf.relu(tf.add(tf.conv2d(x, vars[0], 1, 'same'), vars[1])), 2, 2, 'valid');
    h = tf.maxPool(tf.relu(tf.add(tf.conv2d(h, vars[2], 1, 'same'), vars[3])), 2, 2, 'valid');
    return tf.add(tf.matMul(tf.reshape(h, [CNN.batch, CNN.flat]), vars[4]), vars[5]);
  };
  const loss = () => tf.losses.softmaxCrossEntropy(onehot, forward());
  return { vars, owned: [...vars, x, onehot], forward, loss };
}
const cnnForward = {
  name: 'cnn_forward',
  group: 'train',
  desc: 'CNN forward only (no grad), batch 64 → logits',
  flops: CNN_FWD_FLOPS,
  peakLine: true,
  iters: { warmup: 3, min: 10, max: 40 },
  tol: 1e-4,
  needs: CNN_NEEDS,
  data: cnnData,
  sg(sg, d) {
    const { model, x, y } = sgCnn(sg, d);
    const fwd = () => sg.noGrad(() => model.forward(x));
    return { step: () => void fwd(), check: () => fwd().dataSync(), dispose: () => sg.dispose([x, y, ...model.parameters()]) };
  },
  tf(tf, d) {
    const m = tfCnn(tf, d);
    return tfOwned(tf, m.owned, null, { step: () => void m.forward(), check: () => m.forward().dataSync() });
  },
};
const cnnTrain = {
  name: 'cnn_train',
  group: 'train',
  desc: 'CNN train step, batch 64: forward, cross-entropy, backward, Adam step',
  flops: 3 * CNN_FWD_FLOPS,
  peakLine: true,
  iters: { warmup: 3, min: 10, max: 40 },
  tol: 1e-4,
  needs: [...CNN_NEEDS, 'optim.Adam', 'F.crossEntropy'],
  data: cnnData,
  sg(sg, d) {
    const { model, x, y } = sgCnn(sg, d);
    const opt = sgAdam(sg, model.parameters());
    const loss = () => sg.F.crossEntropy(model.forward(x), y);
    return {
      step() {
        opt.zeroGrad();
        const l = loss();
        l.backward();
        opt.step();
      },
      check: () => f32(sg.noGrad(() => loss().item())),
      dispose: () => { opt.zeroGrad(); sg.dispose([x, y, ...model.parameters()]); },
    };
  },
  tf(tf, d) {
    const m = tfCnn(tf, d);
    const opt = tfAdam(tf);
    const check = () => f32(m.loss().dataSync()[0]);
    // tfjs-backend-wasm 4.22 has no Conv2DBackpropFilter kernel, so it cannot train a conv
    // net: time its forward pass instead, alternating with simdgrad's train step in this
    // process (the CNN goal compares the two). The check still compares the loss. Asking the
    // registry, rather than trying a step, leaves no half-built gradient tape behind.
    if (!tf.getKernel('Conv2DBackpropFilter', tf.getBackend())) {
      const why = `no Conv2DBackpropFilter kernel in tfjs-backend-${tf.getBackend()}`;
      return tfOwned(tf, m.owned, opt, { step: () => void m.forward(), check, note: `tfjs: forward only (${why})`, forwardOnly: true, flops: CNN_FWD_FLOPS });
    }
    return tfOwned(tf, m.owned, opt, { step: () => void opt.minimize(m.loss, false, m.vars), check });
  },
};

// -------------------------------------------------------------- attention block
// Single-head self-attention, batch 8, 128 tokens, d 64: q,k,v = x·Wq, x·Wk, x·Wv;
// softmax(q·kᵀ/√d)·v·Wo; loss = mean(out²); gradients for x and the four weights.
const ATT = { b: 8, t: 128, d: 64 };
const ATT_FWD_FLOPS = 4 * 2 * ATT.b * ATT.t * ATT.d * ATT.d + 2 * 2 * ATT.b * ATT.t * ATT.t * ATT.d;
const attention = {
  name: 'attention_fwd_bwd',
  group: 'train',
  desc: 'single-head attention, batch 8, 128 tokens, d 64: forward + backward (grads of x, Wq, Wk, Wv, Wo)',
  flops: 3 * ATT_FWD_FLOPS,
  iters: { warmup: 3, min: 10, max: 40 },
  tol: 1e-4,
  needs: [],
  data: () => ({
    x: normal(ATT.b * ATT.t * ATT.d, 30),
    w: [31, 32, 33, 34].map((s) => uniform(ATT.d * ATT.d, s, 1 / Math.sqrt(ATT.d))),
  }),
  sg(sg, d) {
    const { b, t, d: dm } = ATT;
    const x = sg.tensor(d.x, { shape: [b, t, dm], requiresGrad: true });
    const [wq, wk, wv, wo] = d.w.map((w) => sg.tensor(w, { shape: [dm, dm], requiresGrad: true }));
    const leaves = [x, wq, wk, wv, wo];
    const loss = () => {
      const q = sg.matmul(x, wq);
      const k = sg.matmul(x, wk);
      const v = sg.matmul(x, wv);
      const p = sg.matmul(q, k.transpose(-2, -1)).mul(1 / Math.sqrt(dm)).softmax(-1);
      return sg.matmul(sg.matmul(p, v), wo).square().mean();
    };
    return {
      step() {
        loss().backward();
        for (const l of leaves) l.grad = null;  // frees this iteration's gradients
      },
      check: () => f32(sg.noGrad(() => loss().item())),
      dispose: () => sg.dispose(leaves),
    };
  },
  tf(tf, d) {
    const { b, t, d: dm } = ATT;
    const x = tf.tensor3d(d.x, [b, t, dm]);
    const ws = d.w.map((w) => tf.tensor2d(w, [dm, dm]));
    const loss = (x, wq, wk, wv, wo) => {
      const x2 = tf.reshape(x, [b * t, dm]);
      const proj = (w) => tf.reshape(tf.matMul(x2, w), [b, t, dm]);
      const p = tf.softmax(tf.mul(tf.matMul(proj(wq), proj(wk), false, true), 1 / Math.sqrt(dm)));
      const o = tf.reshape(tf.matMul(p, proj(wv)), [b * t, dm]);
      return tf.mean(tf.square(tf.matMul(o, wo)));
    };
    const grads = tf.grads(loss);
    return tfOwned(tf, [x, ...ws], null, {
      step: () => void grads([x, ...ws]),
      check: () => f32(loss(x, ...ws).dataSync()[0]),
    });
  },
};

// ------------------------------------------------------------- per-op overhead
// Tiny tensors, so what is timed is the cost of calling an op from JavaScript (argument
// checks, crossing into wasm, making and freeing the result), not the arithmetic. One
// iteration runs OPS ops, so its time in ms is the time of one op in µs.
const SMALL = 100;
const OPS = 1000;
const overheadIters = { warmup: 20, min: 30, max: 2000 };
const smallAdd = {
  name: 'small_add_100',
  group: 'overhead',
  desc: `add of two ${SMALL}-float tensors, forward only, ${OPS} calls per iteration (ms per iteration = µs per op)`,
  flops: SMALL * OPS,
  iters: overheadIters,
  tol: 1e-6,
  needs: [],
  data: () => ({ a: normal(SMALL, 40), b: normal(SMALL, 41) }),
  sg(sg, d) {
    const a = sg.tensor(d.a, { shape: [SMALL] });
    const b = sg.tensor(d.b, { shape: [SMALL] });
    return {
      step() {
        for (let i = 0; i < OPS; i++) sg.add(a, b);
      },
      check: () => sg.add(a, b).dataSync(),
      dispose: () => sg.dispose([a, b]),
    };
  },
  tf(tf, d) {
    const a = tf.tensor1d(d.a);
    const b = tf.tensor1d(d.b);
    return {
      step() {
        for (let i = 0; i < OPS; i++) tf.add(a, b);
      },
      check: () => tf.add(a, b).dataSync(),
      dispose: () => tf.dispose([a, b]),
    };
  },
};
// Each op takes the previous result: mul, add, tanh, sub in turn (tanh keeps the values bounded).
const chain = {
  name: 'chain_1000',
  group: 'overhead',
  desc: `a chain of ${OPS} ops on ${SMALL} floats (mul, add, tanh, sub in turn), forward only (ms per iteration = µs per op)`,
  flops: SMALL * OPS,
  iters: overheadIters,
  tol: 1e-5,
  needs: [],
  data: () => ({ x: normal(SMALL, 42), c: uniform(SMALL, 43, 0.5).map((v) => v + 1), b: normal(SMALL, 44, 0.1), e: normal(SMALL, 45, 0.1) }),
  sg(sg, d) {
    const [x, c, b, e] = [d.x, d.c, d.b, d.e].map((v) => sg.tensor(v, { shape: [SMALL] }));
    const run = () => {
      let y = x;
      for (let i = 0; i < OPS; i += 4) y = y.mul(c).add(b).tanh().sub(e);
      return y;
    };
    return { step: () => void run(), check: () => run().dataSync(), dispose: () => sg.dispose([x, c, b, e]) };
  },
  tf(tf, d) {
    const [x, c, b, e] = [d.x, d.c, d.b, d.e].map((v) => tf.tensor1d(v));
    const run = () => {
      let y = x;
      for (let i = 0; i < OPS; i += 4) y = tf.sub(tf.tanh(tf.add(tf.mul(y, c), b)), e);
      return y;
    };
    return { step: () => void run(), check: () => run().dataSync(), dispose: () => tf.dispose([x, c, b, e]) };
  },
};

// ---------------------------------------------------------------- GPT train step
// nanoGPT's model.py (lib/gpt.mjs): compared with PyTorch 1.13 natively (torch/gpt_step.py,
// run by run.mjs after the workers); tfjs has no such model here.
const GPT_FLOPS = (() => {
  const { layers, embd: C, block: T, batch: B, vocab: V } = GPT;
  const perLayer = 2 * B * T * (C * 3 * C + C * C + 2 * C * 4 * C) + 2 * 2 * B * T * T * C;
  return 3 * (layers * perLayer + 2 * B * T * C * V);
})();
const gptTrain = {
  name: 'gpt_train',
  group: 'train',
  desc: "nanoGPT model.py, 2 layers × 4 heads × 64, context 64, batch 8, vocab 65: forward, cross-entropy, backward, AdamW",
  flops: GPT_FLOPS,
  torch: 'gpt',
  iters: { warmup: 3, min: 10, max: 40 },
  tol: 1e-4,
  needs: ['nn.Module', 'nn.Linear', 'nn.LayerNorm', 'nn.Embedding', 'nn.GELU', 'nn.ModuleList', 'optim.AdamW', 'F.crossEntropy'],
  data: gptData,
  sg(sg, d) {
    const model = sgGpt(sg);
    loadParams(sg, model, d.params);
    const opt = new sg.optim.AdamW(model.parameters(), { lr: ADAMW.lr, betas: ADAMW.betas, eps: ADAMW.eps, weightDecay: ADAMW.weightDecay });
    const idx = sg.tensor(d.idx, { shape: [GPT.batch, GPT.block] });
    const targets = sg.tensor(d.targets, { shape: [GPT.batch, GPT.block] });
    return {
      step() {
        opt.zeroGrad();
        const l = model.forward(idx, targets);
        l.backward();
        opt.step();
      },
      check: () => f32(sg.noGrad(() => model.forward(idx, targets).item())),
      dispose: () => {
        opt.zeroGrad();
        sg.dispose([idx, targets, model.pos, ...[...model.transformer.h.children()].map((b) => b.attn.mask), ...model.parameters()]);
      },
    };
  },
  tf: () => ({ unsupported: 'compared with PyTorch 1.13 natively instead (torch/gpt_step.py)' }),
};

// ------------------------------------------- transcendental elementwise ops (1M)
// Forward, and forward + backward through autograd (the backward kernel's rate is the
// difference): the goal is ≥ 1 element per ns for each.
function transcendental(op, withBackward) {
  const call = { gelu: (sg, x) => sg.gelu(x), tanh: (sg, x) => sg.tanh(x), sigmoid: (sg, x) => sg.sigmoid(x), exp: (sg, x) => sg.exp(x) }[op];
  return {
    name: withBackward ? `${op}_fwd_bwd_1M` : `${op}_1M`,
    group: 'elementwise',
    desc: `${op} over 2^20 float32${withBackward ? ', forward + backward (autograd)' : ''}`,
    flops: withBackward ? 2 * ELEMS : ELEMS,
    iters: { warmup: 5, min: 20, max: 200 },
    tol: 1e-5,
    data: () => ({ a: normal(ELEMS, 3), g: normal(ELEMS, 5) }),
    sg(sg, d) {
      const a = sg.tensor(d.a, { shape: [ELEMS], requiresGrad: withBackward });
      const g = sg.tensor(d.g, { shape: [ELEMS] });
      const step = withBackward
        ? () => {
          call(sg, a).backward(g);
          a.grad = null;
        }
        : () => void call(sg, a);
      return { step, check: () => sg.noGrad(() => call(sg, a).dataSync()), dispose: () => sg.dispose([a, g]) };
    },
    tf(tf, d) {
      const fn = { tanh: tf.tanh, sigmoid: tf.sigmoid, exp: tf.exp }[op];
      if (!fn) return { unsupported: `tfjs has no ${op} op` };
      const a = tf.tensor1d(d.a);
      const g = tf.tensor1d(d.g);
      if (!withBackward) return { step: () => void fn(a), check: () => fn(a).dataSync(), dispose: () => tf.dispose([a, g]) };
      const grad = tf.grad((x) => fn(x));
      return { step: () => void grad(a, g), check: () => fn(a).dataSync(), dispose: () => tf.dispose([a, g]) };
    },
  };
}

// For the jax-js and ORT sides (peers.mjs): the same data, shapes, optimizer and simdgrad model.
export { ADAM, CNN, MLP, sgCnn };

export const WORKLOADS = [
  ...[128, 256, 512, 1024].flatMap((n) => ['nn', 'tn', 'nt'].map((v) => matmul(n, v))),
  ...[512, 1024].map(matmulF64),
  ...[512, 1024].flatMap((n) => ['float16', 'bfloat16'].map((dt) => matmulHalf(n, dt))),
  mlpProduct,
  ...RELAXED_WORKLOADS,
  mlp,
  cnnForward,
  cnnTrain,
  attention,
  ...['add', 'mul', 'exp', 'sum'].map(elementwise),
  smallAdd,
  chain,
  ...['gelu', 'tanh', 'sigmoid'].map((op) => transcendental(op, false)),
  ...['gelu', 'tanh', 'sigmoid', 'exp'].map((op) => transcendental(op, true)),
  gptTrain,
];
