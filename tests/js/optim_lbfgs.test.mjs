// sg.optim.LBFGS against PyTorch 1.13 (tests/data/lbfgs_ref.json from gen_lbfgs.py): the loss
// each step() returns, the parameters after it and the func_evals / n_iter counters, on
// Rosenbrock's function with the strong-Wolfe line search, a logistic regression with a fixed
// step and a short history, and a quadratic whose closure sometimes leaves a parameter without
// a gradient. L-BFGS amplifies rounding (an iteration's direction depends on every earlier
// gradient), so two float32 implementations summing in different orders drift apart about as
// far as PyTorch's own float32 and float64 runs of the same problem do. That distance, per step
// ('spread', relative to 1 + |value|), is measured by the generator; the tolerance of a step is
// the larger of 1e-5 and 3·spread (the largest ratio seen was 1.9). The evaluation and
// iteration counts, which follow every branch of the algorithm, must be equal until the loss
// reaches 1e-6: beyond that (Rosenbrock's last steps) the stopping tests compare changes of
// the size of float32 rounding noise. Plus: memory stays flat, a state dict round trip, the
// option checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith } from './helpers.mjs';
import { readRef } from './gradcheck_helpers.mjs';

const ref = readRef('lbfgs_ref.json');
const TORCH_TO_JS = { line_search_fn: 'lineSearchFn', max_iter: 'maxIter', history_size: 'historySize', lr: 'lr' };
const jsOptions = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [TORCH_TO_JS[k], v]));

/** The case's parameters and a closure computing the same loss as gen_lbfgs.py's. */
function problem(c, dtype = 'float32') {
  // The file's starting values and data are float32 values in 9 digits: Math.fround gives the
  // float32 value itself, which the generator's float64 run starts from (the 9-digit decimal read
  // as a double is up to 1e-9 away).
  const f32s = (v) => v.map(Math.fround);
  const params = c.init.map((v, i) => sg.tensor(f32s(v), { dtype, requiresGrad: true, shape: c.name.startsWith('logistic') ? [[3, 4], [3]][i] : [v.length] }));
  let calls = 0;
  const closures = {
    Rosenbrock: () => {
      const [x] = params;
      const x0 = x.narrow(0, 0, 1);
      const x1 = x.narrow(0, 1, 1);
      return sg.sub(1, x0).square().add(x1.sub(x0.square()).square().mul(100)).sum();
    },
    logistic: () => {
      const [w, b] = params;
      const data = sg.tensor(f32s(c.data), { shape: [10, 4], dtype });
      return sg.F.crossEntropy(data.matmul(w.T).add(b), sg.tensor(c.labels, { dtype: 'int32' }));
    },
    quadratic: () => {
      const [u, v] = params;
      calls++;
      const [u0, u1, u2] = [0, 1, 2].map((i) => u.narrow(0, i, 1));
      let loss = u0.square().add(u1.square().mul(10)).add(u2.square().mul(0.1)).add(u0.sub(v.narrow(0, 0, 1)).square());
      if (calls % 2 === 0) loss = loss.add(v.narrow(0, 1, 1).square().mul(3));
      return loss.sum();
    },
  };
  const body = closures[c.name.split(/[ ,]/)[0]];
  const closure = () => {
    for (const p of params) p.grad = null;
    const loss = body();
    loss.backward();
    return loss;
  };
  return { params, closure };
}

for (const c of ref.cases) {
  test(`PyTorch trajectory: ${c.name}`, () => {
    const { params, closure } = problem(c);
    const opt = new sg.optim.LBFGS(params, jsOptions(c.options));
    c.steps.forEach((want, k) => {
      const loss = sg.tidy(() => opt.step(closure).item());
      const tol = Math.max(1e-5, 3 * want.spread);
      close(loss, want.loss, tol, `step ${k + 1} loss`);
      params.forEach((p, i) => close(Array.from(p.dataSync()), want.params[i], tol, `step ${k + 1} param ${i}`));
      const st = opt.stateDict();
      if (want.loss > 1e-6) {
        assert.equal(st.state[0].func_evals, want.funcEvals, `step ${k + 1} func_evals`);
        assert.equal(st.state[0].n_iter, want.nIter, `step ${k + 1} n_iter`);
      }
      sg.dispose(st.state);
    });
    sg.dispose(params);
    opt.dispose();
  });
}

