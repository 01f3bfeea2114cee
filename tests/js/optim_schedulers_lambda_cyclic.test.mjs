// sg.optim.lrScheduler's LambdaLR, MultiplicativeLR, ConstantLR, PolynomialLR,
// CosineAnnealingWarmRestarts, CyclicLR, SequentialLR and ChainedScheduler against PyTorch
// 1.13's lr sequences (tests/data/schedulers_lambda_cyclic_ref.json from gen_schedulers_lambda_cyclic.py: two
// param groups, 40 steps; CyclicLR's momentum too), closed forms, state dicts and errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith } from './helpers.mjs';
import { readRef } from './gradcheck_helpers.mjs';

const ref = readRef('schedulers_lambda_cyclic_ref.json');
const L = sg.optim.lrScheduler;
const TOL = 1e-12; // Python and V8 compute cos and pow in doubles with possibly different last bits

// The generator's named lambdas, written identically.
const LAMBDAS = {
  'pow0.95': (e) => 0.95 ** e,
  inverse: (e) => 1 / (e + 1),
  'times0.9': () => 0.9,
  alternate: (e) => (e % 2 ? 0.99 : 0.8),
};

function makeOptimizer(spec) {
  const ps = [sg.zeros([3], { requiresGrad: true }), sg.zeros([2], { requiresGrad: true })];
  const opt = new sg.optim[spec.algorithm](ps.map((p, i) => ({ params: [p], lr: spec.groupLrs[i] })), spec.options);
  return { ps, opt };
}

/** Every scheduler from its camelCase options, with PyTorch's positional arguments positional. */
function make(kind, opt, o = {}, lambdas) {
  if (lambdas) {
    const fns = lambdas.map((n) => LAMBDAS[n]);
    return new L[kind](opt, fns.length === 1 ? fns[0] : fns);
  }
  const take = (key) => {
    const { [key]: v, ...rest } = o;
    return [v, rest];
  };
  switch (kind) {
    case 'StepLR':
      return new L.StepLR(opt, ...take('stepSize'));
    case 'MultiStepLR':
      return new L.MultiStepLR(opt, ...take('milestones'));
    case 'ExponentialLR':
      return new L.ExponentialLR(opt, o.gamma);
    case 'CosineAnnealingLR':
      return new L.CosineAnnealingLR(opt, ...take('tMax'));
    case 'CosineAnnealingWarmRestarts':
      return new L.CosineAnnealingWarmRestarts(opt, ...take('t0'));
    case 'CyclicLR': {
      const { baseLr, maxLr, ...rest } = o;
      return new L.CyclicLR(opt, baseLr, maxLr, rest);
    }
    default:
      return new L[kind](opt, o);
  }
}

function makeCase(c, opt) {
  if (c.scheduler === 'SequentialLR') return new L.SequentialLR(opt, c.children.map((ch) => make(ch.scheduler, opt, ch.options)), c.milestones);
  if (c.scheduler === 'ChainedScheduler') return new L.ChainedScheduler(c.children.map((ch) => make(ch.scheduler, opt, ch.options)));
  return make(c.scheduler, opt, c.options, c.lambdas);
}

for (const c of ref.cases) {
  test(`${c.name}: ${c.lrs.length - 1} steps match PyTorch`, () => {
    const { ps, opt } = makeOptimizer(c.optimizer);
    const sched = makeCase(c, opt);
    const lrs = [opt.paramGroups.map((g) => g.lr)];
    const momenta = [opt.paramGroups.map((g) => g.momentum)];
    for (let k = 1; k < c.lrs.length; k++) {
      for (const p of ps) {
        p.grad = sg.fullLike(p, 0.1);
        p.grad.dispose();
      }
      opt.step();
      if (c.epochs) sched.step(c.epochs[k - 1]);
      else sched.step();
      lrs.push(opt.paramGroups.map((g) => g.lr));
      momenta.push(opt.paramGroups.map((g) => g.momentum));
      assert.deepEqual(sched.getLastLr(), lrs[k]);
    }
    close(lrs, c.lrs, TOL);
    if (c.momenta) close(momenta, c.momenta, TOL);
    sg.dispose(ps);
    opt.dispose();
  });
}

