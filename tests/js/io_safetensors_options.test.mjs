// sg.save / sg.load paths no other test reached: load's dtype option (floating tensors cast, integer
// ones kept, as module.to(dtype)), a Map state dict with a non-string key, and the JS header reader
// that sg.models.fromPretrained uses (io/safetensors_header.ts) on a header that is not JSON or has
// bad data_offsets. Oracles: the API contract (floats cast, ints kept), float32→float64 widening done
// by Math.fround, and for the header checks the C++ reader's message on the same bytes (sg.load).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

/** A safetensors file: 8-byte little-endian header length, the header text, the data. */
function fileOf(header, data = new Uint8Array(0)) {
  const json = new TextEncoder().encode(typeof header === 'string' ? header : JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setUint32(0, json.length, true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

test('load({ dtype }): floating tensors are cast (float32 and float16), integer and bool tensors keep their dtype', () => {
  const sd = {
    a: sg.tensor([0.1, 2]),
    h: sg.tensor([1.5, -0.25], { dtype: 'float16' }),
    i: sg.tensor([7, -3], { dtype: 'int32' }),
    b: sg.tensor([true, false], { dtype: 'bool' }),
  };
  const bytes = sg.save(sd);
  sg.dispose(Object.values(sd));
  const before = sg.memory().tensors;
  const l = sg.load(bytes, { dtype: 'float64' });
  assert.deepEqual(Object.fromEntries(Object.entries(l).map(([k, v]) => [k, v.dtype])), { a: 'float64', h: 'float64', i: 'int32', b: 'bool' });
  assert.deepEqual(Array.from(l.a.dataSync()), [Math.fround(0.1), 2]);
  assert.deepEqual(Array.from(l.h.dataSync()), [1.5, -0.25]);
  assert.deepEqual(Array.from(l.i.dataSync()), [7, -3]);
  assert.deepEqual(Array.from(l.b.dataSync(), Number), [1, 0]);
  assert.equal(sg.memory().tensors, before + 4, 'the uncast tensors were freed: only the four results live');
  sg.dispose(Object.values(l));
  // Without the option each keeps the file's dtype.
  const k = sg.load(bytes);
  assert.deepEqual(Object.values(k).map((v) => v.dtype), ['float32', 'float16', 'int32', 'bool']);
  sg.dispose(Object.values(k));
  // The same dtype as the file's is no cast.
  const same = sg.load(bytes, { dtype: 'float32' });
  assert.deepEqual(Object.values(same).map((v) => v.dtype), ['float32', 'float32', 'int32', 'bool']);
  sg.dispose(Object.values(same));
});

test('save: a Map state dict with a key that is not a string is an Error naming the key', () => {
  const t = sg.tensor([1, 2]);
  throwsWith(() => sg.save(new Map([[1, t]])), /^save: names must be strings, got 1$/);
  throwsWith(() => sg.save(new Map([[Symbol('w'), t]])), /^save: names must be strings, got a Symbol$/);
  // A Map with string keys saves.
  const back = sg.load(sg.save(new Map([['w', t]])));
  assert.deepEqual(Array.from(back.w.dataSync()), [1, 2]);
  sg.dispose([t, back.w]);
});

test('fromPretrained reads shard headers in JS: a header that is not JSON or UTF-8, and bad data_offsets, are the load errors the C++ reader gives', async () => {
  const m = new sg.models.GPT2LMHeadModel({ vocab_size: 12, n_positions: 4, n_embd: 8, n_layer: 1, n_head: 2 });
  const files = sg.models.savePretrained(m);
  m.dispose();
  const before = sg.memory().tensors;
  const withShard = (bytes) => sg.models.fromPretrained({ ...files, 'model.safetensors': bytes });
  await assert.rejects(withShard(fileOf('{"x":')), /^Error: fromPretrained: cannot read model\.safetensors: load: header: .*JSON/);
  const badUtf8 = fileOf('{"a":1}');
  badUtf8[9] = 0xff;
  await assert.rejects(withShard(badUtf8), /^Error: fromPretrained: cannot read model\.safetensors: load: header: .*utf-8/i);
  for (const offsets of [[0], [-1, 3], [0, 1.5], 'ab']) {
    const bytes = fileOf({ x: { dtype: 'F32', shape: [1], data_offsets: offsets } }, new Uint8Array(4));
    const want = "load: tensor 'x': 'data_offsets' must be an array of two non-negative integers";
    throwsWith(() => sg.load(bytes), want);  // the C++ reader: the contract the JS one follows
    await assert.rejects(withShard(bytes), { message: `fromPretrained: cannot read model.safetensors: ${want}` });
  }
  assert.equal(sg.memory().tensors, before, 'nothing left behind');
  const ok = await sg.models.fromPretrained(files);
  assert.equal(ok.lm_head.weight.shape.join(), '12,8');
  ok.dispose();
});
