// sg.autocast and sg.amp.GradScaler against PyTorch 1.13 (tests/data/gen_autocast.py →
// autocast_ref.json): the dtype of every op's result under torch.autocast('cpu', bfloat16) with
// float32, bfloat16 and mixed inputs; GradScaler's scale / unscale_ / step / update sequences
// (inf and NaN skipping, growth, backoff, a scale that cannot grow past float32) computed by
// torch's own GradScaler class on CPU; gradients through autocast casts; bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, readRef, throwsWith } from './helpers.mjs';

const ref = readRef('autocast_ref.json');
const F = sg.F;

const CALLS = {
  matmul: (a, b) => a.matmul(b), linear: (a, w, b) => F.linear(a, w, b), conv1d: (a, w) => F.conv1d(a, w),
  conv2d: (a, w, b) => F.conv2d(a, w, b), convTranspose2d: (a, w) => F.convTranspose2d(a, w),
  mseLoss: (a, b) => F.mseLoss(a, b), l1Loss: (a, b) => F.l1Loss(a, b), smoothL1Loss: (a, b) => F.smoothL1Loss(a, b),
  huberLoss: (a, b) => F.huberLoss(a, b), nllLoss: (a, t) => F.nllLoss(a, t), crossEntropy: (a, t) => F.crossEntropy(a, t),
  binaryCrossEntropy: (a, b) => F.binaryCrossEntropy(a, b),
  binaryCrossEntropyWithLogits: (a, b) => F.binaryCrossEntropyWithLogits(a, b), softmax: (a) => a.softmax(-1),
  logSoftmax: (a) => a.logSoftmax(-1), layerNorm: (a, w, b) => F.layerNorm(a, [4], w, b), sum: (a) => a.sum(),
  mean: (a) => a.mean(), exp: (a) => a.exp(), add: (a, b) => a.add(b), mul: (a, b) => a.mul(b), relu: (a) => a.relu(),
  gelu: (a) => F.gelu(a), tanh: (a) => a.tanh(), cat: (a, b) => sg.cat([a, b]), stack: (a, b) => sg.stack([a, b]),
  embedding: (i, w) => F.embedding(i, w),
};

const make = (s) => sg.tensor(s.values, { dtype: s.dtype }).reshape(s.shape);

test("sg.autocast({ dtype: 'bfloat16' }) gives each op's result the dtype torch.autocast('cpu', torch.bfloat16) gives", () => {
  let compared = 0;
  for (const e of ref.autocast) {
    const fn = CALLS[e.op];
    assert.ok(fn, `no function for ${e.op}`);
    for (const variant of ['float32', 'bfloat16', 'mixed']) {
      sg.tidy(() => {
        let j = 0;
        const args = e.inputs.map((s) => {
          const t = make(s);
          if (s.dtype !== 'float32') return t;
          const low = variant === 'bfloat16' || (variant === 'mixed' && j === 0);
          j++;
          return low ? t.bfloat16() : t;
        });
        const want = e.results[`${variant} autocast`];
        if (want !== null) {
          assert.equal(sg.autocast({ dtype: 'bfloat16' }, () => fn(...args)).dtype, want, `${e.op} (${variant} inputs) under autocast`);
          compared++;
        }
        // Outside autocast nothing is cast (mixed inputs are left out: PyTorch refuses several).
        const plain = e.results[`${variant} plain`];
        if (plain !== null && variant !== 'mixed') assert.equal(fn(...args).dtype, plain, `${e.op} (${variant} inputs) without autocast`);
      });
    }
  }
  assert.ok(compared >= 75, `${compared} results compared`);
});

test('under autocast gradients flow back to float32 parameters in float32; enabled: false and nesting', () => {
  sg.tidy(() => {
    const w = sg.tensor([[0.5, -1, 2], [1, 0.25, -0.5]], { requiresGrad: true });
    const x = sg.tensor([[1, 2, 3]]);
    const y = sg.autocast({ dtype: 'bfloat16' }, () => {
      const h = F.linear(x, w);
      assert.equal(h.dtype, 'bfloat16');
      const inner = sg.autocast({ enabled: false }, () => F.linear(x, w));
      assert.equal(inner.dtype, 'float32');
      return h.float().square().sum();
    });
    y.backward();
    assert.equal(w.grad.dtype, 'float32');
    // d/dw of sum((x·wᵀ)²) = 2·(x·wᵀ)ᵀ·x, with x·wᵀ computed in bfloat16 (exact here: small integers and halves).
    const h = [0.5 * 1 - 1 * 2 + 2 * 3, 1 * 1 + 0.25 * 2 - 0.5 * 3];
    assert.deepEqual(Array.from(w.grad.dataSync()), [2 * h[0], 4 * h[0], 6 * h[0], 2 * h[1], 4 * h[1], 6 * h[1]]);
    // After autocast returns (or throws), ops are not cast.
    assert.throws(() => sg.autocast({ dtype: 'bfloat16' }, () => { throw new Error('inside'); }), /inside/);
    assert.equal(F.linear(x, w).dtype, 'float32');
  });
});