// Over float64 parameters (PyTorch's float64 run of the same problems, 'steps64'): the scalars
// are float64 too, so the trajectory follows PyTorch's to near double precision (rounding
// differences amplified by the iterations stay below 1e-9 relative here), and the counters are
// equal at every step.
for (const c of ref.cases) {
  test(`PyTorch trajectory in float64: ${c.name}`, () => {
    const { params, closure } = problem(c, 'float64');
    const opt = new sg.optim.LBFGS(params, jsOptions(c.options));
    c.steps64.forEach((want, k) => {
      const loss = sg.tidy(() => opt.step(closure).item());
      close(loss, want.loss, 1e-9, `step ${k + 1} loss`);
      params.forEach((p, i) => {
        assert.equal(p.dtype, 'float64');
        close(Array.from(p.dataSync()), want.params[i], 1e-9, `step ${k + 1} param ${i}`);
      });
      const st = opt.stateDict();
      assert.equal(st.state[0].func_evals, want.funcEvals, `step ${k + 1} func_evals`);
      assert.equal(st.state[0].n_iter, want.nIter, `step ${k + 1} n_iter`);
      assert.equal(st.state[0].d.dtype, 'float64');
      sg.dispose(st.state);
    });
    sg.dispose(params);
    opt.dispose();
  });
}

test('LBFGS names the dtype it does not run in, and parameters of two dtypes', () => {
  sg.tidy(() => {
    throwsWith(() => new sg.optim.LBFGS([sg.zeros([2], { dtype: 'float16', requiresGrad: true })]), 'LBFGS', 'float16', 'float64');
    throwsWith(() => new sg.optim.LBFGS([sg.zeros([2], { requiresGrad: true }), sg.zeros([2], { dtype: 'float64', requiresGrad: true })]),
      'LBFGS', 'float32', 'float64', 'params[1]');
  });
});

test('memory: repeated steps keep sg.memory() flat; dispose() frees the state', () => {
  const c = ref.cases[1];
  const { params, closure } = problem(c);
  const start = sg.memory().tensors;
  const opt = new sg.optim.LBFGS(params, { lr: 0.5, maxIter: 5, historySize: 3 });
  const counts = [];
  for (let k = 0; k < 6; k++) {
    sg.tidy(() => {
      opt.step(closure);
    });
    counts.push(sg.memory().tensors);
  }
  // History full from the second step on: d, prev_flat_grad and 3 + 3 correction vectors.
  assert.deepEqual(counts.slice(1), new Array(5).fill(counts[1]));
  assert.equal(counts[1] - start, 8);
  opt.dispose();
  assert.equal(sg.memory().tensors, start);
  sg.dispose(params);
});

test('stateDict / loadStateDict: a fresh LBFGS continues the same trajectory', () => {
  const c = ref.cases[1];
  const a = problem(c);
  const opt = new sg.optim.LBFGS(a.params, jsOptions(c.options));
  sg.tidy(() => opt.step(a.closure));
  sg.tidy(() => opt.step(a.closure));
  const sd = opt.stateDict();
  assert.deepEqual(Object.keys(sd.state[0]).sort(), ['H_diag', 'd', 'func_evals', 'n_iter', 'old_dirs', 'old_stps', 'prev_flat_grad', 'prev_loss', 'ro', 't']);
  const second = new sg.optim.LBFGS(a.params, jsOptions(c.options));
  second.loadStateDict(sd);
  sg.dispose(sd.state);
  opt.dispose();
  sg.tidy(() => second.step(a.closure));
  a.params.forEach((p, i) => close(Array.from(p.dataSync()), c.steps[2].params[i], Math.max(1e-5, 3 * c.steps[2].spread), `param ${i}`));
  throwsWith(() => second.loadStateDict({ state: { 0: { func_evals: 1, n_iter: 1, d: sg.zeros([3]) } }, param_groups: second.stateDict().param_groups }), 'LBFGS.loadStateDict', 'state[0].d', 'shape [15]');
  // PyTorch's state also carries 'al' (the two-loop recursion's scratch, rebuilt every step):
  // accepted and dropped; any other key is named.
  const groups = second.stateDict().param_groups;
  throwsWith(() => second.loadStateDict({ state: { 0: { func_evals: 1, n_iter: 1, momentum_buffer: 1 } }, param_groups: groups }), "LBFGS.loadStateDict: state[0] has an unknown entry 'momentum_buffer'");
  second.loadStateDict({ state: { 0: { func_evals: 2, n_iter: 1, al: [null, null] } }, param_groups: groups });
  assert.deepEqual(second.stateDict().state[0], { func_evals: 2, n_iter: 1 });
  sg.dispose(a.params);
  second.dispose();
});

