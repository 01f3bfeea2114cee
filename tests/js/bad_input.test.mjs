// Bad input never kills the module: every row of bad_input_cases.mjs must throw a real Error
// whose message names the function and says what was expected and what was got, leave its
// inputs (data, grads, graph, parameters, buffers, optimizer state) exactly as they were, leak
// nothing, and be followed by a computation that still gives the right answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { buildCases } from './bad_input_cases.mjs';

const rows = buildCases(sg);
const REPEAT = 8;

/** Everything observable about the inputs a row made, as plain data (NaN-safe for deepEqual). */
function snapshot(value, seen = new Set()) {
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '<seen>';
  seen.add(value);
  if (value instanceof sg.Tensor) {
    if (value.isDisposed) return '<disposed>';
    const grad = value.isLeaf && value.requiresGrad ? value.grad : null;
    return {
      shape: value.shape,
      dtype: value.dtype,
      requiresGrad: value.requiresGrad,
      isLeaf: value.isLeaf,
      gradFn: value.gradFn,
      data: Array.from(value.dataSync()),
      grad: grad ? Array.from(grad.dataSync()) : null,
    };
  }
  if (value instanceof sg.nn.Module) {
    const state = value.stateDict();
    try {
      const out = { training: value.training, state: {}, grads: {} };
      for (const [k, t] of Object.entries(state)) out.state[k] = snapshot(t, seen);
      for (const [k, p] of value.namedParameters()) out.grads[k] = p.grad ? Array.from(p.grad.dataSync()) : null;
      return out;
    } finally {
      sg.dispose(state);
    }
  }
  if (value instanceof sg.optim.Optimizer) {
    const sd = value.stateDict();
    try {
      return {
        state: snapshot(sd.state, seen),
        groups: sd.param_groups.map((g) => JSON.stringify(g)),
        steps: value.stepCount,
      };
    } finally {
      sg.dispose(sd.state);
    }
  }
  if (ArrayBuffer.isView(value)) return Array.from(value);
  if (Array.isArray(value)) return value.map((v) => snapshot(v, seen));
  const out = {};
  for (const [k, v] of Object.entries(value)) out[k] = snapshot(v, seen);
  return out;
}

/** Frees what a row made that tidy does not own (modules and optimizers keep their tensors). */
function release(ctx) {
  for (const v of Object.values(ctx ?? {})) {
    if (v instanceof sg.nn.Module || v instanceof sg.optim.Optimizer) v.dispose?.();
  }
}

/** After every row: plain math, broadcasting, a reduction and autograd still give the right answers. */
function globalSanity() {
  sg.tidy(() => {
    const a = sg.tensor([[1, 2], [3, 4]]);
    assert.deepEqual(a.matmul(sg.tensor([[5], [6]])).toArray(), [[17], [39]]);
    assert.deepEqual(a.add(sg.tensor([10, 20])).sum(0).toArray(), [24, 46]);
    const w = sg.tensor([1, 2, 3], { requiresGrad: true });
    w.mul(w).sum().backward();
    assert.deepEqual(w.grad.toArray(), [2, 4, 6]);
  });
  assert.equal(sg.isGradEnabled(), true, 'grad mode restored');
  assert.equal(sg.getBackend(), 'wasm', 'backend unchanged');
}

function run(row) {
  const before = sg.memory();
  let ctx;
  try {
    sg.tidy(() => {
      ctx = row.make ? row.make() : {};
      const inputs = snapshot(ctx);
      const m0 = sg.memory();
      let caught;
      try {
        // Its own tidy: the tensors the call creates are freed, so any difference in the
        // memory counts afterwards is a leak caused by the failure.
        sg.tidy(() => {
          row.call(ctx);
        });
      } catch (e) {
        caught = e;
      }
      const m1 = sg.memory();
      assert.ok(caught !== undefined, 'expected an Error, nothing was thrown');
      assert.ok(caught instanceof Error, `expected an Error, got ${typeof caught} ${String(caught)}`);
      assert.ok(!(caught instanceof WebAssembly.RuntimeError), `a wasm trap: ${caught.message}`);
      for (const p of row.err) {
        if (p instanceof RegExp) assert.match(caught.message, p);
        else assert.ok(caught.message.includes(p), `message ${JSON.stringify(caught.message)} lacks ${JSON.stringify(p)}`);
      }
      assert.deepEqual(snapshot(ctx), inputs, 'the failed call modified its inputs');
      assert.equal(m1.tensors, m0.tensors, `the failed call leaked ${m1.tensors - m0.tensors} tensors`);
      assert.equal(m1.bytes, m0.bytes, `the failed call leaked ${m1.bytes - m0.bytes} bytes`);
      // The same mistake 8 more times leaves malloc where it was (graph nodes, strings, anything
      // C++ allocated; the first call may have filled lazy caches, such as the op table). A
      // slack of 16 bytes: dlmalloc does not split a free chunk when less than 16 bytes would
      // remain, so the bytes in use move by 8 or 16 with where a block lands. A leak per failed
      // call (the smallest heap block is 16 bytes) would show 8 times over.
      const h0 = sg.memory().heapUsed;
      for (let k = 0; k < (row.child ? 0 : REPEAT); k++) assert.throws(() => sg.tidy(() => { row.call(ctx); }), Error);
      const h1 = sg.memory().heapUsed;
      assert.ok(h1 - h0 <= 16, `${REPEAT} more failed calls leaked ${h1 - h0} bytes of wasm heap`);
      if (row.ok) row.ok(ctx);
    });
  } finally {
    release(ctx);
  }
  globalSanity();
  const after = sg.memory();
  assert.equal(after.tensors, before.tensors, 'tensors left behind by the row');
  assert.equal(after.bytes, before.bytes, 'bytes left behind by the row');
}

for (const row of rows) {
  const name = `${row.g}: ${row.n}`;
  if (row.todo) test(name, { todo: row.todo }, () => run(row));
  else test(name, () => run(row));
}

test(`the table has at least 200 rows (${rows.length})`, () => {
  assert.ok(rows.length >= 200, `only ${rows.length} rows`);
  const names = new Set();
  for (const r of rows) {
    assert.ok(!names.has(`${r.g}: ${r.n}`), `duplicate row ${r.g}: ${r.n}`);
    names.add(`${r.g}: ${r.n}`);
    assert.ok(Array.isArray(r.err) && r.err.length >= 2, `${r.n}: needs the function name and what was expected/got`);
  }
});

test('after the whole table, the module still computes and holds no extra memory', () => {
  globalSanity();
  const x = sg.tensor([[1, 2], [3, 4]]);
  assert.deepEqual(x.matmul(x).toArray(), [[7, 10], [15, 22]]);
  x.dispose();
});
