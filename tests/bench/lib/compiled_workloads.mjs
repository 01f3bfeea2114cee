// Workloads of the compiled-vs-eager benchmark (tests/bench/compiled.mjs): each builds, over one
// set of tensors, an eager step and the same step under sg.compile. A workload is
// { name, desc, setup(sg, side = 'both' | 'eager' | 'compiled') → { eager(), compiled(), check(), dispose() } }
// (a side: only what that side's step needs, for its peak memory): eager() and
// compiled() run one step (inside the runner's tidy), check() returns [eager, compiled]
// Float32Arrays computed from the same state, compared before timing.
import { labels, normal, uniform } from './data.mjs';

const ADAM = { lr: 1e-3, betas: [0.9, 0.999], eps: 1e-8 };

/** Two copies of an MLP with the same weights, each with its Adam: eager and compiled twins. */
function mlp(name, desc, sizes, batch) {
  return {
    name,
    desc,
    setup(sg, side = 'both') {
      const params = [];
      for (let i = 0; i + 1 < sizes.length; i++) {
        const bound = 1 / Math.sqrt(sizes[i]);
        params.push(uniform(sizes[i + 1] * sizes[i], 10 + 2 * i, bound), uniform(sizes[i + 1], 11 + 2 * i, bound));
      }
      const build = () => {
        const layers = [];
        for (let i = 0; i + 1 < sizes.length; i++) {
          if (i) layers.push(new sg.nn.ReLU());
          layers.push(new sg.nn.Linear(sizes[i], sizes[i + 1]));
        }
        const model = new sg.nn.Sequential(...layers);
        const sd = Object.fromEntries(model.namedParameters().map(([n, p], k) => [n, sg.tensor(params[k], { shape: p.shape })]));
        model.loadStateDict(sd);
        sg.dispose(Object.values(sd));
        return { model, opt: new sg.optim.Adam(model.parameters(), ADAM) };
      };
      const x = sg.tensor(normal(batch * sizes[0], 5), { shape: [batch, sizes[0]] });
      const y = sg.tensor(labels(batch, sizes.at(-1), 6), { shape: [batch], dtype: 'int32' });
      const step = ({ model, opt }) => {
        opt.zeroGrad();
        const loss = sg.F.crossEntropy(model(x), y);
        loss.backward();
        opt.step();
        return loss;
      };
      // The peak-memory processes build only their side's twin (the other's weights would count in
      // the memory at rest of both).
      const e = side === 'compiled' ? null : build();
      const c = side === 'eager' ? null : build();
      const compiledStep = sg.compile(() => step(c));
      const floor = combined(matmulFloor(sg, mlpProducts(sizes, batch)), adamFloor(sg, params.map((p) => p.length)));
      return {
        eager: () => void step(e),
        floor,
        compiled: () => void compiledStep(),
        // Same state, same first step: the losses agree.
        check: () => {
          const le = step(e).dataSync(), lc = compiledStep().dataSync();
          return [le, lc];
        },
        stats: () => compiledStep.stats(),
        dispose: () => {
          compiledStep.clear();
          floor.dispose();
          for (const s of [e, c].filter(Boolean)) {
            s.opt.zeroGrad();
            s.opt.dispose?.();
            sg.dispose(s.model.parameters());
          }
          sg.dispose([x, y]);
        },
      };
    },
  };
}

/** Single-head attention forward + backward (the tfjs-comparison workload, bench/lib/workloads.mjs), batch b, t tokens, d dm. */
const attention = (name, desc, [b, t, dm]) => ({
  name,
  desc,
  setup(sg) {
    const x = sg.tensor(normal(b * t * dm, 30), { shape: [b, t, dm], requiresGrad: true });
    const ws = [31, 32, 33, 34].map((s) => sg.tensor(uniform(dm * dm, s, 1 / Math.sqrt(dm)), { shape: [dm, dm], requiresGrad: true }));
    const [wq, wk, wv, wo] = ws;
    const leaves = [x, ...ws];
    const loss = () => {
      const q = sg.matmul(x, wq), k = sg.matmul(x, wk), v = sg.matmul(x, wv);
      const p = sg.matmul(q, k.transpose(-2, -1)).mul(1 / Math.sqrt(dm)).softmax(-1);
      return sg.matmul(sg.matmul(p, v), wo).square().mean();
    };
    const step = () => {
      const l = loss();
      l.backward();
      return l;
    };
    const compiledStep = sg.compile(step);
    const reset = () => leaves.forEach((l) => (l.grad = null));
    const floor = matmulFloor(sg, attentionProducts(b, t, dm));
    return {
      eager: () => (step(), reset()),
      floor,
      compiled: () => (compiledStep(), reset()),
      check: () => {
        const a = step().dataSync(), ga = x.grad.dataSync();
        reset();
        const c = compiledStep().dataSync(), gc = x.grad.dataSync();
        reset();
        return [Float32Array.of(...a, ...ga.subarray(0, 64)), Float32Array.of(...c, ...gc.subarray(0, 64))];
      },
      stats: () => compiledStep.stats(),
      dispose: () => {
        compiledStep.clear();
        floor.dispose();
        reset();
        sg.dispose(leaves);
      },
    };
  },
});

