// TensorFlow.js's WebGPU backend for tests/bench/webgpu.mjs: the same matmuls, MLP step and CNN
// step as simdgrad's rows, on the GPU object simdgrad uses (tfjs looks for navigator.gpu, which
// Node 20 does not have: it is set to that object first).
import { createRequire, register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH_DIR } from './libs.mjs';
import { GPT, gptData, gptParamSpecs } from './gpt.mjs';

/** { tf } with the 'webgpu' backend active, or { why } when it cannot be loaded. */
export async function loadTfjsWebgpu(gpu) {
  try {
    if (gpu) {
      globalThis.navigator ??= {};
      if (!globalThis.navigator.gpu) Object.defineProperty(globalThis.navigator, 'gpu', { value: gpu, configurable: true });
    }
    const require = createRequire(path.join(BENCH_DIR, 'package.json'));
    register(pathToFileURL(path.join(BENCH_DIR, 'lib/tfjs-esm-hooks.mjs')).href);
    const tf = require('@tensorflow/tfjs-core');
    require('@tensorflow/tfjs-backend-webgpu');
    await import(pathToFileURL(require.resolve('@tensorflow/tfjs-core/dist/register_all_gradients.js')).href);
    if (!(await tf.setBackend('webgpu'))) return { why: 'tf.setBackend("webgpu") failed' };
    await tf.ready();
    return { tf };
  } catch (e) {
    return { why: `tfjs-backend-webgpu not loadable (cd tests/bench && npm ci): ${e.message}` };
  }
}

/** Median ms of `runs` calls of f after `warm`, each waiting for its result's data (the GPU done). */
async function median(tf, f, runs, warm) {
  const once = async () => {
    const out = f();
    await out.data();
    tf.dispose(out);
  };
  for (let i = 0; i < warm; i++) await once();
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await once();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return ms[ms.length >> 1];
}

/** A train step of `predict` (params: tf.Variables) with Adam: returns the loss tensor. */
function trainStep(tf, predict, x, labels) {
  const opt = tf.train.adam(1e-3);
  const y = tf.oneHot(labels, 10);
  return () => opt.minimize(() => tf.losses.softmaxCrossEntropy(y, predict(x)), true);
}

const glorot = (tf, shape) => tf.variable(tf.randomNormal(shape, 0, Math.sqrt(2 / (shape[0] + shape[shape.length - 1]))));

export function tfjsWorkloads(tf, sizes) {
  const rows = sizes.map((n) => ({
    name: `matmul_${n}`,
    flops: 2 * n ** 3,
    time: (quick) => {
      const a = tf.randomNormal([n, n]), b = tf.randomNormal([n, n]);
      return median(tf, () => tf.matMul(a, b), quick ? 2 : n >= 2048 ? 3 : 10, 1).finally(() => tf.dispose([a, b]));
    },
  }));
  rows.push({
    name: 'mlp_step_128',
    time: (quick) => {
      const w1 = glorot(tf, [784, 256]), b1 = tf.variable(tf.zeros([256])), w2 = glorot(tf, [256, 10]), b2 = tf.variable(tf.zeros([10]));
      const x = tf.randomNormal([128, 784]), labels = tf.randomUniform([128], 0, 10, 'int32');
      const step = trainStep(tf, (v) => tf.add(tf.matMul(tf.relu(tf.add(tf.matMul(v, w1), b1)), w2), b2), x, labels);
      return median(tf, step, quick ? 3 : 10, 2).finally(() => tf.dispose([w1, b1, w2, b2, x, labels]));
    },
  });
  rows.push({
    name: 'cnn_step_32',
    time: (quick) => {
      // The same CNN as simdgrad's row, in tfjs's NHWC layout.
      const k1 = glorot(tf, [5, 5, 1, 8]), c1 = tf.variable(tf.zeros([8]));
      const k2 = glorot(tf, [5, 5, 8, 16]), c2 = tf.variable(tf.zeros([16]));
      const w = glorot(tf, [256, 10]), b = tf.variable(tf.zeros([10]));
      const x = tf.randomNormal([32, 28, 28, 1]), labels = tf.randomUniform([32], 0, 10, 'int32');
      const block = (v, k, c) => tf.maxPool(tf.relu(tf.add(tf.conv2d(v, k, 1, 'valid'), c)), 2, 2, 'valid');
      const step = trainStep(tf, (v) => tf.add(tf.matMul(tf.reshape(block(block(v, k1, c1), k2, c2), [32, 256]), w), b), x, labels);
      return median(tf, step, quick ? 3 : 10, 2).finally(() => tf.dispose([k1, c1, k2, c2, w, b, x, labels]));
    },
  });
  rows.push({
    name: 'gpt_step',
    desc: 'forward + backward only (no optimizer)',
    time: (quick) => {
      const { loss, dispose } = tfjsGpt(tf);
      // The gradients of every parameter; the loss is what `median` reads back (the GPU done).
      const step = () => {
        const { value, grads } = tf.variableGrads(loss);
        tf.dispose(grads);
        return value;
      };
      return median(tf, step, quick ? 3 : 10, 2).finally(dispose);
    },
  });
  return rows;
}

