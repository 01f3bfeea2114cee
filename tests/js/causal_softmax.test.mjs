// The causal softmax without a materialised [L, S] mask (issues 23/29): the op causalSoftmax
// (src/ops/softmax.cpp; row kernels softmax_causal_rows_f32/_f64) and what uses it,
// F.scaledDotProductAttention's isCausal and the GPT models' attention. Expected values and
// gradients from PyTorch 1.13's composed form with the mask built (tests/data/gen_causal_softmax.py),
// on every backend; central differences; a bad input is an Error naming what was expected; and
// the memory it saves: SDPA with isCausal never holds an [L, S] mask or a masked copy of the scores.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { forEachBackend } from './backends.mjs';
import { closeTo, fromRef, gradcheck, gradInput, readRef } from './gradcheck_helpers.mjs';
import { settleFinalizers } from './gc_settle.mjs';
import { causalMask, causalSoftmax } from '../../npm/dist/esm/npm/src/nn/functional_layers.js';
import { run } from '../../npm/dist/esm/npm/src/tensor/call.js';

const REF = readRef('causal_softmax_ref.json');
const F = sg.F;

/**
 * Runs fn on the case's inputs (requiring grad), backward of Σ out ⊙ w; checks out and every
 * gradient. Results are copied to the cpu and read after sg.sync(), so that the [webgpu] run
 * reads them too (a GPU tensor's data can only be read asynchronously).
 */
async function checkCase(c, fn, tol) {
  const got = sg.tidy(() => {
    const xs = c.inputs.map((e) => fromRef(e, { requiresGrad: true }));
    const out = fn(...xs);
    out.mul(fromRef(c.w)).sum().backward();
    return [out, ...xs.map((x) => x.grad)].map((t) => t.detach().clone().to('cpu'));
  });
  await sg.sync();
  try {
    closeTo(got[0], c.out, tol, `${c.name}: values`);
    got.slice(1).forEach((g, k) => closeTo(g, c.grads[k], tol, `${c.name}: gradient of input ${k}`));
  } finally {
    for (const t of got) t.dispose();
  }
}

forEachBackend('causalSoftmax equals PyTorch softmax(x + triu(-inf, 1)): values and gradients', { skip: false }, async () => {
  for (const c of REF.op) await checkCase(c, (x) => causalSoftmax(x), 1e-5);
});

forEachBackend('F.scaledDotProductAttention isCausal equals PyTorch causal attention: values and q, k, v gradients', async () => {
  for (const c of REF.sdpa) {
    await checkCase(c, (q, k, v) => F.scaledDotProductAttention(q, k, v, null, { isCausal: true }), 1e-5);
    await checkCase(c, (q, k, v) => F.scaledDotProductAttention(q, k, v, { isCausal: true }), 1e-5); // the older form
  }
});

test('causalSoftmax gradients equal central differences (square, L < S, L > S)', () => {
  for (const [name, shape] of [['square', [2, 5, 5]], ['L < S', [3, 7]], ['L > S', [6, 2]]]) {
    gradcheck(`causalSoftmax ${name}`, (x) => causalSoftmax(x), [gradInput(shape, 7, -2, 2)]);
  }
});

test('causalSoftmax of 16-bit scores keeps their dtype: the softmax computed in float32, rounded once (PyTorch\'s softmax of a bfloat16/float16 tensor)', () => {
  sg.tidy(() => {
    const x = sg.tensor(gradInput([4, 4], 3, -2, 2).data, { shape: [4, 4] });
    for (const dtype of ['bfloat16', 'float16']) {
      const xd = x.to(dtype);
      // The oracle: the 16-bit scores' own values, masked and soft-maxed in plain JS in double, then rounded to
      // the dtype by a cast (the cast's rounding is checked against PyTorch in dtypes.test).
      const v = Array.from(xd.to('float32').dataSync());
      const want = [];
      for (let i = 0; i < 4; i++) {
        const row = v.slice(4 * i, 4 * i + 4);
        const m = Math.max(...row.slice(0, i + 1));
        const e = row.map((z, j) => (j <= i ? Math.exp(z - m) : 0));
        const sum = e.reduce((a, b) => a + b, 0);
        want.push(...e.map((z) => z / sum));
      }
      const got = causalSoftmax(xd);
      assert.equal(got.dtype, dtype, `${dtype}: result dtype`);
      const rounded = Array.from(sg.tensor(want, { shape: [4, 4] }).to(dtype).to('float32').dataSync());
      assert.deepEqual(Array.from(got.to('float32').dataSync()), rounded, dtype);
      // and its gradient reaches 16-bit scores
      const xg = x.to(dtype).detach().requiresGrad_();
      causalSoftmax(xg).mul(sg.arange(16).reshape([4, 4]).to(dtype)).sum().backward();
      assert.equal(xg.grad.dtype, dtype, `${dtype}: gradient dtype`);
    }
  });
});

