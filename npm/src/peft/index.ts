// sg.peft: LoRA with Hugging Face PEFT's semantics and file format.
import { LoraLinear } from './lora_layer.js';
import { getPeftModel, mergeAndUnload, trainableParameters } from './lora_model.js';
import { loadAdapter, saveAdapter, saveAdapterAsync } from './adapter_files.js';

export const peft = { getPeftModel, trainableParameters, saveAdapter, saveAdapterAsync, loadAdapter, mergeAndUnload, LoraLinear };
export type { LoraOptions } from './lora_model.js';
