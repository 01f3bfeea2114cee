// TensorFlow.js's WebGPU backend for tests/bench/webgpu.mjs: the same matmuls, MLP step and CNN
// step as simdgrad's rows, on the GPU object simdgrad uses (tfjs looks for navigator.gpu, which
// Node 20 does not have: it is set to that object first).
import { createRequire, register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH_DIR } from './libs.mjs';

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
  return rows;
}
