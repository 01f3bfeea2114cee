// Module state: stateDict / loadStateDict round trips and strict errors (missing, unexpected,
// mis-shaped keys, and the model unchanged after a failed load), train/eval recursion,
// zeroGrad, to(device), deepCopy, dispose, and sg.nn.utils (gradient clipping, vectors).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { close, sg, throwsWith } from './helpers.mjs';
import { Net } from './nn_helpers.mjs';

function values(m) {
  return sg.tidy(() => Object.fromEntries(Object.entries(m.stateDict()).map(([k, t]) => [k, Array.from(t.dataSync())])));
}

test('stateDict → loadStateDict copies every parameter and buffer in place', () => {
  sg.tidy(() => {
    const a = new Net();
    const b = new Net();
    a.train();
    a(sg.randn([3, 1, 6, 6])); // moves a's BatchNorm running stats and count
    const weightBefore = b.conv.weight;
    const res = b.loadStateDict(a.stateDict());
    assert.deepEqual(res, { missingKeys: [], unexpectedKeys: [] });
    assert.deepEqual(values(b), values(a));
    assert.equal(b.conv.weight, weightBefore, 'the same parameter objects, updated in place');
    assert.equal(b.bn.num_batches_tracked.item(), 1);
    assert.equal(b.bn.num_batches_tracked.dtype, 'int32');
    a.eval();
    b.eval();
    const x = sg.randn([2, 1, 6, 6]);
    assert.deepEqual(Array.from(b(x).dataSync()), Array.from(a(x).dataSync()));
    // A Map works too, and stateDict values share the module's data.
    const sd = new Map(Object.entries(a.stateDict()));
    b.loadStateDict(sd);
    const live = a.stateDict({ keepVars: true });
    assert.equal(live['conv.weight'], a.conv.weight);
    assert.deepEqual(Object.keys(a.stateDict({ prefix: 'model.' })).slice(0, 2), ['model.scale', 'model.steps']);
  });
});

test('loadStateDict strict: missing, unexpected and mis-shaped keys are listed, and nothing changes', () => {
  sg.tidy(() => {
    const m = new sg.nn.Sequential(new sg.nn.Linear(2, 3), new sg.nn.BatchNorm1d(3));
    const before = values(m);
    const good = m.stateDict();
    const partial = { ...good };
    delete partial['0.bias'];
    partial['0.weight'] = sg.ones([3, 2]); // valid, but must not be copied: the load fails
    const e1 = throwsWith(() => m.loadStateDict(partial), 'Missing key(s) in state_dict: "0.bias"');
    assert.match(e1.message, /^loadStateDict: Error\(s\) in loading state_dict for Sequential:/);
    assert.deepEqual(values(m), before);

    const extra = { ...good, 'head.weight': sg.ones([1]), extra: sg.ones([2]) };
    throwsWith(() => m.loadStateDict(extra), 'Unexpected key(s) in state_dict: "head.weight", "extra"');
    assert.deepEqual(values(m), before);

    const shaped = { ...good, '0.weight': sg.ones([2, 3]), '1.running_mean': sg.ones([4]) };
    const e3 = throwsWith(
      () => m.loadStateDict(shaped),
      'size mismatch for 0.weight: copying a param with shape [2, 3] from checkpoint, the shape in current model is [3, 2].',
      'size mismatch for 1.running_mean',
    );
    assert.ok(!e3.message.includes('Missing'));
    assert.deepEqual(values(m), before);

    throwsWith(() => m.loadStateDict({ ...good, '0.bias': [1, 2, 3] }), "expected a Tensor for '0.bias', got [1, 2, 3]");
    throwsWith(() => m.loadStateDict([1]), 'loadStateDict: expected a state dict');
    throwsWith(() => m.loadStateDict(good, { stric: false }), "loadStateDict: unknown option 'stric'");
    assert.deepEqual(values(m), before);
  });
});

