// sg.peft.getPeftModel / trainableParameters / mergeAndUnload: PEFT's LoraModel surgery on a
// model in place. Targets are found as PEFT's check_target_module_exists does (a list: a module
// name equal to an entry or ending with '.' + entry; another string: a full-match regex;
// 'all-linear': every Linear/Conv1D but the output head, as _maybe_include_all_linear_layers),
// each is replaced by a LoraLinear around it, and every parameter but the adapters (and the
// biases `bias` names) is frozen, as mark_only_lora_as_trainable.
import { Module } from '../nn/module.js';
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { BertEncoder, BertForMaskedLM } from '../models/bert.js';
import { GPT } from '../models/gpt.js';
import { GPT2LMHeadModel } from '../models/gpt2_hf.js';
import { LlamaForCausalLM } from '../models/llama.js';
import { isLoraBase, LoraLinear, type LoraBase } from './lora_layer.js';

export interface LoraOptions {
  /** The adapters' rank (default 8). */
  r?: number;
  /** scaling = loraAlpha / r (default 8). */
  loraAlpha?: number;
  /** Dropout on the adapter's input (default 0). */
  loraDropout?: number;
  /** Module names or name suffixes, a regex string (full match), or 'all-linear'; default as PEFT's table for Llama, GPT-2, BERT. */
  targetModules?: string[] | string;
  /** Which biases train too: 'none' (default), 'all', or 'lora_only' (those of the wrapped layers). */
  bias?: 'none' | 'all' | 'lora_only';
}

/** The adapter configuration of a PEFT model (adapter_config.json's meaning). */
export interface LoraState {
  r: number;
  loraAlpha: number;
  loraDropout: number;
  /** As given, with 'all-linear' resolved to the full names it matched (PEFT saves those). */
  targetModules: string[] | string;
  bias: 'none' | 'all' | 'lora_only';
  taskType: string | null;
  fanInFanOut: boolean;
}

const states = new WeakMap<Module, LoraState>();

/** The LoRA state of a model that getPeftModel / loadAdapter made, or null. */
export function loraState(model: Module): LoraState | null {
  return states.get(model) ?? null;
}

/** PEFT's TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING for the ready models. */
function defaultTargets(model: Module): string[] | null {
  if (model instanceof LlamaForCausalLM) return ['q_proj', 'v_proj'];
  if (model instanceof GPT2LMHeadModel) return ['c_attn'];
  if (model instanceof BertForMaskedLM || model instanceof BertEncoder) return ['query', 'value'];
  return null;
}

/** PEFT's task_type for the ready models (causal LMs: 'CAUSAL_LM'; others none). */
function taskType(model: Module): string | null {
  return model instanceof LlamaForCausalLM || model instanceof GPT2LMHeadModel || model instanceof GPT ? 'CAUSAL_LM' : null;
}

