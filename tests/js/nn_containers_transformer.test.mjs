// sg.nn.Transformer against PyTorch 1.13 (tests/data/transformer_ref.json from gen_transformer.py:
// state-dict names and order, outputs and gradients with masks, batchFirst, normFirst, gelu),
// and sg.nn.ParameterList / ParameterDict (registration, names, optimizers, state dicts, errors).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { closeTo, fromRef, readRef } from './gradcheck_helpers.mjs';

const ref = readRef('transformer_ref.json');
const { nn } = sg;

for (const c of ref.cases) {
  test(`Transformer (${c.name}): names, output and gradients match PyTorch`, () => {
    sg.tidy(() => {
      const m = new nn.Transformer(c.options);
      assert.deepEqual(Object.keys(m.stateDict()), Object.keys(c.state), 'state dict names and order');
      m.loadStateDict(Object.fromEntries(Object.entries(c.state).map(([k, v]) => [k, fromRef(v)])));
      const src = fromRef(c.src, { requiresGrad: true });
      const tgt = fromRef(c.tgt, { requiresGrad: true });
      const T = tgt.shape[c.options.batchFirst ? 1 : 0];
      const N = src.shape[c.options.batchFirst ? 0 : 1];
      const S = src.shape[c.options.batchFirst ? 1 : 0];
      const masks = {};
      if (c.masks.includes('tgtMask')) masks.tgtMask = nn.Transformer.generateSquareSubsequentMask(T);
      if (c.masks.includes('srcKeyPaddingMask')) {
        const pad = Array.from({ length: N }, (_, n) => Array.from({ length: S }, (_, s) => n === 0 && s === S - 1));
        masks.srcKeyPaddingMask = sg.tensor(pad);
        masks.memoryKeyPaddingMask = sg.tensor(pad);
      }
      const out = m.forward(src, tgt, masks);
      closeTo(out, c.output, 2e-5, 'output');
      out.mul(fromRef(c.r)).sum().backward();
      closeTo(src.grad, c.srcGrad, 2e-5, 'gradient of src');
      closeTo(tgt.grad, c.tgtGrad, 2e-5, 'gradient of tgt');
      const params = Object.fromEntries(m.namedParameters());
      for (const [k, g] of Object.entries(c.paramGrads)) closeTo(params[k].grad, g, 2e-5, `gradient of ${k}`);
      m.dispose();
    });
  });
}

test('Transformer: defaults, xavier initialisation, custom encoder, positional masks, errors', () => {
  sg.tidy(() => {
    const m = new nn.Transformer({ dModel: 16, nhead: 4, numEncoderLayers: 1, numDecoderLayers: 1, dimFeedforward: 8 });
    const w = m.encoder.layers.get(0).linear1.weight; // [8, 16]: xavier bound √(6 / 24) = 0.5
    const values = Array.from(w.dataSync());
    assert.ok(values.every((v) => Math.abs(v) <= 0.5) && Math.max(...values.map(Math.abs)) > 0.4);
    assert.ok(Array.from(m.encoder.norm.weight.dataSync()).every((v) => v === 1), 'LayerNorm weights (1-D) keep their init');
    const src = sg.randn([3, 2, 16]);
    const tgt = sg.randn([4, 2, 16]);
    const mask = nn.Transformer.generateSquareSubsequentMask(4);
    m.eval();
    assert.deepEqual(m.forward(src, tgt, null, mask).toArray(), m.forward(src, tgt, { tgtMask: mask }).toArray());
    const enc = new nn.TransformerEncoder(new nn.TransformerEncoderLayer(16, 4, { dimFeedforward: 8 }), 1);
    const custom = new nn.Transformer({ dModel: 16, nhead: 4, customEncoder: enc, numDecoderLayers: 1, dimFeedforward: 8 });
    assert.equal(custom.encoder, enc);
    assert.deepEqual(custom.forward(src, tgt).shape, [4, 2, 16]);
    throwsWith(() => m.forward(src, sg.randn([4, 3, 16])), 'Transformer', 'batch number of src and tgt must be equal');
    throwsWith(() => m.forward(src, sg.randn([4, 2, 8])), 'Transformer', 'feature number', 'dModel (16)');
    throwsWith(() => new nn.Transformer({ d_model: 8 }), 'Transformer', "unknown option 'd_model'", 'dModel');
    throwsWith(() => new nn.Transformer({ customEncoder: 5 }), 'Transformer', "'customEncoder'", 'sg.nn.Module', 'got 5');
    sg.dispose([m, custom]);
  });
});

