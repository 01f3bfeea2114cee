// Where Node's fs cannot be imported (a browser, a worker), every loader that takes a folder path
// says so and what to pass instead: sg.models.fromPretrained, sg.tokenizers.fromPretrained and
// sg.peft.loadAdapter (models/pretrained.ts folderOf, tokenizers/pretrained.ts readFile). The
// failing import is made by module hooks (no_fs_hooks.mjs) registered after init, for the
// package's imports only; the same loaders given the files as an object still work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { register } from 'node:module';
import { sg } from './helpers.mjs';

register('./no_fs_hooks.mjs', import.meta.url);

const advice = "a folder path needs Node's fs; in a browser pass the files (an object or Map from file name to File/Blob/Uint8Array)";

test('a folder path without Node\'s fs: each loader names itself and says to pass the files', async () => {
  await assert.rejects(sg.models.fromPretrained('/no/such/model'), { message: `fromPretrained: ${advice}` });
  await assert.rejects(sg.tokenizers.fromPretrained('/no/such/tokenizer'), { message: `tokenizers.fromPretrained: ${advice}` });
  const model = new sg.models.GPT2LMHeadModel({ vocab_size: 12, n_positions: 4, n_embd: 8, n_layer: 1, n_head: 2 });
  await assert.rejects(sg.peft.loadAdapter(model, '/no/such/adapter'), { message: `loadAdapter: ${advice}` });
  // The same model given as files loads (the hooks refuse only fs).
  const files = sg.models.savePretrained(model);
  const loaded = await sg.models.fromPretrained(files);
  assert.deepEqual(Array.from(loaded.lm_head.weight.dataSync()), Array.from(model.lm_head.weight.dataSync()));
  loaded.dispose();
  model.dispose();
});