test("autocast float16 follows PyTorch's CUDA lists: matmul in float16, softmax and sums in float32, binaryCrossEntropy refused", () => {
  sg.tidy(() => {
    const a = sg.tensor([[1, 2], [3, 4]]);
    sg.autocast({ dtype: 'float16' }, () => {
      assert.equal(a.matmul(a).dtype, 'float16');
      assert.equal(a.half().softmax(-1).dtype, 'float32');
      assert.equal(a.half().sum().dtype, 'float32');
      assert.equal(a.half().relu().dtype, 'float16');
      throwsWith(() => F.binaryCrossEntropy(a.sigmoid(), a.sigmoid()), 'binaryCrossEntropy', 'unsafe', 'autocast');
    });
  });
});

test('autocast bad input: float64, unknown dtype and options', () => {
  throwsWith(() => sg.autocast({ dtype: 'float64' }, () => 1), 'autocast', 'float64');
  throwsWith(() => sg.autocast({ dtype: 'int8' }, () => 1), 'autocast', 'int8');
  throwsWith(() => sg.autocast({ device: 'cpu' }, () => 1), 'autocast', 'device');
  throwsWith(() => sg.autocast({ dtype: 'bfloat16' }, 5), 'autocast', 'function');
});

for (const [k, sc] of ref.scaler.entries()) {
  test(`GradScaler sequence ${k} (${JSON.stringify(sc.options)}${sc.unscale_first ? ', unscale_ before step' : ''}) equals torch's GradScaler step for step`, () => {
    const o = sc.options;
    const p = sg.tensor([1, -2, 0.5], { requiresGrad: true });
    const opt = new sg.optim.SGD([p], { lr: 0.1 });
    const scaler = new sg.amp.GradScaler({ initScale: o.init_scale, growthFactor: o.growth_factor, backoffFactor: o.backoff_factor, growthInterval: o.growth_interval });
    let calls = 0;
    const realStep = opt.step.bind(opt);
    opt.step = (...args) => { calls++; return realStep(...args); };
    for (const [t, s] of sc.steps.entries()) {
      sg.tidy(() => {
        opt.zeroGrad();
        const c = sg.tensor(s.coeffs.map(Number));
        scaler.scale(p.mul(c).sum()).backward();
        if (sc.unscale_first) scaler.unscale_(opt);
        const before = calls;
        scaler.step(opt);
        scaler.update();
        assert.equal(calls > before, s.stepped, `step ${t}: stepped`);
        assert.equal(scaler.getScale(), s.scale, `step ${t}: scale`);
        assert.equal(scaler.stateDict()._growth_tracker, s.growth_tracker, `step ${t}: growth tracker`);
        assert.deepEqual(Array.from(p.dataSync()), s.params, `step ${t}: params`);
      });
    }
    opt.dispose?.();
    p.dispose();
  });
}

test("GradScaler's stage errors, enabled: false, and bad options, as PyTorch's", () => {
  sg.tidy(() => {
    const p = sg.tensor([1, 2], { requiresGrad: true });
    const opt = new sg.optim.SGD([p], { lr: 0.1 });
    const scaler = new sg.amp.GradScaler();
    assert.equal(scaler.getScale(), 65536);
    throwsWith(() => scaler.unscale_(opt), 'unscale_', 'scale');
    const scaled = scaler.scale(p.sum());
    assert.deepEqual(scaled.shape, [1]); // times the one-element scale tensor, as PyTorch
    scaled.backward();
    scaler.unscale_(opt);
    throwsWith(() => scaler.unscale_(opt), 'unscale_() has already been called');
    scaler.step(opt);
    throwsWith(() => scaler.step(opt), 'step() has already been called');
    throwsWith(() => scaler.unscale_(opt), 'after step');
    scaler.update();
    assert.equal(scaler.getScale(), 65536);
    const off = new sg.amp.GradScaler({ enabled: false });
    assert.equal(off.scale(p), p);
    assert.equal(off.getScale(), 1);
    throwsWith(() => new sg.amp.GradScaler({ growthFactor: 0.5 }), 'GradScaler', 'growth factor');
    throwsWith(() => new sg.amp.GradScaler({ backoffFactor: 2 }), 'GradScaler', 'backoff factor');
    throwsWith(() => new sg.amp.GradScaler({ initscale: 2 }), 'GradScaler', 'initscale');
    opt.dispose?.();
  });
});

test('autocast frees the casts it makes for each op: live handles flat over 30 bfloat16 products', () => {
  // Each float32 operand of a matmul under bfloat16 autocast is cast first; the cast copies are
  // released when the op returns (runtime/handles.ts autocastCall), not kept until the tidy ends.
  const a = sg.randn([4, 8]), b = sg.randn([8, 3]);
  const handles = () => sg.memory().handles;
  sg.autocast({ dtype: 'bfloat16' }, () => {
    const before = handles();
    for (let i = 0; i < 30; i++) {
      const y = a.matmul(b);
      assert.equal(y.dtype, 'bfloat16');
      y.dispose();
    }
    assert.equal(handles(), before, 'no handle left per product');
  });
  sg.dispose([a, b]);
});
