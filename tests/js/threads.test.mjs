// The threaded module through the public API: init({ threads: 2 }) loads dist/mt/simdgrad-mt.*,
// and matmul, convolution (forward and gradients), a training step, elementwise ops and
// reductions give the results of one thread (elementwise bit for bit, the rest within float
// tolerance) and of the default single-threaded module (run in a child process). Node must
// exit by itself after a script that used threads (child processes, ESM and CommonJS), bad
// thread counts and non-isolated pages are Errors, and shutdown() ends the workers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { init } from '../../npm/dist/index.mjs';
import { mod as loadedModule } from '../../npm/dist/esm/npm/src/runtime/module.js';
import { data } from './lcg_data.mjs';

const DIST = fileURLToPath(new URL('../../npm/dist/', import.meta.url));
const sg = await init({ threads: 2 });
const mod = loadedModule(); // the Embind module, for its diagnostic parallelJobs()

/** Runs an ES-module script in a fresh node; returns { status, stdout, stderr, ms }. */
function runNode(source, { type = 'module', timeout = 60000 } = {}) {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [`--input-type=${type}`, '-e', source], { encoding: 'utf8', timeout, cwd: DIST });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - t0, error: r.error };
}

function maxRelDiff(a, b) {
  assert.equal(a.length, b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]) / (1 + Math.abs(b[i]));
    if (!(d <= worst)) worst = Number.isNaN(d) ? Infinity : d;
  }
  return worst;
}

async function withThreads(n, f) {
  await init({ threads: n });
  assert.equal(sg.getNumThreads(), n);
  return sg.tidy(f);
}

test('init({ threads: 2 }) loads the threaded module', () => {
  assert.equal(sg.features().threads, true);
  assert.equal(sg.getNumThreads(), 2);
  assert.equal(sg.features().simd, true);
});

test('large ops really run on the pool, small ones do not', async () => {
  const m = sg.tensor(data(300 * 300, 20), { shape: [300, 300] });
  const small = sg.tensor(data(1000, 21), { shape: [1000] });
  const big = sg.tensor(data(1 << 17, 22), { shape: [1 << 17] });
  const jobs = () => mod.parallelJobs();
  let j = jobs();
  sg.tidy(() => small.exp().add(small).sum());
  assert.equal(jobs(), j, 'ops on 1000 elements stay on one thread');
  for (const [name, f] of [
    ['matmul 300', () => m.matmul(m)],
    ['exp 128K', () => big.exp()],
    ['add 128K', () => big.add(big)],
    ['sum 128K', () => big.sum()],
    ['conv2d batch 4', () => sg.F.conv2d(sg.ones([4, 8, 64, 64]), sg.ones([16, 8, 3, 3]))],
    ['batched matmul 16 × 64³', () => sg.ones([16, 64, 64]).matmul(sg.ones([16, 64, 64]))],
  ]) {
    j = jobs();
    sg.tidy(f);
    assert.ok(jobs() > j, `${name} did not use the thread pool`);
  }
  sg.dispose([m, small, big]);
});

