// sg.optim against the update rules of PyTorch 1.13 (torch/optim/{sgd,adam,adamw,rmsprop,adagrad}.py,
// single-tensor paths) re-implemented here in double precision with plain JS numbers, for
// several steps and every option, with two param groups of different hyper-parameters and a
// parameter that misses its gradient at one step (skipped: no update, no state change).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close } from './helpers.mjs';

const STEPS = 7;
const SHAPES = [[13], [2, 3], [4]];
const GROUPS = [[0, 1], [2]];
const NO_GRAD = { param: 1, step: 3 };

/** Deterministic values in (-1, 1) (a 32-bit LCG), rounded to float32 as the tensors hold them. */
function values(seed, n, scale = 1) {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.fround(((s / 2 ** 32) * 2 - 1) * scale);
  });
}
const numel = (shape) => shape.reduce((a, b) => a * b, 1);
const INIT = SHAPES.map((s, i) => values(100 + i, numel(s)));
// Gradients whose magnitude changes step to step, so that amsgrad's maximum matters.
const GRADS = Array.from({ length: STEPS }, (_, k) => SHAPES.map((s, i) => values(1000 * k + i, numel(s), [1, 0.2, 3, 0.05][k % 4])));

// ---- the rules, one parameter at a time, in doubles ----
function sgdStep(p, g, st, h) {
  const { lr, momentum = 0, dampening = 0, weightDecay = 0, nesterov = false, maximize = false } = h;
  let d = g.map((x) => (maximize ? -x : x));
  if (weightDecay !== 0) d = d.map((x, i) => x + weightDecay * p[i]);
  if (momentum !== 0) {
    if (st.momentum_buffer === undefined) st.momentum_buffer = d.slice();
    else st.momentum_buffer = st.momentum_buffer.map((b, i) => momentum * b + (1 - dampening) * d[i]);
    const buf = st.momentum_buffer;
    d = nesterov ? d.map((x, i) => x + momentum * buf[i]) : buf.slice();
  }
  return p.map((x, i) => x - lr * d[i]);
}

function adamStep(p, g, st, h, decoupled) {
  const { lr = 1e-3, betas = [0.9, 0.999], eps = 1e-8, weightDecay = decoupled ? 1e-2 : 0, amsgrad = false, maximize = false } = h;
  const [b1, b2] = betas;
  let grad = g.map((x) => (maximize ? -x : x));
  if (st.step === undefined) {
    st.step = 0;
    st.exp_avg = p.map(() => 0);
    st.exp_avg_sq = p.map(() => 0);
    if (amsgrad) st.max_exp_avg_sq = p.map(() => 0);
  }
  st.step += 1;
  if (decoupled) p = p.map((x) => x * (1 - lr * weightDecay));
  else if (weightDecay !== 0) grad = grad.map((x, i) => x + weightDecay * p[i]);
  st.exp_avg = st.exp_avg.map((m, i) => m * b1 + (1 - b1) * grad[i]);
  st.exp_avg_sq = st.exp_avg_sq.map((v, i) => v * b2 + (1 - b2) * grad[i] * grad[i]);
  const bc1 = 1 - b1 ** st.step;
  const bc2sqrt = Math.sqrt(1 - b2 ** st.step);
  let v = st.exp_avg_sq;
  if (amsgrad) {
    st.max_exp_avg_sq = st.max_exp_avg_sq.map((m, i) => Math.max(m, st.exp_avg_sq[i]));
    v = st.max_exp_avg_sq;
  }
  return p.map((x, i) => x - (lr / bc1) * (st.exp_avg[i] / (Math.sqrt(v[i]) / bc2sqrt + eps)));
}

function rmspropStep(p, g, st, h) {
  const { lr = 1e-2, alpha = 0.99, eps = 1e-8, weightDecay = 0, momentum = 0, centered = false, maximize = false } = h;
  let grad = g.map((x) => (maximize ? -x : x));
  if (st.step === undefined) {
    st.step = 0;
    st.square_avg = p.map(() => 0);
    if (momentum > 0) st.momentum_buffer = p.map(() => 0);
    if (centered) st.grad_avg = p.map(() => 0);
  }
  st.step += 1;
  if (weightDecay !== 0) grad = grad.map((x, i) => x + weightDecay * p[i]);
  st.square_avg = st.square_avg.map((s, i) => alpha * s + (1 - alpha) * grad[i] * grad[i]);
  let avg;
  if (centered) {
    st.grad_avg = st.grad_avg.map((a, i) => alpha * a + (1 - alpha) * grad[i]);
    avg = st.square_avg.map((s, i) => Math.sqrt(s - st.grad_avg[i] ** 2) + eps);
  } else {
    avg = st.square_avg.map((s) => Math.sqrt(s) + eps);
  }
  if (momentum > 0) {
    st.momentum_buffer = st.momentum_buffer.map((b, i) => momentum * b + grad[i] / avg[i]);
    return p.map((x, i) => x - lr * st.momentum_buffer[i]);
  }
  return p.map((x, i) => x - (lr * grad[i]) / avg[i]);
}

function adagradStep(p, g, st, h) {
  const { lr = 1e-2, lrDecay = 0, weightDecay = 0, eps = 1e-10, maximize = false } = h;
  st.step += 1;
  let grad = g.map((x) => (maximize ? -x : x));
  if (weightDecay !== 0) grad = grad.map((x, i) => x + weightDecay * p[i]);
  const clr = lr / (1 + (st.step - 1) * lrDecay);
  st.sum = st.sum.map((s, i) => s + grad[i] * grad[i]);
  return p.map((x, i) => x - (clr * grad[i]) / (Math.sqrt(st.sum[i]) + eps));
}