test('options and arguments are checked', () => {
  const p = [sg.zeros([2], { requiresGrad: true })];
  throwsWith(() => new sg.optim.LBFGS(p, { lineSearchFn: 'backtracking' }), 'LBFGS', "'lineSearchFn'", "'strong_wolfe'", "'backtracking'");
  throwsWith(() => new sg.optim.LBFGS(p, { historySize: 0 }), 'LBFGS', "'historySize'", 'positive integer');
  throwsWith(() => new sg.optim.LBFGS(p, { lr: -1 }), 'LBFGS: invalid learning rate: -1');
  throwsWith(() => new sg.optim.LBFGS([{ params: p }, { params: [sg.zeros([1], { requiresGrad: true })] }]), 'LBFGS', 'parameter groups');
  const opt = new sg.optim.LBFGS(p);
  assert.equal(opt.defaults.maxEval, 25);
  assert.equal(new sg.optim.LBFGS(p, { maxIter: 7 }).defaults.maxEval, 8);
  throwsWith(() => opt.step(), 'LBFGS.step', 'closure');
  throwsWith(() => opt.step(() => 'x'), 'LBFGS.step', 'closure must return the loss', "'x'");
  sg.dispose(p);
});

test('closed form: a strictly convex quadratic ½xᵀAx − bᵀx reaches x = A⁻¹b (with and without the line search)', () => {
  const n = 5;
  const A = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 4 + i : 1 / (1 + i + j))));
  const b = [1, -2, 0.5, 3, -1];
  // Gaussian elimination in double.
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++)
    for (let r = c + 1; r < n; r++) {
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  const x = new Array(n).fill(0);
  for (let r = n - 1; r >= 0; r--) x[r] = (M[r][n] - M[r].slice(r + 1, n).reduce((s, v, k) => s + v * x[r + 1 + k], 0)) / M[r][r];
  for (const options of [{ lineSearchFn: 'strong_wolfe' }, { lr: 0.2, maxIter: 100 }]) {
    sg.tidy(() => {
      const p = sg.zeros([n], { requiresGrad: true });
      const At = sg.tensor(A);
      const bt = sg.tensor(b);
      const opt = new sg.optim.LBFGS([p], options);
      const closure = () => {
        p.grad = null;
        const loss = p.matmul(At).matmul(p).mul(0.5).sub(bt.matmul(p));
        loss.backward();
        return loss;
      };
      for (let k = 0; k < 3; k++) opt.step(closure);
      // The float32 loss (≈ −1.5, spacing 1.2e-7) stops changing once ½δᵀAδ is below its
      // rounding, |δ| ~ 1e-4: L-BFGS then stops on toleranceChange, as PyTorch's does.
      close(Array.from(p.dataSync()), x, 1e-4, JSON.stringify(options));
      opt.dispose();
    });
  }
});

test('a negative toleranceGrad or toleranceChange is an Error naming it', () => {
  const p = [sg.zeros([2], { requiresGrad: true })];
  throwsWith(() => new sg.optim.LBFGS(p, { toleranceGrad: -1 }), 'LBFGS: invalid toleranceGrad value: -1 (expected a number >= 0)');
  throwsWith(() => new sg.optim.LBFGS(p, { toleranceChange: -1e-3 }), 'LBFGS: invalid toleranceChange value: -0.001 (expected a number >= 0)');
  sg.dispose(p);
});