// float64 scores go through the op (its row loops compute in double for float32 and float64
// alike): PyTorch 1.13's composed form in float64 (gen_causal_softmax.py's op64/sdpa64 cases,
// stored as doubles) to 1e-12, where a float32 round trip would be ~1e-7 off. No webgpu run:
// float64 tensors cannot live there.
const f64 = (e, requiresGrad = false) => sg.tensor(Float64Array.from(e.data), { shape: e.shape, requiresGrad });

function checkCase64(c, fn) {
  sg.tidy(() => {
    const xs = c.inputs.map((e) => f64(e, true));
    const out = fn(...xs);
    assert.equal(out.dtype, 'float64', `${c.name}: result dtype`);
    out.mul(f64(c.w)).sum().backward();
    closeTo(out, c.out, 1e-12, `${c.name}: values`);
    xs.forEach((x, k) => {
      assert.equal(x.grad.dtype, 'float64', `${c.name}: gradient ${k} dtype`);
      closeTo(x.grad, c.grads[k], 1e-12, `${c.name}: gradient of input ${k}`);
    });
  });
}

forEachBackend('float64: causalSoftmax and SDPA isCausal equal PyTorch float64 to 1e-12 (values, q/k/v gradients)', (backend) => {
  if (backend === 'webgpu') return;
  for (const c of REF.op64) checkCase64(c, (x) => causalSoftmax(x));
  for (const c of REF.sdpa64) checkCase64(c, (q, k, v) => F.scaledDotProductAttention(q, k, v, null, { isCausal: true }));
});

test('float64: causalSoftmax and SDPA isCausal gradients equal central differences (PyTorch\'s float64 eps 1e-6, atol 1e-5, rtol 1e-3)', () => {
  const o = { dtype: 'float64' };
  for (const [name, shape] of [['square', [2, 5, 5]], ['L < S', [3, 7]], ['L > S', [6, 2]]]) {
    gradcheck(`causalSoftmax float64 ${name}`, (x) => causalSoftmax(x), [gradInput(shape, 17, -2, 2)], o);
  }
  gradcheck('SDPA isCausal float64', (q, k, v) => F.scaledDotProductAttention(q, k, v, null, { isCausal: true }),
    [gradInput([1, 2, 4, 3], 41), gradInput([1, 2, 6, 3], 42), gradInput([1, 2, 6, 3], 43)], o);
});

test('float64: causalSoftmax is the op (never reads past the diagonal), not the composed form, and equals a plain JS softmax of each row\'s first i + 1 entries', () => {
  sg.tidy(() => {
    const [L, S] = [4, 6];
    // NaN and +inf past the diagonal: the composed form's x + (−inf) would give NaN rows; the op never reads them.
    const x = Float64Array.from(gradInput([L, S], 5, -3, 3).data);
    for (let i = 0; i < L; i++) for (let j = i + 1; j < S; j++) x[i * S + j] = (i + j) % 2 ? NaN : Infinity;
    const got = Array.from(causalSoftmax(sg.tensor(x, { shape: [L, S] })).dataSync());
    const want = [];
    for (let i = 0; i < L; i++) {
      const row = Array.from(x.subarray(i * S, i * S + i + 1));
      const m = Math.max(...row);
      const e = row.map((v) => Math.exp(v - m));
      const sum = e.reduce((a, b) => a + b, 0);
      want.push(...e.map((v) => v / sum), ...new Array(S - i - 1).fill(0));
    }
    closeTo({ shape: [L, S], dataSync: () => got }, { shape: [L, S], data: want }, 1e-14, 'float64 rows');  // libm's exp vs V8's: an ulp or so
  });
});

test('causalSoftmax: scores of fewer than 2 dims or an integer dtype are Errors naming what was expected; the module stays usable', () => {
  sg.tidy(() => {
    throwsWith(() => causalSoftmax(sg.tensor([1, 2, 3])), /causalSoftmax: expected scores of at least 2 dims \[\.\.\., L, S\], got 1 dims/);
    // The op itself (causalSoftmax() hands integer scores to the composed form, which promotes them).
    throwsWith(() => run('causalSoftmax', 'causalSoftmax', [['input', sg.tensor([[1, 2], [3, 4]], { dtype: 'int32' })]]), /causalSoftmax: expected a floating point \(float32 or float64\) tensor, got int32/);
    const y = causalSoftmax(sg.tensor([[1, 2], [3, 4]]));
    assert.deepEqual(Array.from(y.dataSync()), [1, 0, Math.exp(3) / (Math.exp(3) + Math.exp(4)), Math.exp(4) / (Math.exp(3) + Math.exp(4))].map(Math.fround));
  });
});

