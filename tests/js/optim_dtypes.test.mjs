// Optimizers on float64, float16 and bfloat16 parameters (issue 27), against PyTorch 1.13
// (tests/data/gen_optim_dtypes.py → optim_dtypes_ref.json), on both CPU backends:
// - float64: every algorithm's trajectory and final state equal torch.optim's in float64 to
//   1e-12 relative (double math, as PyTorch's).
// - float16/bfloat16: the rule of PyTorch's CPU kernels, each result computed in float32 and
//   rounded once to the dtype, as torch computes it (a float32 step on the widened values and
//   state, rounded): within one ulp of the dtype. Where torch.optim itself runs on the 16-bit
//   tensors (bfloat16; float16 SGD), simdgrad stays within its distance + 1 ulp of it.
// - the state is kept in the parameter's dtype; a loaded float32 state dict is cast to it.
// - clipGradNorm_/clipGradValue_ on float64 and bfloat16 grads equal torch's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, optimOptions, readRef, throwsWith } from './helpers.mjs';
import { forEachBackend } from './backends.mjs';

const ref = readRef('optim_dtypes_ref.json');

const jsOptions = optimOptions;

/** The spacing of a 16-bit dtype at |v| (subnormal spacing below its normal range). */
function ulp(dtype, v) {
  const [mant, emin] = dtype === 'float16' ? [10, -14] : [7, -126];
  const e = v === 0 ? emin : Math.max(Math.floor(Math.log2(Math.abs(v))), emin);
  return 2 ** (e - mant);
}

/** |got − want| within 1e-12 relative (float64) or `ulps` ulps of the 16-bit dtype. */
function near(dtype, got, want, what, ulps = 1) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    const tol = dtype === 'float64' ? 1e-12 * Math.max(1, Math.abs(want[i])) : ulps * ulp(dtype, want[i]);
    assert.ok(Math.abs(got[i] - want[i]) <= tol, `${what}[${i}]: got ${got[i]}, want ${want[i]} (tolerance ${tol})`);
  }
}

const make = (values, shape, dtype, requiresGrad = false) => sg.tensor(Float64Array.from(values), { shape, dtype, requiresGrad });

function run(dtype, c, shapes, data, onStep) {
  const params = data.init.map((v, i) => make(v, shapes[i], dtype, true));
  const opt = new sg.optim[c.algorithm](params, jsOptions(c.hyper));
  for (let k = 0; k < ref.steps; k++) {
    params.forEach((p, i) => {
      const g = make(data.grads[k][i], shapes[i], dtype);
      p.grad = g;
      g.dispose();  // the parameter keeps it
    });
    opt.step();
    onStep(k, params);
  }
  return { params, opt };
}

for (const [dtype, data] of Object.entries(ref.dtypes)) {
  forEachBackend(`optimizers on ${dtype} parameters equal PyTorch 1.13 (${dtype === 'float64' ? 'torch.optim in float64' : 'float32 math rounded once'})`, (backend) => {
    if (backend === 'webgpu') return;  // float64 is an Error there; the 16-bit dtypes are the webgpu agent's
    for (const c of data.cases) {
      const { params, opt } = run(dtype, c, ref.shapes, data, (k, ps) => {
        ps.forEach((p, i) => {
          assert.equal(p.dtype, dtype, `${c.name}: parameter ${i} dtype`);
          near(dtype, Array.from(p.dataSync()), c.trajectory[k][i], `${c.name} ${dtype} step ${k} param ${i}`);
        });
      });
      const sd = opt.stateDict();
      c.final_state.forEach((entries, i) => {
        const mine = sd.state[i] ?? {};
        assert.deepEqual(Object.keys(mine).sort(), Object.keys(entries).sort(), `${c.name}: state keys of param ${i}`);
        for (const [key, values] of Object.entries(entries)) {
          const t = mine[key];
          // 'step' and NAdam's 'mu_product' are float32 scalars in PyTorch 1.13 whatever the dtype.
          if (key === 'step' || key === 'mu_product') {
            assert.ok(Math.abs(t.item() - values[0]) <= 1e-6 * Math.abs(values[0]), `${c.name} ${key}`);
            continue;
          }
          assert.equal(t.dtype, dtype, `${c.name}: state ${key} dtype`);
          near(dtype, Array.from(t.dataSync()), values, `${c.name} ${dtype} state ${i}.${key}`);
        }
      });
      // Where torch.optim ran on the 16-bit tensors themselves (each op rounding to the dtype).
      if (c.native) {
        let apart = 0;
        params.forEach((p, i) => {
          const got = Array.from(p.dataSync()), want = c.native[ref.steps - 1][i];
          got.forEach((v, j) => { apart = Math.max(apart, Math.abs(v - want[j]) / ulp(dtype, want[j])); });
        });
        assert.ok(apart <= c.native_apart + 1, `${c.name} ${dtype}: ${apart} ulps from torch.optim on ${dtype} (float32-rounded-once is ${c.native_apart})`);
      }
      sg.dispose([sd.state, params]);
      opt.dispose();
    }
  });
}

