// The WGSL kernels of ops_families: the rounding, trigonometric and hyperbolic ops (floor … cosh,
// atan2), the scans (cumsum, cumprod and its gradient), sorting (sort, argsort, topk) and
// scatter/scatterAdd, against
// the CPU's (evaluated in double, rounded once): a dense sweep within 1e-6 relative, and the
// special values (±0, ±∞, NaN, halves for round, |x| > 1 for asin/acos, atan2 of zeros and
// infinities) exactly as the CPU gives them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';

const same = (a, b, tol) => Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)) || Math.abs(a - b) <= tol * Math.abs(a);

test('rounding, trigonometric and hyperbolic ops on webgpu equal the CPU (sweep and special values)', { skip: gpu ? false : why }, async () => {
  const sg = await init({ backend: 'webgpu', gpu });
  const n = 4001;
  const wide = Float32Array.from({ length: n }, (_, i) => -10 + (20 * i) / (n - 1));
  const unit = Float32Array.from({ length: n }, (_, i) => -1 + (2 * i) / (n - 1));
  const specials = [NaN, Infinity, -Infinity, 0, -0, 0.5, 1.5, 2.5, -2.5, -0.5, 1, -1, 2, 100, 1e-7, -3e-6];
  for (const op of ['floor', 'ceil', 'round', 'trunc', 'tan', 'atan', 'asin', 'acos', 'sinh', 'cosh']) {
    const sweep = op === 'asin' || op === 'acos' ? unit : wide;
    for (const values of [Array.from(sweep), specials]) {
      const g = sg.tensor(values);
      assert.equal(g.device, 'webgpu');
      const got = await g[op]().data();
      const want = sg.tensor(values, { device: 'cpu' })[op]().dataSync();
      values.forEach((v, i) => assert.ok(same(want[i], got[i], 1e-6), `${op}(${v}): cpu ${want[i]}, webgpu ${got[i]}`));
    }
  }
  const ys = [0, -0, 0, -0, 1, -1, Infinity, -Infinity, Infinity, NaN, 1, -1, 3, -2];
  const xs = [0, 0, -0, -0, Infinity, Infinity, Infinity, -Infinity, 2, 1, -Infinity, 0, -4, 0.5];
  const got = await sg.atan2(sg.tensor(ys), sg.tensor(xs)).data();
  const want = sg.atan2(sg.tensor(ys, { device: 'cpu' }), sg.tensor(xs, { device: 'cpu' })).dataSync();
  ys.forEach((y, i) => assert.ok(same(want[i], got[i], 1e-6), `atan2(${y}, ${xs[i]}): cpu ${want[i]}, webgpu ${got[i]}`));
  assert.ok(sg.webgpuCoverage().withKernel.includes('atan2'));
  process.exitCode = 0;
});

