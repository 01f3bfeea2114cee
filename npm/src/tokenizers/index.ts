// sg.tokenizers: Hugging Face tokenizers (tokenizer.json) through @huggingface/tokenizers.
import { fromPretrained, PreTrainedTokenizer } from './pretrained.js';

export const tokenizers = { fromPretrained, PreTrainedTokenizer };
export type Tokenizers = typeof tokenizers;
export type { BatchEncoding, DecodeOptions, EncodeBatchOptions, EncodeOptions, TokenizerSource } from './pretrained.js';
export { fromPretrained, PreTrainedTokenizer };
