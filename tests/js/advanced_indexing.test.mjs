// Advanced indexing: x.index(...) with index tensors, masks and arrays among its items, and
// x.indexPut_(items, values, { accumulate }) / sg.indexPut, against PyTorch 1.13
// (tests/data/advanced_indexing_ref.json, from gen_advanced_indexing.py: 1-D/2-D/3-D index
// tensors, broadcasting, adjacent and separated advanced indices, numbers, ranges, '...', negative
// indices, masks over all, leading and middle dims, 0-d bool and int tensors, empty indices,
// repeated indices, nested lists, int32/bool/transposed x; puts with tensor and number values,
// broadcast, accumulate both ways): values and gradients of x and values on every backend;
// central differences; sg.compile; the errors, which leave x and sg.memory() as they were.
//
// Tolerance: sameValues' 2e-6·(1 + |PyTorch|). Indexing moves values; gradients are sums of a
// few upstream values (repeated indices), whose order can differ in the last bit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { forEachBackend, values } from './backends.mjs';
import { gradcheck, gradInput, readRef } from './gradcheck_helpers.mjs';
import { assertCompiledEqualsEager, assertCompiledStepEqualsEager, checkRefCases, checkRefCasesAsync, makeRef, sameValues } from './ref_cases.mjs';

const REF = readRef('advanced_indexing_ref.json');

/** A case's items as index() takes them; `ins` are the case's input tensors. */
function itemsOf(c, ins) {
  return c.items.map((it) => {
    if (it === null || it === '...') return it;
    if ('n' in it) return it.n;
    if ('r' in it) return it.r;
    if ('in' in it) return ins[it.in];
    return it.list;
  });
}

/**
 * Each case's call, alternating the forms: x.index / sg.index; for puts a clone of x (in the
 * graph) changed by indexPut_, or sg.indexPut (x itself, untouched), with accumulate given or
 * left out when false.
 */
const CALLS = Object.fromEntries(REF.cases.map((c, k) => [c.id, (...ins) => {
  const x = c.pre === 't' ? ins[0].transpose(0, 1) : ins[0];
  const items = itemsOf(c, ins);
  if (c.op === 'index') return k % 2 ? x.index(...items) : sg.index(x, ...items);
  const v = c.value ? c.value.num : ins[ins.length - 1];
  const opts = c.accumulate ? { accumulate: true } : k % 2 ? undefined : { accumulate: false };
  if (k % 3 === 2) return sg.indexPut(x, items, v, opts);
  const y = x.clone();
  assert.equal(y.indexPut_(items, v, opts), y, 'indexPut_ returns this');
  return y;
}]));

/** Cases whose items hold a mask (a bool tensor or an array of booleans): nonzero reads it on the CPU. */
const hasMask = (c) => c.items.some((it) => it !== null && typeof it === 'object' &&
  (('in' in it && c.inputs[it.in].dtype === 'bool') || ('list' in it && JSON.stringify(it.list).includes('true'))));

const idx = (a) => sg.tensor(a, { dtype: 'int32' });

test('the reference covers index and indexPut_ (both accumulates), masks, gradients and other dtypes', () => {
  assert.equal(new Set(REF.cases.map((c) => c.id)).size, REF.cases.length, 'distinct case ids');
  const index = REF.cases.filter((c) => c.op === 'index'), put = REF.cases.filter((c) => c.op === 'put');
  assert.ok(index.length >= 45 && put.length >= 25, `${index.length} index cases, ${put.length} put cases`);
  assert.ok(put.filter((c) => c.accumulate).length >= 8);
  assert.ok(REF.cases.filter(hasMask).length >= 12);
  assert.ok(REF.cases.filter((c) => c.grads).length >= 60);
  assert.ok(REF.cases.filter((c) => c.inputs[0].dtype !== 'float32').length >= 5);
});

test('values and gradients equal PyTorch 1.13 (functions and methods; in place and out of place)', () => {
  checkRefCases(REF, CALLS);
});

