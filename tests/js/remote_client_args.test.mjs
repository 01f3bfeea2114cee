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
      const [status, type, body] = reply(r);
      res.writeHead(status, type === null ? {} : { 'content-type': type });
      res.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

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
