// The layout checks of a Precompiled normalizer's precompiled_charsmap (npm/src/tokenizers/precompiled_charsmap.ts):
// sentencepiece writes it as a little-endian uint32 (the trie's size in bytes, whole 4-byte units), the trie, then the
// replacement blob. Each way the header can disagree with the bytes is an Error naming the charsmap and the sizes; a
// charsmap whose trie fills the bytes exactly (an empty blob) and holds no rule is accepted and changes nothing, so
// plain ASCII texts (which nmt_nfkc leaves as they are) then tokenize to sentencepiece's own ids for the T5 model of
// tests/data/gen_unigram.py.
import assert from 'node:assert/strict';
import test from 'node:test';
import { readRef, sg } from './helpers.mjs';

const REF = readRef('unigram_ref.json').t5;
const CONFIG = '{"clean_up_tokenization_spaces": false, "eos_token": "</s>"}';

/** The T5 tokenizer.json with its charsmap replaced by these bytes. */
function withCharsmap(bytes) {
  const tj = structuredClone(REF.tokenizer_json);
  tj.normalizer.normalizers.find((n) => n.type === 'Precompiled').precompiled_charsmap = Buffer.from(bytes).toString('base64');
  return sg.tokenizers.fromPretrained({ 'tokenizer.json': JSON.stringify(tj), 'tokenizer_config.json': CONFIG });
}

test('precompiled_charsmap: a header that disagrees with the bytes is an Error naming the sizes', async () => {
  const name = /precompiled_charsmap: /;
  const rejects = (bytes, message) => assert.rejects(withCharsmap(bytes), (e) => name.test(e.message) && message.test(e.message), String(bytes));
  await rejects([4, 0, 0], /expected a charsmap of at least 4 bytes \(the trie's size\), got 3/);
  await rejects([0, 0, 0, 0], /the charsmap says its trie holds 0 bytes, but it has 0 after the size/);
  await rejects([0, 0, 0, 0, 1, 2, 3, 4], /the charsmap says its trie holds 0 bytes, but it has 4 after the size/);
  await rejects([6, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8], /the charsmap says its trie holds 6 bytes, but it has 8 after the size/);
  await rejects([12, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8], /the charsmap says its trie holds 12 bytes, but it has 8 after the size/);
});

test('precompiled_charsmap: a trie that fills the bytes exactly, with no rule, changes no text', async () => {
  // One unit, 0: the root's children are at offset 0, so every byte's unit is past the trie (no rule matches).
  const tok = await withCharsmap([4, 0, 0, 0, 0, 0, 0, 0]);
  const plain = REF.cases.filter((c) => /^[A-Za-z0-9,.!?']+( [A-Za-z0-9,.!?']+)*$/.test(c.text));
  assert.ok(plain.length >= 5, `plain ASCII cases: ${plain.length}`);
  for (const { text, ids } of plain) assert.deepEqual(tok.encode(text, { addSpecialTokens: false }), ids, text);
});
