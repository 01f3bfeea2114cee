// nn.Module / Parameter / containers: argument checks no other test reached or asserted, each
// with its message (and the "got ..." part), the object staying usable after; and the methods the
// coverage run never called (apply, registerModule, float(), extend, values/entries, size, clear,
// ParameterList/Dict printing, a non-contiguous Parameter). Oracles: PyTorch 1.13's semantics
// (apply visits children before the module itself, as nn.Module.apply; a Parameter made from a
// transposed tensor holds the transposed values; Module.to refuses integer dtypes) and hand values.
import assert from 'node:assert/strict';
import test from 'node:test';
import util from 'node:util';
import { close, sg, throwsWith } from './helpers.mjs';

const nn = sg.nn;

test('Parameter: an integer tensor cannot require grad (Error naming its dtype); with requiresGrad false it is kept', () => {
  throwsWith(() => new nn.Parameter(sg.tensor([1, 2]).int()), /^Parameter: a int32 tensor cannot require gradients \(use a float32 tensor, or requiresGrad false\)$/);
  const p = new nn.Parameter(sg.tensor([1, 2]).int(), false);
  assert.equal(p.dtype, 'int32');
  assert.equal(p.requiresGrad, false);
  assert.deepEqual(Array.from(p.dataSync()), [1, 2]);
});

test('Parameter of a non-contiguous (transposed) tensor holds the transposed values, contiguously', () => {
  const x = sg.tensor([[1, 2, 3], [4, 5, 6]]);
  const p = new nn.Parameter(x.transpose(0, 1));
  assert.deepEqual(p.shape, [3, 2]);
  assert.equal(p.isContiguous(), true);
  close(p.toArray(), [[1, 4], [2, 5], [3, 6]]);
  assert.equal(p.requiresGrad, true);
});