test('ParameterList: registered as 0, 1, ..., read as list[i], trained by an optimizer, saved and loaded', () => {
  sg.tidy(() => {
    class Model extends nn.Module {
      constructor() {
        super();
        this.scales = new nn.ParameterList([sg.ones([2]), new nn.Parameter(sg.full([3], 2))]);
        this.scales.append(sg.zeros([1]));
      }
      forward(x) {
        return x.mul(this.scales[0]).sum().add(this.scales.get(1).sum()).add(this.scales[2].sum());
      }
    }
    const m = new Model();
    assert.deepEqual(m.namedParameters().map(([n, p]) => [n, p.shape]), [['scales.0', [2]], ['scales.1', [3]], ['scales.2', [1]]]);
    assert.equal(m.scales.length, 3);
    assert.deepEqual([...m.scales].map((p) => p.shape[0]), [2, 3, 1]);
    assert.ok(m.scales.get(-1) === m.scales[2]);
    const opt = new sg.optim.SGD(m.parameters(), { lr: 0.5 });
    m.forward(sg.tensor([1, 2])).backward();
    opt.step();
    assert.deepEqual(m.scales[0].toArray(), [0.5, 0]);
    const copy = new Model();
    copy.loadStateDict(m.stateDict());
    assert.deepEqual(copy.scales[1].toArray(), [1.5, 1.5, 1.5]);
    m.scales.set(1, sg.zeros([3]));
    assert.deepEqual(m.scales[1].toArray(), [0, 0, 0]);
    throwsWith(() => m.scales.append(5), 'ParameterList.append', 'Parameter or a Tensor', 'got 5');
    throwsWith(() => m.scales.get(3), 'ParameterList.get', 'index 3 is out of range');
    throwsWith(() => new nn.ParameterList(7), 'ParameterList', 'array of Parameters', 'got 7');
    sg.dispose([m, copy]);
  });
});

test('ParameterDict: names, dict methods, state dicts, errors', () => {
  sg.tidy(() => {
    const d = new nn.ParameterDict({ alpha: sg.ones([2]), beta: new nn.Parameter(sg.zeros([1])) });
    d.set('gamma', sg.full([2, 2], 3));
    assert.deepEqual(d.keys(), ['alpha', 'beta', 'gamma']);
    assert.deepEqual(Object.keys(d.stateDict()), ['alpha', 'beta', 'gamma']);
    assert.ok(d.has('beta') && !d.has('delta'));
    assert.equal(d.length, 3);
    assert.ok(d.get('alpha') === d.alpha);
    assert.equal(d.pop('beta').shape[0], 1);
    assert.deepEqual([...d], ['alpha', 'gamma']);
    d.set('alpha', sg.zeros([4]));
    assert.deepEqual(d.get('alpha').shape, [4]);
    assert.equal(d.parameters().length, 2);
    d.update([['eps', sg.ones([1])]]);
    assert.deepEqual(d.entries().map(([k]) => k), ['alpha', 'gamma', 'eps']);
    throwsWith(() => d.set('x', [1, 2]), 'ParameterDict.set', 'Parameter or a Tensor', '[1, 2]');
    throwsWith(() => d.pop('nope'), 'ParameterDict.pop', "no parameter named 'nope'");
    throwsWith(() => new nn.ParameterDict(5), 'ParameterDict', 'an object, a Map', 'got 5');
    d.clear();
    assert.equal(d.length, 0);
  });
});