forEachBackend('values and gradients equal PyTorch 1.13 on every backend', async (backend) => {
  // A mask is read by nonzero, on the CPU only (the GPU's Error: a test below).
  await checkRefCasesAsync(REF, CALLS, undefined, (id) => backend === 'webgpu' && hasMask(REF.cases.find((c) => c.id === id)));
});

test('indexPut_ on an x outside the graph (values differentiated): PyTorch values and values.grad', () => {
  const live = sg.memory().tensors;
  for (const c of REF.cases.filter((c) => c.op === 'put')) {
    sg.tidy(() => {
      const ins = c.inputs.map((e, i) => makeRef(e, i > 0 && e.grad));
      const v = c.value ? c.value.num : ins[ins.length - 1];
      const y = ins[0];
      y.indexPut_(itemsOf(c, ins), v, { accumulate: c.accumulate });
      sameValues(y, c.outputs[0], `${c.id}: values`);
      if (!c.grads || c.value) return;
      assert.ok(y.requiresGrad, `${c.id}: x joins the graph through values`);
      y.mul(makeRef(c.upstream[0])).sum().backward();
      sameValues(v.grad, c.grads[1], `${c.id}: values.grad`);
    });
  }
  assert.equal(sg.memory().tensors, live, 'no tensor left behind');
});

test('the README examples: W.index(idx) with a 2-D idx, x.indexPut_([null, 0], v), x.indexPut_([mask], 0)', () => {
  sg.tidy(() => {
    const W = sg.tensor([[0, 1], [10, 11], [20, 21]]);
    const rows = W.index(idx([[2, 0], [1, 1]]));
    assert.deepEqual(rows.shape, [2, 2, 2]);
    assert.deepEqual(rows.toArray(), [[[20, 21], [0, 1]], [[10, 11], [10, 11]]]);
    assert.deepEqual(W.index(null, idx([1, 0])).toArray(), [[1, 0], [11, 10], [21, 20]]);
    assert.deepEqual(W.index(idx([0, 2]), idx([1, 0])).toArray(), [1, 20]);
    assert.deepEqual(W.index(W.gt(10)).toArray(), [11, 20, 21]);
    const x = sg.zeros([2, 3]);
    x.indexPut_([null, 0], sg.tensor([5, 6]));  // x[:, 0] = v
    assert.deepEqual(x.toArray(), [[5, 0, 0], [6, 0, 0]]);
    x.indexPut_([x.gt(5)], 0);  // x[x > 5] = 0
    assert.deepEqual(x.toArray(), [[5, 0, 0], [0, 0, 0]]);
    x.indexPut_([idx([1, 1]), idx([2, 2])], sg.tensor([1, 2]), { accumulate: true });
    assert.deepEqual(x.toArray(), [[5, 0, 0], [0, 0, 3]]);
    // Plain arrays: nested arrays of integers are index tensors, arrays of booleans masks, Int32Array a 1-D index.
    assert.deepEqual(W.index([[0], [2]], [[1, 0]]).toArray(), [[1, 0], [21, 20]]);
    assert.deepEqual(W.index([true, false, true], 1).toArray(), [1, 21]);
    assert.deepEqual(W.index(Int32Array.from([2, -3])).toArray(), [[20, 21], [0, 1]]);
    // Ranges stay ranges: [0, 2] is W[0:2].
    assert.deepEqual(W.index([0, 2], idx([1])).toArray(), [[1], [11]]);
  });
  sg.tidy(() => {
    // npm/README's example, as written there.
    const W = sg.randn([1000, 64], { requiresGrad: true });
    const idx = sg.tensor([[3, 17, 3], [0, 999, 5]], { dtype: 'int32' });
    const rows = W.index(idx);                      // W[idx]: [2, 3, 64]; W.grad gets row 3 twice
    const x = sg.zeros([4, 3]);
    x.indexPut_([null, 0], sg.tensor([1, 2, 3, 4])); // x[:, 0] = v
    x.indexPut_([x.gt(2)], 0);                       // x[x > 2] = 0
    const at = sg.tensor([0, 2, 0], { dtype: 'int32' });
    x.indexPut_([at, 1], 1, { accumulate: true });  // x[at, 1] += 1: x[0, 1] gets 2
    assert.deepEqual(rows.shape, [2, 3, 64]);
    rows.sum().backward();
    assert.deepEqual(Array.from(W.grad.index(Int32Array.from([3, 17, 1])).sum(1).dataSync()), [128, 64, 0]);
    assert.deepEqual(x.toArray(), [[1, 2, 0], [2, 0, 0], [0, 1, 0], [0, 0, 0]]);
  });
});

