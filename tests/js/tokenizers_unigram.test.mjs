// SentencePiece Unigram tokenizers (T5 / ALBERT / XLM-R style tokenizer.json, model type "Unigram") through
// sg.tokenizers against Google's sentencepiece: tests/data/gen_unigram.py trained three small Unigram models with it
// (nmt_nfkc; nmt_nfkc_cf with a user-defined symbol; identity with byte fallback), wrote each as transformers'
// SpmConverter writes a tokenizer.json (the model's precompiled charsmap as the Precompiled normalizer, Metaspace,
// the pieces and scores as the Unigram vocabulary), and recorded sentencepiece's own ids and decoded text of ~230
// varied and seeded random texts per model (unicode, full-width forms, ligatures, controls, whitespace runs, emoji).
// The nfkc_cf and byte-fallback models fail without npm/src/tokenizers/sentencepiece_fixes.ts (the library ignores
// the charsmap and has no Unigram byte fallback).
import assert from 'node:assert/strict';
import test from 'node:test';
import { readRef, sg } from './helpers.mjs';

const REF = readRef('unigram_ref.json');
const CONFIG = '{"clean_up_tokenization_spaces": false, "eos_token": "</s>"}';
const load = (tj) => sg.tokenizers.fromPretrained({ 'tokenizer.json': JSON.stringify(tj), 'tokenizer_config.json': CONFIG });

for (const [name, what] of [['t5', 'nmt_nfkc, T5\'s "$A </s>"'], ['nfkc_cf', 'nmt_nfkc_cf case folding, a user-defined symbol'], ['byte_fallback', 'byte fallback, whitespace kept']]) {
  test(`Unigram (${what}): ids and decoded text of varied and random texts equal sentencepiece's own`, async () => {
    const ref = REF[name];
    const tok = await load(ref.tokenizer_json);
    assert.equal(tok.vocabSize, ref.tokenizer_json.model.vocab.length);
    let unknown = 0;
    for (const { text, ids, decoded } of ref.cases) {
      assert.deepEqual(tok.encode(text, { addSpecialTokens: false }), ids, JSON.stringify(text));
      // sentencepiece spells the unknown piece ' ⁇ ' when decoding; tokenizer.json decoders keep its token ('<unk>')
      assert.equal(tok.decode(ids).replaceAll('<unk>', ' ⁇ '), decoded, `decode ${JSON.stringify(text)}`);
      if (ids.includes(0)) unknown++;
    }
    if (name === 'byte_fallback') assert.equal(unknown, 0, 'byte fallback leaves no <unk>');
    else assert.ok(unknown > 100, `texts with unknown characters: ${unknown}`);
  });
}

test('Unigram: T5\'s post-processor appends </s>; encodeBatch truncates keeping it', async () => {
  const ref = REF.t5;
  const tok = await load(ref.tokenizer_json);
  assert.equal(tok.eosTokenId, ref.eos_id);
  const [a, b] = ref.cases.filter((c) => c.ids.length > 3).slice(0, 2);
  assert.deepEqual(tok.encode(a.text), [...a.ids, ref.eos_id]);
  const batch = tok.encodeBatch([a.text, b.text], { truncation: true, maxLength: 3, padding: true });
  assert.deepEqual(batch.inputIds.toArray(), [[...a.ids.slice(0, 2), ref.eos_id], [...b.ids.slice(0, 2), ref.eos_id]]);
  batch.inputIds.dispose();
  batch.attentionMask.dispose();
});

test('Unigram: a malformed precompiled_charsmap is an Error naming it', async () => {
  const tj = structuredClone(REF.t5.tokenizer_json);
  const pre = tj.normalizer.normalizers.find((n) => n.type === 'Precompiled');
  pre.precompiled_charsmap = 'not base64 !!';
  await assert.rejects(load(tj), /tokenizer\.json: normalizer Precompiled's precompiled_charsmap: expected a base64 string, got one that does not decode/);
  pre.precompiled_charsmap = btoa('\x40\x00\x00\x00abcd'); // says 64 bytes of trie, holds 4
  await assert.rejects(load(tj), /precompiled_charsmap: the charsmap says its trie holds 64 bytes, but it has 4 after the size/);
  pre.precompiled_charsmap = 17;
  await assert.rejects(load(tj), /precompiled_charsmap: expected a base64 string, got number/);
});