test('cumsum and cumprod on webgpu equal the CPU (double-accumulated), gradients and int32 wrapping included', { skip: gpu ? false : why }, async () => {
  const sg = await init({ backend: 'webgpu', gpu });
  const both = (values, shape, dtype = 'float32') => [sg.tensor(values, { shape, dtype }), sg.tensor(values, { shape, dtype, device: 'cpu' })];
  // A long sum: f32 accumulation would drift by ~1e-4 relative; the double-float one does not.
  const n = 20000;
  const long = Array.from({ length: n }, (_, i) => Math.sin(i * 0.37) + 0.01);
  const [g, c] = both(long, [n]);
  const got = await g.cumsum(0).data(), want = c.cumsum(0).dataSync();
  want.forEach((w, i) => assert.ok(Math.abs(got[i] - w) <= 2e-7 * Math.abs(w) + 1e-6, `cumsum[${i}]: cpu ${w}, webgpu ${got[i]}`));
  // cumprod along dim 1 of [3, 5, 4] with zeros, and both gradients (cumprod's exact where x has zeros).
  const vals = Array.from({ length: 60 }, (_, i) => (i % 7 === 3 ? 0 : 0.5 + ((i * 13) % 11) / 10));
  const [pg, pc] = both(vals, [3, 5, 4]);
  pg.requiresGrad = true;
  pc.requiresGrad = true;
  const w = sg.tensor(Array.from({ length: 60 }, (_, i) => ((i * 7) % 5) - 2), { shape: [3, 5, 4], device: 'cpu' });
  const lossOf = (t) => t.cumprod(1).mul(t.device === 'cpu' ? w : w.to('webgpu')).sum().add(t.cumsum(2).square().sum());
  lossOf(pg).backward();
  lossOf(pc).backward();
  const [vg, vc] = [await pg.cumprod(1).data(), pc.cumprod(1).dataSync()];
  vc.forEach((x, i) => assert.ok(Math.abs(vg[i] - x) <= 1e-6 * (1 + Math.abs(x)), `cumprod[${i}]`));
  const [gg, gc] = [await pg.grad.data(), pc.grad.dataSync()];
  gc.forEach((x, i) => assert.ok(Math.abs(gg[i] - x) <= 1e-5 * (1 + Math.abs(x)), `grad[${i}]: cpu ${x}, webgpu ${gg[i]}`));
  // int32 wraps as two's complement, as on the CPU.
  const [ig, ic] = both([2147483647, 1, 5, -7], [4], 'int32');
  assert.deepEqual(Array.from(await ig.cumsum(0).data()), Array.from(ic.cumsum(0).dataSync()));
  assert.deepEqual(Array.from(await ig.cumprod(0).data()), Array.from(ic.cumprod(0).dataSync()));
  assert.ok(sg.webgpuCoverage().withKernel.includes('cumprod'));
  process.exitCode = 0;
});

test('sort, argsort and topk on webgpu give the CPU positions exactly: ties stable, NaN last, any dim, int32 and bool', { skip: gpu ? false : why }, async () => {
  const sg = await init({ backend: 'webgpu', gpu });
  const vals = [3, NaN, -1, 3, 0, -0, 2, NaN, 3, -5, 7, 0, 1, 1, -2, 9, 4, 3, -1, 2, NaN, 6, 0, 8];
  const both = (v, shape, dtype = 'float32') => [sg.tensor(v, { shape, dtype }), sg.tensor(v, { shape, dtype, device: 'cpu' })];
  const eq = async (g, c, what) => assert.deepEqual(Array.from(await g.data()), Array.from(c.dataSync()), what);
  for (const [dtype, v] of [['float32', vals], ['int32', vals.map((x, i) => (Number.isNaN(x) ? i % 3 : Math.trunc(x)))], ['bool', vals.map((x) => x > 1)]]) {
    const [g, c] = both(v, [2, 4, 3], dtype);
    for (const dim of [0, 1, 2]) {
      for (const descending of [false, true]) {
        const [sg_, sc] = [g.sort(dim, { descending }), c.sort(dim, { descending })];
        await eq(sg_.indices, sc.indices, `${dtype} sort dim ${dim} ${descending ? 'desc' : 'asc'} indices`);
        await eq(sg_.values, sc.values, `${dtype} sort dim ${dim} values`);
        await eq(g.argsort(dim, { descending }), c.argsort(dim, { descending }), `${dtype} argsort dim ${dim}`);
      }
      if (dtype !== 'bool') {
        const [tg, tc] = [g.topk(2, dim), c.topk(2, dim)];
        await eq(tg.indices, tc.indices, `${dtype} topk dim ${dim}`);
        await eq(tg.values, tc.values, `${dtype} topk values dim ${dim}`);
      }
    }
  }
  assert.ok(sg.webgpuCoverage().withKernel.includes('topk'));

  // Rows longer than the rank kernel takes (RANK_MAX = 256) go through the bitonic network:
  // lengths around and between powers of two, many ties and NaNs, along the last dim and a
  // middle one, every dtype.
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (const r of [257, 300, 1024, 1500]) {
    const n = 3 * r * 2;
    const fv = Array.from({ length: n }, (_, i) => (i % 37 === 5 ? NaN : Math.floor(next() * 40) - 20 + (i % 3 ? 0 : 0.5)));
    for (const [dtype, v] of [['float32', fv], ['int32', fv.map((x, i) => (Number.isNaN(x) ? i % 5 : Math.trunc(x)))], ['bool', fv.map((x) => x > 0)]]) {
      const [g, c] = both(v, [3, r, 2], dtype);
      for (const descending of [false, true]) {
        await eq(g.argsort(1, { descending }), c.argsort(1, { descending }), `${dtype} argsort r=${r} ${descending ? 'desc' : 'asc'}`);
      }
      const [gt, ct] = [g.transpose(1, 2).contiguous(), c.transpose(1, 2).contiguous()];
      const [sg2, sc2] = [gt.sort(-1, { descending: true }), ct.sort(-1, { descending: true })];
      await eq(sg2.indices, sc2.indices, `${dtype} sort last dim r=${r}`);
      await eq(sg2.values, sc2.values, `${dtype} sort values r=${r}`);
      if (dtype !== 'bool') {
        const [tg, tc] = [gt.topk(5, -1), ct.topk(5, -1)];
        await eq(tg.indices, tc.indices, `${dtype} topk r=${r}`);
      }
    }
  }
  process.exitCode = 0;
});