test('adjacent advanced indices stay in place, separated ones go first; a number is a select (PyTorch, not NumPy)', () => {
  sg.tidy(() => {
    const x = sg.zeros([5, 6, 7, 8]);
    const i = idx([0, 1]);
    assert.deepEqual(x.index(null, i, i).shape, [5, 2, 8]);
    assert.deepEqual(x.index(null, i, null, i).shape, [2, 5, 7]);
    assert.deepEqual(x.index(null, i, null, 0).shape, [5, 2, 7]);  // NumPy: [2, 5, 7]
    assert.deepEqual(x.index(i, '...', i).shape, [2, 6, 7]);
    assert.deepEqual(x.index(sg.tensor(true), null, i).shape, [2, 5, 7, 8]);
    assert.deepEqual(x.index(null, idx(3), i).shape, [5, 2, 8]);  // a 0-d int tensor is a select
  });
});

test('an index result is a copy (basic items stay views); indexPut_ writes through a view to its base', () => {
  sg.tidy(() => {
    const x = sg.tensor([[1, 2], [3, 4]]);
    const y = x.index(idx([1, 0]));
    y.fill_(0);
    assert.deepEqual(x.toArray(), [[1, 2], [3, 4]]);
    const base = sg.zeros([3, 2]);
    base.transpose(0, 1).indexPut_([idx([1]), idx([2])], 7);  // base.T[1, 2] = 7
    assert.deepEqual(base.toArray(), [[0, 0], [0, 0], [0, 7]]);
  });
});

test('indexPut_ bumps the version: a backward that saved x throws, as other in-place ops', () => {
  sg.tidy(() => {
    const a = sg.tensor([1, 2, 3], { requiresGrad: true });
    const y = a.mul(1);
    const z = y.mul(y);  // saves y (version 0)
    y.indexPut_([idx([0])], 5);
    throwsWith(() => z.sum().backward(), 'is at version 1; expected version 0');
  });
});

test('repeated positions: accumulate adds them; without it one of the values written there stays', () => {
  sg.tidy(() => {
    const x = sg.zeros([3]);
    x.indexPut_([idx([1, 1, 1])], sg.tensor([1, 2, 4]));
    const one = x.toArray()[1];
    assert.ok([1, 2, 4].includes(one), `got ${one}`);
    x.indexPut_([idx([1, 1, 1])], sg.tensor([1, 2, 4]), { accumulate: true });
    assert.deepEqual(x.toArray(), [0, one + 7, 0]);
    const w = sg.tensor([1, 2, 3], { requiresGrad: true });
    w.index(idx([0, 0, 2, 0])).sum().backward();
    assert.deepEqual(Array.from(w.grad.dataSync()), [3, 0, 1]);  // index_put with accumulate, as PyTorch
  });
});

test('central differences: index tensors, broadcast, masks, indexPut_ and indexPut in x and values', () => {
  const i2 = [[0, 2], [3, 1]];
  gradcheck('rows by a 2-D index', (x) => x.index(i2), [gradInput([4, 3], 11)]);
  gradcheck('separated, broadcast', (x) => x.index(idx([[0], [2]]), null, idx([1, -1, 1])), [gradInput([3, 2, 4], 12)]);
  gradcheck('range and index', (x) => x.index([1, null, 2], idx([0, 0, 2])).mul(x.index(null, idx([1, 2, 0]), 1).sum()), [gradInput([4, 3, 2], 13)]);
  gradcheck('mask', (x) => x.index(sg.tensor([[true, false, true], [false, true, true]])), [gradInput([2, 3], 14)]);
  gradcheck('indexPut_ (clone)', (x, v) => {
    const y = x.clone();
    return y.indexPut_([null, idx([2, 0])], v.mul(v));
  }, [gradInput([3, 4], 15), gradInput([3, 2], 16)]);
  gradcheck('indexPut_ accumulate, repeats', (x, v) => x.mul(x).indexPut_([idx([1, 1, 0])], v, { accumulate: true }), [gradInput([2, 3], 17), gradInput([3, 3], 18)]);
  gradcheck('sg.indexPut, mask', (x, v) => sg.indexPut(x, [x.detach().gt(0)], v.sum()), [gradInput([3, 3], 19), gradInput([2], 20)]);
});