/**
 * The bench's nanoGPT-shaped model (lib/gpt.mjs: the same parameters in model.py's layout) in
 * tfjs ops: embeddings, LayerNorm by moments, q·kᵀ/√hs with −∞ above the diagonal, softmax,
 * GELU (erf), the tied LM head and mean cross-entropy. loss() is the forward pass.
 */
function tfjsGpt(tf) {
  const { layers, heads, embd: C, block: T, batch: B, vocab: V } = GPT;
  const d = gptData();
  const p = {};
  gptParamSpecs().forEach(([name, shape], i) => (p[name] = tf.variable(tf.tensor(d.params[i], shape))));
  const idx = tf.tensor(d.idx, [B, T], 'int32');
  const onehot = tf.oneHot(tf.tensor(d.targets, [B * T], 'int32'), V);
  const mask = tf.tensor(Float32Array.from({ length: T * T }, (_, k) => (k % T > Math.floor(k / T) ? -Infinity : 0)), [T, T]);
  const pos = tf.range(0, T, 1, 'int32');
  const ln = (x, w, b) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))), w), b);
  };
  const linear = (x, w, b) => tf.add(tf.matMul(x, w, false, true), b); // w [out, in], as nn.Linear
  const gelu = (x) => tf.mul(tf.mul(x, 0.5), tf.add(1, tf.erf(tf.mul(x, Math.SQRT1_2))));
  const hs = C / heads;
  const loss = () => {
    let x = tf.add(tf.gather(p['transformer.wte.weight'], idx), tf.gather(p['transformer.wpe.weight'], pos));
    x = tf.reshape(x, [B * T, C]);
    for (let l = 0; l < layers; l++) {
      const q = (n) => p[`transformer.h.${l}.${n}`];
      const qkv = linear(ln(x, q('ln_1.weight'), q('ln_1.bias')), q('attn.c_attn.weight'), q('attn.c_attn.bias'));
      const [qq, kk, vv] = tf.split(qkv, 3, 1).map((t) => tf.transpose(tf.reshape(t, [B, T, heads, hs]), [0, 2, 1, 3]));
      const att = tf.softmax(tf.add(tf.mul(tf.matMul(qq, kk, false, true), 1 / Math.sqrt(hs)), mask));
      const y = tf.reshape(tf.transpose(tf.matMul(att, vv), [0, 2, 1, 3]), [B * T, C]);
      x = tf.add(x, linear(y, q('attn.c_proj.weight'), q('attn.c_proj.bias')));
      const h = gelu(linear(ln(x, q('ln_2.weight'), q('ln_2.bias')), q('mlp.c_fc.weight'), q('mlp.c_fc.bias')));
      x = tf.add(x, linear(h, q('mlp.c_proj.weight'), q('mlp.c_proj.bias')));
    }
    const logits = tf.matMul(ln(x, p['transformer.ln_f.weight'], p['transformer.ln_f.bias']), p['transformer.wte.weight'], false, true);
    return tf.losses.softmaxCrossEntropy(onehot, logits);
  };
  return { loss, dispose: () => tf.dispose([...Object.values(p), idx, onehot, mask, pos]) };
}
