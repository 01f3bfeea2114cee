// sg.nn.init on float64, float16 and bfloat16 tensors (issue 27): each function takes the dtypes
// PyTorch 1.13's CPU kernels take (tests/data/gen_init_dtypes.py → init_dtypes_ref.json) and
// refuses the others by name. The values are random and PyTorch's generator is not this library's,
// so they are checked by exact properties — a float64 fill is the float64 draws (53 random bits
// each, not float32 values) under the formula, a 16-bit fill the float32 draws rounded once — and
// statistical ones (bounds, means, standard deviations, orthogonality to double precision).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, readRef, throwsWith } from './helpers.mjs';

const ref = readRef('init_dtypes_ref.json');
const init = sg.nn.init;
const values = (t) => Array.from(t.dataSync(), Number);

const CALLS = {
  uniform_: (t) => init.uniform_(t, -1, 1),
  normal_: (t) => init.normal_(t, 0.5, 2),
  truncNormal_: (t) => init.truncNormal_(t),
  xavierUniform_: (t) => init.xavierUniform_(t),
  xavierNormal_: (t) => init.xavierNormal_(t),
  kaimingUniform_: (t) => init.kaimingUniform_(t),
  kaimingNormal_: (t) => init.kaimingNormal_(t),
  orthogonal_: (t) => init.orthogonal_(t),
};

function moments(v) {
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  const std = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length);
  return { mean, std, min: Math.min(...v), max: Math.max(...v) };
}

test('each init function takes the dtypes PyTorch 1.13 takes and names the dtype it refuses', () => {
  for (const [name, takes] of Object.entries(ref.takes)) {
    for (const dtype of ['float32', 'float64', 'float16', 'bfloat16', 'int32', 'int64']) {
      sg.tidy(() => {
        const t = sg.zeros([4, 5], { dtype });
        if (takes.includes(dtype)) {
          assert.equal(CALLS[name](t), t, `${name} on ${dtype} returns its tensor`);
          assert.equal(t.dtype, dtype);
          assert.ok(values(t).some((v) => v !== 0), `${name} on ${dtype} filled the tensor`);
        } else {
          throwsWith(() => CALLS[name](t), name, dtype);
        }
      });
    }
  }
});

test('float64 fills are the float64 draws under the formula (53-bit values), reproducible from sg.manualSeed', () => {
  sg.tidy(() => {
    const n = 4000;
    sg.manualSeed(11);
    const z = values(sg.randn([n], { dtype: 'float64' }));
    sg.manualSeed(11);
    const t = init.normal_(sg.empty([n], { dtype: 'float64' }), 0.5, 2);
    assert.deepEqual(values(t), z.map((v) => 0.5 + 2 * v));
    sg.manualSeed(12);
    const u = values(sg.rand([n], { dtype: 'float64' }));
    sg.manualSeed(12);
    const w = init.uniform_(sg.empty([n], { dtype: 'float64' }), -3, 5);
    assert.deepEqual(values(w), u.map((v) => -3 + 8 * v));
    // Not float32 values widened: almost every draw has bits below float32's 24.
    const wide = values(w).filter((v) => v !== Math.fround(v)).length;
    assert.ok(wide > 0.99 * n, `${wide} of ${n} float64 uniform_ values are not float32 values`);
    const s = moments(values(t));
    assert.ok(Math.abs(s.mean - 0.5) < 4 * 2 / Math.sqrt(n), `normal_ mean ${s.mean}`);
    assert.ok(Math.abs(s.std - 2) < 0.1, `normal_ std ${s.std}`);
  });
});

