// sg.func.jvp's forward-mode rules (npm/src/func/jvp_rules.ts), one op at a time in float64:
// the rule's tangent against the double-VJP identity (the same function with an identity clamp
// appended, an op without a rule, so jvp takes the double-VJP) and against central differences.
// That the rule itself ran is shown by sg.compile: a jvp by forward mode traces into a compiled
// graph, while the double-VJP (createGraph) is refused inside sg.compile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { close, sg } from './helpers.mjs';

const D = (a) => sg.tensor(a, { dtype: 'float64' });

/** Deterministic values in [lo, hi) (a linear congruential sequence), nested to `shape`. */
function values(shape, seed, lo = -1, hi = 1) {
  let s = seed * 2654435761 % 4294967296;
  const n = shape.reduce((a, b) => a * b, 1);
  const flat = Array.from({ length: n }, () => {
    s = (1664525 * s + 1013904223) % 4294967296;
    return lo + (hi - lo) * (s / 4294967296);
  });
  const nest = (dims, off) => (dims.length === 0 ? flat[off] : Array.from({ length: dims[0] }, (_, i) => nest(dims.slice(1), off + i * dims.slice(1).reduce((a, b) => a * b, 1))));
  return nest(shape, 0);
}

function check(name, f, shapes, { lo = -1, hi = 1, compiled = true } = {}) {
  const xs = shapes.map((s, i) => D(values(s, i + 1, lo, hi)));
  const vs = shapes.map((s, i) => D(values(s, i + 101)));
  const [out, t] = sg.func.jvp(f, xs, vs);
  assert.deepEqual(t.shape, out.shape, `${name}: tangent shape`);
  const [, t2] = sg.func.jvp((...a) => f(...a).clamp(-1e300, 1e300), xs, vs);
  close(t.toArray(), t2.toArray(), 1e-10, `${name} (rule vs double-VJP)`);
  const h = 1e-6;
  const at = (sign) => sg.noGrad(() => f(...xs.map((x, i) => x.add(vs[i].mul(sign * h)))));
  const fd = at(1).sub(at(-1)).div(2 * h);
  close(t.toArray(), fd.toArray(), 1e-6, `${name} (rule vs central differences)`);
  if (compiled) {
    const cj = sg.compile((...a) => sg.func.jvp(f, a.slice(0, xs.length), a.slice(xs.length))[1]);
    close(cj(...xs, ...vs).toArray(), t.toArray(), 1e-12, `${name} (compiled)`);
  }
}

test('pointwise rules: add, sub, mul, div (broadcast, one or both tangents), neg and the unary functions', () => {
  check('add', (a, b) => a.add(b), [[3, 4], [4]]);
  check('add (one tangent)', (a) => a.add(D(values([4], 7))), [[3, 4]]);
  check('add (tangent on the broadcast side)', (b) => D(values([3, 4], 7)).add(b), [[4]]);
  check('sub', (a, b) => a.sub(b), [[3, 1], [3, 4]]);
  check('mul', (a, b) => a.mul(b), [[3, 4], [3, 4]]);
  check('mul by a number', (a) => a.mul(2.5), [[5]]);
  check('div', (a, b) => a.div(b), [[3, 4], [4]], { lo: 0.5, hi: 2 });
  check('neg', (a) => a.neg(), [[4]]);
  for (const op of ['tanh', 'sigmoid', 'exp', 'square', 'sin', 'cos', 'silu', 'relu', 'abs']) {
    check(op, (a) => a[op](), [[2, 5]]);
  }
  for (const op of ['log', 'sqrt', 'reciprocal']) check(op, (a) => a[op](), [[2, 5]], { lo: 0.5, hi: 2 });
  check('gelu', (a) => sg.F.gelu(a), [[2, 5]]);
});

test('products and layers: matmul, linear (with bias, relu and gelu activations), softmax, logSoftmax', () => {
  check('matmul', (a, b) => a.matmul(b), [[3, 4], [4, 2]]);
  check('matmul batched', (a, b) => a.matmul(b), [[2, 3, 4], [4, 2]]);
  check('linear', (x, w, b) => sg.F.linear(x, w, b), [[3, 4], [5, 4], [5]]);
  check('linear (input only)', (x) => sg.F.linear(x, D(values([5, 4], 9)), D(values([5], 10))), [[3, 4]]);
  check('linear + relu', (x, w) => sg.F.linear(x, w, null, { activation: 'relu' }), [[3, 4], [5, 4]]);
  check('linear + gelu', (x, w) => sg.F.linear(x, w, null, { activation: 'gelu' }), [[3, 4], [5, 4]]);
  check('softmax', (a) => a.softmax(1), [[3, 4]]);
  check('logSoftmax', (a) => a.logSoftmax(-1), [[3, 4]]);
  check('an MLP', (x) => sg.F.linear(sg.F.linear(x, D(values([6, 4], 3)), D(values([6], 4))).tanh(), D(values([2, 6], 5))).logSoftmax(1), [[3, 4]]);
});

