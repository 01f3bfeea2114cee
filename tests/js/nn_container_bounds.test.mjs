// nn/container.ts and nn/conv.ts constructor guards: each part decides a call. Oracle: PyTorch 1.13
// (nn.ModuleList(None) and nn.ParameterList(None) are empty; ParameterDict.update takes a dict, a Mapping or
// pairs and refuses an int; nn.Conv2d(padding='same') refuses any stride but 1, in any dim); messages are sg's
// contract (read from the source).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

test('ModuleList and ParameterList: undefined and null are empty lists, a non-iterable refused', () => sg.tidy(() => {
  assert.equal(new sg.nn.ModuleList().length, 0);
  assert.equal(new sg.nn.ModuleList(null).length, 0);
  assert.equal(new sg.nn.ModuleList(undefined).length, 0);
  throwsWith(() => new sg.nn.ModuleList(5), 'ModuleList: expected an array of modules, got 5');
  assert.equal(new sg.nn.ParameterList().parameters().length, 0);
  assert.equal(new sg.nn.ParameterList(null).parameters().length, 0);
  assert.equal(new sg.nn.ParameterList(undefined).parameters().length, 0);
  throwsWith(() => new sg.nn.ParameterList(5), 'ParameterList: expected an array of Parameters or Tensors, got 5');
}));

test('ParameterList: a live Tensor is wrapped, a disposed one refused', () => {
  const t = sg.ones([2]);
  const pl = new sg.nn.ParameterList([t]);
  assert.ok(pl[0] instanceof sg.nn.Parameter);
  assert.deepEqual(pl[0].shape, [2]);
  const gone = sg.ones([2]);
  gone.dispose();
  throwsWith(() => new sg.nn.ParameterList([gone]), /^ParameterList: element 0 is not a sg\.nn\.Parameter or a Tensor, got .*disposed/i);
  pl.parameters().forEach((p) => p.dispose());
  t.dispose();
});

test('ParameterDict.update: an object, a Map and pairs taken; a number refused', () => {
  const d = new sg.nn.ParameterDict();
  const a = sg.ones([1]), b = sg.ones([2]), c = sg.ones([3]);
  d.update({ a });
  d.update(new Map([['b', b]]));
  d.update([['c', c]]);
  assert.deepEqual(d.keys(), ['a', 'b', 'c']);
  throwsWith(() => d.update(5), 'ParameterDict: expected an object, a Map or [name, parameter] pairs, got 5');
  d.parameters().forEach((p) => p.dispose());
  sg.dispose([a, b, c]);
});

test("Conv2d: padding 'same' refused with a stride other than 1 in any dim, taken with stride 1; stride 2 taken with numeric padding", () => sg.tidy(() => {
  throwsWith(() => new sg.nn.Conv2d(1, 1, 3, { padding: 'same', stride: 2 }), "Conv2d: padding 'same' is not supported for strided convolutions");
  throwsWith(() => new sg.nn.Conv2d(1, 1, 3, { padding: 'same', stride: [1, 2] }), "Conv2d: padding 'same' is not supported for strided convolutions");
  assert.equal(new sg.nn.Conv2d(1, 1, 3, { padding: 'same', stride: 1 }).padding, 'same');
  assert.deepEqual(new sg.nn.Conv2d(1, 1, 3, { padding: 1, stride: 2 }).forward(sg.ones([1, 1, 4, 4])).shape, [1, 1, 2, 2]);
  assert.deepEqual(new sg.nn.Conv2d(1, 1, 3, { padding: 'valid', stride: 2 }).forward(sg.ones([1, 1, 5, 5])).shape, [1, 1, 2, 2]);
}));