test('causalSoftmax of no rows or an empty key dim is empty', () => {
  sg.tidy(() => {
    assert.deepEqual(causalSoftmax(sg.zeros([2, 0, 3])).shape, [2, 0, 3]);
    assert.deepEqual(causalSoftmax(sg.zeros([3, 0])).shape, [3, 0]);
  });
});

test('SDPA with isCausal holds no [L, S] mask nor masked scores: its peak is ≥ 2 [L, S] float32 tensors below the composed form', async () => {
  const T = 256, D = 8;
  const LS = T * T * 4;
  const [q, k, v] = [1, 2, 3].map((s) => sg.tensor(gradInput([1, 1, T, D], s).data, { shape: [1, 1, T, D] }));
  const peakOf = async (fn) => {
    await settleFinalizers();
    const base = sg.memory().bytes;
    sg.resetPeakMemory();
    sg.noGrad(() => sg.tidy(() => { fn(); }));
    return sg.memory().peakBytes - base;
  };
  const fused = await peakOf(() => F.scaledDotProductAttention(q, k, v, null, { isCausal: true }));
  const composed = await peakOf(() => q.mul(1 / Math.sqrt(D)).matmul(k.transpose(-2, -1)).add(causalMask(T, T)).softmax(-1).matmul(v));
  // Composed: scores, mask, scores + mask and the weights live together (4 LS); isCausal: scores and weights (2 LS).
  assert.ok(composed >= 4 * LS, `composed peak ${composed} bytes ≥ 4 × ${LS}`);
  assert.ok(fused <= 2 * LS + 4 * T * D * 4, `isCausal peak ${fused} bytes ≤ 2 × ${LS} + q, k, v-sized temporaries`);
  assert.ok(composed - fused >= 2 * LS, `saved ${composed - fused} bytes`);
  sg.dispose([q, k, v]);
});

test('sg.memory() is flat over causal attention forward and backward steps', async () => {
  const [q, k, v] = [4, 5, 6].map((s) => sg.tensor(gradInput([2, 2, 9, 4], s).data, { shape: [2, 2, 9, 4], requiresGrad: true }));
  const step = () => sg.tidy(() => { F.scaledDotProductAttention(q, k, v, null, { isCausal: true }).sum().backward(); });
  step();
  sg.dispose([q.grad, k.grad, v.grad]);
  for (const x of [q, k, v]) x.grad = null;
  await settleFinalizers();
  const before = sg.memory();
  for (let i = 0; i < 20; i++) {
    step();
    sg.dispose([q.grad, k.grad, v.grad]);
    for (const x of [q, k, v]) x.grad = null;
  }
  await settleFinalizers();
  const after = sg.memory();
  assert.equal(after.tensors, before.tensors);
  assert.equal(after.bytes, before.bytes);
  sg.dispose([q, k, v]);
});

test('sg.func: jvp and vmap through causalSoftmax equal them through the composed softmax(x + mask)', () => {
  sg.tidy(() => {
    const x = sg.tensor(gradInput([3, 4, 5], 11, -2, 2).data, { shape: [3, 4, 5] });
    const t = sg.tensor(gradInput([3, 4, 5], 12).data, { shape: [3, 4, 5] });
    const composed = (s) => s.add(causalMask(4, 5)).softmax(-1);
    const [y1, ty1] = sg.func.jvp((s) => causalSoftmax(s), [x], [t]);
    const [y2, ty2] = sg.func.jvp(composed, [x], [t]);
    closeTo(y1, { shape: y2.shape, data: Array.from(y2.dataSync()) }, 1e-6, 'jvp primal');
    closeTo(ty1, { shape: ty2.shape, data: Array.from(ty2.dataSync()) }, 1e-6, 'jvp tangent');
    const v1 = sg.func.vmap((s) => causalSoftmax(s))(x);
    const v2 = sg.func.vmap(composed)(x);
    closeTo(v1, { shape: v2.shape, data: Array.from(v2.dataSync()) }, 1e-6, 'vmap');
  });
});

test('sg.compile traces causalSoftmax: a compiled causal attention gives the eager values, call after call', () => {
  sg.tidy(() => {
    const [q, k, v] = [31, 32, 33].map((s) => sg.tensor(gradInput([2, 2, 5, 3], s).data, { shape: [2, 2, 5, 3] }));
    const f = (a, b, c) => F.scaledDotProductAttention(a, b, c, null, { isCausal: true });
    const compiled = sg.compile(f);
    const want = Array.from(f(q, k, v).dataSync());
    for (let i = 0; i < 2; i++) assert.deepEqual(Array.from(compiled(q, k, v).dataSync()), want, `call ${i}`);
    compiled.clear();
  });
});