test('loadStateDict non-strict reports missing and unexpected keys and loads the rest', () => {
  sg.tidy(() => {
    const m = new sg.nn.Linear(2, 2);
    const res = m.loadStateDict({ weight: sg.tensor([[1, 2], [3, 4]]), other: sg.ones([1]) }, { strict: false });
    assert.deepEqual(res, { missingKeys: ['bias'], unexpectedKeys: ['other'] });
    assert.deepEqual(m.weight.toArray(), [[1, 2], [3, 4]]);
    // Shape mismatches are errors even when not strict (as PyTorch).
    throwsWith(() => m.loadStateDict({ weight: sg.ones([3]) }, { strict: false }), 'size mismatch for weight');
    // dtypes are converted as copy_ does: an int32 count loads from float.
    const bn = new sg.nn.BatchNorm1d(1);
    bn.loadStateDict({ ...bn.stateDict(), num_batches_tracked: sg.tensor(7) });
    assert.equal(bn.num_batches_tracked.item(), 7);
    assert.equal(bn.num_batches_tracked.dtype, 'int32');
  });
});

test('train() and eval() recurse; training flags', () => {
  sg.tidy(() => {
    const m = new Net();
    assert.equal(m.training, true);
    assert.equal(m.eval(), m);
    assert.ok(m.modules().every((x) => x.training === false));
    m.train();
    assert.ok(m.modules().every((x) => x.training === true));
    m.blocks.train(false);
    assert.equal(m.blocks[0].training, false);
    assert.equal(m.conv.training, true);
    throwsWith(() => m.train('yes'), "train: expected 'mode' to be a boolean, got 'yes'");
  });
});

test('zeroGrad sets every grad to null; requiresGrad_ toggles parameters', () => {
  sg.tidy(() => {
    const m = new Net();
    m(sg.randn([2, 1, 6, 6])).sum().backward();
    assert.ok(m.parameters().every((p) => p.grad !== null));
    m.zeroGrad();
    assert.ok(m.parameters().every((p) => p.grad === null));
    m.requiresGrad_(false);
    assert.ok(m.parameters().every((p) => p.requiresGrad === false));
  });
});

test('to(device): cpu is a no-op, webgpu without a started GPU a clear Error', () => {
  const m = new sg.nn.Linear(2, 2);
  assert.equal(m.to('cpu'), m);
  throwsWith(() => m.to('webgpu'), "to: device 'webgpu' is not available: call init({ backend: 'webgpu' }) first");
  throwsWith(() => m.to('cuda'), "to: expected a dtype (float32", "a device ('cpu', 'webgpu') or { device, dtype }, got 'cuda'");
  m.dispose();
});

test('deepCopy clones parameters and buffers; the copy is independent', () => {
  sg.tidy(() => {
    const m = new Net();
    const c = m.deepCopy();
    assert.ok(c instanceof Net);
    assert.deepEqual(values(c), values(m));
    assert.notEqual(c.conv.weight, m.conv.weight);
    sg.nn.init.zeros_(c.conv.weight);
    assert.ok(m.conv.weight.dataSync().some((v) => v !== 0));
    assert.deepEqual(Object.keys(c.stateDict()), Object.keys(m.stateDict()));
    const x = sg.randn([1, 1, 6, 6]);
    assert.deepEqual(c(x).shape, [1, 2]);
  });
});

test('dispose frees the parameters and buffers; Symbol.dispose', () => {
  const x = sg.zeros([1, 1, 6, 6]);
  const base = sg.memory();
  const m = new Net();
  assert.ok(sg.memory().tensors > base.tensors);
  m.dispose();
  assert.equal(sg.memory().tensors, base.tensors);
  assert.equal(sg.memory().bytes, base.bytes);
  assert.throws(() => m(x), /disposed/);
  const m2 = new sg.nn.Linear(3, 3);
  m2[Symbol.dispose]();
  assert.equal(sg.memory().tensors, base.tensors);
  x.dispose();
});

