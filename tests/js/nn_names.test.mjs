// Parameter, buffer and state-dict names, shapes and order of every sg.nn module vs PyTorch's
// (tests/data/nn_names_ref.json from tests/data/gen_nn_names.py), and the registration rules of
// sg.nn.Module: attribute assignment registers Parameters and Modules in assignment order,
// registerParameter / registerBuffer / addModule, containers, deduplication.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { build, readRef } from './nn_helpers.mjs';

const ref = readRef('nn_names_ref.json');

for (const c of ref.cases) {
  test(`names vs PyTorch: ${c.name}`, () => {
    sg.tidy(() => {
      const m = build(c.js);
      assert.deepEqual(m.namedParameters().map(([n, p]) => [n, p.shape]), c.parameters, 'namedParameters');
      assert.deepEqual(m.namedBuffers().map(([n, b]) => [n, b.shape]), c.buffers, 'namedBuffers');
      const sd = m.stateDict();
      assert.deepEqual(Object.entries(sd).map(([n, t]) => [n, t.shape, t.dtype]), c.stateDict, 'stateDict');
      assert.deepEqual(m.namedChildren().map(([n]) => n), c.children, 'namedChildren');
      assert.deepEqual(m.namedModules().map(([n]) => n), c.modules, 'namedModules');
      for (const p of m.parameters()) assert.equal(p.requiresGrad, true);
      for (const t of Object.values(sd)) assert.equal(t.requiresGrad, false, 'stateDict values are detached');
      m.dispose();
    });
  });
}

test('a subclassed Module registers attributes in assignment order', () => {
  sg.tidy(() => {
    class Block extends sg.nn.Module {
      constructor() {
        super();
        this.b = new sg.nn.Linear(2, 2);
        this.a = new sg.nn.Linear(2, 1, { bias: false });
        this.gain = new sg.nn.Parameter(sg.ones([1]));
        this.notAParam = sg.zeros([3]); // a plain tensor attribute is not registered (as PyTorch)
        this.config = { depth: 2 };
      }

      forward(x) {
        return this.a(this.b(x).relu()).mul(this.gain);
      }
    }
    const m = new Block();
    assert.deepEqual(m.namedParameters().map(([n]) => n), ['gain', 'b.weight', 'b.bias', 'a.weight']);
    assert.deepEqual(m.namedChildren().map(([n]) => n), ['b', 'a']);
    assert.deepEqual(m(sg.ones([4, 2])).shape, [4, 1]);
    // Reassigning keeps the position; null keeps the name registered (as None in PyTorch).
    m.b = new sg.nn.Linear(2, 2, { bias: false });
    assert.deepEqual(m.namedParameters().map(([n]) => n), ['gain', 'b.weight', 'a.weight']);
    m.gain = null;
    assert.deepEqual(m.namedParameters().map(([n]) => n), ['b.weight', 'a.weight']);
    assert.ok(m._parameters.has('gain'));
    throwsWith(() => {
      m.gain = sg.ones([1]);
    }, "cannot assign a Tensor of shape [1] (float32) as parameter 'gain'");
    throwsWith(() => {
      m.a = 3;
    }, "cannot assign 3 as child module 'a'");
    delete m.a;
    assert.deepEqual(m.namedChildren().map(([n]) => n), ['b']);
    assert.equal(m.a, undefined);
    // Class fields are definitions, not assignments: they register too.
    class WithFields extends sg.nn.Module {
      first = new sg.nn.Linear(1, 1);
      second = new sg.nn.Linear(1, 1);
    }
    assert.deepEqual(new WithFields().namedChildren().map(([n]) => n), ['first', 'second']);
  });
});

test('registerParameter, registerBuffer and addModule', () => {
  sg.tidy(() => {
    const m = new sg.nn.Module();
    m.registerParameter('w', new sg.nn.Parameter(sg.zeros([2])));
    m.registerParameter('unused', null);
    m.registerBuffer('count', sg.zeros([1], { dtype: 'int32' }));
    m.registerBuffer('scratch', sg.zeros([4]), { persistent: false });
    m.addModule('child', new sg.nn.Linear(1, 1));
    assert.deepEqual(Object.keys(m.stateDict()), ['w', 'count', 'child.weight', 'child.bias']);
    assert.deepEqual(m.namedBuffers().map(([n]) => n), ['count', 'scratch']);
    assert.ok(m.w instanceof sg.nn.Parameter);
    assert.equal(m.unused, null);
    throwsWith(() => m.registerParameter('w2', sg.zeros([2])), 'registerParameter', 'new sg.nn.Parameter(t)');
    throwsWith(() => m.registerBuffer('a.b', sg.zeros([1])), 'registerBuffer: buffer name can\'t contain "."');
    throwsWith(() => m.registerBuffer('w', sg.zeros([1])), "registerBuffer: attribute 'w' already exists");
    throwsWith(() => m.addModule('forward', new sg.nn.Identity()), "addModule: attribute 'forward' already exists");
    throwsWith(() => m.addModule('', new sg.nn.Identity()), "addModule: module name can't be empty");
    throwsWith(() => m.addModule('x', {}), 'addModule: an object is not a sg.nn.Module');
    throwsWith(() => m.registerBuffer('b', sg.zeros([1]), { persist: false }), "registerBuffer: unknown option 'persist'");
    throwsWith(() => m.forward(1), 'Module: forward() is not implemented');
    // Assigning a tensor to a registered buffer name replaces the buffer.
    m.count = sg.ones([1], { dtype: 'int32' });
    assert.equal(m.stateDict().count.item(), 1);
  });
});