test('linear-in-the-input rules: shape ops, reductions, copies, joins, where', () => {
  check('sum', (a) => a.sum(1), [[3, 4]]);
  check('sum all', (a) => a.sum(), [[3, 4]]);
  check('mean keepdim', (a) => a.mean(0, true), [[3, 4]]);
  check('reshape', (a) => a.reshape([4, 3]).mul(a.reshape([4, 3])), [[3, 4]]);
  check('transpose / permute', (a) => a.transpose(0, 1).matmul(a.permute(0, 1)), [[3, 4]]);
  check('unsqueeze / squeeze / flatten', (a) => a.unsqueeze(1).squeeze(1).flatten().square(), [[3, 4]]);
  check('expand', (a) => a.expand([3, 4]).mul(D(values([3, 4], 8))), [[1, 4]]);
  check('narrow / select', (a) => a.narrow(1, 1, 2).mul(a.select(0, 1).narrow(0, 0, 2)), [[3, 4]]);
  check('cumsum', (a) => a.cumsum(1).square(), [[4, 4]]);
  check('chunk and cat', (a) => sg.cat(a.chunk(2, 1).map((c, i) => c.mul(i + 1)), 0), [[3, 4]]);
  check('stack', (a, b) => sg.stack([a, b.exp()], 0), [[3], [3]]);
  check('indexSelect / gather', (a) => a.indexSelect(0, sg.tensor([2, 0], { dtype: 'int32' })).add(a.gather(0, sg.tensor([[1, 0, 2, 1]], { dtype: 'int32' }))), [[3, 4]]);
  check('where with a comparison mask', (a) => sg.where(a.gt(0), a.square(), a.mul(3)), [[3, 4]]);
});

test('linear rules of ops float64 lacks, in float32: the rule against the double-VJP', () => {
  const x = sg.tensor(values([1, 2, 4, 4], 1)), v = sg.tensor(values([1, 2, 4, 4], 2));
  const fs = {
    flip: (a) => a.flip(2).square(),
    roll: (a) => a.roll(1, 3).square(),
    repeat: (a) => a.repeat(1, 1, 2, 1).square(),
    tril: (a) => a.tril().add(a.triu(1).mul(2)).square(),
    pools: (a) => sg.F.avgPool2d(a, 2).add(sg.F.adaptiveAvgPool2d(a, [2, 2])).square(),
    split: (a) => sg.cat(a.split(1, 1).map((c, i) => c.mul(i + 2)), 3).square(),
    copies: (a) => a.view([2, 16]).contiguous().clone().square(),
  };
  for (const [name, f] of Object.entries(fs)) {
    const t = sg.func.jvp(f, [x], [v])[1];
    const t2 = sg.func.jvp((a) => f(a).clamp(-1e30, 1e30), [x], [v])[1];
    close(t.toArray(), t2.toArray(), 1e-5, `${name} (rule vs double-VJP)`);
    const cj = sg.compile((a, b) => sg.func.jvp(f, [a], [b])[1]);
    close(cj(x, v).toArray(), t.toArray(), 1e-6, `${name} (compiled)`);
  }
});

