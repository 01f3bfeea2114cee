// The callback registry of sg.compile (npm/src/compile/jscall_registry.ts, the audit's item 7):
// an unknown callback id is an Error naming it, and a run that meets one is freed; a call in
// flight keeps the entries it uses, so clear() inside one of its callbacks lets it finish; and
// the entries (jsCall callbacks, host steps) and programs of a compiled function go when it is
// cleared or dropped (garbage collected), so that compiling and dropping functions leaks nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, settleGarbage } from './helpers.mjs';
import { callbackOf, entry, registeredCount, release } from '../../npm/dist/esm/npm/src/compile/jscall_registry.js';
import { liveCounts } from '../../npm/dist/esm/npm/src/compile/graph_binding.js';

/** Registry entries, live programs and runs, and tensors: what must come back to where it was. */
async function counts() {
  await settleGarbage();
  return { entries: registeredCount(), ...liveCounts(), tensors: sg.memory().tensors };
}

/** The id of the live entry whose label names `name`. */
function idOf(name) {
  for (let id = 1; id < 100000; id++) if (entry(id)?.label.includes(`'${name}'`)) return id;
  return undefined;
}

test('an unknown callback id is an Error naming it', () => {
  assert.throws(() => callbackOf(987654), /^Error: sg\.compile: no callback #987654 \(its compiled function was cleared\?\)$/);
});

test('a run whose next callback has gone is an Error naming it, and the run and its tensors are freed', async () => {
  const start = await counts();
  const f = sg.compile((x) => {
    const a = sg.jsCall({ shape: [2] }, [x], async function first(t) {
      // Drop the second callback's entry behind the registry's back (as a bug would).
      const id = idOf('second');
      while (entry(id) !== undefined) release(id);
      return t.add(1);
    });
    return sg.jsCall({ shape: [2] }, [a.mul(2)], function second(t) {
      return t.add(1);
    });
  }, { async: true });
  const x = sg.tensor([1, 2]);
  await assert.rejects(f(x), /sg\.compile: no callback #\d+ \(its compiled function was cleared\?\)/);
  x.dispose();
  f.clear();
  assert.deepEqual(await counts(), start);
});

test('clear() inside a callback of a call in flight lets that call finish, then frees everything', async () => {
  const start = await counts();
  const f = sg.compile((x) => {
    const a = sg.jsCall({ shape: [2] }, [x], async (t) => {
      f.clear();
      return t.add(1);
    });
    return sg.jsCall({ shape: [2] }, [a.mul(2)], (t) => t.add(1));
  }, { async: true });
  const x = sg.tensor([1, 2]);
  const r = await f(x);
  assert.deepEqual(Array.from(r.dataSync()), [5, 7]);
  sg.dispose([x, r]);
  assert.deepEqual(await counts(), start, 'the cleared program and its entries are gone after the call');
  // The next call traces again.
  const y = sg.tensor([0, 1]);
  const r2 = await f(y);
  assert.equal(f.stats().compiles, 2);
  sg.dispose([y, r2]);
  f.clear();
});

test('clear() and dropping a compiled function free its programs and registry entries (callbacks and host steps)', async () => {
  const start = await counts();
  const model = new sg.nn.Linear(3, 2);
  const opt = new sg.optim.SGD(model.parameters(), { lr: 0.1 });
  const make = () =>
    sg.compile((x) => {
      opt.zeroGrad();
      const w = sg.jsCall({ shape: [4, 2] }, [x], (t) => sg.onesLike(t).narrow(1, 0, 2).mul(0.5));
      const loss = model(x).mul(w).square().mean();
      loss.backward();
      opt.step(); // a host step
      return loss;
    });
  const x = sg.randn([4, 3]);

  let f = make();
  f(x).dispose();
  f(sg.randn([4, 3])).dispose();
  const held = await counts();
  assert.ok(held.entries >= 2, `a callback and a host step are registered (${held.entries})`);
  assert.equal(held.programs, start.programs + 1);
  f.clear();
  const cleared = await counts();
  assert.equal(cleared.entries, start.entries);
  assert.equal(cleared.programs, start.programs);

  // Dropped without clear(): the FinalizationRegistry frees them once f is collected.
  f = make();
  f(x).dispose();
  assert.equal((await counts()).programs, start.programs + 1);
  f = null;
  let now;
  for (let i = 0; i < 10; i++) {
    now = await counts();
    if (now.programs === start.programs && now.entries === start.entries) break;
  }
  assert.equal(now.entries, start.entries, 'registry entries of the dropped function');
  assert.equal(now.programs, start.programs, 'its programs');
  assert.equal(now.runs, 0);
  x.dispose();
  opt.dispose?.();
  model.dispose();
});
