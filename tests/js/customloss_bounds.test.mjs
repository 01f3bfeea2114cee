// Single disjuncts of sg.customLoss / sg.penalties / sg.telemetry guards that other files test
// only as a whole: forwardBackwardCustom's client check (null, a number, a client without
// forwardBackward, one without forward: each alone), localClient's weights (count alone, shape
// alone), a regularizer's weight (Infinity, a numeric string) and timeoutMs without async, the
// tensors of a list (disposed / int32 / not a tensor), telemetry.on with an array naming an event,
// penalties' tensor checks, divergence shapes by rank alone and size alone, orthogonality's dims
// and spectral-only options, gradientPenalty's fn result dtype, tokenLogprobs' logits batch size,
// remoteClient's https: URL and sample's [1, T] ids (accepted: the call goes on to the network).
// Values by hand; messages: the source's (API.md: "expected vs got").
import test from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith } from './helpers.mjs';

const CL = sg.customLoss;
const P = sg.penalties;
const sum = (lps) => [lps[0].sum(), {}];
const is = (message) => (e) => e instanceof Error && e.message === message;

test("forwardBackwardCustom: null, a number, no forward, no forwardBackward: each alone refused", async () => {
  const fn = 'customLoss.forwardBackwardCustom';
  const msg = (got) => `${fn}: expected 'client' to be an object with forward(data) and forwardBackward(data, weights), got ${got}`;
  const opts = { baseLoss: sum, gradMethod: 'symbolic' };
  await assert.rejects(CL.forwardBackwardCustom(null, null, opts), is(msg('null')));
  await assert.rejects(CL.forwardBackwardCustom(5, null, opts), is(msg('5')));
  await assert.rejects(CL.forwardBackwardCustom({ forwardBackward: async () => ({}) }, null, opts), is(msg('an object')));
  await assert.rejects(CL.forwardBackwardCustom({ forward: async () => [sg.tensor([1])] }, null, opts), is(msg('an object')));
  // a function carrying both methods is not an object: refused by typeof alone
  const fnClient = () => {};
  fnClient.forward = async () => [sg.tensor([-1])];
  fnClient.forwardBackward = async () => ({});
  await assert.rejects(CL.forwardBackwardCustom(fnClient, null, opts), (e) => e.message.startsWith(msg('')));
  const r = await CL.forwardBackwardCustom({ forward: async () => [sg.tensor([-1, -2])], forwardBackward: async () => ({ loss: 2 }) }, null, opts);
  assert.equal(r.loss, 2);
});

test('localClient.forwardBackward: one weight too many alone, and a transposed weight alone, are refused', async () => {
  const model = new sg.nn.Linear(2, 3);
  const data = sg.tensor([[1, 2]]);
  const c = CL.localClient(model, (m, d) => [m.forward(d).logSoftmax(-1)]);
  const fb = 'customLoss.localClient.forwardBackward';
  await assert.rejects(c.forwardBackward(data, [sg.ones([1, 3]), sg.ones([1, 3])]),
    is(`${fb}: expected weights shaped as the log-probabilities ([1, 3]), got [1, 3], [1, 3]`));
  await assert.rejects(c.forwardBackward(data, [sg.ones([3, 1])]), is(`${fb}: expected weights shaped as the log-probabilities ([1, 3]), got [3, 1]`));
  const r = await c.forwardBackward(data, [sg.zeros([1, 3])]);
  close(r.loss, 0);
});

test("regularizer: weight Infinity and '1' refused, 0 taken; timeoutMs needs async: true", async () => {
  const f = (lps) => [lps[0].sum(), {}];
  const fn = 'customLoss.regularizer';
  throwsWith(() => CL.regularizer('r', Infinity, f), /^customLoss\.regularizer: expected 'weight' of regularizer 'r' to be a finite number, got Infinity$/);
  throwsWith(() => CL.regularizer('r', '1', f), /^customLoss\.regularizer: expected 'weight' of regularizer 'r' to be a finite number, got '1'$/);
  assert.equal(CL.regularizer('r', 0, f).weight, 0);
  const needs = new RegExp(`^${fn.replace('.', '\\.')}: option 'timeoutMs' of regularizer 'r' needs \\{ async: true \\} \\(a synchronous function cannot be interrupted\\)$`);
  throwsWith(() => CL.regularizer('r', 1, f, { timeoutMs: 10 }), needs);
  throwsWith(() => CL.regularizer('r', 1, f, { timeoutMs: 10, async: false }), needs);
  assert.equal(CL.regularizer('r', 1, f, { timeoutMs: 10, async: true }).timeoutMs, 10);
  assert.equal(CL.regularizer('r', 1, f, { async: true }).async, true);
  assert.equal(CL.regularizer('r', 1, f, { async: false }).async, false);
});

test("linearize gradMethod 'hybrid' with a gradFn is taken", async () => {
  const x = [sg.tensor([1, 2])];
  const r = await CL.linearize(x, null, { baseLoss: sum, gradMethod: 'hybrid', gradFn: (lps) => [lps[0].mul(0).add(3)] });
  assert.equal(r.weights.length, 1);
  assert.equal(r.weights[0].shape.join(), '2');
});

