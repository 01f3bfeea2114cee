// Boundaries of the runtime's argument guards (npm/src/api.ts setBackend, index.ts init threads,
// runtime/dtypes.ts setDefaultDtype and to()'s target, runtime/handles.ts int64 -> number,
// runtime/options.ts checkOptions / dimsArg / boolArg / numberArg) and the byte sizes of
// dtypeBytes as savePretrained's shards show them. Oracle: PyTorch 1.13
// (torch.set_default_dtype takes float32/float64 only; Tensor.to takes a dtype, a device or both)
// and the source's messages; JS's exact-integer range ±(2^53 − 1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { init } from '../../npm/dist/index.mjs';
import { sg, throwsWith, scoped } from './helpers.mjs';

test('setBackend: a known name taken, a non-string and an unknown string refused', () => {
  throwsWith(() => sg.setBackend(5), "setBackend: unknown backend 5 (expected one of: 'wasm', 'reference', 'webgpu')");
  throwsWith(() => sg.setBackend('simd'), "setBackend: unknown backend 'simd' (expected one of");
  sg.setBackend('reference');
  sg.setBackend('wasm');
});

test('init threads: 2 refused once single-threaded, 1 taken', async () => {
  await assert.rejects(init({ threads: 2 }), /^Error: init: threads: 2 is not available: simdgrad was already initialized single-threaded here/);
  const again = await init({ threads: 1 });
  assert.equal(typeof again.tensor, 'function');
});

test('setDefaultDtype: float32 and float64 taken, float16 and a number refused', () => {
  throwsWith(() => sg.setDefaultDtype('float16'), "setDefaultDtype: expected 'float32' or 'float64' (as torch.set_default_dtype), got 'float16'");
  throwsWith(() => sg.setDefaultDtype(64), /got 64$/);
  try {
    sg.setDefaultDtype('float64');
    assert.equal(sg.zeros([1]).dtype, 'float64');
    sg.setDefaultDtype('float32');
    assert.equal(sg.zeros([1]).dtype, 'float32');
  } finally {
    sg.setDefaultDtype('float32');
  }
});

test('to(target): dtype, device, {} and { device, dtype } taken; null, a number, an array, bad fields refused', scoped(() => {
  const x = sg.tensor([1, 2]);
  assert.equal(x.to('float64').dtype, 'float64');
  assert.equal(x.to('cpu').device, 'cpu');
  assert.equal(x.to({}).dtype, 'float32');
  assert.equal(x.to({ device: 'cpu', dtype: 'int32' }).dtype, 'int32');
  for (const [bad, shown] of [[null, 'null'], [5, '5'], [['cpu'], 'cpu'], ['gpu', "'gpu'"]]) {
    throwsWith(() => x.to(bad), /^to: expected a dtype \(.*\), a device \('cpu', 'webgpu'\) or \{ device, dtype \}, got /, `got ${shown}`);
  }
  throwsWith(() => x.to({ device: 'gpu' }), "to: expected 'device' to be 'cpu' or 'webgpu', got 'gpu'");
  throwsWith(() => x.to({ dtype: 'float' }), /^to: expected 'dtype' to be one of .*, got 'float'$/);
  throwsWith(() => x.to({ device: 'cpu', extra: 1 }), "to: unknown option 'extra' (expected device, dtype)");
}));

test('int64 item(): ±(2^53 − 1) read as numbers, ±2^53 refused', scoped(() => {
  const m = BigInt(Number.MAX_SAFE_INTEGER);
  const t = sg.tensor(new BigInt64Array([m, -m, m + 1n, -m - 1n]), { dtype: 'int64', shape: [4] });
  assert.equal(t.index(0).item(), Number.MAX_SAFE_INTEGER);
  assert.equal(t.index(1).item(), -Number.MAX_SAFE_INTEGER);
  throwsWith(() => t.index(2).item(), 'item: the int64 value 9007199254740992 is beyond ±(2^53 − 1), where JS numbers are exact');
  throwsWith(() => t.index(3).item(), 'item: the int64 value -9007199254740992 is beyond ±(2^53 − 1)');
}));

test('options objects: plain and prototype-less taken, class instances refused', scoped(() => {
  const s = sg.tensor([1, 2, 3]), v = sg.tensor([2]);
  const bare = Object.create(null);
  bare.right = true;
  assert.deepEqual(Array.from(sg.searchsorted(s, v, bare).dataSync()), [2]);
  assert.deepEqual(Array.from(sg.searchsorted(s, v, { right: true }).dataSync()), [2]);
  throwsWith(() => sg.searchsorted(s, v, new Map()), /^searchsorted: expected an options object, got/);
  throwsWith(() => sg.searchsorted(s, v, sg.tensor([1])), /^searchsorted: expected an options object, got/);
}));

test("reductions' dim and keepdim: integers / integer arrays and null taken; others refused", scoped(() => {
  const x = sg.tensor([[1, 2], [3, 4]]);
  assert.deepEqual(Array.from(sg.sum(x, [0, 1]).dataSync()), [10]);
  assert.deepEqual(Array.from(sg.sum(x, null).dataSync()), [10]);
  assert.deepEqual(sg.sum(x, 1, null).shape, [2]);
  assert.deepEqual(sg.sum(x, 1, true).shape, [2, 1]);
  throwsWith(() => sg.sum(x, [0, 0.5]), /^sum: expected 'dim' to be an integer or an array of integers, got/);
  throwsWith(() => sg.sum(x, 'a'), /^sum: expected 'dim' to be an integer or an array of integers, got/);
  throwsWith(() => sg.sum(x, 1, 1), "sum: expected 'keepdim' to be a boolean, got 1");
}));

test('numberArg: finite numbers taken; Infinity, NaN and a string refused (dropout p)', scoped(() => {
  const x = sg.ones([4]);
  assert.deepEqual(Array.from(sg.F.dropout(x, 0).dataSync()), [1, 1, 1, 1]);
  throwsWith(() => sg.F.dropout(x, Infinity), "dropout: expected 'p' to be a finite number, got Infinity");
  throwsWith(() => sg.F.dropout(x, NaN), "dropout: expected 'p' to be a finite number, got NaN");
}));

// dtypeBytes (runtime/dtypes.ts) as savePretrained's index reports it: total_size is the sum of
// numel * bytes per element (1 for bool/int8/uint8, 2 for float16/bfloat16, 4 for int32/float32,
// 8 for int64/float64: torch's element_size()).
test('savePretrained total_size counts each dtype at its element size', () => {
  const LLAMA = { hidden_size: 8, intermediate_size: 8, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1, vocab_size: 8 };
  const sizes = { bool: 1, int8: 1, uint8: 1, float16: 2, bfloat16: 2, int32: 4, int64: 8, float64: 8 };
  for (const [dtype, bytes] of Object.entries(sizes)) {
    const m = new sg.models.LlamaForCausalLM(LLAMA);
    const params = m.parameters().reduce((s, p) => s + p.numel, 0);
    m.registerBuffer('extra', sg.zeros([5], { dtype }));
    const floatBytes = dtype.startsWith('float') || dtype === 'bfloat16' ? bytes : 4;
    if (floatBytes !== 4) m.to(dtype);
    const files = sg.models.savePretrained(m, { maxShardSize: 200 });
    const index = JSON.parse(files['model.safetensors.index.json']);
    assert.equal(index.metadata.total_size, params * floatBytes + 5 * bytes, dtype);
    m.dispose();
  }
});
