// sg.autograd.Function: a straight-through estimator and a clamp with a custom gradient against the
// same torch.autograd.Functions in PyTorch 1.13 (tests/data/gen_func.py), saved tensors, null
// gradients, an optional jvp used by sg.func.jvp (checked against its closed form), and errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { close, readRef, sg, throwsWith } from './helpers.mjs';

const ref = readRef('func_ref.json').custom;
const TOL = 2e-5;

class STE extends sg.autograd.Function {
  static forward(ctx, x) {
    return x.round();
  }
  static backward(ctx, g) {
    return g;
  }
}

class SoftClamp extends sg.autograd.Function {
  static forward(ctx, x, lo, hi) {
    ctx.saveForBackward(x);
    ctx.lo = lo;
    ctx.hi = hi;
    return x.clamp(lo, hi);
  }
  static backward(ctx, g) {
    const [x] = ctx.savedTensors;
    const inside = x.ge(ctx.lo).logicalAnd(x.le(ctx.hi));
    return [g.mul(sg.where(inside, 1, 0.1)), null, null];
  }
}

test('a straight-through estimator equals torch.autograd.Function', () => {
  const x = sg.tensor(ref.x, { requiresGrad: true });
  const w = sg.tensor(ref.w);
  const loss = STE.apply(x.mul(1.5)).mul(w).sum();
  close(loss.item(), ref.ste_value, TOL);
  loss.backward();
  close(x.grad.toArray(), ref.ste_grad, TOL);
});

test('a clamp with a custom gradient equals torch.autograd.Function', () => {
  const x = sg.tensor(ref.x, { requiresGrad: true });
  const y = SoftClamp.apply(x, -0.5, 0.5);
  close(y.toArray(), ref.clamp_out, TOL);
  y.square().mul(sg.tensor(ref.w)).sum().backward();
  close(x.grad.toArray(), ref.clamp_grad, TOL);
  // through sg.func.grad as well
  const g = sg.func.grad((x) => SoftClamp.apply(x, -0.5, 0.5).square().mul(sg.tensor(ref.w)).sum())(sg.tensor(ref.x));
  close(g.toArray(), ref.clamp_grad, TOL);
});

test('without inputs that require grad, apply just runs forward', () => {
  const y = STE.apply(sg.tensor([0.4, 2.6]));
  assert.deepEqual(y.toArray(), [0, 3]);
  assert.equal(y.requiresGrad, false);
});

test('with nothing to record, apply returns the very tensor forward made (as torch 1.13: `Fn.apply(x) is made`)', () => {
  // Nothing is recorded when no input requires grad, or under noGrad: torch 1.13 then hands back
  // forward's own result object (checked: `with torch.no_grad(): Dbl.apply(x) is made` is True, and
  // so without grad inputs), where recording would give a new tensor joined to the graph and free the
  // one forward made.
  let made = null;
  class Double extends sg.autograd.Function {
    static forward(ctx, x) {
      made = x.mul(2);
      return made;
    }
    static backward(ctx, g) {
      return g.mul(2);
    }
  }
  const plain = sg.tensor([1, 2]);
  const y = Double.apply(plain); // grad enabled, no input requires grad
  assert.equal(y, made);
  assert.equal(made.isDisposed, false);
  assert.deepEqual(y.toArray(), [2, 4]);
  const x = sg.tensor([1, 2], { requiresGrad: true });
  const z = sg.noGrad(() => Double.apply(x)); // an input requires grad, grad disabled
  assert.equal(z, made);
  assert.equal(made.isDisposed, false);
  assert.equal(z.requiresGrad, false);
  // and where an input requires grad with grad enabled, the result is recorded: a new tensor
  const w = Double.apply(x);
  assert.notEqual(w, made);
  assert.equal(w.requiresGrad, true);
  sg.dispose([plain, y, x, z, w]);
});

test('several outputs, one unused: its gradient arrives as zeros', () => {
  class Split extends sg.autograd.Function {
    static forward(ctx, x) {
      ctx.saveForBackward(x);
      return [x.mul(2), x.square()];
    }
    static backward(ctx, ga, gb) {
      const [x] = ctx.savedTensors;
      return ga.mul(2).add(gb.mul(x).mul(2));
    }
  }
  const x = sg.tensor([1, -3], { requiresGrad: true });
  const [a] = Split.apply(x);
  a.sum().backward();
  assert.deepEqual(x.grad.toArray(), [2, 2]);
});

