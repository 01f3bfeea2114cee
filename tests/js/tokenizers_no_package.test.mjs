// Where '@huggingface/tokenizers' cannot be imported (a page without a bundler or an import map; here
// module hooks refuse the package's import of it, tokenizers_no_package_hooks.mjs), sg.tokenizers.fromPretrained
// says which package it needs and how to map it, with the import's own message; the rest of the package
// works. Oracle: the message (npm/src/tokenizers/pretrained.ts, the contract).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { register } from 'node:module';
import { sg } from './helpers.mjs';

register('./tokenizers_no_package_hooks.mjs', import.meta.url);

test("without '@huggingface/tokenizers': fromPretrained names the package, the import map, and the import's error", async () => {
  const tj = JSON.stringify({ model: { type: 'WordPiece', vocab: { a: 0 } } });
  await assert.rejects(sg.tokenizers.fromPretrained({ 'tokenizer.json': tj }), {
    message: "tokenizers.fromPretrained: cannot load the npm package '@huggingface/tokenizers' (a dependency of simdgrad; in a page without a bundler, map it with an import map): Cannot find package '@huggingface/tokenizers'",
  });
  // the files are checked before the import: a bad tokenizer.json still says so
  await assert.rejects(sg.tokenizers.fromPretrained({ 'tokenizer.json': '{}' }), { message: /tokenizer\.json has no 'model'/ });
  assert.deepEqual(Array.from(sg.tensor([1, 2]).add(1).dataSync()), [2, 3]);
});
