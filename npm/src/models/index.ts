// sg.models: ready models with the parameter names of their PyTorch originals, so their
// checkpoints (as safetensors) load with loadStateDict.
import { BertEncoder, BertForMaskedLM } from './bert.js';
import { GPT } from './gpt.js';
import { Conv1D, GPT2LMHeadModel, GPT2Model } from './gpt2_hf.js';

export const models = { GPT, GPT2LMHeadModel, GPT2Model, Conv1D, BertEncoder, BertForMaskedLM };

export type Models = typeof models;
export type { GPTConfig, GPTOutput, GenerateOptions } from './gpt.js';
export type { GPT2Config } from './gpt2_hf.js';
export type { BertConfig, BertInputs, BertMaskedLMInputs, BertOutput } from './bert.js';
export { GPT, GPT2LMHeadModel, GPT2Model, Conv1D, BertEncoder, BertForMaskedLM };
