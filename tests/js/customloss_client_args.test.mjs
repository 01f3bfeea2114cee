// sg.customLoss paths no other file reaches: forwardBackwardCustom with a client whose
// forwardBackward resolves to something other than { metrics?: object } (and one without
// metrics: the telemetry alone); localClient's argument checks; tokenLogprobs with tensor ids of
// the wrong kind and a model whose logits have the wrong shape (nothing kept); the values of
// tokenLogprobs for a model with hand-known logits; penalties.orthogonality's spectral-only
// options in mode 'soft'. Messages are the module's contract; values are computed by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { settleFinalizers } from './gc_settle.mjs';

const CL = sg.customLoss;
const sumLoss = (lps) => [lps.map((t) => t.sum()).reduce((a, b) => a.add(b)), {}];

/** A client whose forward gives fixed log-probabilities and whose forwardBackward resolves to `answer`. */
function fakeClient(answer) {
  return {
    seen: null,
    async forward() {
      return [sg.tensor([-1, -2])];
    },
    async forwardBackward(_data, weights) {
      this.seen = weights.map((w) => Array.from(w.dataSync()));
      return answer;
    },
  };
}

test("forwardBackwardCustom: the client's forwardBackward must resolve to an object with optional 'metrics' (an object)", async () => {
  const fn = 'customLoss.forwardBackwardCustom';
  const options = { baseLoss: sumLoss, gradMethod: 'symbolic' };
  await assert.rejects(CL.forwardBackwardCustom(fakeClient(5), null, options),
    { message: `${fn}: expected client.forwardBackward to resolve to an object with optional 'metrics' (an object), got 5` });
  await assert.rejects(CL.forwardBackwardCustom(fakeClient({ metrics: 3 }), null, options),
    /customLoss\.forwardBackwardCustom: expected client\.forwardBackward to resolve to an object with optional 'metrics' \(an object\), got /);
  // Without metrics: the result keeps its fields, its metrics are the telemetry.
  const c = fakeClient({ loss: 1.5 });
  const r = await CL.forwardBackwardCustom(c, null, options);
  assert.equal(r.loss, 1.5);
  assert.equal(r.metrics.loss_total, -3); // the base loss: -1 + -2
  // the weights are −d(total)/d(logprob) = −1 for a plain sum
  assert.deepEqual(c.seen, [[-1, -1]]);
  // The client's own metrics are kept beside the telemetry.
  const r2 = await CL.forwardBackwardCustom(fakeClient({ metrics: { lossFromTrainer: 7 } }), null, options);
  assert.equal(r2.metrics.lossFromTrainer, 7);
  assert.equal(r2.metrics.loss_total, -3);
});

test('localClient: a model and a tokensToLogprobs function are required', () => {
  assert.throws(() => CL.localClient(null, CL.tokenLogprobs), { message: "customLoss.localClient: expected 'model', got null" });
  assert.throws(() => CL.localClient(undefined, CL.tokenLogprobs), { message: "customLoss.localClient: expected 'model', got undefined" });
  assert.throws(() => CL.localClient({}, 'f'), /customLoss\.localClient: expected 'tokensToLogprobs' to be a function \(model, data\) => Tensor\[\], got 'f'/);
  const ok = CL.localClient({}, () => []);
  assert.equal(typeof ok.forward, 'function');
});

