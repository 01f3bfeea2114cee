// Without the optional peer dependency 'onnx-proto' (its import refused for the package by module
// hooks registered before init, onnx_no_proto_hooks.mjs): init still works, sg.onnx.export and
// sg.onnx.importModel each name themselves and say how to install it, sg.onnx.use refuses what is
// not the module, and sg.onnx.use(the module) makes both work. Oracles: the messages (the contract
// in io/onnx.ts) and, after use(), a hand value (x + 1) through export → importModel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { register } from 'node:module';
import { createRequire } from 'node:module';

register('./onnx_no_proto_hooks.mjs', import.meta.url);
const { sg } = await import('./helpers.mjs');

const install = "the npm package 'onnx-proto' is not loaded (an optional peer dependency of simdgrad, which";
const advice = "run `npm install onnx-proto` before init(); in a bundled browser app, call sg.onnx.use(await import('onnx-proto'))";

test('without onnx-proto: export and importModel say how to install it; use() checks its argument; use(module) enables both', () => {
  const x = sg.tensor([[1, 2, 3]]);
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x]), { message: `onnx.export: ${install} writes the protobuf): ${advice}` });
  assert.throws(() => sg.onnx.importModel(new Uint8Array(4)), { message: `onnx.importModel: ${install} reads and writes the protobuf): ${advice}` });
  const expected = /^onnx\.use: expected the module of the npm package 'onnx-proto' \(await import\('onnx-proto'\)\), got /;
  assert.throws(() => sg.onnx.use({}), { message: new RegExp(expected.source + 'an object$') });
  assert.throws(() => sg.onnx.use(null), { message: new RegExp(expected.source + 'null$') });
  assert.throws(() => sg.onnx.use({ onnx: { ModelProto: {} } }), { message: new RegExp(expected.source + 'an object$') }, 'a namespace without ModelProto.encode');
  // a refused use() leaves it unloaded
  assert.throws(() => sg.onnx.export((t) => t.add(1), [x]), /onnx-proto' is not loaded/);
  // the module as CommonJS exports it (onnx at the top) and as an ESM namespace (under default)
  const mod = createRequire(new URL('../../npm/package.json', import.meta.url))('onnx-proto');
  sg.onnx.use({ default: mod });
  const m = sg.onnx.importModel(sg.onnx.export((t) => t.add(1), [x]));
  assert.deepEqual(Array.from(m.forward(sg.tensor([[5, -1, 0.5]])).dataSync()), [6, 0, 1.5]);
  sg.onnx.use(mod);
  assert.ok(sg.onnx.export((t) => t.mul(2), [x]).length > 0);
});