const RULES = {
  SGD: sgdStep,
  Adam: (p, g, st, h) => adamStep(p, g, st, h, false),
  AdamW: (p, g, st, h) => adamStep(p, g, st, h, true),
  RMSprop: rmspropStep,
  Adagrad: adagradStep,
};

// [algorithm, defaults, group-1 overrides]
const CASES = [
  ['SGD', { lr: 0.1 }, {}],
  ['SGD', { lr: 0.1, momentum: 0.9 }, { lr: 0.03 }],
  ['SGD', { lr: 0.05, momentum: 0.8, dampening: 0.3, weightDecay: 0.1 }, { dampening: 0 }],
  ['SGD', { lr: 0.05, momentum: 0.7, nesterov: true }, { weightDecay: 0.2, maximize: true }],
  ['Adam', {}, { lr: 0.01 }],
  ['Adam', { lr: 0.02, betas: [0.8, 0.95], eps: 1e-6 }, { amsgrad: true }],
  ['Adam', { lr: 0.01, weightDecay: 0.1, amsgrad: true }, { maximize: true, betas: [0.5, 0.9] }],
  ['AdamW', { lr: 0.01 }, { weightDecay: 0.5 }],
  ['AdamW', { lr: 0.02, amsgrad: true, eps: 1e-3 }, { weightDecay: 0 }],
  ['RMSprop', {}, { lr: 0.001 }],
  ['RMSprop', { lr: 0.01, centered: true }, { alpha: 0.5 }],
  ['RMSprop', { lr: 0.01, momentum: 0.9, weightDecay: 0.05 }, { centered: true, eps: 1e-4 }],
  ['RMSprop', { lr: 0.003, maximize: true }, { momentum: 0.2 }],
  ['Adagrad', {}, { lr: 0.1 }],
  ['Adagrad', { lr: 0.1, lrDecay: 0.1, initialAccumulatorValue: 0.3 }, { weightDecay: 0.1 }],
  ['Adagrad', { lr: 0.2, eps: 1e-3, maximize: true }, { lrDecay: 0.5 }],
];

for (const [algorithm, defaults, overrides] of CASES) {
  test(`${algorithm} ${JSON.stringify(defaults)} / group 1 ${JSON.stringify(overrides)}: ${STEPS} steps vs the formula in doubles`, () => {
    const params = INIT.map((v, i) => sg.tensor(Float32Array.from(v), { shape: SHAPES[i], requiresGrad: true }));
    const groups = GROUPS.map((ids, g) => ({ params: ids.map((i) => params[i]), ...(g === 1 ? overrides : {}) }));
    const opt = new sg.optim[algorithm](groups, defaults);

    // The reference: hyper-parameters per parameter, state per parameter.
    const hyperOf = (i) => ({ ...defaults, ...(GROUPS[1].includes(i) ? overrides : {}) });
    let ref = INIT.map((v) => v.slice());
    const states = INIT.map((v) =>
      // Adagrad's state is made by the constructor, from the constructor's initialAccumulatorValue.
      algorithm === 'Adagrad' ? { step: 0, sum: v.map(() => defaults.initialAccumulatorValue ?? 0) } : {},
    );
    for (let k = 0; k < STEPS; k++) {
      params.forEach((p, i) => {
        if (i === NO_GRAD.param && k === NO_GRAD.step) {
          p.grad = null;
          return;
        }
        const g = sg.tensor(Float32Array.from(GRADS[k][i]), { shape: SHAPES[i] });
        p.grad = g;
        g.dispose();
        ref[i] = RULES[algorithm](ref[i], GRADS[k][i], states[i], hyperOf(i));
      });
      opt.step();
      params.forEach((p, i) => close(Array.from(p.dataSync()), ref[i], 2e-5, `step ${k} param ${i}`));
    }
    // Step counts: the parameter without a gradient once took one step less.
    if (algorithm !== 'SGD') {
      const sd = opt.stateDict();
      params.forEach((_, i) => assert.equal(sd.state[i].step.item(), i === NO_GRAD.param ? STEPS - 1 : STEPS));
      sg.dispose(sd.state);
    }
    sg.dispose(params);
    opt.dispose();
  });
}

test('a scheduler-changed lr is used by the next step (group.lr is read at every step)', () => {
  const p = sg.tensor([1, 1], { requiresGrad: true });
  const opt = new sg.optim.SGD([p], { lr: 1 });
  for (const lr of [0.5, 0.25, 0]) {
    opt.paramGroups[0].lr = lr;
    const before = p.toArray();
    p.grad = sg.tensor([1, 2]);
    p.grad.dispose();
    opt.step();
    close(p.toArray(), [before[0] - lr, before[1] - 2 * lr], 1e-7);
  }
  opt.dispose();
  p.dispose();
});

test('step(closure) calls the closure with gradients enabled and returns its value', () => {
  const p = sg.tensor([3], { requiresGrad: true });
  const opt = new sg.optim.SGD([p], { lr: 0.1 });
  const loss = sg.noGrad(() =>
    opt.step(() => {
      opt.zeroGrad();
      const l = sg.tidy(() => {
        const l = p.square().sum();
        l.backward();
        return l.item();
      });
      return l;
    }),
  );
  assert.equal(loss, 9);
  close(p.toArray(), [3 - 0.1 * 6], 1e-6);
  opt.dispose();
  p.dispose();
});