test('matmul (bit-identical), conv2d with gradients and an MLP training step: 2 threads equal 1 thread', async () => {
  const matmul = () => {
    const a = sg.tensor(data(300 * 200, 1), { shape: [300, 200] });
    const b = sg.tensor(data(200 * 251, 2), { shape: [200, 251] });
    const c = sg.tensor(data(5 * 700, 3), { shape: [5, 700] }); // few rows: column blocks
    const d = sg.tensor(data(700 * 801, 4), { shape: [700, 801] });
    const q = sg.tensor(data(16 * 64 * 48, 13), { shape: [16, 64, 48] });
    const k = sg.tensor(data(16 * 64 * 48, 14), { shape: [16, 64, 48] });
    return [a.matmul(b).dataSync(), c.matmul(d).dataSync(), a.T.matmul(a).dataSync(), q.matmul(k.transpose(1, 2)).dataSync()];
  };
  const conv = () => {
    const x = sg.tensor(data(8 * 3 * 33 * 31, 5), { shape: [8, 3, 33, 31], requiresGrad: true });
    const w = sg.tensor(data(16 * 3 * 9, 6), { shape: [16, 3, 3, 3], requiresGrad: true });
    const bias = sg.tensor(data(16, 7), { shape: [16], requiresGrad: true });
    const y = sg.F.conv2d(x, w, bias, { padding: 1 });
    y.square().sum().backward();
    return [y.dataSync(), x.grad.dataSync(), w.grad.dataSync(), bias.grad.dataSync()];
  };
  const train = () => {
    sg.manualSeed(3);
    const model = new sg.nn.Sequential(new sg.nn.Linear(256, 512), new sg.nn.ReLU(), new sg.nn.Linear(512, 10));
    const opt = new sg.optim.SGD(model.parameters(), { lr: 0.1, momentum: 0.9 });
    const x = sg.tensor(data(256 * 256, 8), { shape: [256, 256] });
    const target = sg.tensor(Int32Array.from({ length: 256 }, (_, i) => (i * 7) % 10), { shape: [256] });
    const losses = [];
    for (let step = 0; step < 3; step++) {
      opt.zeroGrad();
      const loss = sg.F.crossEntropy(model.forward(x), target);
      loss.backward();
      opt.step();
      losses.push(loss.item());
    }
    const params = model.parameters().map((p) => p.dataSync());
    model.dispose();
    opt.dispose();
    return [Float32Array.from(losses), ...params];
  };
  // Matrix products sum every entry in the same order on any thread count: bit-identical.
  for (const [name, f, tol] of [['matmul', matmul, 0], ['conv2d', conv, 2e-5], ['training', train, 2e-5]]) {
    const two = await withThreads(2, f);
    const one = await withThreads(1, f);
    one.forEach((ref, i) => {
      const d = maxRelDiff(two[i], ref);
      assert.ok(d <= tol, `${name} result ${i}: 2 threads differ from 1 by ${d} (tolerance ${tol})`);
    });
  }
  await init({ threads: 2 });
});

test('large elementwise ops are bit-identical on 1 and 2 threads; reductions close', async () => {
  const f = () => {
    const x = sg.tensor(data(200003, 9), { shape: [200003] });
    const y = sg.tensor(data(200003, 10), { shape: [200003] });
    return [
      x.mul(4).exp().dataSync(),
      x.add(y).tanh().dataSync(),
      sg.tensor(data(1009 * 199, 12), { shape: [1009, 199] }).mul(9).softmax(1).dataSync(),
      x.sum().dataSync(),
      x.max().dataSync(),
    ];
  };
  const two = await withThreads(2, f);
  const one = await withThreads(1, f);
  for (let i = 0; i < 3; i++) {
    const a = new Uint32Array(two[i].buffer), b = new Uint32Array(one[i].buffer);
    let diff = 0;
    for (let j = 0; j < a.length; j++) diff += a[j] !== b[j];
    assert.equal(diff, 0, `elementwise result ${i}: ${diff} elements differ between 1 and 2 threads`);
  }
  assert.ok(Math.abs(two[3][0] - one[3][0]) <= 1e-3, `sum ${two[3][0]} vs ${one[3][0]}`);
  assert.equal(two[4][0], one[4][0]);
  await init({ threads: 2 });
});

test('bad thread counts are Errors naming what was expected', async () => {
  for (const bad of [0, -1, 1.5, NaN, Infinity, 17, 1000, '2', null]) {
    await assert.rejects(init({ threads: bad }), (e) => {
      assert.ok(e instanceof Error);
      assert.match(e.message, /threads/);
      assert.match(e.message, /init: option 'threads' must be an integer from 1 to 16, got /);
      return true;
    }, `threads: ${String(bad)}`);
  }
  assert.equal(sg.getNumThreads(), 2, 'a rejected init leaves the pool as it was');
});

