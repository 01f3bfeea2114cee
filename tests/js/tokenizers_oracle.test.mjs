// sg.tokenizers.fromPretrained against independent implementations of the same vocabulary.
// Byte-level BPE: tokenizer.json files derived from js-tiktoken's ranks (tiktoken_tokenizer_json.mjs, as
// transformers' TikTokenConverter derives them) loaded by sg.tokenizers, against js-tiktoken itself (a port of
// OpenAI's tiktoken: rank-based merging, not a merges list), on varied text and on seeded random strings: GPT-2's
// (gpt2 ranks, ByteLevel pre-tokenizer) and a Llama 3-shaped one (cl100k_base ranks, Llama 3's Split pattern).
// WordPiece against BERT's own tokenization.py and SentencePiece BPE against Google's sentencepiece: below.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import test from 'node:test';
import { readRef, sg } from './helpers.mjs';
import { GPT2_TOKENIZER_CONFIG, requireDev, tiktokenTokenizerJson } from './tiktoken_tokenizer_json.mjs';

const { Tiktoken } = requireDev('js-tiktoken/lite');
const load = (name) => sg.tokenizers.fromPretrained({ 'tokenizer.json': JSON.stringify(tiktokenTokenizerJson(name)), 'tokenizer_config.json': JSON.stringify(GPT2_TOKENIZER_CONFIG) });
const tiktoken = new Tiktoken(requireDev('js-tiktoken/ranks/gpt2'));
const gpt2 = await load('gpt2');

const VARIED = [
  '', 'Hello world', ' Hello', 'hello\n', "I'LL don't, you're; we've it's they'd I'm",
  'spaces   between\t\ttabs\n\n\nnewlines\r\nand\u00a0no-break\u2003em space   ', '   ', '\n', ' \t \n ',
  'héllo wörld café naïve Ångström œuvre', '日本語のテキストと漢字', 'Привет, мир! Ελληνικά', 'مرحبا بالعالم עברית', 'हिन्दी ภาษาไทย 한국어',
  '👍 👍🏽 👨‍👩‍👧‍👦 🇫🇷🇯🇵 🤖🤖🤖 ❤️ ☕', 'e\u0301 combining a\u0308 marks', '\u200b zero\u200dwidth \ufeff',
  '3.14159 1,000,000 2024-11-29 0xDEADBEEF 12345678901234567890 ½ ² ٣ ４２', '$100.00 -42 +7 1e-5 007',
  'supercalifragilisticexpialidocious Donaudampfschifffahrtsgesellschaftskapitän pneumonoultramicroscopicsilicovolcanoconiosis',
  'a'.repeat(300), 'ab'.repeat(150), '🙂'.repeat(40), '1'.repeat(100),
  'function f(x) { return x ** 2; } // comment\n\tif (a !== b) {}', 'https://example.org/path?q=1&r=two#frag',
  'a<|endoftext|>b', '<|endoftext|>', 'text <|endoftext|> more <|endoftext|>',
];

function same(text, tok = gpt2, oracle = tiktoken) {
  const ids = tok.encode(text);
  assert.deepEqual(ids, oracle.encode(text, 'all'), `encode ${JSON.stringify(text)}`);
  assert.equal(tok.decode(ids), oracle.decode(ids), `decode ${JSON.stringify(text)}`);
  assert.equal(tok.decode(ids), text, `round trip ${JSON.stringify(text)}`);
}

test('GPT-2 byte-level BPE: the ids of varied text (unicode, emoji, whitespace runs, digits, long words, special token) equal js-tiktoken\'s', () => {
  assert.equal(gpt2.vocabSize, 50257);
  assert.deepEqual(gpt2.encode('Hello world'), [15496, 995]); // GPT-2's well-known ids
  for (const text of VARIED) same(text);
});

function randomStrings(n, seed) {
  const pools = [
    'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', '0123456789', ' \t\n\r\u00a0\u2009\u3000', ".,;:!?'\"()[]{}<>-_/\\@#$%^&*+=|~`",
    'éèêëàâäôöûüçñßøåæœÉÀÇ', 'абвгдежзийклмнопрст', '日本語中文字漢', 'ا ب ت ث ج ح خ', '\u0301\u0308\u200d\ufe0f',
  ].map((s) => Array.from(s));
  const emoji = ['👍', '🏽', '👨', '👩', '🇫', '🇷', '🤖', '❤', '☕', '🙂'];
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: n }, () => {
    const len = Math.floor(rand() * 40);
    let s = '';
    for (let i = 0; i < len; i++) {
      const p = Math.floor(rand() * (pools.length + 1));
      const pool = p === pools.length ? emoji : pools[p];
      s += pool[Math.floor(rand() * pool.length)];
    }
    return s;
  });
}

