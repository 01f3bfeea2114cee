// The JS side of the boundary (npm/src/runtime/handles.ts, memory.ts): every Tensor holds exactly one
// handle id, ids never leak below the Tensor level, tidy owns what it makes (what outlives it
// goes to the FinalizationRegistry: memory.test.mjs), heap growth in the middle of a call,
// attributes of every kind, and the boundary observer that a graph tracer uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { setBoundaryObserver } from '../../npm/dist/esm/npm/src/runtime/handles.js';

/** Between calls, live ids and live tensors are the same count. */
function assertOneIdPerTensor(what) {
  const m = sg.memory();
  assert.equal(m.handles, m.tensors, `${what}: ${m.handles} ids for ${m.tensors} tensors`);
}

test('one id per tensor, through ops, views, grads, failures, optimizers and modules', () => {
  assertOneIdPerTensor('at start');
  sg.tidy(() => {
    const x = sg.randn([4, 3], { requiresGrad: true });
    const y = x.T.matmul(x).relu().sum();
    y.backward();
    void x.grad;
    void x.grad; // the same wrapper twice
    const parts = x.split(1, 0);
    assert.equal(parts.length, 4);
    assertOneIdPerTensor('inside tidy');
    throwsWith(() => x.matmul(x), 'matmul');
    throwsWith(() => sg.tensor([1, 2], { dtype: 'int32' }).add(2 ** 40), 'int32');
    assertOneIdPerTensor('after failed calls');
    const model = new sg.nn.Linear(3, 2);
    const opt = new sg.optim.Adam(model.parameters());
    model.forward(x).sum().backward();
    opt.step();
    const sd = opt.stateDict();
    assertOneIdPerTensor('after an optimizer step and stateDict');
    sg.dispose(sd.state);
    model.dispose();
    opt.zeroGrad();
  });
  assertOneIdPerTensor('after tidy');
});

test('a tidy scope that outlives thousands of disposed tensors keeps the right ones', () => {
  const base = sg.memory();
  const [kept, returned] = sg.tidy(() => {
    let keptT = null;
    for (let i = 0; i < 5000; i++) {
      const t = sg.full([2], i);
      if (i === 1234) keptT = sg.keep(t.mul(1));
      t.dispose(); // the scope's list is compacted as these pile up
    }
    const survivors = Array.from({ length: 10 }, (_, i) => sg.full([1], i));
    survivors.slice(5).forEach((t) => t.dispose());
    return [keptT, survivors.slice(0, 5)];
  });
  assert.deepEqual(kept.toArray(), [1234, 1234]);
  assert.deepEqual(returned.map((t) => t.item()), [0, 1, 2, 3, 4]);
  assert.equal(sg.memory().tensors, base.tensors + 6);
  sg.dispose([kept, returned]);
  assert.equal(sg.memory().tensors, base.tensors);
  assert.equal(sg.memory().bytes, base.bytes);
  assertOneIdPerTensor('after the long tidy');
});

test('nested tidy: returned tensors pass to the enclosing scope, kept ones to nobody', () => {
  const base = sg.memory().tensors;
  let inner;
  let keptInside;
  const outer = sg.tidy(() => {
    inner = sg.tidy(() => {
      keptInside = sg.keep(sg.ones(2));
      sg.zeros(3);
      return sg.ones(4);
    });
    assert.equal(inner.isDisposed, false);
    return inner.sum();
  });
  assert.equal(inner.isDisposed, true, 'returned from the inner tidy only: the outer one disposed it');
  assert.equal(keptInside.isDisposed, false);
  assert.equal(outer.item(), 4);
  sg.dispose([outer, keptInside]);
  assert.equal(sg.memory().tensors, base);
});

test('the heap growing inside a call: results and later calls read fresh views', () => {
  const before = sg.memory().heapBytes;
  sg.tidy(() => {
    const a = sg.full([3], 2);
    // Larger than everything the heap holds now: the op's own allocation grows it, and the
    // result id is read back after that growth.
    const big = sg.zeros([before / 2]);
    assert.ok(sg.memory().heapBytes > before, 'the heap grew');
    assert.deepEqual(big.shape, [before / 2]);
    assert.deepEqual(a.add(a).toArray(), [4, 4, 4]);
    assert.equal(big.sum().item(), 0);
    assert.deepEqual(sg.tensor([[1, 2], [3, 4]]).transpose(0, 1).toArray(), [[1, 3], [2, 4]]);
  });
});

test('isContiguous: views may be strided, contiguous() makes a row-major copy', () => {
  sg.tidy(() => {
    const x = sg.tensor([[1, 2, 3], [4, 5, 6]]);
    assert.equal(x.isContiguous(), true);
    const t = x.transpose(0, 1);
    assert.equal(t.isContiguous(), false);
    assert.equal(t.contiguous().isContiguous(), true);
    assert.equal(x.slice(1, 0, 3, 2).isContiguous(), false);
    assert.equal(x.reshape(3, 2).isContiguous(), true);
    const d = sg.tensor([1]);
    d.dispose();
    throwsWith(() => d.isContiguous(), 'Tensor is disposed');
  });
});

test('attributes of every kind reach the op; a wrong kind names the op and the attribute', () => {
  sg.tidy(() => {
    const x = sg.tensor([[1, -2], [3, -4]]);
    assert.deepEqual(x.sum([0, 1], true).toArray(), [[-2]]); // number list, boolean
    assert.deepEqual(x.clamp(null, 0).toArray(), [[0, -2], [0, -4]]); // number, absent
    assert.ok(Math.abs(x.gelu({ approximate: 'tanh' }).toArray()[0][0] - 0.8411920071) < 1e-6); // string
    assert.equal(x.norm(Infinity).item(), 4); // Infinity passes
    throwsWith(() => sg.F.crossEntropy(x, sg.tensor([0, 1], { dtype: 'int32' }), { reduction: 'méan✓' }), 'crossEntropy', "'méan✓'");
  });
});

test('the boundary observer hears reads, writes and autograd handle calls, and may cancel them', () => {
  const events = [];
  const prev = setBoundaryObserver((event, id) => {
    assert.equal(typeof id, 'number');
    events.push(event);
  });
  try {
    sg.tidy(() => {
      const w = sg.tensor([1, 2, 3], { requiresGrad: true }); // write, setRequiresGrad
      const loss = w.mul(w).sum(); // ops: not observed (they are recorded in C++)
      loss.backward();
      void w.grad;
      w.grad = null;
      w.detach();
      loss.item();
      w.dataSync();
    });
  } finally {
    setBoundaryObserver(prev);
  }
  assert.deepEqual(events, ['write', 'setRequiresGrad', 'backward', 'grad', 'setGrad', 'detach', 'read', 'read']);

  setBoundaryObserver((event) => {
    if (event === 'read') throw new Error('sg.compile: cannot read tensor values while tracing');
  });
  try {
    sg.tidy(() => {
      const t = sg.ones(2).add(1);
      throwsWith(() => t.toArray(), 'cannot read tensor values while tracing');
    });
  } finally {
    setBoundaryObserver(prev);
  }
  assertOneIdPerTensor('after a cancelled read');
  sg.tidy(() => assert.deepEqual(sg.ones(2).add(1).toArray(), [2, 2]));
});
