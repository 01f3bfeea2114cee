// backward() and sg.autograd.grad called inside a function compiled by sg.compile, on a loss that
// depends on an sg.jsCall result. The trace once gave the callback's placeholders no autograd
// link ("the tensor does not require grad") and gave leaves float32 placeholder gradients
// whatever their dtype; the compiled run must now give the eager run's gradients (float32 and
// float64), checked in float64 against central differences too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, assertMemoryFlat, close, throwsWith, scoped } from './helpers.mjs';

// y = u³ computed in JavaScript (plain doubles, in u's dtype); its vjp g·3u².
let cubeCalls = 0, vjpCalls = 0;
const cubeJs = (u) => (cubeCalls++, sg.tensor(Array.from(u.dataSync(), (v) => v * v * v), { shape: u.shape, dtype: u.dtype }));
const cubeVjp = ({ inputs: [u] }, [g]) => (vjpCalls++, [g.mul(u).mul(u).mul(3)]);
const cube = (u, options = { vjp: cubeVjp }) => sg.jsCall({ shape: u.shape, dtype: u.dtype }, [u], cubeJs, options);

// loss(w, c) = Σ sin((c·w)³) + Σ w²: one path through the callback, one beside it.
const lossOf = (w, c) => cube(w.mul(c)).sin().sum().add(w.mul(w).sum());
const step = (w, c) => {
  const loss = lossOf(w, c);
  loss.backward();
  return loss;
};

const XS = [0.3, -1.2, 0.8, 1 / 3];  // 1/3 is not exact in float32: float32 anywhere shows in float64
const C = 0.7;
const leaf = (dtype, xs = XS) => sg.tensor(xs, { dtype, requiresGrad: true });
const scale = (dtype) => sg.tensor(C, { dtype });

// The gradient `run` leaves in a fresh leaf's .grad (and the loss it returns).
function gradAfter(run, dtype, xs = XS) {
  const w = leaf(dtype, xs);
  const loss = run(w, scale(dtype));
  assert.equal(w.grad.dtype, dtype);
  return { loss: loss.item(), grad: Array.from(w.grad.dataSync()) };
}

for (const [dtype, tol] of [['float32', 1e-6], ['float64', 1e-14]]) {
  test(`${dtype}: backward inside a compiled function through a jsCall gives the eager gradients`, scoped(() => {
    const compiled = sg.compile(step);
    const eager = gradAfter(step, dtype);
    cubeCalls = vjpCalls = 0;
    const traced = gradAfter(compiled, dtype);  // the first call traces, then runs the graph
    assert.deepEqual([cubeCalls, vjpCalls], [1, 1], 'callback and vjp run once per call');
    close(traced.grad, eager.grad, tol);
    close(traced.loss, eager.loss, tol);
    // A replay (no new trace) on other values.
    const other = XS.map((v) => v * -1.5);
    close(gradAfter(compiled, dtype, other).grad, gradAfter(step, dtype, other).grad, tol);
    assert.equal(compiled.stats().compiles, 1);
    // Gradients accumulate over calls, as eagerly.
    const w = leaf(dtype);
    compiled(w, scale(dtype));
    compiled(w, scale(dtype));
    close(Array.from(w.grad.dataSync()), eager.grad.map((g) => 2 * g), tol);
  }));
}

test('float64: the compiled gradient matches central differences of the loss', scoped(() => {
  const compiled = sg.compile(step);
  const got = gradAfter(compiled, 'float64').grad;
  const eps = 1e-6;  // error ~eps² + 1e-16/eps
  const lossAt = (i, d) => sg.tidy(() => lossOf(sg.tensor(XS.map((v, j) => (j === i ? v + d : v)), { dtype: 'float64' }), scale('float64')).item());
  close(got, XS.map((_, i) => (lossAt(i, eps) - lossAt(i, -eps)) / (2 * eps)), 1e-8);
}));

