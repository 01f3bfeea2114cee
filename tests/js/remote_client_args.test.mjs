// sg.customLoss.remoteClient without the Python trainer: the argument checks that fail before any
// request (counted by a stand-in HTTP server on 127.0.0.1 that must see none of them), the URL
// checks, a missing global fetch, and the request plumbing the trainer never exercises: the bytes
// of loadState given as an ArrayBuffer or a DataView arrive as given, a non-JSON error body is
// quoted, a non-object answer is refused, a connection failure whose cause carries only a code
// names it, the bearer token is sent. Messages are the module's contract (trainer/README.md).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { sg } from './helpers.mjs';

const CL = sg.customLoss;
const FN = 'customLoss.remoteClient';
let server, url;
const seen = []; // { method, path, headers, body } of every request the stand-in got
let reply = () => [200, 'application/json', '{}'];

before(async () => {
  server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const r = { method: req.method, path: req.url, headers: req.headers, body: Buffer.concat(chunks) };
      seen.push(r);
      const [status, type, body, delayMs] = reply(r);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(status, type === null ? {} : { 'content-type': type });
        res.end(body);
      };
      if (delayMs) setTimeout(send, delayMs).unref();
      else send();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${server.address().port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

test('remoteClient: a URL that does not parse, or no global fetch, is an Error at once', () => {
  assert.throws(() => CL.remoteClient('not a url'), { message: `${FN}: 'url' 'not a url' is not a valid URL (e.g. 'http://127.0.0.1:8765')` });
  assert.throws(() => CL.remoteClient('http://'), /customLoss\.remoteClient: 'url' 'http:\/\/' is not a valid URL/);
  assert.throws(() => CL.remoteClient(''), /expected 'url' to be the trainer's address/);
  assert.throws(() => CL.remoteClient('ftp://127.0.0.1:1'), /expected an http: or https: URL, got 'ftp:\/\/127\.0\.0\.1:1'/);
  const saved = globalThis.fetch;
  try {
    delete globalThis.fetch;
    assert.throws(() => CL.remoteClient('http://127.0.0.1:1'), { message: `${FN}: no global fetch in this environment (Node ≥ 18 or a browser is needed)` });
  } finally {
    globalThis.fetch = saved;
  }
  // a URL object, trailing slashes dropped
  assert.equal(CL.remoteClient(new URL('http://127.0.0.1:9/a//')).url, 'http://127.0.0.1:9/a');
});

test('forward / forwardBackward / sample / loadState: bad arguments are Errors before any request', async () => {
  const c = CL.remoteClient(url);
  const n = seen.length;
  const d1 = [{ inputIds: [1, 2], targets: [2, 3] }];
  const f = sg.tensor([1, 2]), m = sg.tensor([[1, 2], [3, 4]], { dtype: 'int32' }), w64 = sg.tensor([1, 1], { dtype: 'float64' });
  const cases = [
    [() => c.forward([{ inputIds: [1], targets: [1], mask: [1], pos: 0 }]), `${FN}.forward: data[0] has unknown field(s) 'mask', 'pos' (expected inputIds and targets)`],
    [() => c.forward([{ inputIds: f, targets: [1, 2] }]), `${FN}.forward: data[0].inputIds: expected token ids as an array of integers or a 1-D int32 Tensor, got a Tensor of shape [2] (float32)`],
    [() => c.sample(m), `${FN}.sample: promptIds: expected token ids as an array of integers or a 1-D (or [1, T]) int32 Tensor, got a Tensor of shape [2, 2] (int32)`],
    [() => c.forwardBackward(d1, ['ab']), `${FN}.forwardBackward: expected weights[0] to be a float32 Tensor or an array of numbers, got 'ab'`],
    [() => c.forwardBackward(d1, [w64]), `${FN}.forwardBackward: expected weights[0] to be a float32 Tensor, got a Tensor of shape [2] (float64)`],
    [() => c.forwardBackward(d1, [[1, 2, 3]]), `${FN}.forwardBackward: weights[0] has 3 values, data[0] has 2 tokens`],
    [() => c.forwardBackward(d1, [[1, Infinity]]), `${FN}.forwardBackward: weights[0][1] is Infinity (the trainer takes finite weights only)`],
    [() => c.forwardBackward(d1, [[1, '2']]), `${FN}.forwardBackward: weights[0][1] is '2' (the trainer takes finite weights only)`],
    [() => c.loadState('bytes'), `${FN}.loadState: expected the bytes saveState returned (a Uint8Array or ArrayBuffer), got 'bytes'`],
    [() => c.loadState(new Uint8Array(3)), `${FN}.loadState: 3 bytes is no safetensors file`],
    [() => c.loadState(new ArrayBuffer(7)), `${FN}.loadState: 7 bytes is no safetensors file`],
  ];
  for (const [call, message] of cases) await assert.rejects(call(), { message }, message);
  assert.equal(seen.length, n, 'no request was made');
  sg.dispose([f, m, w64]);
  // Float32Array and Float64Array weights are number arrays.
  reply = () => [200, 'application/json', JSON.stringify({ logprobs: [[-1, -2]], loss: 0.5, metrics: {} })];
  const r = await c.forwardBackward(d1, [new Float64Array([0.5, 2])]);
  assert.equal(r.loss, 0.5);
  assert.deepEqual(JSON.parse(seen.at(-1).body).weights, [[0.5, 2]]);
});

test('loadState sends an ArrayBuffer or a DataView window byte for byte; the token goes as a bearer header', async () => {
  const c = CL.remoteClient(url, { token: 'tok-123' });
  reply = () => [200, 'application/json', JSON.stringify({ loaded: true })];
  const bytes = Uint8Array.from({ length: 12 }, (_, i) => i + 1);
  assert.deepEqual(await c.loadState(bytes.buffer), { loaded: true });
  let r = seen.at(-1);
  assert.deepEqual([r.method, r.path, r.headers['content-type'], r.headers.authorization], ['POST', '/load_state', 'application/octet-stream', 'Bearer tok-123']);
  assert.deepEqual([...r.body], [...bytes]);
  await c.loadState(new DataView(bytes.buffer, 2, 9));
  r = seen.at(-1);
  assert.deepEqual([...r.body], [3, 4, 5, 6, 7, 8, 9, 10, 11]);
});

test('saveState: bytes when the answer is not JSON (no content-type included), the JSON object when it is', async () => {
  const c = CL.remoteClient(url);
  reply = () => [200, 'application/octet-stream', Buffer.from([1, 2, 3, 250])];
  assert.deepEqual([...(await c.saveState())], [1, 2, 3, 250]);
  reply = () => [200, null, Buffer.from([9, 8])];
  const raw = await c.saveState();
  assert.ok(raw instanceof Uint8Array);
  assert.deepEqual([...raw], [9, 8]);
  reply = () => [200, 'application/json', '{"note":"json"}'];
  assert.deepEqual(await c.saveState(), { note: 'json' });
  assert.deepEqual([seen.at(-1).method, seen.at(-1).path], ['POST', '/save_state']);
});

test('answers: a non-JSON error body is quoted with the status, a non-object answer is refused, null log-probabilities read as NaN', async () => {
  const c = CL.remoteClient(url);
  reply = () => [500, 'text/plain', 'boom: out of memory'];
  await assert.rejects(c.health(), (e) => e.message === `${FN}: GET /health failed with HTTP 500: boom: out of memory` && e.status === 500);
  reply = () => [502, 'text/plain', ''];
  await assert.rejects(c.health(), { message: `${FN}: GET /health failed with HTTP 502: (no message)` });
  reply = () => [200, 'application/json', '[1, 2]'];
  await assert.rejects(c.health(), { message: `${FN}: GET /health: the trainer's answer is not a JSON object: '[1, 2]'` });
  reply = () => [200, 'text/plain', 'ok'];
  await assert.rejects(c.health(), /the trainer's answer is not a JSON object: 'ok'/);
  reply = () => [200, 'application/json', JSON.stringify({ logprobs: [[-0.5, null]] })];
  const [lp] = await c.forward([{ inputIds: [4, 5], targets: [5, 6] }]);
  const v = lp.toArray();
  assert.equal(v[0], -0.5);
  assert.ok(Number.isNaN(v[1]));
  lp.dispose();
  const sent = JSON.parse(seen.at(-1).body);
  assert.deepEqual(sent, { data: [{ inputIds: [4, 5], targets: [5, 6] }] });
});

test('a connection failure whose cause has only a code names the code', async () => {
  const saved = globalThis.fetch;
  try {
    globalThis.fetch = async () => {
      throw new TypeError('fetch failed', { cause: { code: 'EHOSTUNREACH' } });
    };
    const c = CL.remoteClient('http://127.0.0.1:9');
    await assert.rejects(c.health(), { message: `${FN}: GET /health: cannot reach the trainer at http://127.0.0.1:9: fetch failed (EHOSTUNREACH) (is it running? scripts/trainer.sh prints the address it listens on)` });
    globalThis.fetch = async () => {
      throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
    };
    await assert.rejects(c.health(), /cannot reach the trainer at http:\/\/127\.0\.0\.1:9: fetch failed \(socket hang up\) \(is it running/);
  } finally {
    globalThis.fetch = saved;
  }
});

test('remoteClient URL forms: a non-string, a query or fragment are refused; https and a URL object are taken', () => {
  assert.throws(() => CL.remoteClient(5), { message: `${FN}: expected 'url' to be the trainer's address (e.g. 'http://127.0.0.1:8765'), got 5` });
  assert.throws(() => CL.remoteClient(''), { message: `${FN}: expected 'url' to be the trainer's address (e.g. 'http://127.0.0.1:8765'), got ''` });
  assert.throws(() => CL.remoteClient('http://127.0.0.1:1/?a=1'), { message: `${FN}: expected the trainer's base URL without query or fragment, got 'http://127.0.0.1:1/?a=1'` });
  assert.throws(() => CL.remoteClient('http://127.0.0.1:1/#top'), /without query or fragment, got 'http:\/\/127\.0\.0\.1:1\/#top'/);
  assert.throws(() => CL.remoteClient('file:///tmp/x'), { message: `${FN}: expected an http: or https: URL, got 'file:///tmp/x'` });
  assert.equal(CL.remoteClient('https://127.0.0.1:8765/').url, 'https://127.0.0.1:8765');
  assert.equal(CL.remoteClient('http://127.0.0.1:8765').url, 'http://127.0.0.1:8765');
});

test('data checks: the array, each datum, its token ids (arrays, typed arrays, 1-D int32 tensors), their lengths; all before any request', async () => {
  const c = CL.remoteClient(url);
  const n = seen.length;
  const f = 'customLoss.remoteClient.forward';
  const m = sg.tensor([[1, 2]], { dtype: 'int32' });
  const gone = sg.tensor([1, 2], { dtype: 'int32' });
  gone.dispose();
  const cases = [
    [[], `${f}: expected 'data' to be a non-empty array of { inputIds, targets }, got []`],
    ['abc', `${f}: expected 'data' to be a non-empty array of { inputIds, targets }, got 'abc'`],
    [[null], `${f}: expected data[0] to be { inputIds, targets }, got null`],
    [[{ inputIds: [1], targets: [1] }, [1, 2]], `${f}: expected data[1] to be { inputIds, targets }, got [1, 2]`],
    [[7], `${f}: expected data[0] to be { inputIds, targets }, got 7`],
    [[{ inputIds: [], targets: [] }], `${f}: data[0].inputIds is empty (a datum needs at least one token)`],
    [[{ inputIds: [1, 2], targets: [3] }], `${f}: data[0]: inputIds has 2 tokens, targets 1 (they must match)`],
    [[{ inputIds: [1], targets: 'x' }], `${f}: data[0].targets: expected token ids as an array of integers or an int32 Tensor, got 'x'`],
    [[{ inputIds: [1, -1], targets: [1, 1] }], `${f}: data[0].inputIds[1]: expected a token id (an integer ≥ 0), got -1`],
    [[{ inputIds: [0.5], targets: [1] }], `${f}: data[0].inputIds[0]: expected a token id (an integer ≥ 0), got 0.5`],
    [[{ inputIds: m, targets: [1, 2] }], `${f}: data[0].inputIds: expected token ids as an array of integers or a 1-D int32 Tensor, got a Tensor of shape [1, 2] (int32)`],
    [[{ inputIds: [1, 2], targets: gone }], `${f}: data[0].targets: expected token ids as an array of integers or a 1-D int32 Tensor, got a disposed Tensor`],
  ];
  for (const [data, message] of cases) await assert.rejects(c.forward(data), message instanceof RegExp ? message : { message }, String(message));
  assert.equal(seen.length, n, 'no request was made');
  // Accepted forms: token 0, typed arrays, a 1-D int32 tensor; all sent as plain lists.
  reply = () => [200, 'application/json', JSON.stringify({ logprobs: [[-1, -1, -1], [-2]] })];
  const ids = sg.tensor([5, 6, 7], { dtype: 'int32' });
  const lps = await c.forward([{ inputIds: new Uint16Array([0, 1, 2]), targets: ids }, { inputIds: new Uint8Array([9]), targets: new Int32Array([0]) }]);
  assert.deepEqual(JSON.parse(seen.at(-1).body).data, [{ inputIds: [0, 1, 2], targets: [5, 6, 7] }, { inputIds: [9], targets: [0] }]);
  assert.deepEqual(lps.map((t) => t.toArray()), [[-1, -1, -1], [-2]]);
  sg.dispose([...lps, ids, m]);
});

test('weights checks: the array, a float32 tensor (not disposed), a first value that is not finite; the 8-byte minimum of loadState', async () => {
  const c = CL.remoteClient(url);
  const fb = 'customLoss.remoteClient.forwardBackward';
  const d1 = [{ inputIds: [1, 2], targets: [2, 3] }];
  const n = seen.length;
  const gone = sg.tensor([1, 1]);
  gone.dispose();
  const cases = [
    ['w', `${fb}: expected 'weights' to be an array with one float32 Tensor (or number array) per datum (1), got 'w'`],
    [[[1, 1], [1, 1]], /expected 'weights' to be an array with one float32 Tensor \(or number array\) per datum \(1\), got \[/],
    [[gone], `${fb}: expected weights[0] to be a float32 Tensor, got a disposed Tensor`],
    [[[NaN, 1]], `${fb}: weights[0][0] is NaN (the trainer takes finite weights only)`],
  ];
  for (const [w, message] of cases) await assert.rejects(c.forwardBackward(d1, w), message instanceof RegExp ? message : { message }, String(message));
  assert.equal(seen.length, n, 'no request was made');
  reply = () => [200, 'application/json', JSON.stringify({ logprobs: [[-1, -2]], loss: 1, metrics: { m: 1 } })];
  const w = sg.tensor([0.25, -1]);
  const r = await c.forwardBackward(d1, [w]);
  assert.deepEqual(JSON.parse(seen.at(-1).body).weights, [[0.25, -1]]);
  assert.deepEqual(r.metrics, { m: 1 });
  w.dispose();
  reply = () => [200, 'application/json', '{}'];
  await c.loadState(new Uint8Array(8).fill(1));
  assert.deepEqual([...seen.at(-1).body], [1, 1, 1, 1, 1, 1, 1, 1]);
});

test('sample: a [1, T] prompt gives [1, n] ids, a 1-D one n ids; prompt checks before any request', async () => {
  const c = CL.remoteClient(url);
  const fs = 'customLoss.remoteClient.sample';
  const n = seen.length;
  await assert.rejects(c.sample([]), { message: `${fs}: 'promptIds' is empty (the prompt needs at least one token)` });
  await assert.rejects(c.sample([1, -2]), { message: `${fs}: promptIds[1]: expected a token id (an integer ≥ 0), got -2` });
  assert.equal(seen.length, n);
  reply = () => [200, 'application/json', JSON.stringify({ ids: [3, 4, 5] })];
  const row = sg.tensor([[3, 4]], { dtype: 'int32' });
  const a = await c.sample(row, { maxNewTokens: 1 });
  assert.deepEqual(JSON.parse(seen.at(-1).body), { promptIds: [3, 4], maxNewTokens: 1 });
  assert.deepEqual([a.shape, a.dtype, a.toArray()], [[1, 3], 'int32', [[3, 4, 5]]]);
  const b = await c.sample([3, 4]);
  assert.deepEqual(b.shape, [3]);
  const flat = sg.tensor([3, 4], { dtype: 'int32' });
  assert.deepEqual((await c.sample(flat)).shape, [3]);
  reply = () => [200, 'application/json', JSON.stringify({ ids: [1.5] })];
  await assert.rejects(c.sample([1]), { message: `${fs}: the trainer's answer has no 'ids' list` });
  sg.dispose([row, a, b, flat]);
});

test('connection failures: a cause with only a message or none adds nothing more; a message already shown is not repeated', async () => {
  const saved = globalThis.fetch;
  const reach = 'customLoss.remoteClient: GET /health: cannot reach the trainer at http://127.0.0.1:9';
  const hint = ' (is it running? scripts/trainer.sh prints the address it listens on)';
  try {
    const c = CL.remoteClient('http://127.0.0.1:9');
    const failWith = async (e) => {
      globalThis.fetch = async () => {
        throw e;
      };
      return c.health().then(() => assert.fail('resolved'), (err) => err.message);
    };
    assert.equal(await failWith(new Error('offline')), `${reach}: offline${hint}`);
    assert.equal(await failWith(new TypeError('fetch failed: boom', { cause: new Error('boom') })), `${reach}: fetch failed: boom${hint}`);
    const coded = Object.assign(new Error('boom'), { code: 'E1' });
    assert.equal(await failWith(new TypeError('fetch failed: boom', { cause: coded })), `${reach}: fetch failed: boom (E1)${hint}`);
    assert.equal(await failWith(new TypeError('fetch failed', { cause: { code: 'EX', message: 'plain' } })), `${reach}: fetch failed (EX)${hint}`);
    assert.equal(await failWith('down'), `${reach}: down${hint}`);
    assert.equal(await failWith(new TypeError('fetch failed', { cause: null })), `${reach}: fetch failed${hint}`);
  } finally {
    globalThis.fetch = saved;
  }
});

test('HTTP errors: 401 with and without a token, 503 with and without a rank, a JSON error detail; status and rank attached', async () => {
  const plain = CL.remoteClient(url), withToken = CL.remoteClient(url, { token: 'abc' });
  reply = () => [401, 'application/json', JSON.stringify({ error: 'missing bearer token' })];
  await assert.rejects(plain.health(), (e) => e.status === 401
    && e.message === `${FN}: GET /health: authentication failed (HTTP 401): missing bearer token; no token was given: pass the trainer's --token as { token }`);
  await assert.rejects(withToken.health(), { message: `${FN}: GET /health: authentication failed (HTTP 401): missing bearer token; the token was refused: pass the trainer's --token as { token }` });
  reply = () => [503, 'application/json', JSON.stringify({ error: 'rank 1 died', rank: 1 })];
  await assert.rejects(plain.health(), (e) => e.status === 503 && e.rank === 1
    && e.message === `${FN}: GET /health: the trainer's rank group is broken (HTTP 503, rank 1): rank 1 died; restart the trainer and call loadState with the last saveState bytes`);
  reply = () => [503, 'application/json', JSON.stringify({ error: 'lost', rank: 'r1' })];
  await assert.rejects(plain.health(), (e) => e.rank === undefined && e.message.includes('(HTTP 503, a rank): lost;'));
  reply = () => [503, 'text/plain', 'gone'];
  await assert.rejects(plain.health(), (e) => e.rank === undefined && e.message.includes('(HTTP 503, a rank): gone;'));
  reply = () => [400, 'application/json', JSON.stringify({ error: 'bad field', rank: 0 })];
  await assert.rejects(plain.optimStep({ lr: 0.1 }), (e) => e.status === 400 && e.rank === undefined
    && e.message === `${FN}: POST /optim_step failed with HTTP 400: bad field`);
  reply = () => [400, 'application/json', JSON.stringify({ message: 'not the error field' })];
  await assert.rejects(plain.health(), { message: `${FN}: GET /health failed with HTTP 400: {"message":"not the error field"}` });
});

test('optimStep sends the given hyperparameters only; answers without logprobs or metrics are refused', async () => {
  const c = CL.remoteClient(url);
  reply = () => [200, 'application/json', JSON.stringify({ step: 3, metrics: { lr: 0.5 } })];
  assert.deepEqual(await c.optimStep({ lr: 0.5, betas: [0.8, 0.9] }), { step: 3, metrics: { lr: 0.5 } });
  assert.deepEqual(JSON.parse(seen.at(-1).body), { lr: 0.5, betas: [0.8, 0.9] });
  await c.optimStep();
  assert.deepEqual([seen.at(-1).path, JSON.parse(seen.at(-1).body)], ['/optim_step', {}]);
  await c.optimStep({ eps: 1e-6, weightDecay: 0 });
  assert.deepEqual(JSON.parse(seen.at(-1).body), { eps: 1e-6, weightDecay: 0 });
  const d1 = [{ inputIds: [1, 2], targets: [2, 3] }];
  reply = () => [200, 'application/json', JSON.stringify({ logprobs: [[-1]] })];
  await assert.rejects(c.forward(d1), { message: `${FN}.forward: the trainer's answer has no 'logprobs' matching the data (1 lists of their T values)` });
  reply = () => [200, 'application/json', JSON.stringify({ logprobs: [[-1, 'x']] })];
  await assert.rejects(c.forward(d1), /the trainer's answer has no 'logprobs' matching the data/);
  reply = () => [200, 'application/json', JSON.stringify({ logprobs: [[-1, -2]], loss: 1 })];
  await assert.rejects(c.forwardBackward(d1, [[1, 1]]), { message: `${FN}.forwardBackward: the trainer's answer has no 'metrics' object` });
  reply = () => [200, 'application/json', JSON.stringify({ ok: true, ranks: 2 })];
  assert.deepEqual(await c.health(), { ok: true, ranks: 2 });
  assert.deepEqual([seen.at(-1).method, seen.at(-1).path, seen.at(-1).headers.authorization], ['GET', '/health', undefined]);
});

test('timeoutMs: a slow answer is an Error naming the wait; close() aborts a request in flight and refuses later ones', async () => {
  const slow = CL.remoteClient(url, { timeoutMs: 50 });
  reply = () => [200, 'application/json', '{}', 1000];
  await assert.rejects(slow.health(), (e) => e.message === `${FN}: GET /health timed out after 50 ms (timeoutMs) waiting for the trainer at ${url}` && e.cause !== undefined);
  const c = CL.remoteClient(url);
  const pending = c.health();
  await new Promise((r) => setTimeout(r, 20));
  c.close();
  await assert.rejects(pending, { message: `${FN}: GET /health: the client was closed during the request` });
  await assert.rejects(c.health(), { message: `${FN}: GET /health: the client is closed` });
  reply = () => [200, 'application/json', '{}'];
});