test('assigning a module or parameter under a name with "." or an empty name is an Error naming it', () => {
  const m = new nn.Module();
  throwsWith(() => { m['a.b'] = new nn.ReLU(); }, /^module name can't contain "\." or be empty, got 'a\.b'$/);
  throwsWith(() => { m[''] = new nn.Parameter(sg.zeros([1])); }, /^parameter name can't contain "\." or be empty, got ''$/);
  m.ok = new nn.ReLU();
  assert.deepEqual([...m.namedChildren()].map(([k]) => k), ['ok']);
});

test('a child module set to null stays registered as a null placeholder (as PyTorch)', () => {
  const m = new nn.Module();
  m.lin = new nn.Linear(2, 3);
  m.lin = null;
  assert.equal(m.lin, null);
  assert.equal(m._modules.has('lin'), true);
  assert.deepEqual(Object.keys(m.stateDict()), []);
  assert.match(String(m), /\(lin\): null/);
});

test('registerBuffer of a non-Tensor is an Error naming it; registerModule is addModule', () => {
  const m = new nn.Module();
  throwsWith(() => m.registerBuffer('b', 5), /^registerBuffer: cannot register 5 as buffer 'b' \(a Tensor or null expected\)$/);
  assert.equal(m.b, undefined);
  m.registerBuffer('b', sg.tensor([7]));
  close(m.b.toArray(), [7]);
  const child = new nn.Linear(1, 1);
  m.registerModule('child', child);
  assert.equal(m.child, child);
  assert.deepEqual(Object.keys(m.stateDict()).sort(), ['b', 'child.bias', 'child.weight']);
});

test('apply calls fn on every descendant, then on the module itself; a non-function is an Error', () => {
  const inner = new nn.Sequential(new nn.Linear(2, 2), new nn.ReLU());
  const outer = new nn.Sequential(inner, new nn.Tanh());
  const seen = [];
  assert.equal(outer.apply((mod) => seen.push(mod)), outer);
  assert.deepEqual(seen.map((x) => x.constructor.name), ['Linear', 'ReLU', 'Sequential', 'Tanh', 'Sequential']);
  assert.equal(seen[2], inner);
  assert.equal(seen[4], outer);
  throwsWith(() => outer.apply(3), /^apply: expected a function, got 3$/);
  // apply as initialization: every Linear weight filled.
  outer.apply((mod) => { if (mod instanceof nn.Linear) nn.init.constant_(mod.weight, 0.5); });
  close(inner.get(0).weight.toArray(), [[0.5, 0.5], [0.5, 0.5]]);
});

test('Module.to an integer dtype is an Error (as PyTorch); float() casts back from float64', () => {
  const lin = new nn.Linear(2, 2);
  throwsWith(() => lin.to('int32'), /^to: nn\.Module\.to only accepts floating point dtypes \(as PyTorch\), got int32$/);
  assert.equal(lin.weight.dtype, 'float32');
  lin.double();
  assert.equal(lin.weight.dtype, 'float64');
  assert.equal(lin.float(), lin);
  assert.equal(lin.weight.dtype, 'float32');
  assert.equal(lin.bias.dtype, 'float32');
});

test('util.inspect(module) prints its PyTorch-style summary', () => {
  const s = new nn.Sequential(new nn.ReLU());
  assert.equal(util.inspect(s), String(s));
  assert.equal(util.inspect(s), 'Sequential(\n  (0): ReLU()\n)');
});

test('ModuleList: a non-iterable is an Error naming it; set, extend, and ModuleDict size/values/entries/clear', () => {
  throwsWith(() => new nn.ModuleList(5), /^ModuleList: expected an array of modules, got 5$/);
  throwsWith(() => new nn.ModuleList({ a: new nn.ReLU() }), /^ModuleList: expected an array of modules, got /);
  const l = new nn.ModuleList([new nn.ReLU()]);
  const t = new nn.Tanh();
  assert.equal(l.extend([new nn.Sigmoid(), new nn.GELU()]), l);
  assert.equal(l.length, 3);
  l.set(-1, t);
  assert.equal(l.get(2), t);
  assert.deepEqual([...l.children()].map((x) => x.constructor.name), ['ReLU', 'Sigmoid', 'Tanh']);
  throwsWith(() => l.set(3, t), 'ModuleList.set: index 3 is out of range for 3 modules');
  const seq = new nn.Sequential(new nn.ReLU());
  seq.extend([new nn.Tanh()]);
  close(seq.forward(sg.tensor([-1, 1])).toArray(), [0, Math.tanh(1)]);

  const a = new nn.ReLU(), b = new nn.Tanh();
  const d = new nn.ModuleDict({ a, b });
  assert.equal(d.size, 2);
  assert.equal(d.length, 2);
  assert.deepEqual(d.values(), [a, b]);
  assert.deepEqual(d.entries(), [['a', a], ['b', b]]);
  d.clear();
  assert.equal(d.size, 0);
  assert.deepEqual(d.keys(), []);
});

test('ParameterList: extend, and its printing', () => {
  const l = new nn.ParameterList([sg.zeros([2, 3])]);
  assert.equal(l.extend([sg.ones([1]), new nn.Parameter(sg.ones([4]))]), l);
  assert.equal(l.length, 3);
  assert.deepEqual([...l].map((p) => p.shape), [[2, 3], [1], [4]]);
  assert.equal(String(l), 'ParameterList(\n  (0): Parameter containing: [Tensor of shape [2, 3]]\n  (1): Parameter containing: [Tensor of shape [1]]\n  (2): Parameter containing: [Tensor of shape [4]]\n)');
});

test('ParameterDict: a non-string key and entries that are not [name, parameter] pairs are Errors naming them', () => {
  const d = new nn.ParameterDict();
  throwsWith(() => d.set(3, sg.zeros([1])), /^ParameterDict\.set: expected a string key, got 3$/);
  throwsWith(() => new nn.ParameterDict([['a', sg.zeros([1])], ['b']]), /^ParameterDict: expected \[name, parameter\] pairs, got \['b'\]$/);
  throwsWith(() => new nn.ParameterDict([[1, sg.zeros([1])]]), /^ParameterDict: expected \[name, parameter\] pairs, got \[1, /);
  throwsWith(() => d.update([['a', sg.zeros([1]), 'extra']]), 'ParameterDict: expected [name, parameter] pairs, got');
  assert.equal(d.size, 0);
  d.set('w', sg.ones([2]));
  d.update([['v', sg.zeros([3])]]);
  assert.equal(d.size, 2);
  assert.deepEqual(d.values().map((p) => p.shape), [[2], [3]]);
  assert.ok(d.values()[0] instanceof nn.Parameter);
  assert.equal(String(d), 'ParameterDict(\n  (w): Parameter containing: [Tensor of shape [2]]\n  (v): Parameter containing: [Tensor of shape [3]]\n)');
});

test('indexed containers: an index outside [-n, n) is an Error naming it; a string is not a [name, parameter] pair', () => {
  const l = new nn.ModuleList([new nn.ReLU(), new nn.Tanh(), new nn.Sigmoid()]);
  throwsWith(() => l.get(3), /^ModuleList\.get: index 3 is out of range for 3 modules$/);
  throwsWith(() => l.get(-4), /^ModuleList\.get: index -4 is out of range for 3 modules$/);
  assert.equal(l.get(-3).constructor.name, 'ReLU');
  assert.equal(l.get(2).constructor.name, 'Sigmoid');
  throwsWith(() => new nn.Sequential(new nn.ReLU()).pop(1), /^Sequential\.pop: index 1 is out of range for 1 modules$/);
  throwsWith(() => new nn.ParameterDict(['ab']), /^ParameterDict: expected \[name, parameter\] pairs, got 'ab'$/);
});