test('closed forms: LambdaLR, ConstantLR, PolynomialLR, CosineAnnealingWarmRestarts (tMult 1), CyclicLR triangle', () => {
  const p = sg.zeros([1], { requiresGrad: true });
  const check = (make, closed, steps = 30) => {
    const opt = new sg.optim.SGD([p], { lr: 0.5, momentum: 0.9 });
    const s = make(opt);
    for (let e = 0; e <= steps; e++) {
      close(s.getLastLr()[0], closed(e), 1e-12, `epoch ${e}`);
      s.step();
    }
  };
  check((o) => new L.LambdaLR(o, (e) => 1 / (1 + e)), (e) => 0.5 / (1 + e));
  check((o) => new L.LambdaLR(o, { lrLambda: (e) => 2 ** -e }), (e) => 0.5 * 2 ** -e);
  check((o) => new L.MultiplicativeLR(o, () => 0.8), (e) => 0.5 * 0.8 ** e);
  check((o) => new L.ConstantLR(o, { factor: 0.25, totalIters: 6 }), (e) => (e < 6 ? 0.125 : 0.5));
  check((o) => new L.PolynomialLR(o, { totalIters: 20, power: 3 }), (e) => 0.5 * (1 - Math.min(e, 20) / 20) ** 3);
  check((o) => new L.CosineAnnealingWarmRestarts(o, 8, { etaMin: 0.1 }), (e) => 0.1 + (0.4 * (1 + Math.cos((Math.PI * (e % 8)) / 8))) / 2);
  // A triangle from 0.1 up to 0.5 in 5 steps and down in 5.
  check((o) => new L.CyclicLR(o, 0.1, 0.5, { stepSizeUp: 5 }), (e) => 0.1 + 0.4 * (1 - Math.abs((e % 10) - 5) / 5));
  p.dispose();
});

test('CyclicLR cycles SGD momentum inversely to the lr; Adam needs cycleMomentum false (as PyTorch 1.13)', () => {
  const p = sg.zeros([1], { requiresGrad: true });
  const sgd = new sg.optim.SGD([p], { lr: 0.1, momentum: 0.9 });
  const s = new L.CyclicLR(sgd, { baseLr: 0.01, maxLr: 0.1, stepSizeUp: 2 });
  assert.equal(sgd.paramGroups[0].momentum, 0.9);
  s.step();
  close(sgd.paramGroups[0].lr, 0.055, 1e-15);
  close(sgd.paramGroups[0].momentum, 0.85, 1e-15);
  s.step();
  close(sgd.paramGroups[0].momentum, 0.8, 1e-15);
  const adam = new sg.optim.Adam([p]);
  throwsWith(() => new L.CyclicLR(adam, 0.01, 0.1), 'CyclicLR', 'optimizer must support momentum', 'cycleMomentum: false');
  new L.CyclicLR(adam, 0.01, 0.1, { cycleMomentum: false });
  p.dispose();
});

test('state dicts: a fresh scheduler loaded from stateDict() continues the same sequence', () => {
  const runs = [
    (opt) => new L.LambdaLR(opt, (e) => 0.9 ** e),
    (opt) => new L.PolynomialLR(opt, { totalIters: 12, power: 1.5 }),
    (opt) => new L.CosineAnnealingWarmRestarts(opt, 3, { tMult: 2 }),
    (opt) => new L.CyclicLR(opt, 0.01, 0.2, { stepSizeUp: 3, mode: 'triangular2' }),
    (opt) => new L.SequentialLR(opt, [new L.ConstantLR(opt, { factor: 0.5, totalIters: 3 }), new L.ExponentialLR(opt, 0.8)], [4]),
    (opt) => new L.ChainedScheduler([new L.ConstantLR(opt, { factor: 0.5, totalIters: 3 }), new L.ExponentialLR(opt, 0.8)]),
  ];
  for (const make of runs) {
    const p = sg.zeros([1], { requiresGrad: true });
    const a = new sg.optim.SGD([p], { lr: 0.5, momentum: 0.9 });
    const sa = make(a);
    for (let k = 0; k < 7; k++) sa.step();
    const saved = JSON.parse(JSON.stringify(sa.stateDict())); // plain data: survives a JSON round trip
    const optState = a.stateDict();
    const expected = [];
    for (let k = 0; k < 9; k++) {
      sa.step();
      expected.push(sa.getLastLr()[0]);
    }
    const b = new sg.optim.SGD([p], { lr: 0.5, momentum: 0.9 });
    const sb = make(b);
    b.loadStateDict(optState);
    sb.loadStateDict(saved);
    const got = [];
    for (let k = 0; k < 9; k++) {
      sb.step();
      got.push(sb.getLastLr()[0]);
    }
    close(got, expected, 1e-15, sa.constructor.name);
    sg.dispose([p, optState.state]);
  }
});