test('parameters are not freed by an enclosing tidy', () => {
  const m = sg.tidy(() => new sg.nn.Sequential(new sg.nn.Linear(2, 2), new sg.nn.BatchNorm1d(2)));
  assert.ok(m.parameters().every((p) => !p.isDisposed));
  assert.ok(m.buffers().every((b) => !b.isDisposed));
  m.dispose();
});

test('utils.clipGradNorm_ and clipGradValue_', () => {
  sg.tidy(() => {
    const a = new sg.nn.Parameter(sg.zeros([2]));
    const b = new sg.nn.Parameter(sg.zeros([2]));
    a.grad = sg.tensor([3, 0]);
    b.grad = sg.tensor([0, 4]);
    const total = sg.nn.utils.clipGradNorm_([a, b], 1);
    close(total, 5, 1e-6);
    close(a.grad.toArray(), [3 / (5 + 1e-6), 0], 1e-6);
    close(b.grad.toArray(), [0, 4 / (5 + 1e-6)], 1e-6);
    a.grad = sg.tensor([3, -1]);
    close(sg.nn.utils.clipGradNorm_([a], 10, { normType: 'inf' }), 3, 1e-6);
    close(a.grad.toArray(), [3, -1], 1e-6, 'below maxNorm: unchanged');
    a.grad = sg.tensor([3, -1]);
    close(sg.nn.utils.clipGradNorm_(a, 1, 1), 4, 1e-6);
    sg.nn.utils.clipGradValue_([a, b], 0.5);
    close(a.grad.toArray(), [0.5, -0.25], 1e-6);
    throwsWith(() => sg.nn.utils.clipGradNorm_([a], 1, { norm: 2 }), "clipGradNorm_: unknown option 'norm'");
    throwsWith(() => sg.nn.utils.clipGradValue_(3, 1), 'clipGradValue_: expected a Tensor or an array of Tensors');
    const m = new sg.nn.Linear(3, 1);
    m(sg.ones([2, 3])).sum().backward();
    assert.ok(sg.nn.utils.clipGradNorm_(m.parameters(), 0.1) > 0.1);
    close(Math.hypot(...Array.from(m.weight.grad.dataSync()), ...Array.from(m.bias.grad.dataSync())), 0.1, 1e-4);
  });
});

test('utils.parametersToVector and vectorToParameters', () => {
  sg.tidy(() => {
    const m = new sg.nn.Linear(2, 2);
    const v = sg.nn.utils.parametersToVector(m.parameters());
    assert.deepEqual(v.shape, [6]);
    sg.nn.utils.vectorToParameters(sg.arange(6), m.parameters());
    assert.deepEqual(m.weight.toArray(), [[0, 1], [2, 3]]);
    assert.deepEqual(m.bias.toArray(), [4, 5]);
    throwsWith(() => sg.nn.utils.vectorToParameters(sg.arange(5), m.parameters()), 'vectorToParameters: the vector has 5 elements, the parameters 6');
    // Not a 1-D tensor: an Error naming what was got, before anything is written (PyTorch's
    // vector_to_parameters refuses a non-Tensor; a [2, 3] tensor of the right size is refused too).
    throwsWith(() => sg.nn.utils.vectorToParameters(sg.arange(6).reshape([2, 3]), m.parameters()), 'vectorToParameters: expected a 1-D Tensor, got');
    throwsWith(() => sg.nn.utils.vectorToParameters([0, 1, 2, 3, 4, 5], m.parameters()), 'vectorToParameters: expected a 1-D Tensor, got');
    assert.deepEqual(m.bias.toArray(), [4, 5]);
  });
});

test('utils.vectorToParameters on the cpu writes a strided view in its own element order, as the GPU path does', () => {
  // torch.nn.utils.vector_to_parameters: each parameter, in its own element order, gets the next
  // numel values (an arange: every value says where it came from). The transposed view [2, 3]
  // gets 0..5 row by row; its base [3, 2] then holds the transpose of that.
  sg.tidy(() => {
    const base = sg.zeros([3, 2]);
    const view = base.transpose(0, 1);
    sg.nn.utils.vectorToParameters(sg.arange(6), [view]);
    assert.deepEqual(view.toArray(), [[0, 1, 2], [3, 4, 5]]);
    assert.deepEqual(base.toArray(), [[0, 3], [1, 4], [2, 5]]);
  });
});

