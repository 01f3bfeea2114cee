// The two peers beside tfjs (issue 29): jax-js (@jax-js/jax, its wasm device, every step under
// jit) and ONNX Runtime Web (onnxruntime-web, wasm execution provider, inference only), both from
// tests/bench/node_modules, both on one thread like simdgrad and tfjs.
// A peer side is { step, check, dispose } as in workloads.mjs, but step and check are async
// (jax-js: blockUntilReady; ORT: session.run) and there is no tidy: each side frees its own
// arrays. PEER_SIDES[peer](workload) gives (lib, data, sg) → side, or a string saying why
// the peer does not run that workload.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BENCH_DIR } from './libs.mjs';
import { permute } from './data.mjs';
import { ADAM, CNN, MLP, sgCnn } from './workloads.mjs';

// Read from the file: @jax-js/jax's "exports" does not list ./package.json.
const pkgVersion = (name) => JSON.parse(readFileSync(path.join(BENCH_DIR, 'node_modules', name, 'package.json'), 'utf8')).version;

export const PEERS = { jax: 'jax-js', ort: 'ORT' };

export async function loadJax() {
  const jax = await import('@jax-js/jax');
  // init() with no argument also probes WebGPU through `navigator`, which Node 20 lacks.
  const devices = await jax.init('wasm');
  if (!devices.includes('wasm')) throw new Error(`jax-js: expected the wasm device, got ${JSON.stringify(devices)}`);
  jax.defaultDevice('wasm');
  // jax-js's wasm device runs a Worker pool when SharedArrayBuffer and a global Worker both
  // exist; Node has no global Worker (until ORT defines one: loadOrt), so this is one thread.
  return { jax, info: { version: pkgVersion('@jax-js/jax'), device: 'wasm', threads: typeof Worker === 'undefined' ? 1 : 'pool', jit: true } };
}

export async function loadOrt() {
  const hadWorker = 'Worker' in globalThis;
  const ort = await import('onnxruntime-web');
  // One thread (no pthread pool), the SIMD build: the wasm EP's best single-core setting.
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.wasm.proxy = false;
  return {
    ort,
    hadWorker,
    info: { version: ort.env.versions?.web ?? pkgVersion('onnxruntime-web'), ep: 'wasm', threads: 1, graphOptimizationLevel: 'all' },
  };
}

/**
 * ORT defines globalThis.Worker once its wasm starts (TOOLCHAIN.md); jax-js would then spawn
 * threads for kernels it dispatches later. Called after every ORT session exists.
 */
export function dropOrtWorker(o) {
  if (!o.hadWorker && 'Worker' in globalThis) delete globalThis.Worker;
}

// ------------------------------------------------------------------ jax-js
// [shape of a, shape of b, variant]: 'nn' A·B, 'tn' Aᵀ·B, 'nt' A·Bᵀ (the transposes inside the
// jit / the exported graph, where each peer may fold them into its product).
const matmulShapes = (name) => {
  const m = /^matmul_(\d+)(?:_(tn|nt))?$/.exec(name);
  if (m) return [[+m[1], +m[1]], [+m[1], +m[1]], m[2] ?? 'nn'];
  if (name === 'matmul_mlp') return [[128, 784], [784, 256], 'nn'];
  return null;
};
const product = (matmul, T, variant) => (x, y) => matmul(variant === 'tn' ? T(x) : x, variant === 'nt' ? T(y) : y);

async function settle(jax, tree) {
  await jax.blockUntilReady(tree);
  return tree;
}

function jaxMatmul([sa, sb, variant]) {
  return ({ jax }, d) => {
    const np = jax.numpy;
    const a = np.array(d.a).reshape(sa);
    const b = np.array(d.b).reshape(sb);
    const mm = jax.jit(product(np.matmul, (t) => np.transpose(t), variant));
    // .ref: jax-js consumes its arguments (reference counting); a and b stay for the next call.
    return {
      async step() { (await settle(jax, mm(a.ref, b.ref))).dispose(); },
      async check() { return mm(a.ref, b.ref).dataSync(); },
      dispose() { a.dispose(); b.dispose(); },
    };
  };
}

function jaxElementwise(op) {
  return ({ jax }, d) => {
    const np = jax.numpy;
    const a = np.array(d.a);
    const b = np.array(d.b);
    const f = jax.jit({ add: (x, y) => np.add(x, y), mul: (x, y) => np.multiply(x, y), exp: (x, y) => { y.dispose(); return np.exp(x); }, sum: (x, y) => { y.dispose(); return np.sum(x); } }[op]);
    return {
      async step() { (await settle(jax, f(a.ref, b.ref))).dispose(); },
      async check() { return f(a.ref, b.ref).dataSync(); },
      dispose() { a.dispose(); b.dispose(); },
    };
  };
}