test('float64 truncNormal_, xavier, kaiming and orthogonal_: bounds, spreads, and orthogonality to double precision', () => {
  sg.tidy(() => {
    sg.manualSeed(3);
    const tn = values(init.truncNormal_(sg.empty([5000], { dtype: 'float64' }), 0, 1, -1, 1.5));
    const s = moments(tn);
    assert.ok(s.min >= -1 && s.max <= 1.5 && s.min < -0.99 && s.max > 1.49, `truncNormal_ range [${s.min}, ${s.max}]`);
    assert.ok(tn.filter((v) => v !== Math.fround(v)).length > 4900, 'truncNormal_ values carry float64 bits');
    // kaimingUniform_ of a [64, 400] weight: U(±√(6/400)) (gain √2 for leaky_relu with a = 0).
    const k = init.kaimingUniform_(sg.empty([64, 400], { dtype: 'float64' }));
    const ks = moments(values(k)), bound = Math.sqrt(6 / 400);
    assert.ok(ks.max <= bound && ks.min >= -bound && ks.max > 0.99 * bound, `kaimingUniform_ range [${ks.min}, ${ks.max}] for ±${bound}`);
    assert.ok(Math.abs(ks.std - bound / Math.sqrt(3)) < 0.02 * bound, `kaimingUniform_ std ${ks.std}`);
    const xn = moments(values(init.xavierNormal_(sg.empty([64, 400], { dtype: 'float64' }), 2)));
    assert.ok(Math.abs(xn.std - 2 * Math.sqrt(2 / 464)) < 0.03 * 2 * Math.sqrt(2 / 464), `xavierNormal_ std ${xn.std}`);
    // A [6, 40] orthogonal_ (gain 1.5) has orthonormal rows times 1.5: W·Wᵀ = 2.25·I to ~1e-15,
    // which a float32 QR could not give.
    const q = init.orthogonal_(sg.empty([6, 40], { dtype: 'float64' }), 1.5);
    assert.equal(q.dtype, 'float64');
    const g = values(q.matmul(q.T));
    g.forEach((v, i) => assert.ok(Math.abs(v - (i % 7 === 0 ? 2.25 : 0)) < 1e-13, `W·Wᵀ[${i}] = ${v}`));
  });
});

test('float16 and bfloat16 fills are the float32 draws under the formula, rounded once; spreads as in float32', () => {
  for (const dtype of ['float16', 'bfloat16']) {
    sg.tidy(() => {
      const n = 4000;
      sg.manualSeed(21);
      const z = values(sg.randn([n]));
      sg.manualSeed(21);
      const t = init.normal_(sg.empty([n], { dtype }), 0.5, 2);
      assert.equal(t.dtype, dtype);
      const want = values(sg.tensor(z.map((v) => 0.5 + 2 * v)).to(dtype));
      assert.deepEqual(values(t), want, `normal_ on ${dtype}`);
      const u = values(init.kaimingUniform_(sg.empty([64, 400], { dtype })));
      const s = moments(u), bound = Math.sqrt(6 / 400);
      // Rounding may carry a value up to the bound itself, never past it.
      assert.ok(s.max <= bound * (1 + 2 ** -7) && s.min >= -bound * (1 + 2 ** -7) && s.max > 0.98 * bound, `${dtype} kaimingUniform_ range`);
      assert.ok(Math.abs(s.std - bound / Math.sqrt(3)) < 0.03 * bound, `${dtype} kaimingUniform_ std ${s.std}`);
    });
  }
});

test('a float64 Linear (module.double()) re-initialized draws float64 values within its default bound', () => {
  sg.tidy(() => {
    sg.manualSeed(5);
    const lin = new sg.nn.Linear(30, 20).double();
    assert.equal(lin.weight.dtype, 'float64');
    // Re-initializing in float64 draws float64 values within the layer's default bound.
    init.kaimingUniform_(lin.weight, { a: Math.sqrt(5) });
    const w = values(lin.weight), bound = 1 / Math.sqrt(30);
    assert.ok(w.every((v) => Math.abs(v) <= bound), 'kaimingUniform_ with a = √5 stays within 1/√fanIn');
    assert.ok(w.filter((v) => v !== Math.fround(v)).length > 0.99 * w.length, 'float64 values');
  });
});