test('{ async: true } with an async callback: backward inside gives the eager gradients, float32 and float64', async () => {
  const cubeAsync = async (u) => cubeJs(u);
  const asyncStep = (w, c) => {
    const loss = cube(w.mul(c), { vjp: cubeVjp }).sin().sum();
    loss.backward();
    return loss;
  };
  const compiled = sg.compile((w, c) => {
    const loss = sg.jsCall({ shape: w.shape, dtype: w.dtype }, [w.mul(c)], cubeAsync, { vjp: cubeVjp }).sin().sum();
    loss.backward();
    return loss;
  }, { async: true });
  for (const [dtype, tol] of [['float32', 1e-6], ['float64', 1e-14]]) {
    let want;
    sg.tidy(() => { want = gradAfter(asyncStep, dtype).grad; });
    const w = leaf(dtype), c = scale(dtype);
    (await compiled(w, c)).dispose();
    assert.equal(w.grad.dtype, dtype);
    close(Array.from(w.grad.dataSync()), want, tol);
    w.dispose();
    c.dispose();
  }
  compiled.clear();
});

test('sg.autograd.grad inside a compiled function through a jsCall, float32 and float64', scoped(() => {
  for (const dtype of ['float32', 'float64']) {
    const fn = (w, c) => sg.autograd.grad(lossOf(w, c), w);
    const compiled = sg.compile(fn);
    const want = Array.from(fn(leaf(dtype), scale(dtype)).dataSync());
    for (let call = 0; call < 2; call++) {
      const g = compiled(leaf(dtype), scale(dtype));
      assert.equal(g.dtype, dtype);
      close(Array.from(g.dataSync()), want, dtype === 'float64' ? 1e-14 : 1e-6);
    }
  }
}));

test("the trace's placeholder gradients take the leaf's dtype", scoped(() => {
  for (const dtype of ['float32', 'float64']) {
    const seen = [];
    // SGD written out: what the trace sees of w.grad (and of sg.autograd.grad's result) is what
    // every call gets, so a float32 placeholder for a float64 leaf would show here.
    const sgd = (w, c) => {
      step(w, c);
      seen.push(w.grad.dtype, sg.autograd.grad(lossOf(w, c), w).dtype);
      return w.detach().sub(w.grad.mul(0.1));
    };
    const compiled = sg.compile(sgd);
    const want = sgd(leaf(dtype), scale(dtype));
    const got = compiled(leaf(dtype), scale(dtype));
    assert.deepEqual(seen, [dtype, dtype, dtype, dtype], 'eager call, then the trace');
    assert.equal(got.dtype, dtype);
    close(Array.from(got.dataSync()), Array.from(want.dataSync()), dtype === 'float64' ? 1e-14 : 1e-6);
  }
}));

test('bad input: a compiled backward through a jsCall without a vjp, or with a wrong one, is a clear Error; the instance stays usable', scoped(() => {
  const noVjp = sg.compile((w, c) => {
    const loss = cube(w.mul(c), { name: 'cubeNoVjp' }).sum();
    loss.backward();
    return loss;
  });
  throwsWith(() => noVjp(leaf('float64'), scale('float64')), "jsCall: cannot differentiate through callback 'cubeNoVjp'", '{ vjp: (residuals, gradOutputs) => gradInputs }');
  const wrongShape = sg.compile((w, c) => {
    const loss = cube(w.mul(c), { vjp: () => [sg.ones([3])], name: 'cubeBadVjp' }).sum();
    loss.backward();
    return loss;
  });
  throwsWith(() => wrongShape(leaf('float32'), scale('float32')), "jsCall: the vjp of callback 'cubeBadVjp'", 'returned a gradient of shape [3]', 'for input 0 of shape [4]');
  // A failed call leaves nothing behind: the leaf has no gradient, and a good function still runs.
  const w = leaf('float32');
  throwsWith(() => noVjp(w, scale('float32')), 'cubeNoVjp');
  assert.equal(w.grad, null);
  close(gradAfter(sg.compile(step), 'float32').grad, gradAfter(step, 'float32').grad, 1e-6);
}));

test('memory stays flat over compiled backward calls through a jsCall', () => {
  const compiled = sg.compile(step);
  const w = leaf('float64'), c = scale('float64');
  assertMemoryFlat(() => sg.tidy(() => {
    w.zeroGrad();
    compiled(w, c);
  }), { warmup: 3, steps: 100 });
  w.zeroGrad();
  compiled.clear();
  w.dispose();
  c.dispose();
});
