// sg.nn.RNN / LSTM / GRU and their cells against PyTorch 1.13 (tests/data/rnn_ref.json from
// gen_rnn.py: PyTorch's weights loaded with loadStateDict; outputs, states and the gradients
// of the input, the initial states and every parameter), central-difference gradient checks
// of the stacked layers, parameter names and initialisation, and a length-1,000 sequence that
// trains with sg.memory() flat across steps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { closeTo, fromRef, gradcheck, lcg, readRef } from './gradcheck_helpers.mjs';

const ref = readRef('rnn_ref.json');
const { nn } = sg;
// float32 rounding: PyTorch's BLAS sums in another order (largest error seen: 7e-7).
const TOL = 2e-6;

/** Runs a reference case: [results..., ] and the tensors whose gradients are compared. */
function runCase(c, module, inputs) {
  const cell = c.cls.endsWith('Cell');
  const [x, ...states] = inputs;
  if (cell) {
    if (c.cls === 'LSTMCell') return module.forward(x, states.length ? states : undefined);
    return [module.forward(x, states[0])];
  }
  if (c.cls === 'LSTM') {
    const [out, [h, cc]] = module.forward(x, states.length ? states : undefined);
    return [out, h, cc];
  }
  const [out, h] = module.forward(x, states[0]);
  return [out, h];
}

for (const c of ref.cases) {
  test(`${c.name}: results and gradients match PyTorch`, () => {
    sg.tidy(() => {
      const module = new nn[c.cls](c.inputSize, c.hiddenSize, c.opts);
      const sd = Object.fromEntries(Object.entries(c.state).map(([k, v]) => [k, fromRef(v)]));
      assert.deepEqual(Object.keys(module.stateDict()), Object.keys(sd), 'parameter names and order');
      module.loadStateDict(sd);
      if (c.mode === 'train') module.train();
      else module.eval();
      const inputs = c.inputs.map((e) => fromRef(e, { requiresGrad: true }));
      const results = runCase(c, module, inputs);
      assert.equal(results.length, c.results.length);
      results.forEach((r, i) => closeTo(r, c.results[i], TOL, `result ${i}`));
      let loss = sg.tensor(0);
      results.forEach((r, i) => {
        loss = loss.add(r.mul(fromRef(c.weights[i])).sum());
      });
      loss.backward();
      inputs.forEach((t, i) => closeTo(t.grad, c.inputGrads[i], TOL, `gradient of input ${i}`));
      for (const [name, p] of module.namedParameters()) closeTo(p.grad, c.paramGrads[name], TOL, `gradient of ${name}`);
      module.dispose();
    });
  });
}

test('gradcheck: input and initial states through stacked bidirectional layers (LSTM with projection, GRU, RNN)', () => {
  // The weights' gradients are checked against PyTorch above and by central differences in
  // tests/native/nn_rnn_test.cpp; here the stacking (directions, layers, batchFirst) is.
  const x = { shape: [3, 2, 2], data: lcg(1, 12) };
  const lstm = new nn.LSTM(2, 3, { numLayers: 2, bidirectional: true, projSize: 2 });
  gradcheck(
    'LSTM',
    (xx, h0, c0) => {
      const [out, [h, c]] = lstm.forward(xx, [h0, c0]);
      return sg.cat([out.flatten(), h.flatten(), c.flatten()], 0);
    },
    [x, { shape: [4, 2, 2], data: lcg(2, 16, -0.5, 0.5) }, { shape: [4, 2, 3], data: lcg(3, 24, -0.5, 0.5) }],
  );
  const gru = new nn.GRU(2, 3, { numLayers: 2, bidirectional: true, batchFirst: true });
  gradcheck(
    'GRU',
    (xx, h0) => {
      const [out, h] = gru.forward(xx, h0);
      return sg.cat([out.flatten(), h.flatten()], 0);
    },
    [x, { shape: [4, 3, 3], data: lcg(4, 36, -0.5, 0.5) }],
  );
  const rnn = new nn.RNN(2, 3, { numLayers: 2 });
  gradcheck('RNN', (xx, h0) => sg.cat(rnn.forward(xx, h0).map((t) => t.flatten()), 0), [x, { shape: [2, 2, 3], data: lcg(5, 12, -0.5, 0.5) }]);
  const cell = new nn.LSTMCell(2, 3);
  gradcheck('LSTMCell', (xx, h, c) => sg.cat(cell.forward(xx, [h, c]), 0), [{ shape: [2], data: lcg(6, 2) }, { shape: [3], data: lcg(7, 3) }, { shape: [3], data: lcg(8, 3) }]);
  sg.dispose([lstm, gru, rnn, cell]);
});