test("telemetry.on: an array naming an event ('gradient' as a key) and a number are refused", () => {
  const msg = (got) => new RegExp(`^telemetry\\.on: unknown event ${got} \\(expected 'regularizer' or 'gradient'\\)$`);
  throwsWith(() => sg.telemetry.on(['gradient'], () => {}), msg('\\[\'gradient\'\\]'));
  throwsWith(() => sg.telemetry.on(5, () => {}), msg('5'));
  throwsWith(() => sg.telemetry.on('toString', () => {}), msg("'toString'"));
  const off = sg.telemetry.on('gradient', () => {});
  off();
});

test('penalties: disposed / int32 / non-tensor inputs each refused; divergence shapes by rank alone and size alone', () => {
  const gone = sg.ones([2]);
  gone.dispose();
  throwsWith(() => P.l1(gone), /^penalties\.l1: expected 't' to be a float32 Tensor, got a disposed Tensor$/);
  throwsWith(() => P.l1(sg.ones([2], { dtype: 'int32' })), /^penalties\.l1: expected 't' to be a float32 Tensor, got a Tensor of shape \[2\] \(int32\)$/);
  throwsWith(() => P.l1([1, 2]), /^penalties\.l1: expected 't' to be a float32 Tensor, got \[1, 2\]$/);
  const lp = sg.tensor([[Math.log(0.5), Math.log(0.5)]]);
  throwsWith(() => P.klDivergence(lp, lp.reshape([1, 2, 1])), /^penalties\.klDivergence: expected 'logP' and 'logQ' of the same shape, got \[1, 2\] and \[1, 2, 1\]$/);
  throwsWith(() => P.klDivergence(lp, sg.tensor([[Math.log(0.5), Math.log(0.25), Math.log(0.25)]])),
    /^penalties\.klDivergence: expected 'logP' and 'logQ' of the same shape, got \[1, 2\] and \[1, 3\]$/);
  close(P.klDivergence(lp, lp).item(), 0);
});

test('orthogonality: a 1-D w refused, 2-D taken; powerIterations with spectralMethod svdvals refused, with power taken', () => {
  const fn = 'penalties.orthogonality';
  throwsWith(() => P.orthogonality(sg.ones([3])), new RegExp(`^${fn.replace('.', '\\.')}: expected 'w' to have at least 2 dims .*, got shape \\[3\\]$`));
  const eye = sg.tensor([[1, 0], [0, 1]]);
  close(P.orthogonality(eye).item(), 0);
  throwsWith(() => P.orthogonality(eye, { mode: 'spectral', spectralMethod: 'svdvals', powerIterations: 3 }),
    /^penalties\.orthogonality: option 'powerIterations' applies to spectralMethod 'power' only, got spectralMethod 'svdvals'$/);
  close(P.orthogonality(eye, { mode: 'spectral', spectralMethod: 'power', powerIterations: 3 }).item(), 0, 1e-4);
  close(P.orthogonality(eye, { mode: 'spectral', powerIterations: 3 }).item(), 0, 1e-4);
  close(P.orthogonality(eye, { mode: 'spectral' }).item(), 0, 1e-4);
  throwsWith(() => P.orthogonality(eye, { spectralMethod: 'power' }), /^penalties\.orthogonality: option 'spectralMethod' applies to mode 'spectral' only, got mode 'soft'$/);
});

test('gradientPenalty: fn returning an int32 Tensor is refused (by dtype)', () => {
  const x = sg.ones([2, 3]);
  throwsWith(() => P.gradientPenalty((t) => t.sum().int(), x), /^penalties\.gradientPenalty: expected 'fn' to return a float32 Tensor, got int32$/);
});

test('tokenLogprobs: logits with the wrong batch size alone are refused', () => {
  const V = 3;
  throwsWith(() => CL.tokenLogprobs((ids) => sg.zeros([ids.shape[0] + 1, ids.shape[1], V]), [{ inputIds: [0], targets: [0] }]),
    /^customLoss\.tokenLogprobs: expected the model to return logits \[1, 1, V\], got a Tensor of shape \[2, 1, 3\]/);
  const ok = CL.tokenLogprobs((ids) => sg.zeros([ids.shape[0], ids.shape[1], V]), [{ inputIds: [0], targets: [0] }]);
  close(ok[0].toArray(), [-Math.log(3)]);
});

test("remoteClient: 'https:' and 'http:' each taken; sample's [1, T] ids pass the check (then the network fails)", async () => {
  assert.equal(typeof CL.remoteClient('https://127.0.0.1:1').forward, 'function');
  const c = CL.remoteClient('http://127.0.0.1:1', { timeoutMs: 2000 });
  const ids = sg.tensor([[1, 2]], { dtype: 'int32' });
  await assert.rejects(c.sample(ids), (e) => e instanceof Error && !/expected token ids/.test(e.message));
  await assert.rejects(c.sample(sg.tensor([[1, 2], [3, 4]], { dtype: 'int32' })), /promptIds: expected token ids as an array of integers or a 1-D \(or \[1, T\]\) int32 Tensor, got a Tensor of shape \[2, 2\] \(int32\)$/);
  await assert.rejects(c.sample(sg.tensor([[[1, 2]]], { dtype: 'int32' })),
    /^Error: customLoss\.remoteClient\.sample: promptIds: expected token ids as an array of integers or a 1-D \(or \[1, T\]\) int32 Tensor, got a Tensor of shape \[1, 1, 2\] \(int32\)$|promptIds: expected token ids .* \[1, 1, 2\]/);
});
