// sg.jsCall: JavaScript callbacks inside compiled graphs (and eagerly outside them). The
// callback never runs while tracing and exactly once per compiled call, in graph order; its
// result is checked against the template; gradients go through its vjp (checked against
// central differences); async callbacks are awaited between the stages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, assertMemoryFlat, close, throwsWith, scoped } from './helpers.mjs';

const f32 = (shape) => ({ shape, dtype: 'float32' });

test('a simple callback: a table lookup in JavaScript inside a compiled function', scoped(() => {
  const table = [10, 20, 30, 40];
  const lookup = (idx) => sg.tensor(Array.from(idx.dataSync(), (i) => table[i]), { shape: idx.shape });
  const f = sg.compile((idx, scale) => sg.jsCall(f32([2, 2]), [idx], lookup).mul(scale));
  const idx = sg.tensor([[0, 3], [2, 1]], { dtype: 'int32' });
  assert.deepEqual(f(idx, sg.tensor(2)).toArray(), [[20, 80], [60, 40]]);
  assert.deepEqual(f(sg.tensor([[1, 1], [0, 0]], { dtype: 'int32' }), sg.tensor(1)).toArray(), [[20, 20], [10, 10]]);
  const s = f.stats();
  assert.equal(s.callbacks, 1);
  assert.equal(s.stages, 2);
  assert.equal(s.compiles, 1);
}));

test('fn never runs while tracing; in a compiled call it runs once, with the real values', scoped(() => {
  const seen = [];
  const cb = (t) => {
    seen.push(t.toArray());
    return t.add(1);
  };
  const f = sg.compile((x) => sg.jsCall(f32([3]), [x.mul(2)], cb).mul(3));
  const x = sg.tensor([1, 2, 3]);
  assert.deepEqual(f(x).toArray(), [9, 15, 21]);
  assert.deepEqual(seen, [[2, 4, 6]]);  // one call, on real values (not the trace's)
  f(sg.tensor([0, 0, 1]));
  assert.deepEqual(seen, [[2, 4, 6], [0, 0, 2]]);
}));

test('several callbacks in one function run in graph order, one stage each', scoped(() => {
  const order = [];
  const f = sg.compile((x) => {
    const a = sg.jsCall(f32([2]), [x], (t) => (order.push('a'), t.add(1)));
    const b = sg.jsCall(f32([2]), [a.mul(10)], (t) => (order.push('b'), t.sub(1)));
    const c = sg.jsCall(f32([2]), [x, b], (u, v) => (order.push('c'), u.add(v)));
    return c;
  });
  assert.deepEqual(f(sg.tensor([1, 2])).toArray(), [1 + 19, 2 + 29]);
  assert.deepEqual(order, ['a', 'b', 'c']);
  assert.equal(f.stats().stages, 4);
  assert.equal(f.stats().callbacks, 3);
}));

test('tuple outputs: an array template gives an array, of mixed dtypes', scoped(() => {
  const split = (t) => {
    const v = t.dataSync();
    return [sg.tensor(Array.from(v, Math.floor)), sg.tensor(Array.from(v, (x) => (x >= 0 ? 1 : -1)), { dtype: 'int32' })];
  };
  const template = [f32([3]), { shape: [3], dtype: 'int32' }];
  const f = sg.compile((x) => {
    const [fl, sign] = sg.jsCall(template, [x], split);
    return [fl.add(1), sign];
  });
  const [a, b] = f(sg.tensor([1.5, -2.5, 3.25]));
  assert.deepEqual(a.toArray(), [2, -2, 4]);
  assert.deepEqual(b.toArray(), [1, -1, 1]);
  assert.equal(b.dtype, 'int32');
  // the same eagerly
  const [c, d] = sg.jsCall(template, [sg.tensor([0.5, -0.5, 2])], split);
  assert.deepEqual(c.toArray(), [0, -1, 2]);
  assert.deepEqual(d.toArray(), [1, -1, 1]);
  // a Tensor as the template gives its shape and dtype
  assert.deepEqual(sg.jsCall(sg.zeros([2]), [], () => sg.ones([2])).toArray(), [1, 1]);
}));

