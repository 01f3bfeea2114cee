// sg.tokenizers.fromPretrained over @huggingface/tokenizers: two small tokenizer.json files built here (a
// SentencePiece-style BPE with Metaspace and a handful of merges; a BERT WordPiece), against ids derived by hand.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';
import { sg } from './helpers.mjs';

import { BPE, BPE_CONFIG, WORDPIECE, WP_CONFIG } from './tokenizer_fixtures.mjs';

const files = (tj, cfg) => ({ 'tokenizer.json': new TextEncoder().encode(JSON.stringify(tj)), 'tokenizer_config.json': JSON.stringify(cfg) });

test('BPE (Metaspace, merges): encode / decode / special ids, hand-derived', async () => {
  const tok = await sg.tokenizers.fromPretrained(files(BPE, BPE_CONFIG));
  // 'lower low' → ▁lower ▁low → [▁low, er] [▁low]; BOS first.
  assert.deepEqual(tok.encode('lower low'), [1, 12, 13, 12]);
  assert.deepEqual(tok.encode('lower low', { addSpecialTokens: false }), [12, 13, 12]);
  // 'lowest': ▁ l o w e s t → ▁low e s t (no 'e s' merge).
  assert.deepEqual(tok.encode('lowest', { addSpecialTokens: false }), [12, 8, 14, 15]);
  assert.equal(tok.decode([1, 12, 13, 12]), '<s> lower low');
  assert.equal(tok.decode([1, 12, 13, 12], { skipSpecialTokens: true }), 'lower low');
  assert.equal(tok.decode(sg.tensor([12, 13], { dtype: 'int32' })), 'lower');
  assert.equal(tok.bosTokenId, 1);
  assert.equal(tok.eosTokenId, 2);
  assert.equal(tok.padTokenId, 3);
  assert.equal(tok.vocabSize, 16);
  assert.equal(tok.tokenToId('▁low'), 12);
  assert.equal(tok.idToToken(13), 'er');
});

test('WordPiece (BERT): lowercasing, ## continuations, [UNK], [CLS]/[SEP], decode cleanup', async () => {
  const tok = await sg.tokenizers.fromPretrained(new Map(Object.entries(files(WORDPIECE, WP_CONFIG))));
  assert.deepEqual(tok.encode('Hello, worlds! unaffable xyz'), [2, 5, 11, 6, 7, 12, 8, 9, 10, 1, 3]);
  assert.deepEqual(tok.encode('Hello, worlds!', { addSpecialTokens: false }), [5, 11, 6, 7, 12]);
  assert.equal(tok.decode([2, 5, 11, 6, 7, 12, 3], { skipSpecialTokens: true }), 'hello, worlds!');
  assert.equal(tok.bosTokenId, null);
  assert.equal(tok.padTokenId, 0);
});

test('encodeBatch: padding (right, left as tokenizer_config says, max_length), truncation keeping special tokens, int32 tensors', async () => {
  const wp = await sg.tokenizers.fromPretrained(files(WORDPIECE, WP_CONFIG));
  sg.tidy(() => {
    const { inputIds, attentionMask } = wp.encodeBatch(['hello', 'hello world'], { padding: true });
    assert.equal(inputIds.dtype, 'int32');
    assert.deepEqual(inputIds.toArray(), [[2, 5, 3, 0], [2, 5, 6, 3]]);
    assert.deepEqual(attentionMask.toArray(), [[1, 1, 1, 0], [1, 1, 1, 1]]);
    const m = wp.encodeBatch(['hello'], { padding: 'max_length', maxLength: 5 });
    assert.deepEqual(m.inputIds.toArray(), [[2, 5, 3, 0, 0]]);
    const t = wp.encodeBatch(['hello world', 'hello'], { truncation: true, maxLength: 3, padding: true });
    assert.deepEqual(t.inputIds.toArray(), [[2, 5, 3], [2, 5, 3]]);
    assert.throws(() => wp.encodeBatch(['hello', 'hello world']), /encodeBatch: the texts encode to different lengths \(3, 4\)/);
    assert.throws(() => wp.encodeBatch(['hello'], { truncation: true }), /needs maxLength/);
  });
  const bpe = await sg.tokenizers.fromPretrained(files(BPE, BPE_CONFIG));
  sg.tidy(() => {
    const { inputIds, attentionMask } = bpe.encodeBatch(['lower low', 'low'], { padding: 'longest' });
    assert.deepEqual(inputIds.toArray(), [[1, 12, 13, 12], [3, 3, 1, 12]]);
    assert.deepEqual(attentionMask.toArray(), [[1, 1, 1, 1], [0, 0, 1, 1]]);
  });
  const noPad = await sg.tokenizers.fromPretrained(files(BPE, { bos_token: '<s>' }));
  assert.throws(() => noPad.encodeBatch(['lower low', 'low'], { padding: true }), /needs a pad token/);
});

test('tokenizers.fromPretrained: a Node folder; bad input named', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sg-tok-'));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(WORDPIECE));
  const tok = await sg.tokenizers.fromPretrained(dir); // no tokenizer_config.json: no special-token ids
  assert.deepEqual(tok.encode('hello'), [2, 5, 3]);
  assert.equal(tok.padTokenId, null);
  await assert.rejects(sg.tokenizers.fromPretrained(join(dir, 'nope')), /no tokenizer\.json in folder/);
  await assert.rejects(sg.tokenizers.fromPretrained({ 'tokenizer.json': '{' }), /tokenizer\.json is not valid JSON/);
  await assert.rejects(sg.tokenizers.fromPretrained({ 'tokenizer.json': '{}' }), /tokenizer\.json has no 'model'/);
  await assert.rejects(sg.tokenizers.fromPretrained(5), /expected a folder path or an object/);
  rmSync(dir, { recursive: true });
});