test("parameter names, shapes and PyTorch's initialisation U(±1/√hiddenSize)", () => {
  sg.manualSeed(3);
  const m = new nn.LSTM(10, 16, { numLayers: 2, bidirectional: true, projSize: 4 });
  const shapes = Object.fromEntries(m.namedParameters().map(([n, p]) => [n, p.shape]));
  assert.deepEqual(Object.keys(shapes).slice(0, 5), ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0', 'weight_hr_l0']);
  assert.deepEqual(shapes.weight_ih_l1_reverse, [64, 8]);
  assert.deepEqual(shapes.weight_hh_l1_reverse, [64, 4]);
  assert.deepEqual(shapes.weight_hr_l1_reverse, [4, 16]);
  const all = m.parameters().flatMap((p) => Array.from(p.dataSync()));
  const bound = 1 / Math.sqrt(16);
  assert.ok(all.every((v) => Math.abs(v) <= bound));
  assert.ok(Math.max(...all) > 0.9 * bound && Math.min(...all) < -0.9 * bound);
  assert.equal(String(m), 'LSTM(10, 16, proj_size=4, num_layers=2, bidirectional=True)');
  assert.equal(String(new nn.GRU(3, 4, { batchFirst: true, bias: false })), 'GRU(3, 4, bias=False, batch_first=True)');
  assert.equal(String(new nn.RNNCell(3, 4, { nonlinearity: 'relu' })), 'RNNCell(3, 4, nonlinearity=relu)');
  const g = new nn.GRUCell(3, 5, { bias: false });
  assert.deepEqual(g.namedParameters().map(([n, p]) => [n, p.shape]), [['weight_ih', [15, 3]], ['weight_hh', [15, 5]]]);
  sg.dispose([m, g]);
});

test('a sequence of length 1,000 trains (forward, backward, step) with sg.memory() flat across steps', () => {
  sg.manualSeed(11);
  const lstm = new nn.LSTM(3, 16, { numLayers: 2, bidirectional: true });
  const head = new nn.Linear(32, 1);
  const params = [...lstm.parameters(), ...head.parameters()];
  const opt = new sg.optim.Adam(params, { lr: 1e-2 });
  const x = sg.randn([1000, 2, 3]);
  const y = x.narrow(2, 0, 1).mul(0.5).tanh(); // a per-step target the layer can learn
  const losses = [];
  const before = [];
  for (let step = 0; step < 12; step++) {
    losses.push(
      sg.tidy(() => {
        opt.zeroGrad();
        const [out] = lstm.forward(x);
        const loss = sg.F.mseLoss(head.forward(out), y);
        loss.backward();
        opt.step();
        return loss.item();
      }),
    );
    const m = sg.memory();
    before.push([m.tensors, m.bytes]);
  }
  // After the first step (which creates the optimizer state) nothing grows.
  for (let k = 2; k < before.length; k++) assert.deepEqual(before[k], before[1], `memory after step ${k}`);
  assert.ok(losses.at(-1) < 0.8 * losses[0], `loss ${losses[0]} → ${losses.at(-1)}`);
  sg.dispose([x, y, lstm, head]);
  opt.dispose();
});

test('the cells and a layer of length 1 agree (the cell is one step of the layer)', () => {
  sg.tidy(() => {
    for (const [L, C] of [[nn.LSTM, nn.LSTMCell], [nn.GRU, nn.GRUCell], [nn.RNN, nn.RNNCell]]) {
      const cell = new C(3, 4);
      const layer = new L(3, 4);
      layer.loadStateDict(Object.fromEntries(cell.namedParameters().map(([n, p]) => [`${n}_l0`, p])));
      const x = sg.randn([2, 3]);
      const h = sg.randn([2, 4]);
      const c = sg.randn([2, 4]);
      if (C === nn.LSTMCell) {
        const [h1, c1] = cell.forward(x, [h, c]);
        const [out, [hn, cn]] = layer.forward(x.unsqueeze(0), [h.unsqueeze(0), c.unsqueeze(0)]);
        assert.deepEqual(h1.toArray(), hn.squeeze(0).toArray());
        assert.deepEqual(c1.toArray(), cn.squeeze(0).toArray());
        assert.deepEqual(out.squeeze(0).toArray(), h1.toArray());
      } else {
        const h1 = cell.forward(x, h);
        const [out, hn] = layer.forward(x.unsqueeze(0), h.unsqueeze(0));
        assert.deepEqual(h1.toArray(), hn.squeeze(0).toArray());
        assert.deepEqual(out.squeeze(0).toArray(), h1.toArray());
      }
      sg.dispose([cell, layer]);
    }
  });
});

test('bad arguments name the module, the argument, what was expected and what was got', () => {
  sg.tidy(() => {
    throwsWith(() => new nn.LSTM(4, 0), 'LSTM', "'hiddenSize'", '>= 1', 'got 0');
    throwsWith(() => new nn.LSTM(4, 3, { projSize: 3 }), 'LSTM: projSize has to be smaller than hiddenSize');
    throwsWith(() => new nn.GRU(4, 3, { dropout: 1.5 }), 'GRU', 'dropout probability', '1.5');
    throwsWith(() => new nn.RNN(4, 3, { nonlinearity: 'sigmoid' }), 'RNN', "'nonlinearity'", "'tanh', 'relu'", "'sigmoid'");
    throwsWith(() => new nn.GRU(4, 3, { projSize: 2 }), 'GRU', "unknown option 'projSize'");
    throwsWith(() => new nn.LSTM(4, 3, { num_layers: 2 }), 'LSTM', "unknown option 'num_layers'", 'numLayers');
    const lstm = new nn.LSTM(4, 3, { numLayers: 2 });
    throwsWith(() => lstm.forward(sg.zeros([5, 2, 3])), 'LSTM', 'inputSize', 'expected 4, got 3');
    throwsWith(() => lstm.forward(sg.zeros([5, 2, 1, 4])), 'LSTM', '2 (unbatched) or 3 dims', 'got 4 dims');
    throwsWith(() => lstm.forward(sg.zeros([5, 2, 4]), [sg.zeros([1, 2, 3]), sg.zeros([2, 2, 3])]), 'LSTM', 'h0 of shape [2, 2, 3]', 'got [1, 2, 3]');
    throwsWith(() => lstm.forward(sg.zeros([5, 2, 4]), sg.zeros([2, 2, 3])), 'LSTM', 'hx to be [h0, c0]', 'a Tensor');
    throwsWith(() => lstm.forward(sg.zeros([5, 4]), [sg.zeros([2, 2, 3]), sg.zeros([2, 2, 3])]), 'LSTM', 'unbatched 2-D input', 'h0 should be 2-D');
    throwsWith(() => lstm.forward(sg.zeros([5, 2, 4], { dtype: 'int32' })), 'LSTM', "'input' to be a floating tensor", 'int32');
    throwsWith(() => new nn.GRUCell(3, 4).forward(sg.zeros([2, 3]), sg.zeros([3, 4])), 'GRUCell', 'hx of shape [2, 4]', 'got [3, 4]');
    throwsWith(() => new nn.LSTMCell(3, 4).forward(sg.zeros([2, 2, 3])), 'LSTMCell', '1-D or 2-D', 'got 3-D');
    throwsWith(() => new nn.RNNCell(3, 4).forward('x'), 'RNNCell', "'input' to be a Tensor", "'x'");
    assert.equal(lstm.forward(sg.ones([2, 1, 4]))[0].shape.join(), '2,1,3'); // still usable
  });
});

test('an LSTM whose weight was disposed is an Error naming that weight (weight_ih, weight_hh, bias_ih, bias_hh, weight_hr)', () => {
  for (const [param, name] of [['weight_ih_l0', 'weight_ih'], ['weight_hh_l0', 'weight_hh'], ['bias_ih_l0', 'bias_ih'],
    ['bias_hh_l0', 'bias_hh'], ['weight_hr_l0', 'weight_hr']]) {
    const m = new sg.nn.LSTM(2, 3, { projSize: 2 });
    m[param].dispose();
    sg.tidy(() => throwsWith(() => m.forward(sg.ones([4, 1, 2])), `LSTM: Tensor is disposed (argument '${name}')`));
    m.dispose?.();
  }
});