test('utils.vectorToParameters is all or nothing: a refused parameter after a good one leaves both as they were', () => {
  sg.tidy(() => {
    const good = sg.zeros([2]), gone = sg.zeros([2]);
    gone.dispose();
    throwsWith(() => sg.nn.utils.vectorToParameters(sg.arange(4), [good, gone]),
      'vectorToParameters: expected parameters[1] to be a live Tensor, got a disposed one');
    assert.deepEqual(good.toArray(), [0, 0]);
    // Inside sg.compile an existing parameter cannot be written (the write would happen once, while
    // tracing): refused before the first parameter is written.
    const late = sg.zeros([2]);
    const f = sg.compile((v) => { sg.nn.utils.vectorToParameters(v, [good, late]); return v.add(1); });
    assert.throws(() => f(sg.arange(4)), /vectorToParameters: cannot write into an existing tensor inside sg.compile/);
    assert.deepEqual(good.toArray(), [0, 0]);
    assert.deepEqual(late.toArray(), [0, 0]);
  });
});

test('utils.vectorToParameters casts each slice to its parameter\'s dtype (a float64 vector, a bool parameter: NaN is true)', () => {
  sg.tidy(() => {
    const w = sg.zeros([2]), h = sg.zeros([2], { dtype: 'bfloat16' }), b = sg.zeros([3], { dtype: 'bool' });
    sg.nn.utils.vectorToParameters(sg.tensor([0.1, -2, 1 / 3, 7, NaN, 0, -0.5], { dtype: 'float64' }), [w, h, b]);
    assert.equal(w.dtype, 'float32');
    assert.deepEqual(Array.from(w.dataSync()), [Math.fround(0.1), -2]);
    // 1/3 rounded once to bfloat16 (8 significant bits): 0x3EAB = 0.333984375; 7 exact.
    assert.deepEqual(Array.from(h.dataSync(), Number), [0.333984375, 7]);
    // bool(x) is x != 0: NaN and −0.5 true, 0 false (PyTorch's copy_ into a bool tensor).
    assert.deepEqual(b.toArray(), [true, false, true]);
  });
});

test('utils.clipGradNorm_: normType as the third argument or an option; bad maxNorm and normType are Errors naming them', () => {
  // Total norms by definition (torch.nn.utils.clip_grad_norm_ returns the norm before clipping):
  // of [3, -4, 1], max |g| = 4, sum |g| = 8, (27 + 64 + 1)^(1/3) for p = 3.
  sg.tidy(() => {
    const a = new sg.nn.Parameter(sg.zeros([3]));
    a.grad = sg.tensor([3, -4, 1]);
    close(sg.nn.utils.clipGradNorm_([a], 100, 'inf'), 4, 1e-6);
    close(sg.nn.utils.clipGradNorm_([a], 100, { normType: 1 }), 8, 1e-6);
    close(sg.nn.utils.clipGradNorm_([a], 100, { normType: 3 }), Math.cbrt(92), 1e-5);
    close(a.grad.toArray(), [3, -4, 1], 1e-6, 'below maxNorm: unchanged');
    throwsWith(() => sg.nn.utils.clipGradNorm_([a], 'x'), "clipGradNorm_: expected 'maxNorm' to be a finite number, got 'x'");
    for (const bad of [NaN, 'two']) {
      throwsWith(() => sg.nn.utils.clipGradNorm_([a], 1, { normType: bad }), "clipGradNorm_: option 'normType' must be a number or 'inf', got");
    }
    close(a.grad.toArray(), [3, -4, 1], 1e-6, 'refused: unchanged');
  });
});
