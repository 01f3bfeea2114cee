// sg.tokenizers paths no test reached, on a BERT WordPiece tokenizer.json built here: encode / decode /
// encodeBatch argument errors and the defaults of their options (transformers': add_special_tokens
// True, skip_special_tokens False), a file value of the wrong type, a file found under a path key, a
// tokenizer.json the library refuses, a folder whose tokenizer.json cannot be read, and a Precompiled
// normalizer with an empty charsmap (sentencepiece's 'identity' normalization: no NFKC). Oracles: ids
// derived by hand from the vocabulary, transformers' documented defaults, the messages (the contract).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';
import { sg, throwsWith } from './helpers.mjs';

import { WORDPIECE, WP_CONFIG } from './tokenizer_fixtures.mjs';
const files = (tj = WORDPIECE) => ({ 'tokenizer.json': JSON.stringify(tj), 'tokenizer_config.json': JSON.stringify(WP_CONFIG) });
const FN = 'tokenizers.fromPretrained';

test('encode / decode / encodeBatch: bad arguments are Errors naming what they got; the option defaults are transformers\'', async () => {
  const tok = await sg.tokenizers.fromPretrained(files());
  for (const [bad, got] of [[5, '5'], [null, 'null'], [['hello'], "['hello']"]]) throwsWith(() => tok.encode(bad), `encode: expected a string, got ${got}`);
  for (const [bad, got] of [[[1, -1], '[1, -1]'], [[1.5], '[1.5]'], ['abc', "'abc'"], [{}, 'an object'], [[5, '6'], "[5, '6']"]]) {
    throwsWith(() => tok.decode(bad), `decode: expected an array of token ids (integers >= 0) or an int32 Tensor, got ${got}`);
  }
  for (const [bad, got] of [[[], '[]'], ['hello', "'hello'"], [['hello', 3], "['hello', 3]"], [null, 'null']]) {
    throwsWith(() => tok.encodeBatch(bad), `encodeBatch: expected a non-empty array of strings, got ${got}`);
  }
  // [CLS] hello world [SEP] with the special tokens by default, without when asked
  assert.deepEqual(tok.encode('hello world'), [2, 5, 6, 3]);
  assert.deepEqual(tok.encode('hello world', { addSpecialTokens: false }), [5, 6]);
  // special tokens kept by default (skip_special_tokens=False)
  assert.equal(tok.decode([2, 5, 6, 3]), '[CLS] hello world [SEP]');
  assert.equal(tok.decode([2, 5, 6, 3], { skipSpecialTokens: true }), 'hello world');
  assert.equal(tok.decode(sg.tensor([2, 5, 3], { dtype: 'int32' })), '[CLS] hello [SEP]');
  const b = tok.encodeBatch(['hello world', 'world hello']);
  assert.deepEqual(Array.from(b.inputIds.dataSync()), [2, 5, 6, 3, 2, 6, 5, 3]);
  assert.deepEqual(Array.from(tok.encodeBatch(['hello'], { addSpecialTokens: false }).inputIds.dataSync()), [5]);
});

test('files: a value of the wrong type is an Error naming the file; a key ending in /tokenizer.json is found; a tokenizer.json the library refuses names it', async () => {
  for (const [bad, got] of [[5, '5'], [{}, 'an object'], [[1], '[1]']]) {
    await assert.rejects(sg.tokenizers.fromPretrained({ 'tokenizer.json': bad }), { message: `${FN}: expected 'tokenizer.json' to be a Uint8Array, ArrayBuffer, Blob, File or string, got ${got}` });
  }
  await assert.rejects(sg.tokenizers.fromPretrained({ ...files(), 'tokenizer_config.json': 7 }), { message: `${FN}: expected 'tokenizer_config.json' to be a Uint8Array, ArrayBuffer, Blob, File or string, got 7` });
  const nested = await sg.tokenizers.fromPretrained({ 'models/bert/tokenizer.json': JSON.stringify(WORDPIECE) });
  assert.deepEqual(nested.encode('hello'), [2, 5, 3]);
  // two keys that end in /tokenizer.json: neither is taken
  await assert.rejects(sg.tokenizers.fromPretrained({ 'a/tokenizer.json': JSON.stringify(WORDPIECE), 'b/tokenizer.json': JSON.stringify(WORDPIECE) }), { message: `${FN}: no tokenizer.json in the given files` });
  const ab = new TextEncoder().encode(JSON.stringify(WORDPIECE));
  assert.deepEqual((await sg.tokenizers.fromPretrained({ 'tokenizer.json': ab.buffer })).encode('world'), [2, 6, 3], 'an ArrayBuffer');
  await assert.rejects(sg.tokenizers.fromPretrained(files({ ...WORDPIECE, model: { type: 'Nope' } })), { message: /^tokenizers\.fromPretrained: tokenizer\.json: .*Nope/ });
  await assert.rejects(sg.tokenizers.fromPretrained(files({ ...WORDPIECE, normalizer: { type: 'Nope' } })), { message: /^tokenizers\.fromPretrained: tokenizer\.json: .*Nope/ });
});

test('a folder whose tokenizer.json is a directory: an Error naming <dir>/tokenizer.json (EISDIR), not "no tokenizer.json"', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sg-tok-errors-'));
  try {
    mkdirSync(join(dir, 'tokenizer.json'));
    await assert.rejects(sg.tokenizers.fromPretrained(dir), (e) => {
      assert.ok(e.message.startsWith(`${FN}: cannot read '${dir}/tokenizer.json': `), e.message);
      assert.match(e.message, /EISDIR/);
      return true;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a Precompiled normalizer with an empty charsmap ('' or null) is the identity: fullwidth letters stay (NFKC would give 'hello')", async () => {
  for (const charsmap of ['', null]) {
    const tj = { ...WORDPIECE, normalizer: { type: 'Sequence', normalizers: [{ type: 'Precompiled', precompiled_charsmap: charsmap }, { type: 'Lowercase' }] } };
    const tok = await sg.tokenizers.fromPretrained(files(tj));
    assert.deepEqual(tok.encode('ｈｅｌｌｏ HELLO'), [2, 1, 5, 3], `charsmap ${JSON.stringify(charsmap)}`);
  }
});
