// sg.peft.saveAdapter / loadAdapter: PEFT's adapter folder. adapter_model.safetensors holds
// get_peft_model_state_dict's keys: 'base_model.model.<module path>.lora_A.weight' /
// '.lora_B.weight' (the adapter name removed), plus the biases `bias` makes trainable
// ('all': every '.bias'; 'lora_only': the wrapped layers' '.base_layer.bias'), with metadata
// { format: 'pt' } as PEFT's save_pretrained. adapter_config.json is LoraConfig's to_dict()
// as PeftConfig.save_pretrained writes it: json.dumps(indent=2, sort_keys=True), inference_mode
// true, sets as lists. Loading reads the config, checks every key and shape against the model
// before changing anything, then wraps (a base model) or overwrites (a PEFT model).
import { load, save, saveAsync } from '../io/safetensors.js';
import { dispose } from '../runtime/memory.js';
import { describe, isInteger } from '../runtime/options.js';
import { Module } from '../nn/module.js';
import type { Tensor } from '../tensor/tensor.js';
import { folderOf, type PretrainedSource } from '../models/pretrained.js';
import { ADAPTER, baseFeatures, LoraLinear } from './lora_layer.js';
import { findTargets, getPeftModel, loraLayers, loraState, setLoraState, type LoraState } from './lora_model.js';

const PREFIX = 'base_model.model.';

/** The adapter's tensors under PEFT's saved names, in the model's state-dict order (live tensors). */
function adapterEntries(model: Module, state: LoraState): [string, Tensor][] {
  const out: [string, Tensor][] = [];
  const sd = model.stateDict({ keepVars: true });
  for (const [key, t] of Object.entries(sd)) {
    const m = /^(.*)\.lora_([AB])\.default\.weight$/.exec(key);
    if (m) out.push([`${PREFIX}${m[1]}.lora_${m[2]}.weight`, t]);
    else if (state.bias === 'all' && key.endsWith('bias')) out.push([PREFIX + key, t]);
    else if (state.bias === 'lora_only' && key.endsWith('.base_layer.bias')) out.push([PREFIX + key, t]);
  }
  return out;
}

/** LoraConfig.to_dict() for this state, as PEFT writes adapter_config.json. */
function configJson(state: LoraState): string {
  const target = Array.isArray(state.targetModules) ? [...new Set(state.targetModules)].sort() : state.targetModules;
  const cfg: Record<string, unknown> = {
    alpha_pattern: {},
    auto_mapping: null,
    base_model_name_or_path: null,
    bias: state.bias,
    exclude_modules: null,
    fan_in_fan_out: state.fanInFanOut,
    inference_mode: true,
    init_lora_weights: true,
    layers_pattern: null,
    layers_to_transform: null,
    lora_alpha: state.loraAlpha,
    lora_bias: false,
    lora_dropout: state.loraDropout,
    modules_to_save: null,
    peft_type: 'LORA',
    r: state.r,
    rank_pattern: {},
    revision: null,
    target_modules: target,
    task_type: state.taskType,
    use_dora: false,
    use_rslora: false,
  };
  const sorted = Object.fromEntries(Object.keys(cfg).sort().map((k) => [k, cfg[k]]));
  return JSON.stringify(sorted, null, 2);
}

/** The adapter's entries under PEFT's names and its state, or an Error naming `fn` when there is none. */
function adapterToSave(fn: string, model: Module): { entries: [string, Tensor][]; state: LoraState } {
  if (!(model instanceof Module)) throw new Error(`${fn}: expected a sg.nn.Module, got ${describe(model)}`);
  const state = loraState(model);
  if (state === null || loraLayers(model).length === 0) throw new Error(`${fn}: ${model.constructor.name} has no LoRA adapters (make them with sg.peft.getPeftModel)`);
  return { entries: adapterEntries(model, state), state };
}

/** sg.peft.saveAdapter(model) → { 'adapter_model.safetensors': Uint8Array, 'adapter_config.json': string }. */
export function saveAdapter(model: Module): { 'adapter_model.safetensors': Uint8Array; 'adapter_config.json': string } {
  const fn = 'saveAdapter';
  const { entries, state } = adapterToSave(fn, model);
  const onDevice = entries.find(([, t]) => t.device !== 'cpu');
  if (onDevice) throw new Error(`${fn}: '${onDevice[0]}' is a ${onDevice[1].device} tensor, which saveAdapter cannot read synchronously: use \`await sg.peft.saveAdapterAsync(model)\``);
  const bytes = save(new Map(entries), { metadata: { format: 'pt' } });
  return { 'adapter_model.safetensors': bytes, 'adapter_config.json': configJson(state) };
}

