// The package surface: init() options, version, features(), the CommonJS entry, and that
// every op exists both as a function and as a method.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { init } from '../../npm/dist/index.mjs';
import { sg } from './helpers.mjs';
import { RELAXED_MADD_MODULE } from './relaxed_simd_probe.mjs';

const pkg = JSON.parse(readFileSync(new URL('../../npm/package.json', import.meta.url), 'utf8'));

test('version equals package.json', () => {
  assert.equal(sg.version, pkg.version);
});

test('features()', () => {
  const f = sg.features();
  assert.deepEqual(Object.keys(f).sort(), ['f16', 'relaxedSimd', 'simd', 'threads', 'webgpu']);
  // Node 20 without --experimental-wasm-relaxed-simd refuses relaxed SIMD: the SIMD128 GEMM runs.
  assert.equal(f.relaxedSimd, WebAssembly.validate(RELAXED_MADD_MODULE));
  assert.equal(typeof f.simd, 'boolean');
  assert.equal(f.threads, false);
  assert.equal(f.webgpu, false, 'no WebGPU backend in this version, so init({ backend: \'webgpu\' }) rejects');
  assert.equal(f.f16, false);
});

test('init options', async () => {
  assert.equal(await init(), sg, 'init() returns the same object again');
  await assert.rejects(init({ backend: 'webgpu' }), (e) => e instanceof Error && /backend 'webgpu' is not available/.test(e.message));
  await assert.rejects(init({ backend: 'tpu' }), /init: option 'backend' must be one of/);
  await assert.rejects(init({ threads: 4 }), /init: threads: 4 is not available/);
  await assert.rejects(init({ threads: 0 }), /init: option 'threads'/);
  await assert.rejects(init({ thread: 1 }), /init: unknown option 'thread'/);
  assert.equal(await init({ threads: 1 }), sg);

  const warnings = [];
  const original = console.warn;
  console.warn = (...args) => warnings.push(args.join(' '));
  try {
    const s = await init({ backend: 'auto' });
    assert.equal(s.getBackend(), 'wasm');
  } finally {
    console.warn = original;
  }
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /wasm/);

  await init({ backend: 'reference' });
  assert.equal(sg.getBackend(), 'reference');
  await init({ backend: 'wasm' });
  assert.equal(sg.getBackend(), 'wasm');
});

test('the CommonJS entry gives the same API', async () => {
  const require = createRequire(import.meta.url);
  const cjs = require('../../npm/dist/index.cjs');
  assert.equal(typeof cjs.init, 'function');
  const s = await cjs.init();
  const t = s.tensor([[1, 2], [3, 4]]);
  assert.deepEqual(t.matmul(t).toArray(), [[7, 10], [15, 22]]);
  assert.equal(s.version, pkg.version);
  t.dispose();
});

test('every op is a function and a method', () => {
  const names = ['add', 'sub', 'mul', 'div', 'pow', 'neg', 'maximum', 'minimum', 'clamp',
    'exp', 'log', 'log2', 'log10', 'log1p', 'expm1', 'sqrt', 'rsqrt', 'abs', 'sign', 'sin', 'cos', 'erf', 'square', 'reciprocal',
    'relu', 'leakyRelu', 'prelu', 'elu', 'selu', 'gelu', 'sigmoid', 'tanh', 'softplus', 'silu', 'softmax', 'logSoftmax',
    'matmul', 'transpose', 'permute',
    'sum', 'mean', 'max', 'min', 'prod', 'var', 'std', 'logsumexp', 'argmax', 'argmin', 'norm',
    'reshape', 'view', 'flatten', 'squeeze', 'unsqueeze', 'expand', 'split', 'chunk', 'narrow', 'slice',
    'indexSelect', 'gather', 'contiguous', 'clone', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'maskedFill'];
  const t = sg.zeros(1);
  for (const n of names) {
    assert.equal(typeof sg[n], 'function', `sg.${n}`);
    assert.equal(typeof t[n], 'function', `Tensor.${n}`);
  }
  for (const n of ['cat', 'stack', 'where', 'pad', 'tidy', 'keep', 'dispose', 'memory', 'noGrad', 'grad', 'valueAndGrad',
    'tensor', 'zeros', 'ones', 'full', 'arange', 'linspace', 'eye', 'rand', 'randn', 'randint', 'zerosLike', 'onesLike',
    'setBackend', 'getBackend', 'manualSeed', 'features']) {
    assert.equal(typeof sg[n], 'function', `sg.${n}`);
  }
  for (const n of ['backward', 'detach', 'retainGrad', 'registerHook', 'zeroGrad', 'toArray', 'dataSync', 'data', 'item', 'dispose', 'to', 'float']) {
    assert.equal(typeof t[n], 'function', `Tensor.${n}`);
  }
  assert.ok(t instanceof sg.Tensor);
  t.dispose();
});