test('static arguments are passed after the tensors; the same (fn, template, statics) keeps its id', scoped(() => {
  const got = [];
  const cb = (t, k, label) => (got.push([k, label]), t.mul(k));
  const f = sg.compile((x) => sg.jsCall(f32([1]), [3, x, 'x3'], cb, { timeoutMs: 1e-9 }));
  const e1 = throwsWith(() => f(sg.tensor([2])), 'jsCall: callback', 'timed out');
  assert.deepEqual(got, [[3, 'x3']]);
  const g = sg.compile((x) => sg.jsCall(f32([1]), [3, x, 'x3'], cb, { timeoutMs: 1e-9 }).add(0));
  const e2 = throwsWith(() => g(sg.tensor([2])), 'timed out');
  const id = (e) => e.message.match(/#(\d+)/)[1];
  assert.equal(id(e1), id(e2));
  const h = sg.compile((x) => sg.jsCall(f32([1]), [4, x, 'x3'], cb, { timeoutMs: 1e-9 }));
  assert.notEqual(id(throwsWith(() => h(sg.tensor([2])), 'timed out')), id(e1));
}));

test('an unused callback still runs once per call; a pure one is dropped, and merged when repeated', scoped(() => {
  let calls = 0, pureCalls = 0;
  const count = (t) => (calls++, t);
  const pure = (t) => (pureCalls++, t.mul(2));
  const f = sg.compile((x) => {
    sg.jsCall(f32([2]), [x], count);
    sg.jsCall(f32([2]), [x], pure, { pure: true });
    return x.add(1);
  });
  f(sg.ones([2]));
  f(sg.ones([2]));
  assert.equal(calls, 2);
  assert.equal(pureCalls, 0);
  assert.equal(f.stats().callbacks, 1);
  const g = sg.compile((x) => sg.jsCall(f32([2]), [x], pure, { pure: true }).add(sg.jsCall(f32([2]), [x], pure, { pure: true })));
  assert.deepEqual(g(sg.tensor([1, 2])).toArray(), [4, 8]);
  assert.equal(pureCalls, 1);
}));

test('recompiles on a new shape (the template follows it)', scoped(() => {
  let traces = 0;
  const f = sg.compile((x) => {
    traces++;
    return sg.jsCall(f32(x.shape), [x], (t) => t.neg());
  });
  assert.deepEqual(f(sg.tensor([1, 2])).toArray(), [-1, -2]);
  assert.deepEqual(f(sg.tensor([[1], [2], [3]])).toArray(), [[-1], [-2], [-3]]);
  assert.deepEqual(f(sg.tensor([5, 6])).toArray(), [-5, -6]);
  assert.equal(traces, 2);
}));

test('the template-mismatch Error shows the template and what came back; nothing leaks', () => {
  const x = sg.tensor([1, 2, 3]);
  const before = sg.memory();
  const cases = [
    [(t) => t.sum(), "got: Tensor { shape: [], dtype: 'float32' }"],
    [(t) => t.int(), "got: Tensor { shape: [3], dtype: 'int32' }"],
    [() => undefined, 'got: undefined'],
    [() => [1, 2, 3], 'got: [1, 2, 3]'],
    [(t) => [t, t], 'got: [Tensor'],
  ];
  for (const [cb, got] of cases) {
    const msg = "jsCall: expected the callback to match the output template { shape: [3], dtype: 'float32' }, ";
    throwsWith(() => sg.compile((t) => sg.jsCall(f32([3]), [t], cb))(x), msg, got);
    throwsWith(() => sg.jsCall(f32([3]), [x], cb), msg, got);
  }
  throwsWith(() => sg.compile((t) => sg.jsCall([f32([3]), f32([1])], [t], (u) => [u]))(x), "template [{ shape: [3], dtype: 'float32' }, { shape: [1], dtype: 'float32' }], got: [Tensor");
  const after = sg.memory();
  assert.equal(after.tensors, before.tensors);
  assert.equal(after.bytes, before.bytes);
  x.dispose();
});

test('an exception in fn fails the call with its message and the original as cause', () => {
  const x = sg.tensor([1, 2]);
  const before = sg.memory();
  const boom = new TypeError('tokenizer exploded');
  const cb = (t) => {
    t.mul(2);  // a temporary: freed all the same
    throw boom;
  };
  const f = sg.compile((t) => sg.jsCall(f32([2]), [t.add(1)], cb).mul(3));
  for (const run of [() => f(x), () => sg.jsCall(f32([2]), [x], cb)]) {
    const e = throwsWith(run, 'jsCall: JavaScript callback raised: tokenizer exploded');
    assert.equal(e.cause, boom);
  }
  // What remains is the graph f keeps (and its constants, the numbers 1 and 3): clear() frees it.
  f.clear();
  assert.equal(sg.memory().tensors, before.tensors);
  assert.equal(sg.memory().bytes, before.bytes);
  // the module stays usable, and the same compiled function works on the next call
  let fail = true;
  const g = sg.compile((t) => sg.jsCall(f32([2]), [t], (u) => { if (fail) throw new Error('once'); return u; }));
  throwsWith(() => g(x), 'raised: once');
  fail = false;
  assert.deepEqual(g(x).toArray(), [1, 2]);
  x.dispose();
});

// x³ computed in JavaScript; its vjp 3x²·g.
const cube = (t) => sg.tensor(Array.from(t.dataSync(), (v) => v ** 3), { shape: t.shape });
const cubeVjp = ({ inputs: [x] }, [g]) => [g.mul(x.square().mul(3))];

/** Central differences of the scalar f at x (float64 steps on float32 values). */
function numericGrad(f, x, eps = 1e-2) {
  const v = x.dataSync();
  return Array.from(v, (_, i) => {
    const at = (d) => sg.tidy(() => {
      const w = Float32Array.from(v);
      w[i] += d;
      return f(sg.tensor(w, { shape: x.shape })).item();
    });
    return (at(eps) - at(-eps)) / (2 * eps);
  });
}

test('vjp: gradients through a callback match central differences, compiled and eager', scoped(() => {
  const loss = (x) => sg.jsCall(f32([4]), [x.mul(0.5)], cube, { vjp: cubeVjp }).sin().sum();
  const compiled = sg.compile(loss);
  const x = sg.tensor([0.3, -1.2, 0.8, 1.5]);
  const expected = numericGrad(compiled, x);
  close(Array.from(sg.grad(compiled)(x).dataSync()), expected, 2e-3);
  close(Array.from(sg.grad(loss)(x).dataSync()), expected, 2e-3);
  // by hand: d/dx sin((x/2)^3) = cos((x/2)^3) · 3(x/2)^2 / 2
  close(Array.from(sg.grad(compiled)(x).dataSync()), Array.from(x.dataSync(), (v) => Math.cos((v / 2) ** 3) * 3 * (v / 2) ** 2 / 2), 1e-5);
}));

test('vjp with several inputs and outputs: one call per backward, null for integer outputs', scoped(() => {
  let vjpCalls = 0;
  const cb = (a, b) => [a.mul(b), a.int(), a.add(b)];
  const vjp = ({ inputs: [a, b], statics }, [gp, gi, gs]) => {
    vjpCalls++;
    assert.equal(gi, null);
    assert.deepEqual(statics, ['s']);
    return [gp.mul(b).add(gs), gp.mul(a).add(gs)];
  };
  const f = sg.compile((a, b) => {
    const [p, , s] = sg.jsCall([f32([2]), { shape: [2], dtype: 'int32' }, f32([2])], [a, b, 's'], (x, y) => cb(x, y), { vjp });
    return p.sum().add(s.mul(2).sum());
  });
  const a = sg.tensor([1, 2], { requiresGrad: true }), b = sg.tensor([3, 5], { requiresGrad: true });
  f(a, b).backward();
  assert.equal(vjpCalls, 1);
  assert.deepEqual(a.grad.toArray(), [3 + 2, 5 + 2]);
  assert.deepEqual(b.grad.toArray(), [1 + 2, 2 + 2]);
}));

test('without a vjp, a gradient through the callback is an Error naming it and the option', scoped(() => {
  const x = sg.tensor([1, 2], { requiresGrad: true });
  const f = sg.compile((t) => sg.jsCall(f32([2]), [t], (u) => u.mul(2), { name: 'scorer' }).sum());
  throwsWith(() => f(x).backward(), "jsCall: cannot differentiate through callback 'scorer' (jsCall #", 'it has no vjp', '{ vjp: (residuals, gradOutputs) => gradInputs }');
  throwsWith(() => sg.jsCall(f32([2]), [x], function named(u) { return u; }).sum().backward(), "callback 'named'", 'no vjp');
  // detached inputs need none
  assert.deepEqual(sg.jsCall(f32([2]), [x.detach()], (u) => u.mul(2)).toArray(), [2, 4]);
  // a vjp that returns the wrong shape or throws is an Error naming the callback
  const bad = (vjp) => sg.jsCall(f32([2]), [x], (u) => u.mul(2), { vjp, name: 'v' }).sum().backward();
  throwsWith(() => bad(() => [sg.ones([3])]), "jsCall: the vjp of callback 'v' returned a gradient of shape [3]", 'for input 0 of shape [2]');
  throwsWith(() => bad(() => { throw new Error('nope'); }), "jsCall: the vjp of callback 'v' raised: nope");
  throwsWith(() => bad(() => [1, 2]), "the vjp of callback 'v' raised: expected 1 gradient");
}));

test('async callbacks are awaited between the stages; calls may overlap', async () => {
  const log = [];
  const fetchScore = async (t) => {
    log.push('start');
    await new Promise((r) => setTimeout(r, 5));
    log.push('end');
    return t.mul(10);
  };
  const f = sg.compile((x) => sg.jsCall(f32([2]), [sg.jsCall(f32([2]), [x.add(1)], fetchScore)], fetchScore).sub(1), { async: true });
  const p = f(sg.tensor([1, 2]));
  assert.ok(p instanceof Promise);
  assert.deepEqual((await p).toArray(), [199, 299]);
  assert.deepEqual(log, ['start', 'end', 'start', 'end']);
  const [a, b] = await Promise.all([f(sg.tensor([0, 0])), f(sg.tensor([1, 1]))]);
  assert.deepEqual(a.toArray(), [99, 99]);
  assert.deepEqual(b.toArray(), [199, 199]);
  // a sync callback in an async function works too
  const g = sg.compile((x) => sg.jsCall(f32([2]), [x], (t) => t.neg()), { async: true });
  assert.deepEqual((await g(sg.tensor([1, 2]))).toArray(), [-1, -2]);
  sg.dispose([a, b]);
});

test('timeoutMs rejects with an Error naming the callback; a Promise where none is awaited is an Error', async () => {
  const slow = async (t) => {
    await new Promise((r) => setTimeout(r, 100));
    return t;
  };
  const f = sg.compile((x) => sg.jsCall(f32([1]), [x], slow, { timeoutMs: 10, name: 'slowServer' }), { async: true });
  const x = sg.tensor([1]);
  const before = sg.memory();
  await assert.rejects(f(x), /jsCall: callback 'slowServer' \(jsCall #\d+\) timed out after 10 ms/);
  await assert.rejects(sg.compile((t) => sg.jsCall(f32([1]), [t], async () => { throw new Error('offline'); }), { async: true })(x), (e) => e.message === 'jsCall: JavaScript callback raised: offline' && e.cause.message === 'offline');
  throwsWith(() => sg.compile((t) => sg.jsCall(f32([1]), [t], slow))(x), "jsCall: callback 'slow'", 'returned a Promise', '{ async: true }');
  throwsWith(() => sg.jsCall(f32([1]), [x], slow), 'returned a Promise', 'only a function compiled with sg.compile(fn, { async: true })');
  await new Promise((r) => setTimeout(r, 120));  // the abandoned callbacks settle
  assert.equal(sg.memory().tensors, before.tensors);
  x.dispose();
});

test('a callback in a compiled training step: a reward from JavaScript weighting the loss', scoped(() => {
  // REINFORCE-like: the policy's log-probabilities weighted by rewards a JS function computes
  // from the sampled actions (not differentiable: it takes the argmax, an int tensor).
  const reward = (actions) => sg.tensor(Array.from(actions.dataSync(), (a) => (a === 1 ? 1 : -0.5)));
  const make = () => {
    sg.manualSeed(5);
    const policy = new sg.nn.Linear(4, 3);
    return { policy, opt: new sg.optim.SGD(policy.parameters(), { lr: 0.1 }) };
  };
  const step = ({ policy, opt }, x, call) => {
    opt.zeroGrad();
    const logp = policy(x).logSoftmax(1);
    const actions = logp.argmax(1);
    const r = call(f32([x.shape[0]]), [actions], reward);
    const loss = logp.max(1).mul(r).mean().neg();
    loss.backward();
    opt.step();
    return loss;
  };
  const e = make(), c = make();
  const compiled = sg.compile((x) => step(c, x, sg.jsCall));
  const x = sg.randn([6, 4]);
  for (let i = 0; i < 4; i++) {
    const le = step(e, x, sg.jsCall);
    const lc = compiled(x);
    close(lc.item(), le.item(), 1e-6);
  }
  assert.equal(compiled.stats().stages, 2);
  e.policy.parameters().forEach((p, k) => close(c.policy.parameters()[k].toArray(), p.toArray(), 1e-6));
}));

test('bad input: templates, fn, args and options', () => {
  const x = sg.tensor([1]);
  const before = sg.memory();
  const id = (t) => t;
  throwsWith(() => sg.jsCall({ shape: [-1] }, [x], id), 'jsCall: expected outputTemplate.shape[0] to be a non-negative integer, got -1');
  throwsWith(() => sg.jsCall({ shape: [1.5] }, [x], id), 'outputTemplate.shape[0]', 'non-negative integer, got 1.5');
  throwsWith(() => sg.jsCall({ shape: [2], dtype: 'complex64' }, [x], id), "jsCall: expected outputTemplate.dtype to be one of 'float32', 'int32', 'bool', 'float16'", "got 'complex64'");
  throwsWith(() => sg.jsCall([{ shape: [1] }, { shape: 'x' }], [x], id), 'jsCall: expected outputTemplate[1].shape to be an array of sizes');
  throwsWith(() => sg.jsCall(7, [x], id), 'jsCall: expected outputTemplate to be a Tensor or a { shape, dtype } spec, got 7');
  throwsWith(() => sg.jsCall({ shape: [1], dtyp: 'int32' }, [x], id), "jsCall: unknown key 'dtyp' in outputTemplate");
  throwsWith(() => sg.jsCall({ shape: [1] }, [x], 'fn'), 'jsCall: expected fn to be a function');
  throwsWith(() => sg.jsCall({ shape: [1] }, x, id), 'jsCall: expected args to be an array');
  throwsWith(() => sg.jsCall({ shape: [1] }, [x], id, { pure: 1 }), 'jsCall', 'pure');
  throwsWith(() => sg.jsCall({ shape: [1] }, [x], id, { timeoutMs: -5 }), 'jsCall', 'timeoutMs', 'positive number');
  throwsWith(() => sg.jsCall({ shape: [1] }, [x], id, { vjp: 3 }), 'jsCall', 'vjp');
  throwsWith(() => sg.jsCall({ shape: [1] }, [x], id, { retries: 3 }), 'jsCall', 'retries');
  const gone = sg.tensor([1]);
  gone.dispose();
  throwsWith(() => sg.jsCall({ shape: [1] }, [gone], id), 'jsCall: args[0] is a disposed Tensor');
  throwsWith(() => sg.compile((t) => sg.jsCall({ shape: [-2] }, [t], id))(x), 'outputTemplate.shape[0]');
  assert.equal(sg.memory().tensors, before.tensors);
  assert.equal(sg.memory().bytes, before.bytes);
  x.dispose();
});

test('many compiled calls with callbacks keep sg.memory() flat', () => {
  const f = sg.compile((x) => sg.jsCall(f32([64]), [x.exp()], (t) => t.mul(2).add(1)).sum());
  const x = sg.randn([64]);
  const run = () => sg.tidy(() => void f(x));
  assertMemoryFlat(run, { warmup: 3, steps: 300 });
  f.clear();
  x.dispose();
});

// Gradients through a callback in every floating dtype: the vjp gets the output's gradient in the
// output's dtype and the input's gradient arrives in the input's dtype (the node once linked only
// float32 outputs: a float64 call's results did not require grad, its input got no gradient).
const BACKENDS = ['reference', 'wasm'];
const onBackends = (body) => () => {
  const previous = sg.getBackend();
  try {
    for (const b of BACKENDS) {
      sg.setBackend(b);
      sg.tidy(() => body(b));
    }
  } finally {
    sg.setBackend(previous);
  }
};
// y = x² computed in JavaScript (plain doubles, in the input's dtype), its vjp g·2x; the loss
// sum(sin(y)) has the closed-form gradient cos(x²)·2x.
const squareJs = (u) => sg.tensor(Array.from(u.dataSync(), (v) => v * v), { shape: u.shape, dtype: u.dtype });
const squareLoss = (seen) => (x) =>
  sg.jsCall({ shape: x.shape, dtype: x.dtype }, [x], squareJs, {
    vjp: ({ inputs: [u] }, [g]) => (seen?.push(g.dtype), [g.mul(u).mul(2)]),
  }).sin().sum();

test('vjp in float64: eager and compiled gradients are float64, equal to cos(x²)·2x and to central differences', onBackends((backend) => {
  const xs = [0.1, -1.3, 2.7, 1 / 3];  // none exact in float32: float32 anywhere shows as ~1e-8 errors
  const exact = xs.map((v) => Math.cos(v * v) * 2 * v);
  const seen = [];
  const loss = squareLoss(seen);
  const compiled = sg.compile(loss);
  // (sg.grad takes float32 arguments only: backward on a float64 leaf instead)
  const gradOf = (f) => {
    const x = sg.tensor(xs, { dtype: 'float64', requiresGrad: true });
    f(x).backward();
    assert.equal(x.grad.dtype, 'float64', backend);
    return Array.from(x.grad.dataSync());
  };
  close(gradOf(loss), exact, 1e-13);
  close(gradOf(compiled), exact, 1e-13);
  const eps = 1e-6;  // central differences in float64: error ~eps² + 1e-16/eps
  const at = (i, d) => compiled(sg.tensor(xs.map((v, j) => (j === i ? v + d : v)), { dtype: 'float64' })).item();
  close(gradOf(compiled), xs.map((_, i) => (at(i, eps) - at(i, -eps)) / (2 * eps)), 1e-8);
  assert.deepEqual(seen, ['float64', 'float64', 'float64'], backend);
}));

test('vjp in float16 and bfloat16: the gradient is the float32 one rounded, in the input dtype, eager and compiled', onBackends((backend) => {
  // y = x² · c with the vjp g·2x: products of half-precision values are exact in float32, so the
  // half-precision gradient is the float32 one rounded once.
  const xs = [0.5, -1.25, 2, 0.75, -3.5], cs = [1.5, -0.625, 3, 0.3, 7.1];
  const lossOf = (x, c) => sg.jsCall({ shape: x.shape, dtype: x.dtype }, [x], squareJs, {
    vjp: ({ inputs: [u] }, [g]) => (assert.equal(g.dtype, u.dtype), [g.mul(u).mul(2)]),
  }).mul(c).sum();
  for (const dtype of ['float16', 'bfloat16']) {
    const c = sg.tensor(cs).to(dtype);
    // float32 on the same (rounded) values, then rounded to dtype
    const g32 = sg.grad((x) => lossOf(x, c.float()))(sg.tensor(xs).to(dtype).float());
    const want = Array.from(g32.to(dtype).float().dataSync());
    assert.notDeepEqual(want, Array.from(g32.dataSync()), `${dtype}: the rounding shows`);
    const loss = (x) => lossOf(x, c);
    for (const f of [loss, sg.compile(loss)]) {
      const x = sg.tensor(xs).to(dtype).requiresGrad_();
      f(x).backward();
      assert.equal(x.grad.dtype, dtype, `${backend} ${dtype}`);
      assert.deepEqual(Array.from(x.grad.float().dataSync()), want, `${backend} ${dtype}`);
    }
  }
}));

test('vjp with outputs of several floating dtypes: each gradient in its own dtype, one vjp call', onBackends(() => {
  const calls = [];
  const cb = (a, b, d) => [a.mul(2), b.mul(3), d.mul(d)];
  const vjp = ({ inputs: [a, b, d] }, [ga, gb, gd]) => (calls.push([ga.dtype, gb.dtype, gd.dtype]), [ga.float().mul(2), gb.mul(3), gd.mul(d).mul(2)]);  // a float32 gradient for a: cast to float16
  const loss = (a, b, d) => {
    const [p, q, r] = sg.jsCall([{ shape: [2], dtype: 'float16' }, { shape: [2], dtype: 'bfloat16' }, { shape: [2], dtype: 'float64' }], [a, b, d], cb, { vjp });
    return p.float().sum().add(q.float().mul(5).sum()).add(r.sum().float());
  };
  for (const f of [loss, sg.compile(loss)]) {
    const a = sg.tensor([1, 2], { dtype: 'float16', requiresGrad: true });
    const b = sg.tensor([3, 4], { dtype: 'bfloat16', requiresGrad: true });
    const d = sg.tensor([0.1, -0.7], { dtype: 'float64', requiresGrad: true });
    f(a, b, d).backward();
    assert.deepEqual([a.grad.dtype, b.grad.dtype, d.grad.dtype], ['float16', 'bfloat16', 'float64']);
    assert.deepEqual(Array.from(a.grad.float().dataSync()), [2, 2]);
    assert.deepEqual(Array.from(b.grad.float().dataSync()), [15, 15]);
    close(Array.from(d.grad.dataSync()), [0.2, -1.4], 1e-15);
  }
  assert.deepEqual(calls, [['float16', 'bfloat16', 'float64'], ['float16', 'bfloat16', 'float64']]);
  const d = sg.tensor([1, 2], { dtype: 'float64', requiresGrad: true });
  throwsWith(() => sg.jsCall({ shape: [2], dtype: 'float64' }, [d], (u) => u.mul(2), { vjp: () => [sg.tensor([1, 2], { dtype: 'int32' })], name: 'v' }).sum().backward(),
    "jsCall: the vjp of callback 'v' returned a gradient of shape [2] (int32) for input 0 of shape [2] (float64)");
}));

test('a synchronous callback times out only when it takes longer than timeoutMs (a fake clock)', scoped(() => {
  // performance.now() replaced by a clock that only the callbacks move: the first takes exactly
  // timeoutMs and gives its result, the second 1 ms more and is an Error naming it. The clock
  // starts far from 0, so the elapsed time is end − start, not anything involving the start alone.
  let t = 5000;
  performance.now = () => t;
  try {
    const x = sg.tensor([2]);
    const within = sg.jsCall(f32([1]), [x], (a) => ((t += 10), a.mul(3)), { timeoutMs: 10 });
    assert.deepEqual(within.toArray(), [6]);
    const before = sg.memory().tensors;
    throwsWith(() => sg.jsCall(f32([1]), [x], (a) => ((t += 11), a.mul(3)), { timeoutMs: 10, name: 'slow' }),
      "jsCall: callback 'slow'", 'timed out after 10 ms');
    assert.equal(sg.memory().tensors, before, 'the late result is freed');
  } finally {
    delete performance.now; // the prototype's again
  }
}));
