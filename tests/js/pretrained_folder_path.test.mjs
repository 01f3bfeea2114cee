// sg.models.fromPretrained(path) with a folder path that ends in separators ('dir/', 'dir//', 'dir\'): the
// trailing run is dropped, so the files are read from dir and a read Error names '<dir>/<file>' with one
// slash. Expected values: the saved module's own logits (the same weights), and the path this test made.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';
import { sg } from './helpers.mjs';

const LLAMA = { hidden_size: 8, intermediate_size: 12, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1, vocab_size: 16 };

test('fromPretrained: a folder path with trailing separators loads the folder, and a read Error names <dir>/<file>', async () => {
  const m = new sg.models.LlamaForCausalLM(LLAMA);
  m.eval();
  const dir = mkdtempSync(join(tmpdir(), 'sg-folder-path-'));
  try {
    for (const [n, v] of Object.entries(sg.models.savePretrained(m))) writeFileSync(join(dir, n), v);
    const ids = sg.tensor([[1, 2, 3]], { dtype: 'int32' });
    const logits = (model) => sg.tidy(() => { const y = model.forward(ids); return Array.from((y.logits ?? y).dataSync()); });
    const want = logits(m);
    for (const path of [`${dir}/`, `${dir}//`, `${dir}/\\/`]) {
      const back = await sg.models.fromPretrained(path);
      back.eval();
      assert.deepEqual(logits(back), want, path);
      back.dispose();
    }
    ids.dispose();
    // config.json a folder: not ENOENT (a missing file) but EISDIR, an Error that names the path read.
    const bad = mkdtempSync(join(tmpdir(), 'sg-folder-path-'));
    mkdirSync(join(bad, 'config.json'));
    try {
      for (const path of [bad, `${bad}//`, `${bad}\\`]) {
        await assert.rejects(sg.models.fromPretrained(path), (e) => {
          assert.ok(e.message.startsWith(`fromPretrained: cannot read '${bad}/config.json': `), `${path}: ${e.message}`);
          assert.match(e.message, /EISDIR/);
          return true;
        });
      }
    } finally {
      rmSync(bad, { recursive: true });
    }
  } finally {
    rmSync(dir, { recursive: true });
    m.dispose();
  }
});
