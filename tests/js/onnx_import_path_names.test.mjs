// sg.onnx.importModel with initializer names that are not a module path: an empty part ('a..b', '.w',
// 'w.') or white space ('my w.x'). Such an initializer is registered on the OnnxModule itself with its
// dots written as '_' (a dot in a state-dict key means a submodule) and is still read by its ONNX name
// in forward; dotted names that are paths ('enc.block.w', 'enc.block.v', 'enc.u') make submodules, each once,
// also where the path's module had to be renamed ('to.weight' then 'to.bias': both in 'to_', as 'to' is a method). The model is written here
// with onnx-proto; the oracle is onnxruntime-node running the same bytes, and the closed form.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { assertClose, onnx, ort } from './onnx_helpers.mjs';

const FLOAT = 1;
const init = (name, values) => ({ name, dataType: FLOAT, dims: [values.length], floatData: values });
const info = (name, dims) => ({ name, type: { tensorType: { elemType: FLOAT, shape: { dim: dims.map((d) => ({ dimValue: d })) } } } });
const NAMES = ['a..b', '.w', 'w.', 'my w.x', 'enc.block.w', 'enc.block.v', 'enc.u', 'to.weight', 'to.bias'];
const VALUES = [[0.5, -1, 2], [3, 0.25, -2], [1, 2, 3], [-0.5, 4, 0.125], [2, -3, 0.75], [0.25, 1, -1], [5, -2, 0.5], [1.5, -0.5, 2], [0.5, 0.25, -4]];

function model() {
  // y = (((((x + a..b) * .w) - w.) + my w.x) * enc.block.w + enc.block.v - enc.u) * to.weight + to.bias
  const ops = ['Add', 'Mul', 'Sub', 'Add', 'Mul', 'Add', 'Sub', 'Mul', 'Add'];
  const node = ops.map((opType, i) => ({ opType, input: [i === 0 ? 'x' : `t${i}`, NAMES[i]], output: [i === ops.length - 1 ? 'y' : `t${i + 1}`], name: `n${i}` }));
  const graph = { name: 'paths', input: [info('x', [2, 3])], output: [info('y', [2, 3])], initializer: NAMES.map((n, i) => init(n, VALUES[i])), node };
  return onnx.ModelProto.encode({ irVersion: 8, opsetImport: [{ domain: '', version: 17 }], graph }).finish();
}

test("initializers named 'a..b', '.w', 'w.' and 'my w.x' are the OnnxModule's own, dots as '_'; 'enc.block.w', 'enc.block.v', 'enc.u' share submodules, as 'to.weight' and 'to.bias' in 'to_'; forward equals onnxruntime", async () => {
  const bytes = model();
  const m = sg.onnx.importModel(bytes);
  assert.deepEqual(Object.keys(m.stateDict()).sort(), ['_w', 'a__b', 'enc.block.v', 'enc.block.w', 'enc.u', 'my w_x', 'to_.bias', 'to_.weight', 'w_']);
  assert.deepEqual(m.namedModules().map(([p]) => p).filter(Boolean).sort(), ['enc', 'enc.block', 'to_']);
  const xs = [0.1, -0.2, 0.3, 1.5, -2.5, 4];
  const y = sg.tidy(() => m.forward(sg.tensor(Float32Array.from(xs), { shape: [2, 3] })));
  const got = Array.from(y.dataSync());
  y.dispose();
  const session = await ort.InferenceSession.create(bytes);
  const want = Array.from((await session.run({ x: new ort.Tensor('float32', Float32Array.from(xs), [2, 3]) })).y.data);
  assertClose(got, want, 1e-6, 'vs onnxruntime');
  const [a, b, c, d, e, f, g, h, k] = VALUES;
  const closed = xs.map((x, i) => (((x + a[i % 3]) * b[i % 3] - c[i % 3] + d[i % 3]) * e[i % 3] + f[i % 3] - g[i % 3]) * h[i % 3] + k[i % 3]);
  assertClose(got, closed, 1e-5, 'closed form');
  m.dispose();
});