test('tokenLogprobs: log_softmax(logits)[t, target[t]] per datum; bad ids and bad logits are Errors that keep nothing', async () => {
  const fn = 'customLoss.tokenLogprobs';
  const V = 3;
  // A model whose logits at every position are [0, ln 2, ln 3]: log-probabilities ln(1/6), ln(2/6), ln(3/6).
  const model = (ids) => sg.tensor([0, Math.log(2), Math.log(3)]).reshape([1, 1, V]).expand([ids.shape[0], ids.shape[1], V]).contiguous();
  const live = sg.memory().tensors;
  const lps = CL.tokenLogprobs(model, [{ inputIds: [0, 1], targets: [2, 0] }, { inputIds: sg.tensor([1], { dtype: 'int32' }), targets: [1] }]);
  const want = [[Math.log(3 / 6), Math.log(1 / 6)], [Math.log(2 / 6)]];
  lps.forEach((t, i) => t.toArray().forEach((v, k) => assert.ok(Math.abs(v - want[i][k]) < 1e-6, `datum ${i}[${k}]: ${v}`)));
  sg.dispose(lps);
  const f = sg.tensor([0, 1]), m2 = sg.tensor([[0, 1]], { dtype: 'int32' });
  assert.throws(() => CL.tokenLogprobs(model, [{ inputIds: f, targets: [0, 1] }]),
    { message: `${fn}: data[0].inputIds: expected a 1-D int32 Tensor or an array of integers, got a Tensor of shape [2] (float32)` });
  assert.throws(() => CL.tokenLogprobs(model, [{ inputIds: [0, 1], targets: m2 }]), /customLoss\.tokenLogprobs: data\[0\]\.targets: expected a 1-D int32 Tensor or an array of integers, got a Tensor of shape \[1, 2\]/);
  sg.dispose([f, m2]);
  assert.throws(() => CL.tokenLogprobs(5, [{ inputIds: [0], targets: [0] }]),
    { message: `${fn}: expected 'model' to map int32 ids [B, T] to logits [B, T, V] (a module or a function), got 5` });
  assert.throws(() => CL.tokenLogprobs({ forward: 1 }, [{ inputIds: [0], targets: [0] }]), /customLoss\.tokenLogprobs: expected 'model' to map int32 ids/);
  assert.throws(() => CL.tokenLogprobs(model, [{ inputIds: 'ab', targets: [0] }]),
    { message: `${fn}: data[0].inputIds: expected an array of integers or a 1-D int32 Tensor, got 'ab'` });
  assert.throws(() => CL.tokenLogprobs(model, [{ inputIds: [0], targets: [0] }, null]), { message: `${fn}: expected data[1] to be { inputIds, targets }, got null` });
  assert.throws(() => CL.tokenLogprobs(model, [{ inputIds: [0, 1], targets: [0] }]),
    { message: `${fn}: data[0]: inputIds (2) and targets (1) must have the same length ≥ 1` });
  assert.throws(() => CL.tokenLogprobs(model, [{ inputIds: [], targets: [] }]), /data\[0\]: inputIds \(0\) and targets \(0\) must have the same length ≥ 1/);
  // typed arrays are ids too
  const typed = CL.tokenLogprobs(model, [{ inputIds: new Int32Array([1]), targets: new Uint8Array([2]) }]);
  assert.ok(Math.abs(typed[0].item() - Math.log(3 / 6)) < 1e-6);
  sg.dispose(typed);
  // The second length group's logits are wrong: the first group's results are released too
  // (counted at once, before any collection could free them).
  await settleFinalizers();
  const before = sg.memory().tensors;
  const bad = (ids) => (ids.shape[1] === 1 ? sg.zeros([ids.shape[0], V]) : model(ids));
  assert.throws(() => CL.tokenLogprobs(bad, [{ inputIds: [0, 1], targets: [1, 1] }, { inputIds: [2], targets: [0] }]),
    { message: `${fn}: expected the model to return logits [1, 1, V], got a Tensor of shape [1, 3] (float32)` });
  assert.equal(sg.memory().tensors, before, 'the first group\'s log-probabilities are disposed');
  assert.throws(() => CL.tokenLogprobs(() => 'x', [{ inputIds: [0], targets: [0] }]), /expected the model to return logits \[1, 1, V\], got 'x'/);
  assert.throws(() => CL.tokenLogprobs({ forward: (ids) => sg.zeros([ids.shape[0], 5, V]) }, [{ inputIds: [0], targets: [0] }]), /expected the model to return logits \[1, 1, V\], got a Tensor of shape \[1, 5, 3\]/);
  await settleFinalizers();
  assert.equal(sg.memory().tensors, live, 'nothing kept by the refused calls');
});

test("penalties.orthogonality: 'spectralMethod' and 'powerIterations' apply to mode 'spectral' only", () => {
  const w = sg.eye(2);
  const P = sg.penalties;
  assert.throws(() => P.orthogonality(w, { spectralMethod: 'power' }),
    { message: "penalties.orthogonality: option 'spectralMethod' applies to mode 'spectral' only, got mode 'soft'" });
  assert.throws(() => P.orthogonality(w, { mode: 'soft', spectralMethod: 'svdvals' }), /option 'spectralMethod' applies to mode 'spectral' only, got mode 'soft'/);
  assert.throws(() => P.orthogonality(w, { powerIterations: 3 }),
    { message: "penalties.orthogonality: option 'powerIterations' applies to mode 'spectral' only, got mode 'soft'" });
  // The identity is orthogonal: 0 in both modes (the default mode is 'soft').
  assert.equal(P.orthogonality(w).item(), 0);
  assert.equal(P.orthogonality(w, { mode: 'spectral', spectralMethod: 'power' }).item(), 0);
  w.dispose();
});