test('Node exits by itself after a script that used 2 threads, and matches the default module', () => {
  const script = (opts) => `
    import { init } from './index.mjs';
    const sg = await init(${opts});
    const n = 160;
    const a = sg.tensor(Float32Array.from({ length: n * n }, (_, i) => Math.sin(i)), { shape: [n, n] });
    const c = a.matmul(a).add(1).relu().sum(1);
    console.log(JSON.stringify({ threads: sg.features().threads, n: sg.getNumThreads(), c: Array.from(c.dataSync()) }));
  `;
  const threaded = runNode(script('{ threads: 2 }'));
  assert.equal(threaded.error, undefined, `the threaded script did not exit by itself within 60 s (${threaded.error})`);
  assert.equal(threaded.status, 0, threaded.stderr);
  const single = runNode(script(''));
  assert.equal(single.status, 0, single.stderr);
  const t = JSON.parse(threaded.stdout), s = JSON.parse(single.stdout);
  assert.deepEqual([t.threads, t.n, s.threads, s.n], [true, 2, false, 1]);
  const d = maxRelDiff(t.c, s.c);
  assert.ok(d <= 1e-5, `threaded vs default module: ${d}`);
});

test('CommonJS: require(...).init({ threads: 2 }) works and Node exits', () => {
  const r = runNode(`
    const { init } = require('./index.cjs');
    init({ threads: 3 }).then((sg) => {
      const x = sg.ones([300, 300]);
      console.log(sg.features().threads, sg.getNumThreads(), x.matmul(x).sum().item());
    });
  `, { type: 'commonjs' });
  assert.equal(r.error, undefined, `did not exit by itself (${r.error})`);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), `true 3 ${300 * 300 * 300}`);
});

test('the first init() picks the module: threads after a single-threaded init are an Error', () => {
  const r = runNode(`
    import { init } from './index.mjs';
    const sg = await init();
    try { await init({ threads: 2 }); console.log('no error'); }
    catch (e) { console.log(e.message); }
    console.log(sg.features().threads, sg.getNumThreads());
  `);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /init: threads: 2 is not available: simdgrad was already initialized single-threaded/);
  assert.match(r.stdout, /false 1/);
});

test('a page that is not cross-origin isolated gets an Error naming COOP/COEP', () => {
  const r = runNode(`
    globalThis.crossOriginIsolated = false;
    import('./index.mjs').then(async ({ init }) => {
      try { await init({ threads: 2 }); console.log('no error'); }
      catch (e) { console.log(e.message); }
    });
  `);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /cross-origin isolated/);
  assert.match(r.stdout, /Cross-Origin-Opener-Policy: same-origin/);
  assert.match(r.stdout, /Cross-Origin-Embedder-Policy: require-corp/);
});

test('without SharedArrayBuffer, init({ threads: 2 }) is an Error saying so', () => {
  const r = runNode(`
    delete globalThis.SharedArrayBuffer;
    import('./index.mjs').then(async ({ init }) => {
      try { await init({ threads: 2 }); console.log('no error'); }
      catch (e) { console.log(e.message); }
    });
  `);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /init: threads: 2 is not available: SharedArrayBuffer is missing/);
});

test('shutdown() ends the workers; ops go on on one thread; init({ threads }) starts them again', async () => {
  const x = sg.tensor(data(400 * 400, 11), { shape: [400, 400] });
  const before = x.matmul(x).dataSync();
  sg.shutdown();
  assert.equal(sg.getNumThreads(), 1);
  assert.ok(maxRelDiff(x.matmul(x).dataSync(), before) <= 2e-6);
  await init({ threads: 2 });
  assert.equal(sg.getNumThreads(), 2);
  assert.ok(maxRelDiff(x.matmul(x).dataSync(), before) <= 2e-6);
  x.dispose();
});