test('parameters() deduplicates shared parameters; stateDict keeps every name', () => {
  sg.tidy(() => {
    const enc = new sg.nn.Linear(3, 3);
    const dec = new sg.nn.Linear(3, 3);
    dec.weight = enc.weight; // tied weights
    const m = new sg.nn.Sequential(enc, dec);
    assert.deepEqual(m.namedParameters().map(([n]) => n), ['0.weight', '0.bias', '1.bias']);
    assert.equal(m.parameters().length, 3);
    assert.deepEqual(Object.keys(m.stateDict()), ['0.weight', '0.bias', '1.weight', '1.bias']);
    const twice = new sg.nn.Sequential(enc, enc);
    assert.deepEqual(twice.namedModules().map(([n]) => n), ['', '0']);
    assert.equal(twice.parameters().length, 2);
  });
});

test('containers: Sequential, ModuleList, ModuleDict', () => {
  sg.tidy(() => {
    const seq = new sg.nn.Sequential(new sg.nn.Linear(2, 3), new sg.nn.ReLU());
    assert.equal(seq.length, 2);
    assert.ok(seq[0] instanceof sg.nn.Linear && seq.get(-1) instanceof sg.nn.ReLU);
    seq.append(new sg.nn.Linear(3, 1));
    assert.deepEqual(seq.namedParameters().map(([n]) => n), ['0.weight', '0.bias', '2.weight', '2.bias']);
    assert.deepEqual(seq(sg.ones([5, 2])).shape, [5, 1]);
    const named = new sg.nn.Sequential({ fc: new sg.nn.Linear(2, 2), act: new sg.nn.Tanh() });
    assert.deepEqual(named.namedChildren().map(([n]) => n), ['fc', 'act']);
    assert.ok(named.get(1) instanceof sg.nn.Tanh);

    const list = new sg.nn.ModuleList([new sg.nn.Linear(1, 1), new sg.nn.Linear(1, 2)]);
    list.insert(1, new sg.nn.Identity());
    assert.deepEqual(list.namedChildren().map(([n, m]) => [n, m.constructor.name]), [['0', 'Linear'], ['1', 'Identity'], ['2', 'Linear']]);
    assert.equal(list[2].outFeatures, 2);
    assert.ok(list.pop(1) instanceof sg.nn.Identity);
    assert.deepEqual(list.namedParameters().map(([n]) => n), ['0.weight', '0.bias', '1.weight', '1.bias']);
    assert.equal([...list].length, 2);
    throwsWith(() => list.get(5), 'get: index 5 is out of range for 2 modules');
    throwsWith(() => list(1), 'ModuleList: forward() is not implemented');

    const dict = new sg.nn.ModuleDict({ b: new sg.nn.Linear(1, 1) });
    dict.set('a', new sg.nn.Linear(1, 1));
    assert.deepEqual(dict.keys(), ['b', 'a']);
    assert.ok(dict.has('a') && dict.get('a') instanceof sg.nn.Linear);
    assert.deepEqual(Object.keys(dict.stateDict()), ['b.weight', 'b.bias', 'a.weight', 'a.bias']);
    dict.delete('b');
    assert.deepEqual([...dict], ['a']);
    throwsWith(() => dict.set('keys', new sg.nn.Identity()), "addModule: attribute 'keys' already exists");
  });
});

test('toString prints the module tree as PyTorch', () => {
  const m = new sg.nn.Sequential(new sg.nn.Linear(4, 2), new sg.nn.ReLU());
  assert.equal(String(m), 'Sequential(\n  (0): Linear(in_features=4, out_features=2, bias=True)\n  (1): ReLU()\n)');
  m.dispose();
});