test('sg.compile: tensor indices give the eager values and gradients; masks are the tracer\'s Error', () => {
  sg.tidy(() => {
    const x = sg.randn([4, 5, 3]);
    assertCompiledEqualsEager((x, i, j) => x.index(null, i, j), [x, idx([4, -1, 0]), idx([[2], [0]])]);
    assertCompiledEqualsEager((x, i, j) => x.index(i, [1, null, 2], j), [x, idx([3, 0]), idx([-1, 2])]);
    assertCompiledEqualsEager((x, i, v) => sg.indexPut(x, [null, i], v, { accumulate: true }), [x, idx([1, 1]), sg.ones([2, 3])]);
    const w = sg.randn([6, 3], { requiresGrad: true });
    const at = idx([[5, 0], [0, 2]]);
    assertCompiledStepEqualsEager(() => {
      const l = w.index(at).pow(2).sum();
      l.backward();
      return l;
    }, w);
    const f = sg.compile((x, m) => x.index(m));
    throwsWith(() => f(x, x.gt(0)), 'index: a bool mask is read on the CPU', 'cannot read tensor values while sg.compile traces');
    f.clear();
    // Out-of-range indices inside the graph: the compiled check throws (indexSelect's message).
    const g = sg.compile((x, i) => x.index(null, i));
    sg.dispose(g(x, idx([0, 1])));
    throwsWith(() => g(x, idx([0, 5])), 'index 5 is out of bounds for dim 1 with size 5');
    g.clear();
  });
});

test('sg.compile traces indexPut_ on a clone', () => {
  sg.tidy(() => {
    const x = sg.randn([3, 4]);
    assertCompiledEqualsEager((x, i, v) => {
      const y = x.clone();
      y.indexPut_([i], v);
      return y;
    }, [x, idx([2, 0]), sg.ones([4])]);
  });
});

test('int64 index tensors, where the build has int64', () => {
  let i64;
  try {
    i64 = sg.tensor([2, -1, 0], { dtype: 'int64' });
  } catch {
    return;  // no int64 yet: int32 indices only
  }
  sg.tidy(() => {
    const x = sg.tensor([[1, 2], [3, 4], [5, 6]]);
    assert.deepEqual(x.index(i64).toArray(), [[5, 6], [5, 6], [1, 2]]);
    x.indexPut_([i64, 1], 0);
    assert.deepEqual(x.toArray(), [[1, 0], [3, 4], [5, 0]]);
  });
  i64.dispose();
});

forEachBackend('a mask on a GPU tensor is nonzero\'s Error (its values are read on the CPU)', async (backend) => {
  if (backend !== 'webgpu') return;
  const x = sg.ones([2, 2]);
  const m = x.gt(0);
  const live = sg.memory().tensors;
  throwsWith(() => x.index(m), 'index: a bool mask is read on the CPU', "on 'webgpu'", 'move it first');
  throwsWith(() => x.indexPut_([m], 0), 'indexPut_: a bool mask', "on 'webgpu'");
  assert.equal(sg.memory().tensors, live);
  assert.deepEqual(await values(x), [[1, 1], [1, 1]]);
  // An index out of range: the graph's check, reported at the next read (the GPU runs asynchronously).
  const i = sg.tensor([0, 2], { dtype: 'int32' });
  const y = x.index(null, i);
  await assert.rejects(y.data(), /index 2 is out of bounds for dim 1 with size 2/);
  sg.dispose([x, m, i, y]);
});