/**
 * The matrix products a step cannot avoid, as [m, k, n, batch, transA, transB] (C = A·B with A
 * [batch, m, k] and B [batch, k, n], either stored transposed), run alone: a compiled step
 * computes the same products with the same GEMM kernel, so `eager / floor` bounds the speed-up
 * any compilation of the rest (fusion, fewer calls, less allocation) can give on this machine.
 * The products run as one compiled function (their results its outputs, so that none is
 * dropped as unused): no call from JavaScript per product, which on a small model's step would
 * count several microseconds of overhead into the floor that a compiled step does not pay.
 */
function matmulFloor(sg, products) {
  // Made by prepare(), which only the timing process calls: the peak-memory processes never run
  // the floor, so its operands must not count in their memory at rest.
  let operands = null;
  let compiledProducts = null;
  const make = () => products.map(([m, k, n, batch, ta, tb]) => {
    const lead = batch > 1 ? [batch] : [];
    const a = sg.tensor(uniform(batch * m * k, 90 + m, 1), { shape: ta ? [...lead, k, m] : [...lead, m, k] });
    const b = sg.tensor(uniform(batch * k * n, 91 + n, 1), { shape: tb ? [...lead, n, k] : [...lead, k, n] });
    return [a, b, ta, tb];
  });
  const last = (t) => t.transpose(-2, -1);
  return {
    prepare: () => {
      operands ??= make();
      compiledProducts ??= sg.compile(() => operands.map(([a, b, ta, tb]) => sg.matmul(ta ? last(a) : a, tb ? last(b) : b)));
    },
    run: () => void compiledProducts(),
    dispose: () => {
      compiledProducts?.clear();
      if (operands) sg.dispose(operands.flatMap(([a, b]) => [a, b]));
    },
  };
}

/**
 * The optimizer update a training step cannot avoid: Adam (the workloads' options) over
 * parameters of the given sizes whose grads are set, run alone with the same kernels.
 */
function adamFloor(sg, sizes) {
  let state = null;
  const make = () => {
    const params = sizes.map((n, i) => sg.tensor(uniform(n, 70 + i, 1), { shape: [n], requiresGrad: true }));
    for (const p of params) p.grad = sg.onesLike(p);
    return { params, opt: new sg.optim.Adam(params, ADAM) };
  };
  let step = null;
  return {
    prepare: () => {
      state ??= make();
      step ??= sg.compile(() => state.opt.step());  // as the compiled steps run it (a host step)
    },
    run: () => step(),
    dispose: () => {
      if (!state) return;
      step.clear();
      state.opt.dispose();
      for (const p of state.params) p.grad = null;
      sg.dispose(state.params);
    },
  };
}

/** Several floors run one after the other, as one. */
function combined(...floors) {
  return {
    prepare: () => floors.forEach((f) => f.prepare()),
    run: () => floors.forEach((f) => f.run()),
    dispose: () => floors.forEach((f) => f.dispose()),
  };
}

/** An MLP step's products: per Linear(in, out) on x [B, in] → y: y = x·Wᵀ, dW = dyᵀ·x, and dx = dy·W except for the first layer (its input needs no gradient). */
function mlpProducts(sizes, batch) {
  const out = [];
  for (let i = 0; i + 1 < sizes.length; i++) {
    const [fin, fout] = [sizes[i], sizes[i + 1]];
    out.push([batch, fin, fout, 1, false, true]);   // y = x · Wᵀ
    out.push([fout, batch, fin, 1, true, false]);   // dW = dyᵀ · x
    if (i) out.push([batch, fout, fin, 1, false, false]);  // dx = dy · W
  }
  return out;
}

/** The attention step's products (x·W for q, k, v, out; q·kᵀ; p·v), each with both gradients (every operand needs one). */
function attentionProducts(b, t, dm) {
  const out = [];
  const product = (m, k, n, batch, tb) => {
    out.push([m, k, n, batch, false, tb]);    // C = A·B
    out.push([m, n, k, batch, false, !tb]);   // dA = dC·Bᵀ
    out.push([k, m, n, batch, true, false]);  // dB = Aᵀ·dC
  };
  for (let i = 0; i < 4; i++) product(b * t, dm, dm, 1, false);  // x·Wq, x·Wk, x·Wv, (p·v)·Wo
  product(t, dm, t, b, true);   // q·kᵀ
  product(t, t, dm, b, false);  // p·v
  return out;
}