forEachBackend('16-bit and float64 optimizer state stays in the parameter\'s dtype; a float32 state dict is cast to it, as PyTorch\'s load_state_dict', (backend) => {
  if (backend === 'webgpu') return;
  for (const dtype of ['float64', 'bfloat16', 'float16']) {
    sg.tidy(() => {
      const p = sg.tensor([0.5, -0.25, 1], { dtype, requiresGrad: true });
      const opt = new sg.optim.Adam([p], { lr: 0.1 });
      p.grad = sg.tensor([1, 2, -1], { dtype });
      opt.step();
      const sd = opt.stateDict();
      assert.equal(sd.state[0].exp_avg.dtype, dtype);
      // A float32 copy of the state loads into the same optimizer: cast back to the dtype.
      const f32 = { ...sd, state: { 0: { ...sd.state[0], exp_avg: sd.state[0].exp_avg.float(), exp_avg_sq: sd.state[0].exp_avg_sq.float() } } };
      opt.loadStateDict(f32);
      const again = opt.stateDict();
      assert.equal(again.state[0].exp_avg.dtype, dtype);
      // The values are the float32 copy's (exact for the 16-bit dtypes; float64 keeps float32's rounding).
      assert.deepEqual(Array.from(again.state[0].exp_avg.dataSync()), Array.from(sd.state[0].exp_avg.float().dataSync()));
      opt.step();
      assert.equal(p.dtype, dtype);
      opt.dispose();
    });
  }
});

test('optimizers refuse integer parameters by name, and a grad of another dtype than its parameter', () => {
  sg.tidy(() => {
    throwsWith(() => new sg.optim.SGD([sg.tensor([1, 2], { dtype: 'int32' })], { lr: 0.1 }), 'SGD', 'int32', 'floating point');
    const p = sg.tensor([0.5, 1], { dtype: 'float64', requiresGrad: true });
    const opt = new sg.optim.SGD([p], { lr: 0.1 });
    p.grad = sg.tensor(Float64Array.from([1, 1]), { shape: [2] });
    opt.step();
    assert.deepEqual(Array.from(p.dataSync()), [0.5 - 0.1, 1 - 0.1]);  // in double: 0.4, 0.9
    opt.dispose();
  });
});

for (const [dtype, data] of Object.entries(ref.dtypes)) {
  forEachBackend(`clipGradNorm_ / clipGradValue_ on ${dtype} grads`, (backend) => {
    if (backend === 'webgpu') return;
    const grads = data.grads[2];
    const withGrads = () => grads.map((g, i) => {
      const p = sg.zeros(ref.shapes[i], { dtype, requiresGrad: true });
      const t = make(g, ref.shapes[i], dtype);
      p.grad = t;
      t.dispose();
      return p;
    });
    if (data.clip.error) {
      // PyTorch 1.13's CPU has no float16 clamp_max: the total is checked against the norm of the
      // same float16 values in double (JavaScript), held in float16, and the clipped grads
      // against the grads scaled by the coefficient computed in float16.
      sg.tidy(() => {
        const params = withGrads();
        const flat = grads.flat();
        const norm = Math.sqrt(flat.reduce((s, x) => s + x * x, 0));
        const total = sg.nn.utils.clipGradNorm_(params, 0.7);
        assert.ok(Math.abs(total - norm) <= 2 * ulp(dtype, norm), `float16 total ${total}, norm in double ${norm}`);
        params.forEach((p, i) => {
          near(dtype, Array.from(p.grad.dataSync()), grads[i].map((x) => x * (0.7 / (total + 1e-6))), `float16 clipped grad ${i}`, 2);
          assert.equal(p.grad.dtype, dtype);
        });
      });
      return;
    }
    for (const c of data.clip) {
      sg.tidy(() => {
        const params = withGrads();
        if (c.fn === 'norm') {
          const total = sg.nn.utils.clipGradNorm_(params, 0.7, c.normType);
          near(dtype, [total], [c.total], `${dtype} total norm ${c.normType}`, 0);
        } else {
          sg.nn.utils.clipGradValue_(params, 0.3);
        }
        params.forEach((p, i) => {
          assert.equal(p.grad.dtype, dtype);
          near(dtype, Array.from(p.grad.dataSync()), c.grads[i], `${dtype} clip ${c.fn} ${c.normType ?? ''} grad ${i}`, dtype === 'float64' ? 1 : 0);
        });
      });
    }
  });
}
