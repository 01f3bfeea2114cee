// float16/bfloat16 values and gradients of the differentiable ops that npm/README's Backend support
// table lists in those dtypes on webgpu, on every backend in BACKENDS, against PyTorch 1.13
// (tests/data/gen_dtype_grads_16bit.py: float32 computation on the same values, each result rounded
// once to the dtype), within one unit in the last place of the dtype: a float32 kernel of ours that
// differs from PyTorch's in the last float32 bits may round the other way, no more.
// dtype_compute.test.mjs checks the CPU's 16-bit gradients op family by op family; this file is
// where a 16-bit gradient computed on the GPU is checked (backend_grad_completeness.test.mjs reads
// BACKENDS and the reference's cases to require one for each (op, dtype) the table lists on webgpu).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why, exitAfterTests } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { readFileSync } from 'node:fs';
import { withinOneUlp } from './ulps_16bit.mjs';

const sg = gpu ? await init({ backend: 'webgpu', gpu }) : await init();
await exitAfterTests();
const ref = JSON.parse(readFileSync(new URL('../data/dtype_grads_16bit_ref.json', import.meta.url), 'utf8'));

// The same functions as the generator's, by case name.
const F = sg.F;
const CALLS = {
  add: (a, b) => a.add(b), sub: (a, b) => a.sub(b), mul: (a, b) => a.mul(b), square: (a) => a.square(),
  'sum over a dim': (a) => a.sum(1), sum: (a) => a.sum(), cumsum: (a) => a.cumsum(1), softmax: (a) => a.softmax(-1),
  matmul: (a, b) => a.matmul(b), linear: (a, w, b) => F.linear(a, w, b), layerNorm: (a, w, b) => F.layerNorm(a, [5], w, b),
  gather: (a, i) => a.gather(1, i), indexSelect: (a, i) => a.indexSelect(0, i),
  maskedFill: (a) => a.maskedFill(a.gt(0.5), -0.3), where: (a, b) => sg.where(a.gt(0), a, b),
  sort: (a) => { const r = a.sort(1, { descending: true }); return [r.values, r.indices]; },
  cat: (a, b) => sg.cat([a, b], 0), stack: (a, b) => sg.stack([a, b], 1), flip: (a) => a.flip([1]),
  'pad reflect': (a) => F.pad(a, [2, 1], { mode: 'reflect' }), 'pad constant': (a) => F.pad(a, [1, 2], { value: 0.5 }),
};

/** The backends every case runs on (read by backend_grad_completeness.test.mjs). */
const BACKENDS = ['reference', 'wasm', 'webgpu'];

/** Asserts t (on any device) equals want: within one ulp for 16-bit floats, exactly otherwise. */
async function expectClose(what, t, want) {
  assert.deepEqual(t.shape, want.shape, `${what}: shape`);
  const got = Array.from(await t.data(), Number);
  if (want.dtype === 'int64') {
    assert.equal(t.dtype, 'int32', `${what}: dtype (positions are int32 here, int64 in PyTorch)`);
    assert.deepEqual(got, want.values, what);
    return;
  }
  assert.equal(t.dtype, want.dtype, `${what}: dtype`);
  withinOneUlp(what, got, want);
}

const tensorOf = (s) => sg.tensor(s.values, { dtype: s.dtype, shape: s.shape });

for (const backend of BACKENDS) {
  const skip = backend === 'webgpu' && !gpu ? why : false;
  const device = backend === 'webgpu' ? 'webgpu' : 'cpu';
  test(`float16/bfloat16 values and gradients on ${backend} equal PyTorch's (float32 rounded once, within one ulp)`, { skip }, async () => {
    assert.ok(ref.cases.length >= 40, `${ref.cases.length} cases read`);
    sg.setBackend(backend); // new tensors go to its device
    const before = sg.memory().tensors;
    for (const c of ref.cases) {
      const what = `${c.name} ${c.dtype} on ${backend}`;
      const fn = CALLS[c.name];
      assert.ok(fn, `no function for case '${c.name}'`);
      const inputs = c.inputs.map((s) => {
        const t = tensorOf(s);
        return s.dtype === c.dtype ? t.requiresGrad_() : t;
      });
      const outs = sg.tidy(() => [fn(...inputs)].flat()); // (the masks made inside are freed)
      for (const [k, want] of c.outputs.entries()) {
        assert.equal(outs[k].device, device, `${what}: output ${k}'s device`);
        await expectClose(`${what} output ${k}`, outs[k], want);
      }
      const g = tensorOf(c.g[0]);
      outs.find((o) => o.dtype === c.dtype).backward(g);
      const leaves = inputs.filter((t) => t.dtype === c.dtype);
      for (const [k, want] of c.grads.entries()) {
        assert.ok(leaves[k].grad, `${what}: input ${k} got no gradient`);
        assert.equal(leaves[k].grad.device, device, `${what}: gradient ${k}'s device`);
        await expectClose(`${what} grad ${k}`, leaves[k].grad, want);
      }
      sg.dispose([...leaves.map((t) => t.grad), ...inputs, ...outs, g]);
    }
    assert.equal(sg.memory().tensors, before, 'tensors left after the cases');
  });
}