test('scatter and scatterAdd on webgpu equal the CPU: repeated indices (last wins, sums), int32 wrapping, bool, gradients', { skip: gpu ? false : why }, async () => {
  const sg = await init({ backend: 'webgpu', gpu });
  const on = (device) => (v, shape, dtype = 'float32') => sg.tensor(v, { shape, dtype, device });
  const [gpuT, cpuT] = [on('webgpu'), on('cpu')];
  const idx = [[0, 2, 0, 1], [2, 2, 1, 0], [1, 0, 1, 1]];  // repeats along dim 1 and along dim 0
  const srcV = Array.from({ length: 12 }, (_, i) => (i * 7) % 11 - 5);
  const xV = Array.from({ length: 20 }, (_, i) => i / 3);
  for (const [dtype, xs, ss] of [
    ['float32', xV, srcV],
    ['int32', xV.map((v, i) => (i === 4 ? -2147483648 : Math.round(v))), srcV],  // (1, 0) of [5, 4] gets −4: wraps
    ['bool', xV.map((v) => v > 2), srcV.map((v) => v > 0)],
  ]) {
    for (const dim of [0, 1]) {
      const shape = dim === 1 ? [3, 5] : [5, 4];
      const xs_ = xs.slice(0, shape[0] * shape[1]);
      const ix = dim === 1 ? idx : [[0, 4, 0, 1], [4, 4, 1, 0], [1, 0, 1, 1]];
      const run = (make, op) => {
        const x = make(xs_, shape, dtype), s = make(ss, [3, 4], dtype);
        return x[op](dim, sg.tensor(ix.flat(), { shape: [3, 4], dtype: 'int32', device: x.device }), s);
      };
      for (const op of dtype === 'bool' ? ['scatter'] : ['scatter', 'scatterAdd']) {
        const got = await run(gpuT, op).data(), want = run(cpuT, op).dataSync();
        assert.deepEqual(Array.from(got), Array.from(want), `${dtype} ${op} dim ${dim}`);
      }
    }
  }
  // Gradients of both (to x and src) equal the CPU's.
  const grads = async (make) => {
    const x = make(xV.slice(0, 15), [3, 5]), s = make(srcV, [3, 4]);
    x.requiresGrad = true;
    s.requiresGrad = true;
    const ix = sg.tensor(idx.flat(), { shape: [3, 4], dtype: 'int32', device: x.device });
    const w = make(Array.from({ length: 15 }, (_, i) => i - 7), [3, 5]);
    x.scatter(1, ix, s).mul(w).sum().add(x.scatterAdd(1, ix, s).square().sum()).backward();
    return [Array.from(await x.grad.data()), Array.from(await s.grad.data())];
  };
  assert.deepEqual(await grads(gpuT), await grads(cpuT));
  assert.ok(sg.webgpuCoverage().withKernel.includes('scatterAdd'));
  process.exitCode = 0;
});