/**
 * A workload's two steps over fn: `call(f)` runs f (fn, or fn compiled) once and returns the
 * tensor the check compares; `tensors` are freed with the compiled function.
 */
function sides(sg, fn, call, tensors) {
  const compiled = sg.compile(fn);
  return {
    eager: () => void call(fn),
    compiled: () => void call(compiled),
    check: () => [call(fn).dataSync(), call(compiled).dataSync()],
    stats: () => compiled.stats(),
    dispose: () => {
      compiled.clear();
      sg.dispose(tensors);
    },
  };
}

/**
 * 50 elementwise ops on 1,000 floats, no gradients: per-op cost against one fused kernel. `ops`
 * picks the mix: arithmetic (add, mul, max, ...: the kernels cost little, the per-op overhead
 * dominates) or transcendental (tanh and sigmoid in every round: the kernels' own arithmetic is
 * a floor both sides share).
 */
function elementwise50(name, desc, round) {
  return {
    name,
    desc,
    repeat: 10,
    setup(sg) {
      const a = sg.tensor(normal(1000, 40, 0.5), { shape: [1000] });
      const b = sg.tensor(uniform(1000, 41, 1), { shape: [1000] });
      const chain = (x) => {
        let h = x;
        for (let i = 0; i < 10; i++) h = round(h, b);  // 5 elementwise ops a round
        return h;
      };
      return sides(sg, chain, (f) => f(a), [a, b]);
    },
  };
}

/**
 * The transcendental mix's 50 ops forward and backward (x requires grad): eagerly, every op and
 * every gradient formula step is an op; compiled, the fused forward keeps tanh's and sigmoid's
 * results and the gradient is one more fused kernel (graph/fused_backward.h).
 */
function elementwise50Grad(name, desc, n) {
  return {
    name,
    desc,
    repeat: 5,
    setup(sg) {
      const x = sg.tensor(normal(n, 42, 0.5), { shape: [n], requiresGrad: true });
      const b = sg.tensor(uniform(n, 43, 1), { shape: [n] });
      const loss = (v) => {
        let h = v;
        for (let i = 0; i < 10; i++) h = h.mul(0.9).add(b).tanh().sub(v.mul(0.1)).sigmoid();
        return h.sum();
      };
      const step = (f) => {
        f(x).backward();
        const g = x.grad;
        x.grad = null;
        return g;
      };
      return sides(sg, loss, step, [x, b]);
    },
  };
}

/**
 * What a compiled call costs besides its kernels: the identity (a graph of no node) and one add
 * of one element (a kernel of a few nanoseconds), each against the same op called eagerly.
 */
function cacheHit(name, desc, fn) {
  return {
    name,
    desc,
    repeat: 200,
    setup(sg) {
      const x = sg.tensor([1.5]);
      return sides(sg, fn, (f) => f(x), [x]);
    },
  };
}

export const COMPILED_WORKLOADS = [
  mlp('mlp_train', 'MLP 784→256→256→10 ReLU, batch 128: zeroGrad, forward, cross-entropy, backward, Adam step', [784, 256, 256, 10], 128),
  mlp('mlp_train_tiny', 'MLP 2→16→16→2 ReLU, batch 64: the size of the teaching demos\' classifiers', [2, 16, 16, 2], 64),
  mlp('mlp_train_small', 'MLP 32→64→64→10 ReLU, batch 16: the same step where per-op overhead dominates', [32, 64, 64, 10], 16),
  attention('attention_fwd_bwd', 'single-head attention, batch 8, 128 tokens, d 64: forward + backward (grads of x and 4 weights)', [8, 128, 64]),
  attention('attention_fwd_bwd_small', 'the same at the tiny-transformer demo\'s size: batch 16, 48 tokens, d 48', [16, 48, 48]),
  elementwise50('elementwise_50x1000', '50 arithmetic elementwise ops (mul, add, max, abs, min with scalars and a second tensor) on 1,000 float32',
    (h, b) => h.mul(0.9).add(b).maximum(h.neg()).abs().minimum(2)),
  elementwise50('elementwise_50x1000_transcendental', '50 elementwise ops, 20 of them tanh/sigmoid, on 1,000 float32',
    (h, b) => h.mul(0.9).add(b).tanh().sub(h.mul(0.1)).sigmoid()),
  elementwise50Grad('elementwise_50x1000_fwd_bwd', 'the transcendental mix (10 rounds of mul, add, tanh, mul, sub, sigmoid) on 1,000 float32, forward and backward (gradient of x)', 1000),
  elementwise50Grad('elementwise_50x100k_fwd_bwd', 'the same on 100,000 float32: the kernels\' own arithmetic dominates', 100000),
  cacheHit('cache_hit_identity', 'compiled call of x => x (no node): the whole cost is overhead', (x) => x),
  cacheHit('cache_hit_add', 'compiled call of x => x.add(1) on 1 element (one tiny kernel)', (x) => x.add(1)),
];
