// tokenizers/pretrained.ts guards at each part alone: the file lookup (an exact key wins over a key ending in
// /tokenizer.json; a lone file of another name is not tokenizer.json; a non-string Map key is skipped; a Blob is
// read), decode's id bound (0 is an id, -1 is not), encodeBatch's maxLength need (truncation alone, padding
// 'max_length' alone), the unpadded different-lengths refusal and the pad-token need (only when a row is short).
// Oracles: the messages of npm/src/tokenizers/pretrained.ts (the contract) and transformers' behaviour
// (decode([0]) is the pad token's text; equal-length rows need no padding and no pad token).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';
import { BPE, WORDPIECE, WP_CONFIG } from './tokenizer_fixtures.mjs';

const FN = 'tokenizers.fromPretrained';
const wp = JSON.stringify(WORDPIECE);
const bpe = JSON.stringify(BPE);

test('files: the exact key wins over one ending in /tokenizer.json; a lone other file is not tokenizer.json; non-string Map keys are skipped; a Blob is read', async () => {
  // 'hello' is [2, 5, 3] in the WordPiece, the BPE has no 'hello' (other ids)
  const exact = await sg.tokenizers.fromPretrained({ 'tokenizer.json': wp, 'sub/tokenizer.json': bpe });
  assert.deepEqual(exact.encode('hello'), [2, 5, 3]);
  const exact2 = await sg.tokenizers.fromPretrained({ 'sub/tokenizer.json': bpe, 'tokenizer.json': wp });
  assert.deepEqual(exact2.encode('hello'), [2, 5, 3]);
  await assert.rejects(sg.tokenizers.fromPretrained({ 'vocab.json': wp }), { message: `${FN}: no tokenizer.json in the given files` });
  await assert.rejects(sg.tokenizers.fromPretrained({ 'tokenizer.json.bak': wp }), { message: `${FN}: no tokenizer.json in the given files` });
  await assert.rejects(sg.tokenizers.fromPretrained({ 'xtokenizer.json': wp }), { message: `${FN}: no tokenizer.json in the given files` });
  const mapped = await sg.tokenizers.fromPretrained(new Map([[1, bpe], ['m/tokenizer.json', wp]]));
  assert.deepEqual(mapped.encode('hello'), [2, 5, 3]);
  const blob = await sg.tokenizers.fromPretrained({ 'tokenizer.json': new Blob([wp]), 'tokenizer_config.json': new Blob([JSON.stringify(WP_CONFIG)]) });
  assert.deepEqual(blob.encode('hello world'), [2, 5, 6, 3]);
  assert.equal(blob.padTokenId, 0);
  // an object that is no Blob is refused, not read
  await assert.rejects(sg.tokenizers.fromPretrained({ 'tokenizer.json': { text: async () => wp } }),
    { message: `${FN}: expected 'tokenizer.json' to be a Uint8Array, ArrayBuffer, Blob, File or string, got an object` });
  // a lone tokenizer.json: tokenizer_config.json is not taken from it (no pad token then)
  const lone = await sg.tokenizers.fromPretrained({ 'tokenizer.json': wp });
  assert.equal(lone.padTokenId, null);
});

test('decode: id 0 is an id, -1 is not', async () => {
  const tok = await sg.tokenizers.fromPretrained({ 'tokenizer.json': wp, 'tokenizer_config.json': JSON.stringify(WP_CONFIG) });
  assert.equal(tok.decode([0]), '[PAD]');
  assert.equal(tok.decode([0, 5]), '[PAD] hello');
  throwsWith(() => tok.decode([0, -1]), 'decode: expected an array of token ids (integers >= 0) or an int32 Tensor, got [0, -1]');
});

test('encodeBatch: maxLength is needed by truncation alone and by padding max_length alone; equal rows need neither padding nor a pad token', async () => {
  const tok = await sg.tokenizers.fromPretrained({ 'tokenizer.json': wp, 'tokenizer_config.json': JSON.stringify(WP_CONFIG) });
  throwsWith(() => tok.encodeBatch(['hello'], { truncation: true }), /^encodeBatch: truncation needs maxLength$/);
  throwsWith(() => tok.encodeBatch(['hello'], { truncation: true, padding: 'max_length' }), /^encodeBatch: truncation needs maxLength$/);
  throwsWith(() => tok.encodeBatch(['hello'], { padding: 'max_length' }), /^encodeBatch: padding: 'max_length' needs maxLength$/);
  const t = tok.encodeBatch(['hello world'], { truncation: true, maxLength: 3 });
  assert.deepEqual(Array.from(t.inputIds.dataSync()), [2, 5, 3]);
  const p = tok.encodeBatch(['hello'], { padding: 'max_length', maxLength: 4 });
  assert.deepEqual(Array.from(p.inputIds.dataSync()), [2, 5, 3, 0]);
  assert.deepEqual(Array.from(p.attentionMask.dataSync()), [1, 1, 1, 0]);
  // unpadded: different lengths refused, equal ones taken
  throwsWith(() => tok.encodeBatch(['hello', 'hello world'], { padding: false }), /^encodeBatch: the texts encode to different lengths \(3, 4\): pass \{ padding: true \}$/);
  throwsWith(() => tok.encodeBatch(['hello world', 'hello']), /^encodeBatch: the texts encode to different lengths \(4, 3\): pass \{ padding: true \}$/);
  const eq = tok.encodeBatch(['hello world', 'world hello'], { padding: false });
  assert.deepEqual(eq.inputIds.shape, [2, 4]);
  sg.dispose([t.inputIds, t.attentionMask, p.inputIds, p.attentionMask, eq.inputIds, eq.attentionMask]);
  // no pad token: refused only when a row is short
  const noPad = await sg.tokenizers.fromPretrained({ 'tokenizer.json': wp });
  throwsWith(() => noPad.encodeBatch(['hello', 'hello world'], { padding: true }), /^encodeBatch: padding needs a pad token, and tokenizer_config\.json names none \(pad_token\)$/);
  throwsWith(() => noPad.encodeBatch(['hello'], { padding: 'max_length', maxLength: 4 }), /needs a pad token/);
  const same = noPad.encodeBatch(['hello world', 'world hello'], { padding: true });
  assert.deepEqual(Array.from(same.inputIds.dataSync()), [2, 5, 6, 3, 2, 6, 5, 3]);
  const full = noPad.encodeBatch(['hello world'], { padding: 'max_length', maxLength: 4 });
  assert.deepEqual(Array.from(full.attentionMask.dataSync()), [1, 1, 1, 1]);
  sg.dispose([same.inputIds, same.attentionMask, full.inputIds, full.attentionMask]);
});