// tanh / sigmoid / gelu (erf form, as sg.gelu and PyTorch's default) / exp over 2^20 floats; with
// backward, one jit of vjp giving the output and the input's gradient for the cotangent g, as
// simdgrad's call(a).backward(g).
function jaxTranscendental(op, withBackward) {
  return ({ jax }, d) => {
    const np = jax.numpy;
    const f = { tanh: (x) => np.tanh(x), sigmoid: (x) => jax.nn.sigmoid(x), gelu: (x) => jax.nn.gelu(x, { approximate: false }), exp: (x) => np.exp(x) }[op];
    const a = np.array(d.a);
    const g = np.array(d.g);
    const fwd = jax.jit((x, c) => { c.dispose(); return f(x); });
    const both = jax.jit((x, c) => {
      const [y, back] = jax.vjp(f, [x]);
      const [gx] = back(c);
      back.dispose?.();
      return [y, gx];
    });
    const run = withBackward ? both : fwd;
    return {
      async step() { jax.tree.dispose(await settle(jax, run(a.ref, g.ref))); },
      // The forward values, as simdgrad's check.
      async check() { return fwd(a.ref, g.ref).dataSync(); },
      dispose() { a.dispose(); g.dispose(); },
    };
  };
}

// The MLP train step: one jit of value-and-grad of the cross-entropy plus PyTorch's Adam update
// (p -= lr/bc1 · m / (√v / √bc2 + eps)), written in jax-js; the bias corrections change every
// step, so they enter as 0-d arrays (a JS number would be a constant baked into the trace).
/**
 * A jit of value-and-grad of lossOf(params, x, y) plus PyTorch's Adam update, as a peer side
 * whose check is the loss at the initial weights (as simdgrad's check).
 */
function jaxAdamSide(jax, params0, lossOf, x, y) {
  const np = jax.numpy;
  let params = params0;
  let m = params.map((p) => np.zerosLike(p.ref));
  let v = params.map((p) => np.zerosLike(p.ref));
  const { beta1: B1, beta2: B2, eps } = ADAM;
  const train = jax.jit((p, mm, vv, xs, ys, c1, c2) => {
    const [loss, g] = jax.valueAndGrad(lossOf)(p.map((q) => q.ref), xs, ys);
    const P = [], M = [], V = [];
    for (let i = 0; i < p.length; i++) {
      const gi = g[i];
      const mi = np.add(np.multiply(mm[i], B1), np.multiply(gi.ref, 1 - B1));
      const vi = np.add(np.multiply(vv[i], B2), np.multiply(np.multiply(gi.ref, gi), 1 - B2));
      const denom = np.add(np.multiply(np.sqrt(vi.ref), c2.ref), eps);
      P.push(np.subtract(p[i], np.divide(np.multiply(mi.ref, c1.ref), denom)));
      M.push(mi);
      V.push(vi);
    }
    c1.dispose();
    c2.dispose();
    return [loss, P, M, V];
  });
  const lossJit = jax.jit(lossOf);
  let t = 0;
  return {
    async step() {
      t++;
      const c1 = np.array(ADAM.lr / (1 - B1 ** t));
      const c2 = np.array(1 / Math.sqrt(1 - B2 ** t));
      const [loss, P, M, V] = await settle(jax, train(params, m, v, x.ref, y.ref, c1, c2));
      loss.dispose();
      [params, m, v] = [P, M, V];
    },
    async check() { return lossJit(params.map((p) => p.ref), x.ref, y.ref).dataSync(); },
    dispose() { for (const a of [...params, ...m, ...v, x, y]) a.dispose(); },
  };
}

// Mean cross-entropy of logits against one-hot rows.
const crossEntropy = (jax, logits, onehot) => jax.numpy.negative(jax.numpy.mean(jax.numpy.sum(jax.numpy.multiply(jax.nn.logSoftmax(logits, -1), onehot), -1)));

function jaxMlp({ jax }, d) {
  const np = jax.numpy;
  const { nn } = jax;
  const [i0, h1, h2, o] = MLP.sizes;
  const [w1, b1, w2, b2, w3, b3] = d.params;
  // PyTorch layout W [out, in] → [in, out], so that forward is x·W + b.
  const W = (w, fout, fin) => np.array(permute(w, [fout, fin], [1, 0])).reshape([fin, fout]);
  const params = [W(w1, h1, i0), np.array(b1), W(w2, h2, h1), np.array(b2), W(w3, o, h2), np.array(b3)];
  const x = np.array(d.x).reshape([MLP.batch, i0]);
  const oh = nn.oneHot(np.array(Int32Array.from(d.y), { dtype: np.int32 }), o);
  const lossOf = (p, xs, y) => {
    let h = nn.relu(np.add(np.matmul(xs, p[0]), p[1]));
    h = nn.relu(np.add(np.matmul(h, p[2]), p[3]));
    return crossEntropy(jax, np.add(np.matmul(h, p[4]), p[5]), y);
  };
  return jaxAdamSide(jax, params, lossOf, x, oh);
}