test('fmod, remainder, floorDivide and div roundingMode on webgpu give the CPU values exactly; a zero int32 divisor is an Error at the next sync', { skip: gpu ? false : why }, async () => {
  const sg = await init({ backend: 'webgpu', gpu });
  const both = (v, shape, dtype = 'float32') => [sg.tensor(v, { shape, dtype }), sg.tensor(v, { shape, dtype, device: 'cpu' })];
  // Values exactly, signed zeros told apart; any NaN equals any NaN (the CPU's is x86's negative one).
  const bits = (arr) => Array.from(arr, (v) => (Number.isNaN(v) ? 'NaN' : Object.is(v, -0) ? '-0' : v));
  // Every pair of special values (a down the rows, b across), and random ones with b broadcast.
  const sa = [0, -0, 5.5, -5.5, 1e30, -1e-30, Infinity, -Infinity, NaN, 7, -3e38, 0.3];
  const sb = [0, -0, 3, -3, 1e-30, 0.1, Infinity, -Infinity, NaN, 7, 2.5, -0.7];
  let seed = 3;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const ra = Array.from({ length: 40 * 9 }, () => (next() - 0.5) * 200), rb = Array.from({ length: 9 }, () => (next() - 0.5) * 6);
  const ops = {
    fmod: (a, b) => sg.fmod(a, b),
    remainder: (a, b) => sg.remainder(a, b),
    floorDivide: (a, b) => sg.floorDivide(a, b),
    'div floor': (a, b) => sg.div(a, b, { roundingMode: 'floor' }),
    'div trunc': (a, b) => sg.div(a, b, { roundingMode: 'trunc' }),
  };
  for (const [name, f] of Object.entries(ops)) {
    for (const [what, [ag, ac], [bg, bc]] of [
      ['special', both(sa, [12, 1]), both(sb, [12])],
      ['random', both(ra, [40, 9]), both(rb, [9])],
    ]) {
      const [g, c] = [await f(ag, bg).data(), f(ac, bc).dataSync()];
      assert.deepEqual(bits(g), bits(c), `${name} ${what}`);
    }
    const ints = [7, -7, 0, 2147483647, -2147483648, 13, -13, 100];
    const [ig, ic] = both(ints, [8, 1], 'int32');
    const [jg, jc] = both([3, -3, 1, -1, 7, 2147483647, -2], [7], 'int32');
    assert.deepEqual(Array.from(await f(ig, jg).data()), Array.from(f(ic, jc).dataSync()), `${name} int32`);
  }
  assert.ok(sg.webgpuCoverage().withKernel.includes('fmod'));
  // Gradients on the GPU equal the CPU's.
  const [xg, xc] = both([0.3, 1.1, 2.7, -1.9, 7.3], [5]);
  const [yg, yc] = both([3.2, -3.9, 3.5, 2.9, -2.5], [5]);
  for (const t of [xg, xc, yg, yc]) t.requiresGrad = true;
  sg.remainder(xg, yg).sum().backward();
  sg.remainder(xc, yc).sum().backward();
  assert.deepEqual(Array.from(await yg.grad.data()), Array.from(yc.grad.dataSync()));
  // A zero int32 divisor: the GPU finds it, and the next sync throws the CPU's message.
  const [zg] = both([4, 0, 2], [3], 'int32');
  const [ng] = both([9, 9, 9], [3], 'int32');
  const q = sg.fmod(ng, zg);
  await assert.rejects(q.data(), /fmod: expected nonzero divisors for integer tensors, got 0 \(PyTorch raises ZeroDivisionError\)/);
  assert.deepEqual(Array.from(await sg.add(ng, 1).data()), [10, 10, 10]);  // still usable
  process.exitCode = 0;
});
