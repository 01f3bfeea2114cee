// sg.onnx.export's option guards at each part alone: inputNames / outputNames that are no array, hold a
// non-string, or an empty string after a good one; opsetVersion 16 and '17' refused, 17 taken; a dynamicAxes
// name that is an output name only, an input name only, or neither (with and without outputNames); and a
// function that fails at a grown dynamic size: its Error is explained (at which sizes), while a failure of the
// example's own trace, or an Error already naming onnx.export, passes as it is. Oracles: the messages of
// npm/src/io/onnx.ts (the contract); a taken option gives a model that runs (importModel, x + 1 by hand).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

const x = sg.tensor([[1, 2, 3], [4, 5, 6]]);
const add = (t) => t.add(1);
const FN = 'onnx.export';
const runs = (bytes, ...inputs) => Array.from(sg.onnx.importModel(bytes).forward(...inputs).dataSync());

test('inputNames / outputNames: not an array, a non-string, an empty string after a good one', () => {
  for (const [key, v, got] of [['inputNames', 'x', "'x'"], ['inputNames', [5], '[5]'], ['inputNames', ['x', ''], "['x', '']"], ['outputNames', ['y', 5], "['y', 5]"], ['outputNames', [''], "['']"], ['inputNames', [['x']], "[['x']]"]]) {
    assert.throws(() => sg.onnx.export(add, [x], { [key]: v }), { message: `${FN}: ${key} must be an array of non-empty strings, got ${got}` });
  }
  assert.deepEqual(runs(sg.onnx.export(add, [x], { inputNames: ['x'], outputNames: ['y'] }), x), [2, 3, 4, 5, 6, 7]);
});

test('opsetVersion: only 17 (not 16, not the string \'17\')', () => {
  assert.throws(() => sg.onnx.export(add, [x], { opsetVersion: 16 }), { message: `${FN}: opsetVersion 16 is not supported (only 17)` });
  assert.throws(() => sg.onnx.export(add, [x], { opsetVersion: '17' }), { message: `${FN}: opsetVersion '17' is not supported (only 17)` });
  assert.deepEqual(runs(sg.onnx.export(add, [x], { opsetVersion: 17 }), x), [2, 3, 4, 5, 6, 7]);
});

test('dynamicAxes names an input or an output; neither is refused, with and without outputNames', () => {
  const out = sg.onnx.export(add, [x], { outputNames: ['y'], dynamicAxes: { y: [0] } });
  assert.deepEqual(runs(out, x), [2, 3, 4, 5, 6, 7]);
  const inp = sg.onnx.export(add, [x], { inputNames: ['x'], dynamicAxes: { x: [0] } });
  assert.deepEqual(runs(inp, sg.tensor([[0, 0, 0], [1, 1, 1], [2, 2, 2]])), [1, 1, 1, 2, 2, 2, 3, 3, 3], 'three rows through a dynamic axis');
  assert.throws(() => sg.onnx.export(add, [x], { dynamicAxes: { y: [0] } }), { message: `${FN}: dynamicAxes names 'y', which is neither an input nor an output name` });
  assert.throws(() => sg.onnx.export(add, [x], { inputNames: ['x'], outputNames: ['y'], dynamicAxes: { z: [0] } }),
    { message: `${FN}: dynamicAxes names 'z', which is neither an input nor an output name` });
});

test('a function failing at a grown dynamic size is explained; failing on the example, or with an onnx.export Error, passes as is', () => {
  const dyn0 = { dynamicAxes: { input_0: [0] } };
  assert.throws(() => sg.onnx.export((t) => { if (t.shape[0] > 2) throw new Error('too long'); return t.add(1); }, [x], dyn0),
    { message: `${FN}: dynamicAxes trace the function again with the symbolic dims 1 and 2 larger than the example's; at {input_0_dim0: 3} it failed: too long (give an example at least 2 below such a limit)` });
  assert.throws(() => sg.onnx.export(() => { throw new Error('never'); }, [x], dyn0), { message: 'never' });
  assert.throws(() => sg.onnx.export((t) => { if (t.shape[0] > 2) throw new Error(`${FN}: mine`); return t.add(1); }, [x], dyn0), { message: `${FN}: mine` });
});

test('the model: a Module or a function is taken, anything else (a number, an object with forward alone) refused', () => {
  assert.throws(() => sg.onnx.export(42, [x]), { message: `${FN}: expected an nn.Module or a function, got 42` });
  assert.throws(() => sg.onnx.export({ forward: add }, [x]), { message: `${FN}: expected an nn.Module or a function, got an object` });
  const lin = new sg.nn.Linear(3, 1);
  sg.noGrad(() => { lin.weight.copy_(sg.tensor([[1, 0, -1]])); lin.bias.copy_(sg.tensor([0.5])); });
  assert.deepEqual(runs(sg.onnx.export(lin, [x], { training: false }), x), [-1.5, -1.5]);
  // a module-like object (not callable): forward, namedParameters and namedBuffers are what export reads
  const duck = { forward: add, namedParameters: () => [], namedBuffers: () => [], training: false, train() {} };
  assert.deepEqual(runs(sg.onnx.export(duck, [x], { training: false }), x), [2, 3, 4, 5, 6, 7]);
});