test('sg.func.jvp uses the static jvp when there is one, the double-VJP of backward otherwise', () => {
  class Cube extends sg.autograd.Function {
    static forward(ctx, x) {
      ctx.saveForBackward(x);
      return x.pow(3);
    }
    static backward(ctx, g) {
      const [x] = ctx.savedTensors;
      return g.mul(x.square()).mul(3);
    }
  }
  const x = sg.tensor([1, 2, -0.5]), v = sg.tensor([1, 0.5, 2]);
  // d(x³) · v = 3x²v
  const want = [3, 6, 1.5];
  close(sg.func.jvp((x) => Cube.apply(x), [x], [v])[1].toArray(), want, 1e-6);
  let used = 0;
  class CubeJvp extends Cube {
    static jvp(ctx, t) {
      used++;
      const [x] = ctx.savedTensors;
      return t.mul(x.square()).mul(3);
    }
  }
  close(sg.func.jvp((x) => CubeJvp.apply(x), [x], [v])[1].toArray(), want, 1e-6);
  assert.equal(used, 1);
  // second derivatives through backward's ops: hessian of sum(x³) = diag(6x)
  close(sg.func.hessian((x) => Cube.apply(x).sum())(x).toArray(), [[6, 0, 0], [0, 12, 0], [0, 0, -3]], 1e-5);
});

test('bad input: forward or backward returning the wrong things, vmap and compile refuse by name', () => {
  class NoTensor extends sg.autograd.Function {
    static forward() {
      return 3;
    }
    static backward(ctx, g) {
      return g;
    }
  }
  throwsWith(() => NoTensor.apply(sg.tensor([1])), 'NoTensor.forward must return a Tensor or an array of Tensors, got 3');
  class WrongCount extends sg.autograd.Function {
    static forward(ctx, x) {
      return x.mul(2);
    }
    static backward(ctx, g) {
      return [g, g];
    }
  }
  const x = sg.tensor([1, 2], { requiresGrad: true });
  throwsWith(() => WrongCount.apply(x).sum().backward(), 'WrongCount.backward returned 2 gradients');
  class WrongShape extends sg.autograd.Function {
    static forward(ctx, x) {
      return x.sum();
    }
    static backward(ctx, g) {
      return g;
    }
  }
  throwsWith(() => WrongShape.apply(x).backward(), 'WrongShape.backward: the gradient of argument 0 has shape [], expected [2]');
  throwsWith(() => sg.func.vmap((r) => STE.apply(r))(sg.ones([3, 2])), 'STE.apply: argument 0 is batched by sg.func.vmap');
  throwsWith(() => sg.compile((t) => STE.apply(t))(x), 'STE.apply: an autograd.Function cannot be traced by sg.compile');
  // the instance is still usable
  x.grad = null;
  STE.apply(x).sum().backward();
  assert.deepEqual(x.grad.toArray(), [1, 1]);
});

test("ctx.needsInputGrad is one boolean per forward argument (PyTorch's ctx.needs_input_grad); a disposed Tensor argument is an Error naming it", () => {
  // torch: Fn.apply(x_requiring_grad, y, 3.0) gives needs_input_grad == (True, False, False).
  let seen = null;
  class Probe extends sg.autograd.Function {
    static forward(ctx, x, y, k) {
      seen = ctx.needsInputGrad.slice();
      return x.mul(y).mul(k);
    }
    static backward(ctx, g) {
      return [g, null, null];
    }
  }
  sg.tidy(() => {
    const x = sg.tensor([1, 2], { requiresGrad: true });
    Probe.apply(x, sg.tensor([3, 4]), 3);
    assert.deepEqual(seen, [true, false, false]);
    Probe.apply(sg.tensor([1, 2]), sg.tensor([3, 4]), 3);
    assert.deepEqual(seen, [false, false, false]);
    const gone = sg.tensor([1, 2]);
    gone.dispose();
    throwsWith(() => Probe.apply(x, gone, 3), 'Probe.apply: argument 1 is a disposed Tensor');
  });
});
