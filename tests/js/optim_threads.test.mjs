// The optimizers on the threaded module (init({ threads: 2 })): a step's float32 updates of every
// parameter of a group run as ONE pool job (src/optim/update_batch.h, par::segments), counted by
// the module's parallelJobs() (counts, never times), and the values are bit for bit those of the
// same steps on one thread, where each parameter is updated whole in turn (the path whose values
// the optim_*.test files check against PyTorch 1.13). Parameters the batch cannot take (float64,
// float16) are updated by their own calls, in order, with the same values as on one thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { init } from '../../npm/dist/index.mjs';
import { mod as loadedModule } from '../../npm/dist/esm/npm/src/runtime/module.js';
import { data } from './lcg_data.mjs';

const sg = await init({ threads: 2 });
const mod = loadedModule(); // the Embind module, for its diagnostic parallelJobs()

const numel = (shape) => shape.reduce((a, b) => a * b, 1);

// nanoGPT-shaped (2 layers, 64 wide, 4·64 MLP, vocabulary 65): ~110K elements, no tensor large
// enough for a lone update to split (before the batch the whole step ran on one thread).
const LAYER = [[64], [64], [192, 64], [192], [64, 64], [64], [64], [64], [256, 64], [256], [64, 256], [64]];
const GPT = [[65, 64], [64, 64], ...LAYER, ...LAYER, [64], [64]];
// The MLP bench's (784→256→256→10): two tensors that split alone (two jobs a step before), four that did not.
const MLP = [[256, 784], [256], [256, 256], [256], [10, 256], [10]];

const CASES = [
  ['SGD', { lr: 0.1, momentum: 0.9, nesterov: true, weightDecay: 0.01 }],
  ['SGD', { lr: 0.1 }],
  ['Adam', { lr: 0.01, amsgrad: true, weightDecay: 0.1 }],
  ['AdamW', { lr: 0.01, betas: [0.9, 0.95] }],
  ['RMSprop', { lr: 0.01, centered: true, momentum: 0.5 }],
  ['Adagrad', { lr: 0.1, lrDecay: 0.01 }],
  ['Adadelta', { weightDecay: 0.1 }],
  ['Adamax', { lr: 0.01 }],
  ['NAdam', { lr: 0.01 }],
  ['RAdam', { lr: 0.01 }],
];

/**
 * `steps` steps of `algorithm` on `threads` threads over parameters of `shapes` (one group, or
 * the groups `groups` splits the indices into) with fixed grads; returns every parameter's and
 * state entry's values and the pool jobs of each step.
 */
async function run(threads, algorithm, options, shapes, { steps = 3, dtypes = [], groups = null } = {}) {
  await init({ threads });
  assert.equal(sg.getNumThreads(), threads);
  const params = shapes.map((s, i) => sg.tensor(data(numel(s), 100 + i), { shape: s, dtype: dtypes[i] ?? 'float32', requiresGrad: true }));
  const opt = new sg.optim[algorithm](groups ? groups.map((ix) => ({ params: ix.map((i) => params[i]) })) : params, options);
  const jobs = [];
  for (let k = 0; k < steps; k++) {
    params.forEach((p, i) => {
      const g = sg.tensor(data(numel(shapes[i]), 1000 * (k + 1) + i), { shape: shapes[i], dtype: p.dtype });
      p.grad = g;
      g.dispose();
    });
    const j0 = mod.parallelJobs();
    opt.step();
    jobs.push(mod.parallelJobs() - j0);
  }
  const values = params.map((p) => p.to('float32').dataSync());
  for (const p of params) for (const t of Object.values(opt.state.get(p) ?? {})) values.push(t.to('float32').dataSync());
  opt.zeroGrad();
  opt.dispose();
  sg.dispose(params);
  return { values, jobs };
}

function assertBitEqual(got, want, what) {
  assert.equal(got.length, want.length, `${what}: ${got.length} tensors, expected ${want.length}`);
  got.forEach((g, i) => {
    const a = new Uint32Array(g.buffer, g.byteOffset, g.length), b = new Uint32Array(want[i].buffer, want[i].byteOffset, want[i].length);
    let diff = 0;
    for (let j = 0; j < a.length; j++) diff += a[j] !== b[j];
    assert.equal(diff, 0, `${what}: tensor ${i}: ${diff} of ${a.length} values differ from one thread`);
  });
}

test('every algorithm: one pool job a step over all parameters, values bit-identical to one thread', async () => {
  for (const [name, shapes] of [['GPT-shaped', GPT], ['MLP-shaped', MLP]]) {
    for (const [algorithm, options] of CASES) {
      const what = `${algorithm} ${JSON.stringify(options)} ${name}`;
      const one = await run(1, algorithm, options, shapes);
      assert.deepEqual(one.jobs, [0, 0, 0], `${what}: one thread used the pool`);
      const two = await run(2, algorithm, options, shapes);
      assert.deepEqual(two.jobs, [1, 1, 1], `${what}: pool jobs per step on 2 threads`);
      assertBitEqual(two.values, one.values, what);
    }
  }
  await init({ threads: 2 });
});

test('two param groups: one job each a step; a step below the split stays on one thread', async () => {
  // The embeddings and the first layer (~58K elements), the second layer and the last norm (~50K).
  const groups = [GPT.map((_, i) => i).slice(0, 14), GPT.map((_, i) => i).slice(14)];
  const one = await run(1, 'AdamW', { lr: 0.01 }, GPT, { groups });
  const two = await run(2, 'AdamW', { lr: 0.01 }, GPT, { groups });
  assert.deepEqual(two.jobs, [2, 2, 2]);
  assertBitEqual(two.values, one.values, 'AdamW in two groups');
  // 16,000 elements in all: waking the second thread would cost more than it saves.
  const small = await run(2, 'Adam', { lr: 0.01 }, [[100, 100], [6000]]);
  assert.deepEqual(small.jobs, [0, 0, 0]);
  await init({ threads: 2 });
});

test('float64 and float16 parameters among float32 ones: updated by their own calls, in order, as on one thread', async () => {
  const shapes = [[256, 784], [256], [300, 200], [256, 256], [64, 64], [10]];
  const dtypes = ['float32', 'float32', 'float64', 'float32', 'float16', 'float32'];
  for (const [algorithm, options] of [['Adam', { lr: 0.01 }], ['SGD', { lr: 0.1, momentum: 0.9 }]]) {
    const one = await run(1, algorithm, options, shapes, { dtypes });
    const two = await run(2, algorithm, options, shapes, { dtypes });
    // The float32 parameters before the float64 one, between it and the float16 one, and after.
    assert.ok(two.jobs.every((j) => j >= 1 && j <= 3), `${algorithm}: jobs per step ${two.jobs}`);
    assertBitEqual(two.values, one.values, `${algorithm} with float64/float16 parameters`);
  }
  await init({ threads: 2 });
});

test('a step holds no memory beyond the state it creates', async () => {
  const params = GPT.map((s, i) => sg.tensor(data(numel(s), 100 + i), { shape: s, requiresGrad: true }));
  const grads = GPT.map((s, i) => sg.tensor(data(numel(s), 500 + i), { shape: s }));
  params.forEach((p, i) => { p.grad = grads[i]; });
  const opt = new sg.optim.AdamW(params, { lr: 0.01 });
  opt.step(); // creates the state
  const before = sg.memory();
  for (let k = 0; k < 5; k++) opt.step();
  const after = sg.memory();
  assert.equal(after.tensors, before.tensors);
  assert.equal(after.bytes, before.bytes);
  opt.dispose();
  sg.dispose([...params, ...grads]);
});