test('bad arguments name the scheduler, the argument, what was expected and what was got', () => {
  const p = sg.zeros([1], { requiresGrad: true });
  const opt = new sg.optim.SGD([{ params: [p], lr: 0.1 }], { lr: 0.1, momentum: 0.9 });
  throwsWith(() => new L.LambdaLR(opt, 0.5), 'LambdaLR', 'lrLambda', 'a function', 'got 0.5');
  throwsWith(() => new L.LambdaLR(opt, [() => 1, () => 1]), 'LambdaLR', 'expected 1 lrLambdas', 'got 2');
  throwsWith(() => new L.LambdaLR(opt, () => 'x'), 'LambdaLR', 'lrLambda(0) must return a number', "'x'");
  throwsWith(() => new L.ConstantLR(opt, { factor: 0 }), 'ConstantLR', 'greater than 0', 'got 0');
  throwsWith(() => new L.ConstantLR(opt, { factor: 1.5 }), 'ConstantLR', 'at most 1', '1.5');
  throwsWith(() => new L.PolynomialLR(opt, { totalIters: 0 }), 'PolynomialLR', "'totalIters'", 'integer >= 1', 'got 0');
  throwsWith(() => new L.CosineAnnealingWarmRestarts(opt, 0), 'CosineAnnealingWarmRestarts', 't0', 'positive integer', 'got 0');
  throwsWith(() => new L.CosineAnnealingWarmRestarts(opt, 5, { tMult: 1.5 }), 'CosineAnnealingWarmRestarts', "'tMult'", 'integer >= 1');
  throwsWith(() => new L.CosineAnnealingWarmRestarts(opt, 5).step(-1), 'CosineAnnealingWarmRestarts.step', 'non-negative epoch', 'got -1');
  throwsWith(() => new L.CyclicLR(opt, 0.01, [0.1, 0.2]), 'CyclicLR', 'expected 1 values for maxLr', 'got 2');
  throwsWith(() => new L.CyclicLR(opt, 0.01, 0.1, { mode: 'sine' }), 'CyclicLR', "'mode'", "'triangular'", "'sine'");
  throwsWith(() => new L.CyclicLR(opt, 0.01, 0.1, { stepSizeUp: 0 }), 'CyclicLR', 'stepSizeUp > 0', 'got 0');
  throwsWith(() => new L.CyclicLR(opt, '0.01', 0.1), 'CyclicLR', 'baseLr', 'a number or an array', "'0.01'");
  const other = new sg.optim.SGD([sg.zeros([1], { requiresGrad: true })], { lr: 0.1 });
  throwsWith(() => new L.SequentialLR(opt, [new L.StepLR(opt, 2), new L.StepLR(other, 2)], [3]), 'SequentialLR', 'same optimizer', 'schedulers[1]');
  throwsWith(() => new L.SequentialLR(opt, [new L.StepLR(opt, 2), new L.StepLR(opt, 2)], [3, 4]), 'SequentialLR', 'one more than the number of milestone', '2 schedulers and 2 milestones');
  throwsWith(() => new L.SequentialLR(opt, [new L.ReduceLROnPlateau(opt)], []), 'SequentialLR', 'schedulers[0]', 'ReduceLROnPlateau');
  throwsWith(() => new L.ChainedScheduler([]), 'ChainedScheduler', 'non-empty array');
  throwsWith(() => new L.ChainedScheduler([new L.StepLR(opt, 2), new L.StepLR(other, 2)]), 'ChainedScheduler', 'same optimizer', 'schedulers[1]');
  p.dispose();
});
