// The optimizers' defaults against PyTorch 1.13 (tests/data/optim_sched_defaults_ref.json from
// gen_optim_sched_defaults.py): each made with no options has torch's default hyper-parameters and
// follows torch's trajectory (float64, 3 steps of f(p) = sum([1, 2, 3]·p²) + sum(p)); LBFGS with
// its defaults, and with the strong-Wolfe line search from a step too short (extrapolation and
// the cubic interpolation's bisection fallback).
import test from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, readRef } from './helpers.mjs';

const ref = readRef('optim_sched_defaults_ref.json');
const A = () => sg.tensor([1, 2, 3], { dtype: 'float64' });
const f = (p) => sg.tidy(() => A().mul(p).mul(p).sum().add(p.sum()));

for (const [name, c] of Object.entries(ref.optim)) {
  if (!(name in sg.optim)) continue;
  test(`${name} with no options: torch's defaults and trajectory`, () => {
    const p = sg.tensor([1, -2, 3], { dtype: 'float64', requiresGrad: true });
    const opt = new sg.optim[name]([p]);
    const { params, ...hyper } = opt.paramGroups[0];
    assert.deepEqual(hyper, c.defaults);
    if (name === 'LBFGS') {
      const loss = opt.step(() => {
        opt.zeroGrad();
        const l = f(p);
        l.backward();
        return l;
      });
      const s = c.steps[0];
      close(loss.item(), s.loss, 1e-12);
      close(Array.from(p.dataSync()), s.params, 1e-9);
      const st = opt.stateDict().state[0];
      assert.equal(st.func_evals, s.funcEvals);
      assert.equal(st.n_iter, s.nIter);
    } else {
      for (const expected of c.traj) {
        opt.zeroGrad();
        f(p).backward();
        opt.step();
        close(Array.from(p.dataSync()), expected, 1e-10);
      }
    }
    opt.dispose();
  });
}

test("LBFGS strong Wolfe from lr 0.1 (the search extrapolates; cubic falls back to bisection) follows torch", () => {
  const c = ref.optim.lbfgsWolfe;
  const p = sg.tensor([-1.5, 2], { dtype: 'float64', requiresGrad: true });
  const opt = new sg.optim.LBFGS([p], { lr: 0.1, lineSearchFn: 'strong_wolfe' });
  const { params, ...hyper } = opt.paramGroups[0];
  assert.deepEqual(hyper, c.defaults);
  const closure = () => {
    opt.zeroGrad();
    const l = sg.tidy(() => {
      const [x, y] = [p.narrow(0, 0, 1), p.narrow(0, 1, 1)];
      return sg.tensor([1], { dtype: 'float64' }).sub(x).pow(2).add(y.sub(x.mul(x)).pow(2).mul(100)).sum();
    });
    l.backward();
    return l;
  };
  for (const [k, s] of c.steps.entries()) {
    const loss = opt.step(closure);
    close(loss.item(), s.loss, 1e-9, `step ${k} loss`);
    close(Array.from(p.dataSync()), s.params, 1e-7, `step ${k} params`);
    const st = opt.stateDict().state[0];
    assert.equal(st.func_evals, s.funcEvals, `step ${k} func_evals`);
    assert.equal(st.n_iter, s.nIter, `step ${k} n_iter`);
  }
  opt.dispose();
});
