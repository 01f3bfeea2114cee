// sg.customLoss's argument checks (customloss/custom_loss.ts's "argument checks" and linearize's
// options, clients.ts's checks of what a client or tokensToLogprobs gives back): each bad argument
// is an Error whose whole message names the function, the argument (with its index in a list) and
// what it got, as API.md promises ("bad input gives a JS Error saying expected vs got"). The
// expected texts are written here from that rule, not read from the code; a wrong name or index
// in a message, or a check that lets a bad list through, fails here. Memory is checked too: a
// refused call must not keep the tensors it was given or made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';
import { settleFinalizers } from './gc_settle.mjs';

const CL = sg.customLoss;
const sum = (lps) => [lps[0].sum(), {}];
const is = (message) => (e) => e instanceof Error && e.message === message;

test('linearize: logprobsList must be a non-empty array of live float32 Tensors (the bad element named by index)', async () => {
  await settleFinalizers();
  const live = sg.memory().tensors;
  const ok = sg.tensor([1, 2, 3]);
  const ints = sg.tensor([1, 2], { dtype: 'int32' });
  const gone = sg.tensor([1]);
  gone.dispose();
  const fn = 'customLoss.linearize';
  const list = `${fn}: expected 'logprobsList' to be a non-empty array of float32 Tensors, got`;
  const cases = [
    [[], `${list} []`],
    [undefined, `${list} undefined`],
    [ok, `${list} a Tensor of shape [3] (float32)`],
    [{ 0: ok, length: 1 }, `${list} an object`],
    [[1, 2], `${fn}: expected 'logprobsList[0]' to be a float32 Tensor, got 1`],
    [[ok, ints], `${fn}: expected 'logprobsList[1]' to be a float32 Tensor, got a Tensor of shape [2] (int32)`],
    [[ok, ok, gone], `${fn}: expected 'logprobsList[2]' to be a float32 Tensor, got a disposed Tensor`],
    [[ok, [1, 2, 3]], `${fn}: expected 'logprobsList[1]' to be a float32 Tensor, got [1, 2, 3]`],
  ];
  for (const [arg, message] of cases) await assert.rejects(CL.linearize(arg, null, { baseLoss: sum }), is(message), message);
  // A good list of several tensors passes (the check is on every element, not only the first).
  const row = sg.tensor([[4, 5]]);
  const r = await CL.linearize([ok, row], null, { baseLoss: (lps) => [lps[0].sum().add(lps[1].mul(2).sum()), {}], gradMethod: 'symbolic' });
  assert.deepEqual(r.weights.map((w) => w.shape), [[3], [1, 2]]);
  assert.deepEqual([...r.weights[0].dataSync(), ...r.weights[1].dataSync()], [-1, -1, -1, -2, -2]);
  sg.dispose([...r.weights, ok, ints, row]);
  await settleFinalizers();
  assert.equal(sg.memory().tensors, live, 'refused calls keep nothing');
});