test('GPT-2: seeded random strings over mixed scripts, whitespace, digits, emoji and marks equal js-tiktoken\'s ids', () => {
  for (const s of randomStrings(300, 20261129)) same(s);
});

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('GPT-2: a real document (this repository\'s README, several KB of prose, code and tables) tokenizes as js-tiktoken does', () => {
  assert.ok(README.length > 5000);
  same(README);
});

// U+FEFF and U+0085 are left out of the Llama 3 shape's texts: js-tiktoken runs cl100k's pattern with JavaScript's
// \s (which holds U+FEFF and not U+0085), while tiktoken itself and Hugging Face's tokenizers (Rust) take \s as
// Unicode White_Space (the reverse), as @huggingface/tokenizers does when it rewrites a Split pattern: 'a  \u0085b'
// gives [64, 256, 126, 227, 65] here and [64, 220, 2188, 227, 65] in js-tiktoken (the oracle is off there, not us).
test('Llama 3 shape (cl100k_base ranks, Split on Llama 3\'s (?i:…) pattern, ignore_merges): ids equal js-tiktoken\'s cl100k_base', async () => {
  const tok = await load('cl100k_base');
  const oracle = new Tiktoken(requireDev('js-tiktoken/ranks/cl100k_base'));
  assert.deepEqual(tok.encode('Hello world'), [9906, 1917]); // cl100k's well-known ids
  const texts = [...VARIED, ...randomStrings(200, 7), README, "I'M HE'S they'RE WE'VE", '1234567 12 123456789'].map((t) => t.replace(/[\ufeff\u0085]/g, ''));
  for (const text of texts) same(text, tok, oracle);
});

// BERT (WordPiece): tests/data/gen_wordpiece.py ran BERT's own tokenizer (google-research/bert's tokenization.py,
// FullTokenizer, uncased and cased) on a small vocabulary; a BERT tokenizer.json built here from the same vocabulary
// (BertNormalizer, BertPreTokenizer, WordPiece with the original's max_input_chars_per_word 200) must give its ids.
const WORDPIECE = readRef('wordpiece_ref.json');

function bertTokenizerJson(vocab, lowercase) {
  const special = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: special.map((content) => ({ id: vocab.indexOf(content), content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: { type: 'BertProcessing', sep: ['[SEP]', vocab.indexOf('[SEP]')], cls: ['[CLS]', vocab.indexOf('[CLS]')] },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 200, vocab: Object.fromEntries(vocab.map((t, i) => [t, i])) },
  };
}

for (const name of ['uncased', 'cased']) {
  test(`BERT WordPiece (${name}): ids of varied and random text equal BERT's own tokenization.py, with and without [CLS]/[SEP]`, async () => {
    const ref = WORDPIECE[name];
    const tok = await sg.tokenizers.fromPretrained({ 'tokenizer.json': JSON.stringify(bertTokenizerJson(ref.vocab, ref.do_lower_case)) });
    const [cls, sep] = [ref.vocab.indexOf('[CLS]'), ref.vocab.indexOf('[SEP]')];
    for (const { text, ids } of ref.cases) {
      assert.deepEqual(tok.encode(text, { addSpecialTokens: false }), ids, `${name}: ${JSON.stringify(text)}`);
      assert.deepEqual(tok.encode(text), [cls, ...ids, sep], `${name} with specials: ${JSON.stringify(text)}`);
    }
  });
}

// SentencePiece BPE (Llama 2 / Mistral style): tests/data/gen_sentencepiece.py trained a small BPE model with Google's
// sentencepiece library (Llama 2's normalizer settings, byte fallback), wrote it as transformers' LlamaConverter
// writes a tokenizer.json, and recorded sentencepiece's own encode and decode of 216 texts.
test('SentencePiece BPE (Llama 2 style, byte fallback): ids and decoded text equal sentencepiece\'s own', async () => {
  const ref = readRef('sentencepiece_ref.json');
  const tok = await sg.tokenizers.fromPretrained({ 'tokenizer.json': JSON.stringify(ref.tokenizer_json), 'tokenizer_config.json': '{"bos_token": "<s>", "clean_up_tokenization_spaces": false}' });
  assert.equal(tok.bosTokenId, 1);
  for (const { text, ids, decoded } of ref.cases) {
    assert.deepEqual(tok.encode(text, { addSpecialTokens: false }), ids, JSON.stringify(text));
    assert.deepEqual(tok.encode(text), [1, ...ids], `with <s>: ${JSON.stringify(text)}`);
    assert.equal(tok.decode(ids), decoded, `decode ${JSON.stringify(text)}`);
  }
});
