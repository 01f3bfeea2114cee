// sg.models: ready models with the parameter names of their PyTorch originals, so their
// checkpoints (as safetensors) load with loadStateDict.
import { BertEncoder, BertForMaskedLM } from './bert.js';
import { GPT } from './gpt.js';

export const models = { GPT, BertEncoder, BertForMaskedLM };

export type Models = typeof models;
export type { GPTConfig, GPTOutput, GenerateOptions } from './gpt.js';
export type { BertConfig, BertInputs, BertMaskedLMInputs, BertOutput } from './bert.js';
export { GPT, BertEncoder, BertForMaskedLM };