test('errors name the item, the dim, the index and the size, and leave x and sg.memory() unchanged', () => {
  const x = sg.tensor([[1, 2, 3], [4, 5, 6]]);
  const good = idx([0, 1]);
  // Every tensor the bad calls take, made before memory is counted.
  const t = {
    i02: idx([0, 2]), i04: idx([[0], [-4]]), i5: idx(5), i012: idx([0, 1, 2]), i3: idx([3]), i123: idx([1, 2, 3]),
    f01: sg.tensor([0, 1]), fHalf: sg.tensor([0.5]), f1: sg.tensor([1]), m3: sg.tensor([true, false, true]), ones22: sg.ones([2, 2]), ones4: sg.ones([4]),
  };
  const bad = [
    [() => x.index(t.i02), 'index: index 2 is out of range for dim 0 of size 2'],
    [() => x.index(null, t.i04), 'index: index -4 is out of range for dim 1 of size 3'],
    [() => x.index(t.i5), 'index 5 is out of range for dim 0 of size 2'],
    [() => x.index(null, [[7]]), 'index 7 is out of range for dim 1 of size 3'],
    [() => x.index(t.f01), 'item 0', 'float32 tensor'],
    [() => x.index(null, t.fHalf), 'item 1', 'float32'],
    [() => x.index(t.m3), 'the shape of the mask [3]', 'shape [2] of dims 0 to 0'],
    [() => x.index(good, t.i012), 'could not be broadcast together with shapes [2], [3]'],
    [() => x.index(good, good, good), 'too many indices', 'shape [2, 3]'],
    [() => x.index(good, '...', '...'), "at most one '...'"],
    [() => x.index(good, [[0.5]]), 'item 1', 'array of integers'],
    [() => x.index(good, [[1, 2], [3]]), 'tensor'],
    [() => x.index(good, { a: 1 }), 'item 1', 'an object'],
    [() => x.index(good, [0, null, 0]), 'positive step'],
    [() => x.indexPut_([good], t.ones22), 'indexPut_: shape mismatch: value tensor of shape [2, 2] cannot be broadcast to indexing result of shape [2, 3]'],
    [() => x.indexPut_([null, t.i3], 0), 'indexPut_: index 3 is out of range for dim 1 of size 3'],
    [() => x.indexPut_([t.f1], 0), 'indexPut_', 'float32 tensor'],
    [() => x.indexPut_([good], t.i123), "'values' of the destination's dtype float32, got int32"],
    [() => x.indexPut_([good], 'a'), "expected 'values' to be a Tensor or a number"],
    [() => x.indexPut_([good], 1, { acumulate: true }), "unknown option 'acumulate'"],
    [() => x.indexPut_([good], 1, { accumulate: 1 }), "'accumulate' to be a boolean"],
    [() => x.indexPut_(5, 1), "expected 'indices' to be an array"],
    [() => x.indexPut_([good, t.i012], 1), 'could not be broadcast together'],
    [() => sg.indexPut(x, [good], t.ones4), 'indexPut: shape mismatch'],
  ];
  const live = sg.memory();
  for (const [f, ...patterns] of bad) {
    throwsWith(f, ...patterns);
    assert.deepEqual(x.toArray(), [[1, 2, 3], [4, 5, 6]], `x unchanged after ${patterns[0]}`);
    assert.equal(sg.memory().tensors, live.tensors, `no tensor left behind by ${patterns[0]}`);
    assert.equal(sg.memory().bytes, live.bytes, `no bytes left behind by ${patterns[0]}`);
  }
  // A leaf that requires grad: PyTorch's in-place rule, named as indexPut_'s.
  const leaf = sg.tensor([1, 2], { requiresGrad: true });
  const before = sg.memory().tensors;
  throwsWith(() => leaf.indexPut_([good], 0), 'indexPut_: a leaf Variable that requires grad');
  assert.equal(sg.memory().tensors, before);
  assert.deepEqual(leaf.toArray(), [1, 2]);
  sg.noGrad(() => leaf.indexPut_([idx([1])], 9));
  assert.deepEqual(leaf.toArray(), [1, 9]);
  sg.dispose([x, good, leaf, ...Object.values(t)]);
});
