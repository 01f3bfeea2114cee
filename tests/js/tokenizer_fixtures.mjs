// Tokenizer files written by hand in the Hugging Face tokenizer.json format (a BPE with a
// '▁' word marker, as Llama's, and a BERT WordPiece), shared by tokenizers.test and tokenizers_errors.test.

export const special = (id, content) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });

// BPE: vocab and merges such that '▁lower' merges ▁+l → ▁l, ▁l+o → ▁lo, ▁lo+w → ▁low, e+r → er.
export const BPE = {
  version: '1.0',
  added_tokens: [special(0, '<unk>'), special(1, '<s>'), special(2, '</s>'), special(3, '<pad>')],
  normalizer: null,
  pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
  post_processor: {
    type: 'TemplateProcessing',
    single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
    pair: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
    special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } },
  },
  decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
  model: {
    type: 'BPE',
    dropout: null,
    unk_token: '<unk>',
    fuse_unk: true,
    byte_fallback: false,
    vocab: { '<unk>': 0, '<s>': 1, '</s>': 2, '<pad>': 3, '▁': 4, l: 5, o: 6, w: 7, e: 8, r: 9, '▁l': 10, '▁lo': 11, '▁low': 12, er: 13, s: 14, t: 15 },
    merges: ['▁ l', '▁l o', '▁lo w', 'e r'],
  },
};
export const BPE_CONFIG = { bos_token: '<s>', eos_token: '</s>', pad_token: '<pad>', unk_token: '<unk>', padding_side: 'left' };

export const WORDPIECE = {
  version: '1.0',
  added_tokens: [special(0, '[PAD]'), special(1, '[UNK]'), special(2, '[CLS]'), special(3, '[SEP]'), special(4, '[MASK]')],
  normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
  pre_tokenizer: { type: 'BertPreTokenizer' },
  post_processor: { type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2] },
  decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
  model: {
    type: 'WordPiece',
    unk_token: '[UNK]',
    continuing_subword_prefix: '##',
    max_input_chars_per_word: 100,
    vocab: { '[PAD]': 0, '[UNK]': 1, '[CLS]': 2, '[SEP]': 3, '[MASK]': 4, hello: 5, world: 6, '##s': 7, un: 8, '##aff': 9, '##able': 10, ',': 11, '!': 12 },
  },
};
export const WP_CONFIG = { cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]' };