test('what forward mode cannot follow takes the double-VJP: an op without a rule, a gradient inside, a vmap inside', () => {
  const x = D(values([4], 1)), v = D(values([4], 2));
  // maximum has no rule: jvp still equals central differences
  const f = (a) => a.maximum(a.mul(0.5)).sin();
  const h = 1e-6;
  const fd = f(x.add(v.mul(h))).sub(f(x.sub(v.mul(h)))).div(2 * h);
  close(sg.func.jvp(f, [x], [v])[1].toArray(), fd.toArray(), 1e-6);
  // jvp(grad(g)) is the Hessian-vector product (forward-over-reverse)
  const g = (a) => a.sin().mul(a).sum();
  const hv = sg.func.jvp(sg.func.grad(g), [x], [v])[1];
  const H = sg.func.hessian(g)(x);
  close(hv.toArray(), H.matmul(v).toArray(), 1e-10);
  // a vmap inside the function
  const rows = D(values([3, 4], 3)), vr = D(values([3, 4], 4));
  const fv = (a) => sg.func.vmap((r) => r.tanh().sum())(a);
  const fdv = fv(rows.add(vr.mul(h))).sub(fv(rows.sub(vr.mul(h)))).div(2 * h);
  close(sg.func.jvp(fv, [rows], [vr])[1].toArray(), fdv.toArray(), 1e-6);
  // an autograd.Function keeps its own backward (a straight-through round: identity gradient)
  class RoundSTE extends sg.autograd.Function {
    static forward(_ctx, a) { return a.round(); }
    static backward(_ctx, g) { return g; }
  }
  const xf = sg.tensor(values([4], 1)), vf = sg.tensor(values([4], 2)); // round has float32 kernels only
  close(sg.func.jvp((a) => RoundSTE.apply(a).mul(2), [xf], [vf])[1].toArray(), vf.mul(2).toArray(), 1e-6);
  // a JavaScript node (sg.jsCall with its vjp): results made in JavaScript carry no tangent
  const viaJs = (a) => sg.jsCall({ shape: [4], dtype: 'float32' }, [a], (t) => t.mul(3), { vjp: (_residuals, [g]) => [g.mul(3)] });
  close(sg.func.jvp(viaJs, [xf], [vf])[1].toArray(), vf.mul(3).toArray(), 1e-6);
  // and the op without a rule is still refused inside sg.compile, by name
  const cj = sg.compile((a, b) => sg.func.jvp(f, [a], [b])[1]);
  assert.throws(() => cj(x, v), /createGraph \(double backward\) is not supported inside sg\.compile/);
});

test('jvp inside vmap (tangents batched, primal not): each sample its own directional derivative', () => {
  const W = D(values([5, 4], 1)), x = D(values([4], 2));
  const V = D(values([3, 4], 3));
  const f = (a) => sg.F.linear(a, W).tanh();
  const got = sg.func.vmap((v) => sg.func.jvp(f, [x], [v])[1], { inDims: 0 })(V);
  const want = [0, 1, 2].map((i) => sg.func.jvp(f, [x], [V.select(0, i)])[1].toArray());
  close(got.toArray(), want, 1e-12);
});

test('forward mode is differentiable by an outer transform, and keeps the tensor count flat', () => {
  // d/dx of <jvp(f)(x; v), 1> for f = sum(sin(x)·x): H v summed, by reverse mode over forward mode
  const g = (a) => a.sin().mul(a).sum();
  const x = D(values([4], 1)), v = D(values([4], 2));
  const outer = sg.func.grad((a) => sg.func.jvp(g, [a], [v])[1])(x);
  close(outer.toArray(), sg.func.hessian(g)(x).matmul(v).toArray(), 1e-10);
  const run = () => sg.tidy(() => {
    sg.func.jvp((a) => sg.F.linear(a, D(values([5, 4], 1))).relu().sum(), [x], [v]);
  });
  run();
  const before = sg.memory().tensors;
  for (let i = 0; i < 5; i++) run();
  assert.equal(sg.memory().tensors, before);
});

test('jacfwd by forward mode (vmap of jvp over the basis) equals jacrev, compiles, and falls back where it must', () => {
  const W = D(values([3, 4], 5));
  const f = (x, b) => sg.F.linear(x, W, b).tanh().softmax(-1);
  const x = D(values([2, 4], 6)), b = D(values([3], 7));
  for (const argnums of [0, 1]) {
    const jf = sg.func.jacfwd(f, { argnums })(x, b), jr = sg.func.jacrev(f, { argnums })(x, b);
    assert.deepEqual(jf.shape, jr.shape);
    close(jf.toArray(), jr.toArray(), 1e-12, `argnums ${argnums}`);
  }
  const [j0, j1] = sg.func.jacfwd(f, { argnums: [0, 1] })(x, b);
  close(j0.toArray(), sg.func.jacrev(f)(x, b).toArray(), 1e-12);
  close(j1.toArray(), sg.func.jacrev(f, { argnums: 1 })(x, b).toArray(), 1e-12);
  // inside sg.compile (the double-VJP would be refused there)
  const cf = sg.compile((x, b) => sg.func.jacfwd(f)(x, b));
  close(cf(x, b).toArray(), j0.toArray(), 1e-12);
  // an op without a rule: the double-VJP path, same Jacobian
  const g = (x) => x.maximum(x.mul(0.5)).sin();
  const xv = D(values([4], 8));
  close(sg.func.jacfwd(g)(xv).toArray(), sg.func.jacrev(g)(xv).toArray(), 1e-12);
  // hessian = jacfwd(jacrev(f)): jacrev's backward passes make jacfwd take the double-VJP
  const s = (x) => x.sin().mul(x).sum();
  const H = sg.func.hessian(s)(xv).toArray();
  const xs = xv.toArray();
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) close(H[i][j], i === j ? 2 * Math.cos(xs[i]) - xs[i] * Math.sin(xs[i]) : 0, 1e-12);
});