test('linearize: options and regularizers are checked with their names', async () => {
  const x = [sg.tensor([1, 2])];
  const fn = 'customLoss.linearize';
  const reg = CL.regularizer('l1', 0.5, (lps) => [lps[0].abs().sum(), {}]);
  const cases = [
    [{ baseLoss: 3 }, `${fn}: option 'baseLoss' must be a function (logprobsList, data) => [loss, metrics], got 3`],
    [{ regularizers: reg }, `${fn}: option 'regularizers' must be an array of regularizers, got an object`],
    [{ baseLoss: sum, gradMethod: 'exact' }, `${fn}: option 'gradMethod' must be one of 'numerical', 'symbolic', 'hybrid', got 'exact'`],
    [{ baseLoss: sum, eps: 0 }, `${fn}: option 'eps' must be a positive finite number, got 0`],
    [{ baseLoss: sum, chunkSize: 1.5 }, `${fn}: option 'chunkSize' must be a positive integer, got 1.5`],
    [{ baseLoss: sum, lr: 1 }, `${fn}: unknown option 'lr' (expected one of: baseLoss, regularizers, gradMethod, eps, chunkSize, gradFn)`],
    [{ regularizers: [reg, 'l2'] }, `${fn}: expected regularizers[1] to be made by sg.customLoss.regularizer, got 'l2'`],
    [{ regularizers: [reg, { ...reg, name: 'l2' }, { ...reg }] }, `${fn}: two regularizers are named 'l1' (names key the telemetry: they must be unique)`],
    [{ regularizers: [{ ...reg, weight: NaN }] }, `${fn}: expected 'weight' of regularizer 'l1' to be a finite number, got NaN`],
    [{ baseLoss: sum, gradMethod: 'hybrid' }, `${fn}: gradMethod 'hybrid' needs option 'gradFn' (the gradient of the total loss)`],
    [{ baseLoss: sum, gradFn: () => [] }, `${fn}: option 'gradFn' is used by gradMethod 'hybrid' only, got gradMethod 'numerical'`],
    [{ baseLoss: sum, gradMethod: 'symbolic', gradFn: () => [] }, `${fn}: option 'gradFn' is used by gradMethod 'hybrid' only, got gradMethod 'symbolic'`],
  ];
  for (const [options, message] of cases) await assert.rejects(CL.linearize(x, null, options), is(message), message);
  // A regularizer rebuilt from its fields (spread) is accepted, under its own name in the telemetry.
  const r = await CL.linearize(x, null, { regularizers: [{ ...reg, name: 'l1b' }], gradMethod: 'symbolic' });
  assert.deepEqual(Object.keys(r.telemetry.regularizers), ['l1b']);
  assert.deepEqual([...r.weights[0].dataSync()], [-0.5, -0.5]);
  sg.dispose([...r.weights, ...x]);
});

test("forwardBackwardCustom and localClient: what the client or tokensToLogprobs returns is checked, named as the call", async () => {
  const fn = 'customLoss.forwardBackwardCustom';
  let forwarded = null;
  const client = (returned) => ({
    forward: async () => (forwarded = returned()),
    forwardBackward: async () => ({ metrics: {} }),
  });
  const what = (got) => `${fn}: expected 'client.forward(data)' to be a non-empty array of float32 Tensors, got ${got}`;
  await assert.rejects(CL.forwardBackwardCustom(client(() => []), null, { baseLoss: sum }), is(what('[]')));
  await assert.rejects(CL.forwardBackwardCustom(client(() => sg.ones(2)), null, { baseLoss: sum }), is(what('a Tensor of shape [2] (float32)')));
  assert.ok(forwarded.isDisposed, 'the refused return value is disposed, as a good one is');
  await assert.rejects(CL.forwardBackwardCustom(client(() => [sg.ones(2), sg.ones(2).int()]), null, { baseLoss: sum }),
    is(`${fn}: expected 'client.forward(data)[1]' to be a float32 Tensor, got a Tensor of shape [2] (int32)`));
  assert.ok(forwarded.every((t) => t.isDisposed));
  await assert.rejects(CL.forwardBackwardCustom({ forward: () => [] }, null, { baseLoss: sum }),
    is(`${fn}: expected 'client' to be an object with forward(data) and forwardBackward(data, weights), got an object`));

  const model = new sg.nn.Linear(2, 3);
  const data = sg.tensor([[1, 2]]);
  const bad = CL.localClient(model, (m, d) => [m.forward(d).logSoftmax(-1), 7]);
  await assert.rejects(bad.forward(data), is("customLoss.localClient.forward: expected 'tokensToLogprobs(model, data)[1]' to be a float32 Tensor, got 7"));
  const good = CL.localClient(model, (m, d) => [m.forward(d).logSoftmax(-1)]);
  const ints = sg.ones([1, 3]).int();
  await assert.rejects(good.forwardBackward(data, [ints]),
    is("customLoss.localClient.forwardBackward: expected 'weights[0]' to be a float32 Tensor, got a Tensor of shape [1, 3] (int32)"));
  await assert.rejects(good.forwardBackward(data, []),
    is("customLoss.localClient.forwardBackward: expected 'weights' to be a non-empty array of float32 Tensors, got []"));
  const flat = sg.ones([3]);
  await assert.rejects(good.forwardBackward(data, [flat]),
    is('customLoss.localClient.forwardBackward: expected weights shaped as the log-probabilities ([1, 3]), got [3]'));
  sg.dispose([data, ints, flat]);
});