// ------------------------------------------------------------------ ORT
// The model is exported by simdgrad (sg.onnx.export) from the same weights and run on the same
// input data: ORT's outputs are checked against simdgrad's in worker.mjs.
async function ortSession(ort, bytes) {
  return ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all', executionMode: 'sequential' });
}

function ortMatmul([sa, sb, variant]) {
  return async ({ ort }, d, sg) => {
    const a = sg.tensor(d.a, { shape: sa });
    const b = sg.tensor(d.b, { shape: sb });
    let bytes;
    try {
      bytes = sg.onnx.export(product(sg.matmul, (t) => t.T, variant), [a, b], { inputNames: ['a', 'b'], outputNames: ['c'] });
    } finally {
      sg.dispose([a, b]);
    }
    const session = await ortSession(ort, bytes);
    const feeds = { a: new ort.Tensor('float32', d.a, sa), b: new ort.Tensor('float32', d.b, sb) };
    return {
      async step() { (await session.run(feeds)).c.dispose(); },
      async check() { return Float32Array.from((await session.run(feeds)).c.data); },
      dispose: () => session.release(),
    };
  };
}

// The 1M elementwise forward ops, as one-op graphs exported from simdgrad (gelu in its erf form).
const ELEMENTWISE_SG = {
  add: (sg) => (x, y) => sg.add(x, y),
  mul: (sg) => (x, y) => sg.mul(x, y),
  exp: (sg) => (x) => sg.exp(x),
  sum: (sg) => (x) => sg.sum(x),
  tanh: (sg) => (x) => sg.tanh(x),
  sigmoid: (sg) => (x) => sg.sigmoid(x),
  gelu: (sg) => (x) => sg.gelu(x),
};
function ortElementwise(op) {
  return async ({ ort }, d, sg) => {
    const binary = op === 'add' || op === 'mul';
    const arrays = binary ? [d.a, d.b] : [d.a];
    const names = binary ? ['a', 'b'] : ['a'];
    const ts = arrays.map((x) => sg.tensor(x, { shape: [x.length] }));
    let bytes;
    try {
      bytes = sg.onnx.export(ELEMENTWISE_SG[op](sg), ts, { inputNames: names, outputNames: ['y'] });
    } finally {
      sg.dispose(ts);
    }
    const session = await ortSession(ort, bytes);
    const feeds = Object.fromEntries(names.map((n, i) => [n, new ort.Tensor('float32', arrays[i], [arrays[i].length])]));
    return {
      async step() { (await session.run(feeds)).y.dispose(); },
      async check() { return Float32Array.from((await session.run(feeds)).y.data); },
      dispose: () => session.release(),
    };
  };
}

async function ortCnn({ ort }, d, sg) {
  const { model, x, y } = sgCnn(sg, d);
  let bytes;
  try {
    bytes = sg.onnx.export(model, [x], { inputNames: ['x'], outputNames: ['logits'], training: false });
  } finally {
    sg.dispose([x, y, ...model.parameters()]);
  }
  const session = await ortSession(ort, bytes);
  const feeds = { x: new ort.Tensor('float32', d.x, [CNN.batch, 1, 28, 28]) };
  return {
    async step() { (await session.run(feeds)).logits.dispose(); },
    async check() { return Float32Array.from((await session.run(feeds)).logits.data); },
    dispose: () => session.release(),
  };
}

/** (peer, workload) → side factory, or the reason the peer has no side for it. */
export function peerSide(peer, w) {
  const mm = matmulShapes(w.name);
  const elem = /^(add|mul|exp|sum)_1M$/.exec(w.name);
  // Rows that time simdgrad against itself (another dtype or kernel set as its baseline).
  if (/_(f64|f16|bf16)$/.test(w.name)) return 'the float64/float16/bfloat16 rows time simdgrad against its own float32 product';
  if (/_relaxed$/.test(w.name)) return 'the relaxed-SIMD rows time simdgrad\'s two kernel sets against each other';
  if (peer === 'jax') {
    if (mm) return jaxMatmul(mm);
    if (elem) return jaxElementwise(elem[1]);
    const tr = /^(gelu|tanh|sigmoid|exp)(_fwd_bwd)?_1M$/.exec(w.name);
    if (tr) return jaxTranscendental(tr[1], !!tr[2]);
    if (w.name === 'mlp_train') return jaxMlp;
    return 'no jax-js side written (issue 29: the products, the MLP train step, and the 1M elementwise ops with their gradients)';
  }
  if (mm) return ortMatmul(mm);
  if (w.name === 'cnn_forward') return ortCnn;
  const fwd = /^(add|mul|exp|sum|tanh|sigmoid|gelu)_1M$/.exec(w.name);
  if (fwd) return ortElementwise(fwd[1]);
  if (w.group === 'train' || /fwd_bwd/.test(w.name)) return 'ONNX Runtime Web runs inference only (no training)';
  return 'no ONNX model for this workload (ORT runs the float32 products, the 1M elementwise forward ops and the CNN forward pass)';
}