/** sg.peft.saveAdapterAsync(model): saveAdapter for a model on any device (the adapter read back from the GPU first). */
export async function saveAdapterAsync(model: Module): Promise<{ 'adapter_model.safetensors': Uint8Array; 'adapter_config.json': string }> {
  const { entries, state } = adapterToSave('saveAdapterAsync', model);
  const bytes = await saveAsync(new Map(entries), { metadata: { format: 'pt' } });
  return { 'adapter_model.safetensors': bytes, 'adapter_config.json': configJson(state) };
}

/** adapter_config.json's fields as a LoraState (refusing what this LoRA does not do, by field name). */
function parseConfig(fn: string, text: Uint8Array): LoraState {
  let c: Record<string, unknown>;
  try {
    c = JSON.parse(new TextDecoder().decode(text)) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`${fn}: adapter_config.json is not valid JSON (${(e as Error).message})`);
  }
  if (c === null || typeof c !== 'object' || Array.isArray(c)) throw new Error(`${fn}: adapter_config.json must hold a JSON object, got ${describe(c)}`);
  if (c.peft_type !== 'LORA') throw new Error(`${fn}: adapter_config.json: peft_type ${describe(c.peft_type)} is not supported (expected 'LORA')`);
  const field = (k: string, ok: (v: unknown) => boolean, expected: string): unknown => {
    if (!ok(c[k])) throw new Error(`${fn}: adapter_config.json: expected '${k}' to be ${expected}, got ${describe(c[k])}`);
    return c[k];
  };
  const r = field('r', (v) => isInteger(v) && v > 0, 'a positive integer') as number;
  const loraAlpha = field('lora_alpha', (v) => typeof v === 'number' && v > 0, 'a positive number') as number;
  const loraDropout = (field('lora_dropout', (v) => v === undefined || (typeof v === 'number' && v >= 0 && v < 1), 'a number in [0, 1)') as number | undefined) ?? 0;
  const targetModules = field('target_modules', (v) => (typeof v === 'string' && v !== '') || (Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string')), 'a list of module names or a regex string') as string[] | string;
  const bias = (field('bias', (v) => v === undefined || v === 'none' || v === 'all' || v === 'lora_only', "'none', 'all' or 'lora_only'") as LoraState['bias'] | undefined) ?? 'none';
  const unsupported: [string, (v: unknown) => boolean][] = [
    ['use_dora', (v) => v === true],
    ['use_rslora', (v) => v === true],
    ['lora_bias', (v) => v === true],
    ['rank_pattern', (v) => v !== null && typeof v === 'object' && Object.keys(v).length > 0],
    ['alpha_pattern', (v) => v !== null && typeof v === 'object' && Object.keys(v).length > 0],
    ['layers_to_transform', (v) => v !== null && v !== undefined],
    ['modules_to_save', (v) => Array.isArray(v) && v.length > 0],
    ['exclude_modules', (v) => v !== null && v !== undefined],
  ];
  for (const [k, bad] of unsupported) if (bad(c[k])) throw new Error(`${fn}: adapter_config.json: '${k}' ${describe(c[k])} is not supported`);
  return {
    r,
    loraAlpha,
    loraDropout,
    targetModules,
    bias,
    taskType: typeof c.task_type === 'string' ? c.task_type : null,
    fanInFanOut: c.fan_in_fan_out === true,
  };
}

/** The model's key for a saved key, given the layers that are (or will be) wrapped. */
function modelKey(saved: string, wrapped: Set<string>): string | null {
  if (!saved.startsWith(PREFIX)) return null;
  const k = saved.slice(PREFIX.length);
  const m = /^(.*)\.lora_([AB])\.weight$/.exec(k);
  if (m) return wrapped.has(m[1]!) ? `${m[1]}.lora_${m[2]}.${ADAPTER}.weight` : null;
  return k.endsWith('bias') ? k : null;
}

/**
 * sg.peft.loadAdapter(model, files): files is PEFT's adapter folder (a Node path, or an object /
 * Map with 'adapter_config.json' and 'adapter_model.safetensors'). A base model gets the
 * adapters (PeftModel.from_pretrained); a PEFT model with the same configuration has their
 * weights replaced. Every key and shape is checked first: a failed load leaves the model unchanged.
 */
export async function loadAdapter<M extends Module>(model: M, files: PretrainedSource): Promise<M> {
  const fn = 'loadAdapter';
  if (!(model instanceof Module)) throw new Error(`${fn}: expected a sg.nn.Module, got ${describe(model)}`);
  const folder = folderOf(files, fn);
  const cfgBytes = await folder.read('adapter_config.json');
  if (cfgBytes === null) throw new Error(`${fn}: no adapter_config.json in ${folder.describe}`);
  const state = parseConfig(fn, cfgBytes);
  const weights = await folder.read('adapter_model.safetensors');
  if (weights === null) throw new Error(`${fn}: no adapter_model.safetensors in ${folder.describe} (adapter_model.bin, PyTorch's pickle format, is not read)`);
  let tensors: Record<string, Tensor>;
  try {
    tensors = load(weights);
  } catch (e) {
    throw new Error(`${fn}: adapter_model.safetensors: ${(e as Error).message}`);
  }
  try {
    const current = loraState(model);
    const layers = loraLayers(model);
    // [path, in, out] of every layer the adapter covers.
    let plan: [string, number, number][];
    if (layers.length > 0) {
      if (current === null) throw new Error(`${fn}: the model has LoRA layers of unknown configuration`);
      if (current.r !== state.r || current.loraAlpha !== state.loraAlpha) {
        throw new Error(`${fn}: the adapter has r ${state.r}, lora_alpha ${state.loraAlpha}; the model's adapters have r ${current.r}, lora_alpha ${current.loraAlpha}`);
      }
      plan = layers.map(([n, l]) => [n, ...baseFeatures(l.base_layer)]);
    } else {
      plan = findTargets(`${fn}: adapter_config.json target_modules`, model, state.targetModules).map(([n, b]) => [n, ...baseFeatures(b)]);
    }
    const wrapped = new Set(plan.map(([n]) => n));
    const expectedShape = new Map<string, number[]>();
    for (const [n, inF, outF] of plan) {
      expectedShape.set(`${n}.lora_A.${ADAPTER}.weight`, [state.r, inF]);
      expectedShape.set(`${n}.lora_B.${ADAPTER}.weight`, [outF, state.r]);
    }
    const biasShapes = new Map(model.namedParameters().filter(([k]) => k.endsWith('bias')).map(([k, p]) => [k, p.shape]));
    const mapped = new Map<string, Tensor>();
    const unexpected: string[] = [];
    for (const [saved, t] of Object.entries(tensors)) {
      let key = modelKey(saved, wrapped);
      // A bias of a layer wrapped only after loading: '<path>.base_layer.bias' is '<path>.bias' now.
      if (key !== null && layers.length === 0 && key.endsWith('.base_layer.bias')) {
        const path = key.slice(0, -'.base_layer.bias'.length);
        key = wrapped.has(path) ? `${path}.bias` : null;
      }
      const shape = key === null ? undefined : expectedShape.get(key) ?? biasShapes.get(key);
      if (key === null || shape === undefined) {
        unexpected.push(saved);
        continue;
      }
      if (t.shape.join(',') !== shape.join(',')) {
        throw new Error(`${fn}: adapter_model.safetensors: '${saved}' has shape [${t.shape.join(', ')}], the model expects [${shape.join(', ')}]`);
      }
      mapped.set(key, t);
    }
    if (unexpected.length > 0) {
      throw new Error(`${fn}: adapter_model.safetensors has key(s) that match no layer of this ${model.constructor.name}: ${unexpected.slice(0, 6).map((k) => `'${k}'`).join(', ')}${unexpected.length > 6 ? ', …' : ''} (an adapter for another architecture or configuration?)`);
    }
    const missing = [...expectedShape.keys()].filter((k) => !mapped.has(k));
    if (missing.length > 0) throw new Error(`${fn}: adapter_model.safetensors lacks ${missing.slice(0, 6).map((k) => `'${PREFIX}${k.replace(`.${ADAPTER}.`, '.')}'`).join(', ')}`);
    if (layers.length === 0) {
      getPeftModel(model, { r: state.r, loraAlpha: state.loraAlpha, loraDropout: state.loraDropout, targetModules: state.targetModules, bias: state.bias });
      // The wrapped layers' biases now live under base_layer.
      for (const [k, t] of [...mapped]) {
        const path = k.endsWith('.bias') ? k.slice(0, -'.bias'.length) : '';
        if (wrapped.has(path)) {
          mapped.delete(k);
          mapped.set(`${path}.base_layer.bias`, t);
        }
      }
      setLoraState(model, { ...state, fanInFanOut: loraLayers(model).some(([, l]) => l.fanInFanOut) });
    }
    model.loadStateDict(mapped, { strict: false });
  } finally {
    dispose(Object.values(tensors));
  }
  return model;
}
