// sg.models: ready models with the parameter names of their PyTorch originals, so their
// checkpoints (as safetensors) load with loadStateDict; fromPretrained / savePretrained read
// and write Hugging Face model folders.
import { BertEncoder, BertForMaskedLM } from './bert.js';
import { GPT } from './gpt.js';
import { Conv1D, GPT2LMHeadModel, GPT2Model } from './gpt2_hf.js';
import { LlamaForCausalLM, LlamaModel } from './llama.js';
import { fromPretrained, savePretrained } from './pretrained.js';

export const models = { GPT, GPT2LMHeadModel, GPT2Model, Conv1D, BertEncoder, BertForMaskedLM, LlamaForCausalLM, LlamaModel, fromPretrained, savePretrained };

export type Models = typeof models;
export type { GPTConfig, GPTOutput, GenerateOptions } from './gpt.js';
export type { GPT2Config } from './gpt2_hf.js';
export type { BertConfig, BertInputs, BertMaskedLMInputs, BertOutput } from './bert.js';
export type { LlamaConfig, RopeScaling } from './llama.js';
export type { GenerationOptions } from './generation.js';
export type { FromPretrainedOptions, PretrainedFile, PretrainedModel, PretrainedSource, SavePretrainedOptions } from './pretrained.js';
export { GPT, GPT2LMHeadModel, GPT2Model, Conv1D, BertEncoder, BertForMaskedLM, LlamaForCausalLM, LlamaModel, fromPretrained, savePretrained };
