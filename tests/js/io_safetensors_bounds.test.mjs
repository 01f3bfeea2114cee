// The JS safetensors header reader (io/safetensors_header.ts, used by sg.models.fromPretrained) at each part
// of its guards alone: a tensor entry that is null, a number or an array; a dtype that is no string or an
// unknown name; a shape that is no array, holds a fraction, a negative, or one bad entry after a good one;
// data_offsets of three entries, ending before they begin, overlapping; and the boundary values it accepts
// (a 0 dimension, offsets [0, 0], begin == end, a tensor starting exactly where the previous one ends).
// Oracle: the messages of npm/src/io/safetensors_header.ts (the contract) and the C++ reader (sg.load),
// which refuses and accepts the same files (its wording differs for the first checks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

function fileOf(header, data = new Uint8Array(0)) {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setUint32(0, json.length, true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

const m = new sg.models.GPT2LMHeadModel({ vocab_size: 12, n_positions: 4, n_embd: 8, n_layer: 1, n_head: 2 });
const files = sg.models.savePretrained(m);
m.dispose();
const PRE = 'fromPretrained: cannot read model.safetensors: load: ';
const withShard = (bytes) => sg.models.fromPretrained({ ...files, 'model.safetensors': bytes });
// a header the reader accepts reaches the key check against the model
const ACCEPTED = /^Error: fromPretrained: the weights of the given files do not fit config\.json: .*\n\tUnexpected key\(s\) in state_dict: "transformer\.x"/;

async function refused(header, dataBytes, message) {
  const bytes = fileOf(header, new Uint8Array(dataBytes));
  assert.throws(() => sg.load(bytes), Error, 'the C++ reader refuses it too');
  await assert.rejects(withShard(bytes), { message: PRE + message });
}

async function accepted(header, dataBytes) {
  const bytes = fileOf(header, new Uint8Array(dataBytes));
  const sd = sg.load(bytes);  // the C++ reader accepts it
  sg.dispose(Object.values(sd));
  await assert.rejects(withShard(bytes), ACCEPTED);
}

test('a tensor entry must be an object: null, a number and an array are each refused', async () => {
  for (const v of [null, 5, [1], 'F32']) await refused({ x: v }, 4, "tensor 'x' must be an object");
  await accepted({ x: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }, 4);
});

test('dtype: a non-string and an unknown name are refused with the supported list', async () => {
  const list = '(supported: F32, F16, BF16, F64, I64, I32, I8, U8, BOOL)';
  await refused({ x: { dtype: 5, shape: [1], data_offsets: [0, 4] } }, 4, `tensor 'x' has unsupported dtype 5 ${list}`);
  await refused({ x: { dtype: 'F33', shape: [1], data_offsets: [0, 4] } }, 4, `tensor 'x' has unsupported dtype F33 ${list}`);
});

test('shape: not an array, a fraction, a negative, one bad dimension after a good one; 0 is a dimension', async () => {
  const msg = "tensor 'x': 'shape' must be an array of non-negative integers";
  for (const shape of [3, [1.5], [-1], [1, -1], [1, 0.5], ['1']]) await refused({ x: { dtype: 'F32', shape, data_offsets: [0, 4] } }, 4, msg);
  await accepted({ x: { dtype: 'F32', shape: [0], data_offsets: [0, 0] } }, 0);
  await accepted({ x: { dtype: 'F32', shape: [1, 1], data_offsets: [0, 4] } }, 4);
});

test('data_offsets: three entries, a negative second, a fraction; [0, 0] is accepted', async () => {
  const msg = "tensor 'x': 'data_offsets' must be an array of two non-negative integers";
  for (const off of [[0, 4, 4], [0, -4], [0.5, 4], { 0: 0, 1: 4 }]) await refused({ x: { dtype: 'F32', shape: [1], data_offsets: off } }, 4, msg);
  await accepted({ x: { dtype: 'F32', shape: [0, 3], data_offsets: [0, 0] } }, 0);
});

test('data_offsets ending before they begin are refused; begin == end is accepted', async () => {
  await refused({ x: { dtype: 'F32', shape: [1], data_offsets: [4, 3] } }, 4, "tensor 'x': data_offsets [4, 3] end before they begin");
  await refused({ x: { dtype: 'F32', shape: [1], data_offsets: [1, 0] } }, 4, "tensor 'x': data_offsets [1, 0] end before they begin");
  await accepted({ x: { dtype: 'F32', shape: [0], data_offsets: [4, 4] }, y: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }, 4);
});

test('regions: one starting inside the previous overlaps; one starting exactly at its end is accepted', async () => {
  const a = { dtype: 'F32', shape: [1], data_offsets: [0, 4] };
  await refused({ x: a, y: { dtype: 'F32', shape: [1], data_offsets: [3, 7] } }, 8,
    "tensor 'y' data_offsets [3, 7] overlap the data of another tensor (which ends at 4)");
  await accepted({ x: a, y: { dtype: 'F32', shape: [1], data_offsets: [4, 8] } }, 8);
});
