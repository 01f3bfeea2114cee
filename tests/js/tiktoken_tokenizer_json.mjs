// tokenizer.json files derived from js-tiktoken's ranks (OpenAI's, shipped inside the npm package, so nothing is
// downloaded), for tokenizers_oracle.test.mjs: GPT-2's (gpt2 ranks) and a Llama 3-shaped one (cl100k_base ranks:
// Llama 3's tokenizer is tiktoken's BPE with cl100k's pattern and 28k tokens more). The vocabulary is the ranks
// themselves, each token's bytes written with GPT-2's bytes_to_unicode (OpenAI's encoder.py); the merges are
// derived as transformers' TikTokenConverter derives them (convert_slow_tokenizer.py): for every token, each split
// into two tokens that exist, ordered by the token's rank and then by the ranks of the two parts. GPT-2 has the
// ByteLevel pre-tokenizer of Hugging Face's gpt2 tokenizer.json; the Llama 3 shape has Llama 3's: a Split on its
// Oniguruma pattern (with the (?i:…) group), then ByteLevel without its own regex, and ignore_merges.
import { createRequire } from 'node:module';

// js-tiktoken is a devDependency of npm/ (tests/js has no node_modules of its own).
export const requireDev = createRequire(new URL('../../npm/package.json', import.meta.url));

/** GPT-2's byte → printable character table (encoder.py's bytes_to_unicode). */
function bytesToUnicode() {
  const bs = [];
  for (let b = 0x21; b <= 0x7e; b++) bs.push(b);
  for (let b = 0xa1; b <= 0xac; b++) bs.push(b);
  for (let b = 0xae; b <= 0xff; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n++);
    }
  }
  const table = new Array(256);
  bs.forEach((b, i) => (table[b] = String.fromCodePoint(cs[i])));
  return table;
}

/** js-tiktoken's compressed ranks ("<prefix> <first rank> <base64 token> ...", one line per run) → Map(latin1 key → rank). */
function parseRanks(compressed) {
  const ranks = new Map();
  for (const line of compressed.split('\n')) {
    if (!line) continue;
    const [, first, ...tokens] = line.split(' ');
    tokens.forEach((b64, i) => ranks.set(Buffer.from(b64, 'base64').toString('latin1'), Number(first) + i));
  }
  return ranks;
}

/** Llama 3's tokenizer.json pre-tokenizer pattern (cl100k's, as Hugging Face writes it: Oniguruma's (?i:…)). */
const LLAMA3_PATTERN = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/** tokenizer.json for js-tiktoken's 'gpt2' or 'cl100k_base' ranks (GPT-2's layout, or Llama 3's). */
export function tiktokenTokenizerJson(name) {
  const source = requireDev(`js-tiktoken/ranks/${name}`);
  const ranks = parseRanks(source.bpe_ranks);
  const table = bytesToUnicode();
  const show = (latin1) => Array.from(latin1, (c) => table[c.charCodeAt(0)]).join('');
  const vocab = {};
  const merges = [];
  for (const [token, rank] of ranks) {
    vocab[show(token)] = rank;
    const local = [];
    for (let i = 1; i < token.length; i++) {
      const [l, r] = [token.slice(0, i), token.slice(i)];
      if (ranks.has(l) && ranks.has(r)) local.push([l, r, rank]);
    }
    local.sort((a, b) => ranks.get(a[0]) - ranks.get(b[0]) || ranks.get(a[1]) - ranks.get(b[1]));
    merges.push(...local);
  }
  merges.sort((a, b) => a[2] - b[2]); // stable: the per-token order stays
  const specials = Object.entries(source.special_tokens);
  const llama3 = name !== 'gpt2';
  if (!llama3) for (const [content, id] of specials) vocab[content] = id; // GPT-2's vocab.json holds <|endoftext|>
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: !llama3 };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map(([content, id]) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: !llama3, special: true })),
    normalizer: null,
    pre_tokenizer: llama3
      ? { type: 'Sequence', pretokenizers: [{ type: 'Split', pattern: { Regex: LLAMA3_PATTERN }, behavior: 'Isolated', invert: false }, byteLevel] }
      : byteLevel,
    post_processor: { ...byteLevel, add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { ...byteLevel, add_prefix_space: true, use_regex: true },
    model: {
      type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '', fuse_unk: false,
      byte_fallback: false, ignore_merges: llama3, vocab, merges: merges.map(([l, r]) => `${show(l)} ${show(r)}`),
    },
  };
}

/**
 * tokenizer_config.json of Hugging Face's gpt2 (its special tokens; used for both), with clean_up_tokenization_spaces false as
 * transformers writes it now: true (the library's default when absent, as transformers before 4.45) makes decode
 * drop the space before punctuation (' ,' → ','), which is not the text tiktoken decodes.
 */
export const GPT2_TOKENIZER_CONFIG = {
  bos_token: '<|endoftext|>', eos_token: '<|endoftext|>', unk_token: '<|endoftext|>', model_max_length: 1024, clean_up_tokenization_spaces: false,
};