const optionSpec = {
  r: { check: (v: unknown) => isInteger(v) && v > 0, expected: 'a positive integer' },
  loraAlpha: { check: (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0, expected: 'a positive number' },
  loraDropout: { check: (v: unknown) => typeof v === 'number' && v >= 0 && v < 1, expected: 'a number in [0, 1)' },
  targetModules: {
    check: (v: unknown) => (typeof v === 'string' && v !== '') || (Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string' && s !== '')),
    expected: "a non-empty array of module names or suffixes, a regex string, or 'all-linear'",
  },
  bias: ['none', 'all', 'lora_only'],
} as const;

/** The checked options with their defaults (targetModules from the model's type when absent). */
export function loraOptions(fn: string, model: Module, options: unknown): Required<LoraOptions> {
  const o = checkOptions<LoraOptions>(fn, options, optionSpec);
  const targets = o.targetModules ?? defaultTargets(model);
  if (targets === null) throw new Error(`${fn}: 'targetModules' is required for a ${model.constructor.name} (module names or suffixes, or 'all-linear')`);
  return { r: o.r ?? 8, loraAlpha: o.loraAlpha ?? 8, loraDropout: o.loraDropout ?? 0, targetModules: targets, bias: o.bias ?? 'none' };
}

/** The output head 'all-linear' leaves out (PEFT: get_output_embeddings()). */
function outputHead(model: Module): Module | null {
  const head = (model as unknown as { lm_head?: unknown }).lm_head;
  return head instanceof Module ? head : null;
}

/**
 * The [name, layer] pairs targetModules selects, checked: a matched module that is not a Linear
 * or Conv1D, or nothing matched, is an Error naming them. Nothing is changed.
 */
export function findTargets(fn: string, model: Module, targetModules: string[] | string): [string, LoraBase][] {
  const all = model.namedModules().filter(([name]) => name !== '');
  const linearNames = all.filter(([, m]) => isLoraBase(m)).map(([n]) => n);
  let picked: [string, Module][];
  if (typeof targetModules === 'string' && targetModules.toLowerCase() === 'all-linear') {
    const head = outputHead(model);
    picked = all.filter(([, m]) => isLoraBase(m) && m !== head);
  } else if (typeof targetModules === 'string') {
    let re: RegExp;
    try {
      re = new RegExp(`^(?:${targetModules})$`);
    } catch (e) {
      throw new Error(`${fn}: targetModules ${describe(targetModules)} is not a valid regex (${(e as Error).message})`);
    }
    picked = all.filter(([n]) => re.test(n));
  } else {
    picked = all.filter(([n]) => targetModules.some((t) => n === t || n.endsWith(`.${t}`)));
  }
  if (all.some(([, m]) => m instanceof LoraLinear)) throw new Error(`${fn}: the model already has LoRA adapters (call sg.peft.mergeAndUnload first, or loadAdapter to replace their weights)`);
  if (picked.length === 0) {
    throw new Error(`${fn}: targetModules ${describe(targetModules)} match no module of ${model.constructor.name} (its Linear/Conv1D layers: ${linearNames.slice(0, 12).join(', ')}${linearNames.length > 12 ? ', …' : ''})`);
  }
  const wrong = picked.filter(([, m]) => !isLoraBase(m));
  if (wrong.length > 0) {
    throw new Error(`${fn}: target module '${wrong[0]![0]}' is a ${wrong[0]![1].constructor.name}; LoRA here supports Linear and Conv1D layers only`);
  }
  return picked as [string, LoraBase][];
}

/** Sets `child` in place of the module at dotted `path` under root. */
function replaceAt(root: Module, path: string, child: Module): void {
  const dot = path.lastIndexOf('.');
  const parent = dot < 0 ? root : root.getSubmodule(path.slice(0, dot));
  (parent as unknown as Record<string, Module>)[path.slice(dot + 1)] = child;
}

/** The LoraLinear layers of a model with their module names. */
export function loraLayers(model: Module): [string, LoraLinear][] {
  return model.namedModules().filter(([, m]) => m instanceof LoraLinear) as [string, LoraLinear][];
}

/**
 * sg.peft.getPeftModel(model, { r, loraAlpha, loraDropout, targetModules, bias }): wraps the
 * targeted layers in LoRA adapters in place and freezes everything else; returns the model.
 */
export function getPeftModel<M extends Module>(model: M, options?: LoraOptions): M {
  const fn = 'getPeftModel';
  if (!(model instanceof Module)) throw new Error(`${fn}: expected a sg.nn.Module, got ${describe(model)}`);
  const o = loraOptions(fn, model, options);
  const targets = findTargets(fn, model, o.targetModules);
  const resolved = typeof o.targetModules === 'string' && o.targetModules.toLowerCase() === 'all-linear' ? targets.map(([n]) => n) : o.targetModules;
  // Building every wrapper first: a failure leaves the model as it was.
  const wrappers = targets.map(([name, base]) => [name, new LoraLinear(base, o.r, o.loraAlpha, o.loraDropout)] as const);
  for (const [name, w] of wrappers) {
    w.train(model.training);
    replaceAt(model, name, w);
  }
  for (const [name, p] of model.namedParameters()) {
    const isLora = /(^|\.)lora_[AB]\./.test(name);
    const bias = (o.bias === 'all' && name.endsWith('bias')) || (o.bias === 'lora_only' && name.endsWith('.base_layer.bias'));
    p.requiresGrad = isLora || bias;
  }
  states.set(model, {
    r: o.r,
    loraAlpha: o.loraAlpha,
    loraDropout: o.loraDropout,
    targetModules: resolved,
    bias: o.bias,
    taskType: taskType(model),
    fanInFanOut: wrappers.some(([, w]) => w.fanInFanOut),
  });
  return model;
}

/** sg.peft.trainableParameters(model) → { trainable, total } element counts (each parameter once; total counts base and adapters). */
export function trainableParameters(model: Module): { trainable: number; total: number } {
  if (!(model instanceof Module)) throw new Error(`trainableParameters: expected a sg.nn.Module, got ${describe(model)}`);
  let trainable = 0;
  let total = 0;
  for (const p of model.parameters()) {
    total += p.numel;
    if (p.requiresGrad) trainable += p.numel;
  }
  return { trainable, total };
}

/**
 * sg.peft.mergeAndUnload(model): W ← W + (loraAlpha/r)·B·A in every wrapped layer (transposed
 * for Conv1D), the wrappers replaced by their base layers and the adapters freed; returns the
 * plain model. The base parameters keep the requiresGrad they had (frozen), as PEFT's.
 */
export function mergeAndUnload<M extends Module>(model: M): M {
  const fn = 'mergeAndUnload';
  if (!(model instanceof Module)) throw new Error(`${fn}: expected a sg.nn.Module, got ${describe(model)}`);
  const layers = loraLayers(model);
  if (layers.length === 0) throw new Error(`${fn}: ${model.constructor.name} has no LoRA adapters (make them with sg.peft.getPeftModel or loadAdapter)`);
  for (const [name, layer] of layers) {
    const base = layer.merge();
    replaceAt(model, name, base);
    layer.loraA.dispose();
    layer.loraB.dispose();
  }
  states.delete(model);
  return model;
}

/** Registers a LoRA state for a model (loadAdapter on a base model). */
export function setLoraState(model: Module, state: LoraState): void {
  states.set(model, state);
}
