// sg.models.fromPretrained's file values and shape check at each part alone: a Blob is read (an object that only
// looks like one is refused), a typed-array view is read through its own window; a stored tensor of the wrong
// shape is named with its file, while a key the model lacks (no shape to compare) goes to the key check.
// Oracles: the messages of npm/src/models/pretrained.ts (the contract); the saved model's weights (round trip).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

const LLAMA = { hidden_size: 8, intermediate_size: 12, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1, vocab_size: 16 };
const FN = 'fromPretrained';

test('file values: Blobs are read, a Blob-like object is refused, a typed-array view is read through its window', async () => {
  const m = new sg.models.LlamaForCausalLM(LLAMA);
  const files = sg.models.savePretrained(m);
  const want = Array.from(m.lm_head.weight.dataSync());
  const blobs = await sg.models.fromPretrained({ 'config.json': new Blob([files['config.json']]), 'model.safetensors': new Blob([files['model.safetensors']]) });
  assert.deepEqual(Array.from(blobs.lm_head.weight.dataSync()), want);
  const st = files['model.safetensors'];
  await assert.rejects(sg.models.fromPretrained({ ...files, 'model.safetensors': { size: st.length, arrayBuffer: async () => st.buffer } }),
    { message: `${FN}: expected 'model.safetensors' to be a Uint8Array, ArrayBuffer, Blob, File or string, got an object` });
  // the bytes at offset 3 of a larger buffer, seen as a DataView
  const big = new Uint8Array(st.length + 8);
  big.set(st, 3);
  const viewed = await sg.models.fromPretrained({ ...files, 'model.safetensors': new DataView(big.buffer, 3, st.length) });
  assert.deepEqual(Array.from(viewed.lm_head.weight.dataSync()), want);
  sg.dispose([m, blobs, viewed]);
});

test('a stored tensor of the wrong shape is named with its file; a key the model lacks goes to the key check', async () => {
  const m = new sg.models.LlamaForCausalLM(LLAMA);
  const files = sg.models.savePretrained(m);
  const sd = sg.load(files['model.safetensors']);
  const before = sg.memory().tensors;
  const wrong = { ...sd, 'lm_head.weight': sg.zeros([16, 4]) };
  await assert.rejects(sg.models.fromPretrained({ ...files, 'model.safetensors': sg.save(wrong) }),
    { message: `${FN}: 'lm_head.weight' in model.safetensors has shape [16, 4], the model (config.json) expects [16, 8]` });
  const extra = { ...sd, 'extra.weight': sg.zeros([3]) };
  await assert.rejects(sg.models.fromPretrained({ ...files, 'model.safetensors': sg.save(extra) }), (e) => {
    assert.match(e.message, /Unexpected key\(s\) in state_dict: "extra\.weight"/);
    assert.doesNotMatch(e.message, /expects/);
    return true;
  });
  sg.dispose([wrong['lm_head.weight'], extra['extra.weight']]);
  assert.equal(sg.memory().tensors, before, 'nothing left behind');
  sg.dispose([m, ...Object.values(sd)]);
});
