// sg.models.fromPretrained / savePretrained: a Hugging Face model folder (config.json and
// model.safetensors, or model.safetensors.index.json and its shards) ↔ a ready model. The folder
// is a Node path or the files themselves (an object or Map from file name to bytes, Blob or File).
// config.json's model_type picks the class ('llama', 'mistral', 'qwen2' → LlamaForCausalLM,
// 'gpt2' → GPT2LMHeadModel, 'bert' → BertForMaskedLM or BertEncoder as 'architectures' says).
// The module keeps the checkpoint's floating dtype (bfloat16 and float16 compute through float32
// at each op, rounded to the dtype after it) unless { dtype } is given.
// Memory: as transformers' from_pretrained(torch_dtype=) with no_init_weights, the module is built
// straight in its dtype with its initializers skipped, and each tensor's bytes go from the file
// into its parameter (bits copied when the dtypes agree, cast otherwise): no float32 model and no
// tensor of the files' beside it, so a bfloat16 load peaks at about the checkpoint's size.
// Every file's header is read and every key and shape checked before any weight is written: a
// failed load throws an Error naming the file or key, and leaves nothing behind.
import { save } from '../io/safetensors.js';
import { placeSafetensors, safetensorsHeaderLength, type PlacedTensor } from '../io/safetensors_header.js';
import { dtypeBytes, isDType, isFloatingDType, type DType } from '../runtime/dtypes.js';
import * as H from '../runtime/handles.js';
import { mod } from '../runtime/module.js';
import { activeRuntime } from '../runtime/webgpu_device.js';
import { checkOptions, describe } from '../runtime/options.js';
import type { Device } from '../runtime/embind.js';
import { withoutInit } from '../nn/init.js';
import { Module, withParameterDType } from '../nn/module.js';
import { copyTensorInto } from '../nn/tensor_data.js';
import { Tensor } from '../tensor/tensor.js';
import { BertEncoder, BertForMaskedLM, type BertConfig } from './bert.js';
import { GPT2LMHeadModel } from './gpt2_hf.js';
import { LlamaForCausalLM } from './llama.js';

/** One file's contents as fromPretrained accepts them (a string: a JSON file's text, as savePretrained returns it). */
export type PretrainedFile = Uint8Array | ArrayBuffer | Blob | string;
/** A model folder: a Node path, or its files by name. */
export type PretrainedSource = string | Record<string, PretrainedFile> | Map<string, PretrainedFile>;
export type PretrainedModel = LlamaForCausalLM | GPT2LMHeadModel | BertForMaskedLM | BertEncoder;

export interface FromPretrainedOptions {
  /** The module's floating dtype (default: the checkpoint's, float32 when its tensors mix floating dtypes); the checkpoint's tensors are cast into it. */
  dtype?: DType;
  /** Where the module ends up (default 'cpu'). */
  device?: Device;
}

export interface SavePretrainedOptions {
  /** Largest shard, in bytes or as a string such as '2GB', '500MB', '1GiB' (default '5GB', as transformers). */
  maxShardSize?: number | string;
}

const FN = 'fromPretrained';

// The config.json a model was loaded from: savePretrained writes its fields the module does not use (token ids,
// bookkeeping) back, as transformers' save_pretrained keeps them.
const loadedConfigs = new WeakMap<Module, Record<string, unknown>>();

/** Reads files of a folder (a Node path) or of a map of files; null for a file that is not there (sg.peft reads adapter folders with it). */
export interface Folder {
  describe: string;
  read(name: string): Promise<Uint8Array | null>;
  /** A file's length in bytes without reading it, or null when it is not there. */
  size(name: string): Promise<number | null>;
  /** Bytes [offset, offset + length) of a file (a shorter read, of a file cut since, is an Error naming it). */
  readRange(name: string, offset: number, length: number): Promise<Uint8Array>;
}

interface NodeFs {
  readFile(p: string): Promise<Uint8Array>;
  stat(p: string): Promise<{ size: number; isFile(): boolean }>;
  open(p: string, flags: 'r'): Promise<{ read(b: Uint8Array, o: number, l: number, p: number): Promise<{ bytesRead: number }>; close(): Promise<void> }>;
}

export function folderOf(source: unknown, fn = FN): Folder {
  if (typeof source === 'string') {
    const dir = source.replace(/[\\/]+$/, '');
    const nodeFs = async (): Promise<NodeFs> => {
      const spec = 'node:fs/promises';
      try {
        return (await import(spec)) as NodeFs;
      } catch {
        throw new Error(`${fn}: a folder path needs Node's fs; in a browser pass the files (an object or Map from file name to File/Blob/Uint8Array)`);
      }
    };
    const cannot = (name: string, e: unknown): Error => new Error(`${fn}: cannot read '${dir}/${name}': ${(e as Error).message}`);
    return {
      describe: `folder '${source}'`,
      async read(name) {
        const fs = await nodeFs();
        try {
          const b = await fs.readFile(`${dir}/${name}`);
          return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
        } catch (e) {
          if ((e as { code?: string }).code === 'ENOENT') return null;
          throw cannot(name, e);
        }
      },
      async size(name) {
        const fs = await nodeFs();
        try {
          return (await fs.stat(`${dir}/${name}`)).size;
        } catch (e) {
          if ((e as { code?: string }).code === 'ENOENT') return null;
          throw cannot(name, e);
        }
      },
      async readRange(name, offset, length) {
        const fs = await nodeFs();
        const out = new Uint8Array(length);
        let got = 0;
        try {
          const fh = await fs.open(`${dir}/${name}`, 'r');
          try {
            while (got < length) {
              const { bytesRead } = await fh.read(out, got, length - got, offset + got);
              if (bytesRead === 0) break;
              got += bytesRead;
            }
          } finally {
            await fh.close();
          }
        } catch (e) {
          throw cannot(name, e);
        }
        if (got < length) throw new Error(`${fn}: cannot read '${dir}/${name}': it ends at byte ${offset + got}, before ${offset + length} (changed while loading?)`);
        return out;
      },
    };
  }
  let entries: [string, unknown][];
  if (source instanceof Map) entries = [...source.entries()];
  else if (source !== null && typeof source === 'object' && !Array.isArray(source) && !ArrayBuffer.isView(source)) entries = Object.entries(source);
  else throw new Error(`${fn}: expected a folder path or an object / Map from file name to Uint8Array | ArrayBuffer | Blob | File, got ${describe(source)}`);
  const byName = new Map<string, unknown>();
  for (const [k, v] of entries) {
    if (typeof k !== 'string') throw new Error(`${fn}: expected file names as keys, got ${describe(k)}`);
    byName.set(k, v);
  }
  /** The file's value (bytes, or a Blob left unread), or undefined when absent. */
  const get = (name: string): Uint8Array | Blob | undefined => {
    let v = byName.get(name);
    if (v === undefined) {
      // The files of a dropped folder may carry its path ('folder/config.json').
      const hits = [...byName.keys()].filter((k) => k.endsWith(`/${name}`));
      if (hits.length === 1) v = byName.get(hits[0]!);
    }
    if (v === undefined) return undefined;
    if (typeof v === 'string') return new TextEncoder().encode(v);
    if (v instanceof Uint8Array) return v;
    if (v instanceof ArrayBuffer) return new Uint8Array(v);
    if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    if (typeof Blob !== 'undefined' && v instanceof Blob) return v;
    throw new Error(`${fn}: expected '${name}' to be a Uint8Array, ArrayBuffer, Blob, File or string, got ${describe(v)}`);
  };
  return {
    describe: 'the given files',
    async read(name) {
      const v = get(name);
      if (v === undefined) return null;
      return v instanceof Uint8Array ? v : new Uint8Array(await v.arrayBuffer());
    },
    async size(name) {
      const v = get(name);
      if (v === undefined) return null;
      return v instanceof Uint8Array ? v.length : v.size;
    },
    async readRange(name, offset, length) {
      const v = get(name);
      if (v === undefined) throw new Error(`${fn}: '${name}' is no longer among the given files`);
      // A Blob (a picked File) is read a slice at a time: the shard is never whole in memory.
      const bytes = v instanceof Uint8Array ? v.subarray(offset, offset + length) : new Uint8Array(await v.slice(offset, offset + length).arrayBuffer());
      if (bytes.length < length) throw new Error(`${fn}: cannot read '${name}': it ends at byte ${offset + bytes.length}, before ${offset + length} (changed while loading?)`);
      return bytes;
    },
  };
}

async function readJson(folder: Folder, name: string): Promise<Record<string, unknown> | null> {
  const bytes = await folder.read(name);
  if (bytes === null) return null;
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new Error(`${FN}: ${name} is not valid JSON (${(e as Error).message})`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${FN}: ${name} must hold a JSON object, got ${describe(v)}`);
  return v as Record<string, unknown>;
}

const BERT_FIELDS: Record<string, keyof BertConfig> = {
  vocab_size: 'vocabSize',
  hidden_size: 'hiddenSize',
  num_hidden_layers: 'numHiddenLayers',
  num_attention_heads: 'numAttentionHeads',
  intermediate_size: 'intermediateSize',
  hidden_act: 'hiddenAct',
  hidden_dropout_prob: 'hiddenDropoutProb',
  attention_probs_dropout_prob: 'attentionProbsDropoutProb',
  max_position_embeddings: 'maxPositionEmbeddings',
  type_vocab_size: 'typeVocabSize',
  initializer_range: 'initializerRange',
  layer_norm_eps: 'layerNormEps',
  pad_token_id: 'padTokenId',
};
const BERT_IGNORED = new Set([
  'model_type', 'architectures', '_name_or_path', 'transformers_version', 'torch_dtype', 'use_cache', 'classifier_dropout',
  'gradient_checkpointing', 'id2label', 'label2id', 'bos_token_id', 'eos_token_id', 'tokenizer_class', 'position_embedding_type',
]);

/** The module for a config.json (a fresh, randomly initialized one). */
function buildModel(config: Record<string, unknown>): PretrainedModel {
  const type = config.model_type;
  const wrap = <T>(f: () => T): T => {
    try {
      return f();
    } catch (e) {
      throw new Error(`${FN}: config.json: ${(e as Error).message}`);
    }
  };
  if (type === 'llama' || type === 'mistral' || type === 'qwen2') return wrap(() => new LlamaForCausalLM(config));
  if (type === 'gpt2') return wrap(() => new GPT2LMHeadModel(config));
  if (type === 'bert') {
    const pe = config.position_embedding_type;
    if (pe !== undefined && pe !== 'absolute') throw new Error(`${FN}: config.json: BERT's position_embedding_type ${describe(pe)} is not supported (only 'absolute')`);
    const c: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(config)) {
      if (BERT_IGNORED.has(k)) continue;
      const to = BERT_FIELDS[k];
      if (to === undefined) throw new Error(`${FN}: config.json: unknown BERT field '${k}'`);
      c[to] = v;
    }
    const arch = Array.isArray(config.architectures) ? config.architectures : [];
    if (arch.includes('BertModel')) return wrap(() => new BertEncoder(c as Partial<BertConfig>));
    return wrap(() => new BertForMaskedLM(c as Partial<BertConfig>));
  }
  throw new Error(`${FN}: config.json: model_type ${describe(type)} is not supported (expected 'llama', 'mistral', 'qwen2', 'gpt2' or 'bert')`);
}

/** Keys a checkpoint may carry that the module has no place for and HF itself drops. */
function droppedKey(model: PretrainedModel, key: string): boolean {
  if (model instanceof BertForMaskedLM) return /^(bert\.pooler\.|cls\.seq_relationship\.)/.test(key);
  return false;
}

/** The safetensors files of the folder (names, nothing read yet) and the index's weight_map (null when unsharded). */
async function weightFiles(folder: Folder): Promise<{ files: string[]; weightMap: Map<string, string> | null }> {
  const index = await readJson(folder, 'model.safetensors.index.json');
  if (index === null) return { files: ['model.safetensors'], weightMap: null };
  const wm = index.weight_map;
  if (wm === null || typeof wm !== 'object' || Array.isArray(wm)) throw new Error(`${FN}: model.safetensors.index.json has no 'weight_map' object`);
  const weightMap = new Map<string, string>();
  for (const [k, v] of Object.entries(wm as Record<string, unknown>)) {
    if (typeof v !== 'string' || v === '' || v.includes('/') || v.includes('\\') || v.includes('..')) {
      throw new Error(`${FN}: model.safetensors.index.json: weight_map['${k}'] must be a file name, got ${describe(v)}`);
    }
    weightMap.set(k, v);
  }
  return { files: [...new Set(weightMap.values())], weightMap };
}

/**
 * sg.models.fromPretrained(source, { dtype, device }): the ready model for a Hugging Face folder,
 * with its weights. Strict: keys missing from the files or not in the model are an Error naming
 * them (a tied lm_head may be absent, as HF saves it).
 */
export async function fromPretrained(source: PretrainedSource, options?: FromPretrainedOptions): Promise<PretrainedModel> {
  const o = checkOptions<FromPretrainedOptions>(FN, options, {
    dtype: { check: (v) => isDType(v) && isFloatingDType(v), expected: 'a floating dtype' },
    device: ['cpu', 'webgpu'],
  });
  const folder = folderOf(source);
  const config = await readJson(folder, 'config.json');
  if (config === null) throw new Error(`${FN}: no config.json in ${folder.describe}`);
  const stored = await readStored(folder);
  const dtype = o.dtype ?? checkpointDType(stored.values());
  // Built where it will live (the default device unless `device` says otherwise): on 'webgpu' the parameters are
  // made empty on the GPU and each file tensor goes there once, with no CPU copy of the whole model.
  const device = o.device ?? (mod().getDefaultDevice() as Device);
  if (device === 'webgpu' && !activeRuntime()) throw new Error(`${FN}: device 'webgpu' is not running: start it with \`await init({ backend: 'webgpu' })\``);
  const model = onDevice(device, () => withParameterDType(dtype, () => withoutInit(() => buildModel(config))));
  try {
    if (dtype !== 'float32') model.to(dtype); // buffers made in float32 by ops, as before (the parameters already are)
    const given = checkpointKeys(model, new Map([...stored].filter(([k]) => !droppedKey(model, k))));
    const own = model.stateDict({ keepVars: true });
    // Shapes first, naming the file.
    for (const [k, t] of given) {
      const dst = Object.hasOwn(own, k) ? own[k] : undefined;
      if (dst !== undefined && dst.shape.join(',') !== t.shape.join(',')) {
        throw new Error(`${FN}: '${t.key}' in ${t.file} has shape [${t.shape.join(', ')}], the model (config.json) expects [${dst.shape.join(', ')}]`);
      }
    }
    const missing = Object.keys(own).filter((k) => !given.has(k));
    const unexpected = [...given.keys()].filter((k) => !Object.hasOwn(own, k));
    if (missing.length > 0 || unexpected.length > 0) {
      const quoted = (ks: string[]) => ks.map((k) => `"${k}"`).join(', ');
      const problems = [
        ...(unexpected.length ? [`Unexpected key(s) in state_dict: ${quoted(unexpected)}.`] : []),
        ...(missing.length ? [`Missing key(s) in state_dict: ${quoted(missing)}.`] : []),
      ];
      throw new Error(`${FN}: the weights of ${folder.describe} do not fit config.json: Error(s) in loading state_dict for ${model.constructor.name}:\n\t${problems.join('\n\t')}`);
    }
    const written = new Set<Tensor>();
    for (const [k, dst] of Object.entries(own)) {
      if (written.has(dst)) continue; // a tied Parameter, under two names
      written.add(dst);
      const src = given.get(k)!;
      writeStored(dst, src, await folder.readRange(src.file, src.offset, src.byteLength)); // one tensor's bytes at a time
    }
    loadedConfigs.set(model, config);
  } catch (e) {
    model.dispose();
    throw e;
  }
  return model;
}

/** fn() with new tensors made on `device` by default (the default device restored after). */
export function onDevice<T>(device: Device, fn: () => T): T {
  const m = mod();
  const before = m.getDefaultDevice() as Device;
  if (before === device) return fn();
  m.setDefaultDevice(device);
  try {
    return fn();
  } finally {
    m.setDefaultDevice(before);
  }
}

/** A checkpoint tensor with the file and key it came from. */
type FileTensor = PlacedTensor & { file: string; key: string };

/**
 * Every tensor of the folder's safetensors files from their headers and lengths alone (no tensor data read, no
 * tensor made), with the index checked against them: the shards are streamed afterwards, a tensor at a time.
 */
async function readStored(folder: Folder): Promise<Map<string, FileTensor>> {
  const { files, weightMap } = await weightFiles(folder);
  const stored = new Map<string, FileTensor>();
  for (const name of files) {
    const size = await folder.size(name);
    if (size === null) {
      throw new Error(weightMap === null
        ? `${FN}: no model.safetensors or model.safetensors.index.json in ${folder.describe}`
        : `${FN}: model.safetensors.index.json lists '${name}', which is not in ${folder.describe}`);
    }
    let header: Map<string, PlacedTensor>;
    try {
      const first8 = await folder.readRange(name, 0, Math.min(8, size));
      const headerLen = safetensorsHeaderLength(first8, size);
      header = placeSafetensors(await folder.readRange(name, 0, 8 + headerLen), size);
    } catch (e) {
      // the folder's own read errors already say 'fromPretrained: cannot read <dir>/<name>: ...'
      const m = (e as Error).message;
      throw new Error(m.startsWith(`${FN}: `) ? m : `${FN}: cannot read ${name}: ${m}`);
    }
    for (const [k, t] of header) {
      if (stored.has(k)) throw new Error(`${FN}: '${k}' is in both ${stored.get(k)!.file} and ${name}`);
      if (weightMap !== null && weightMap.get(k) !== name) {
        throw new Error(`${FN}: ${name} holds '${k}', which model.safetensors.index.json ${weightMap.has(k) ? `puts in ${weightMap.get(k)}` : 'does not list'}`);
      }
      stored.set(k, { ...t, file: name, key: k });
    }
  }
  if (weightMap !== null) {
    for (const [k, f] of weightMap) if (!stored.has(k)) throw new Error(`${FN}: model.safetensors.index.json puts '${k}' in ${f}, which does not hold it`);
  }
  return stored;
}

/** The checkpoint's entries under the module's keys, as its loadStateDict maps them (skipped buffers, tied and renamed keys). */
function checkpointKeys<T>(model: PretrainedModel, entries: Map<string, T>): Map<string, T> {
  const m = model as unknown as { _checkpointKeys?: (e: Map<string, T>) => Map<string, T> };
  return typeof m._checkpointKeys === 'function' ? m._checkpointKeys(entries) : entries;
}

/** dst ← a file tensor's bytes: copied as they are into a cpu parameter of the same dtype, else through a tensor of the file's dtype cast by the copy. */
function writeStored(dst: Tensor, src: PlacedTensor, bytes: Uint8Array): void {
  if (dst.device === 'cpu' && dst.dtype === src.dtype && H.isContiguousHandle(dst.handle)) {
    H.writeHandleBytes(dst.handle, bytes);
    return;
  }
  const tmp = new Tensor(H.emptyHandle(src.shape, src.dtype));
  try {
    H.writeHandleBytes(tmp.handle, bytes);
    copyTensorInto(dst, tmp); // casts, and moves to dst's device (a default device of 'webgpu')
  } finally {
    tmp.dispose();
  }
}

/** The floating dtype of a checkpoint's tensors (as transformers' torch_dtype='auto'); float32 when they mix several or have none. */
function checkpointDType(tensors: Iterable<{ dtype: DType }>): DType {
  const floating = new Set<DType>();
  for (const t of tensors) if (isFloatingDType(t.dtype)) floating.add(t.dtype);
  return floating.size === 1 ? [...floating][0]! : 'float32';
}

/** Bytes from a number or a string such as '5GB' (10⁹), '5GiB' (2³⁰), '500MB', '100KB' (as transformers). */
function shardBytes(v: unknown): number {
  if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  if (typeof v === 'string') {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(B|KB|KIB|MB|MIB|GB|GIB|TB|TIB)?\s*$/i.exec(v);
    if (m) {
      const unit: Record<string, number> = { B: 1, KB: 1e3, KIB: 2 ** 10, MB: 1e6, MIB: 2 ** 20, GB: 1e9, GIB: 2 ** 30, TB: 1e12, TIB: 2 ** 40 };
      const n = Math.floor(Number(m[1]) * unit[(m[2] ?? 'B').toUpperCase()]!);
      if (n > 0) return n;
    }
  }
  throw new Error(`savePretrained: expected 'maxShardSize' to be a positive integer (bytes) or a string such as '2GB', got ${describe(v)}`);
}

/** config.json's object for a model (HF's field names, model_type and architectures). */
function configOf(model: Module): Record<string, unknown> {
  if (model instanceof LlamaForCausalLM) {
    const c: Record<string, unknown> = { ...model.config };
    const arch = { llama: 'LlamaForCausalLM', mistral: 'MistralForCausalLM', qwen2: 'Qwen2ForCausalLM' }[model.config.model_type];
    if (model.config.model_type !== 'mistral') delete c.sliding_window;
    if (model.config.model_type !== 'qwen2') delete c.use_sliding_window;
    return { architectures: [arch], ...c };
  }
  if (model instanceof GPT2LMHeadModel) return { architectures: ['GPT2LMHeadModel'], model_type: 'gpt2', ...model.config };
  if (model instanceof BertForMaskedLM || model instanceof BertEncoder) {
    const c: Record<string, unknown> = { architectures: [model instanceof BertEncoder ? 'BertModel' : 'BertForMaskedLM'], model_type: 'bert' };
    for (const [k, to] of Object.entries(BERT_FIELDS)) c[k] = model.config[to];
    return c;
  }
  throw new Error(`savePretrained: expected a LlamaForCausalLM, GPT2LMHeadModel, BertForMaskedLM or BertEncoder, got ${describe(model)}`);
}

/** Keys HF leaves out of the file because they share a tensor with another (tied weights). */
function tiedKeys(model: Module): Set<string> {
  if (model instanceof LlamaForCausalLM) return new Set(model.config.tie_word_embeddings ? ['lm_head.weight'] : []);
  if (model instanceof GPT2LMHeadModel) return new Set(['lm_head.weight']);
  if (model instanceof BertForMaskedLM) return new Set(['cls.predictions.decoder.weight', 'cls.predictions.decoder.bias']);
  return new Set();
}

/**
 * sg.models.savePretrained(model, { maxShardSize }) → { 'config.json': string, 'model.safetensors': Uint8Array }, or,
 * when the weights exceed maxShardSize, shards 'model-0000K-of-0000N.safetensors' and 'model.safetensors.index.json'
 * ({ metadata: { total_size }, weight_map }, as transformers' save_pretrained). Tied weights are saved once.
 */
export function savePretrained(model: PretrainedModel, options?: SavePretrainedOptions): Record<string, string | Uint8Array> {
  const o = checkOptions<SavePretrainedOptions>('savePretrained', options, {
    maxShardSize: { check: (v) => typeof v === 'number' || typeof v === 'string', expected: 'a number of bytes or a string such as "2GB"' },
  });
  const max = shardBytes(o.maxShardSize ?? '5GB');
  const own = configOf(model);
  const loaded = loadedConfigs.get(model) ?? {};
  const config: Record<string, unknown> = { ...loaded, ...own };
  delete config.dtype; // the newer name of torch_dtype, written below
  const state = model.stateDict();
  try {
    const tied = tiedKeys(model);
    const entries = Object.entries(state).filter(([k]) => !tied.has(k));
    const floating = entries.find(([, t]) => isFloatingDType(t.dtype));
    config.torch_dtype = floating ? floating[1].dtype : 'float32';
    const out: Record<string, string | Uint8Array> = { 'config.json': JSON.stringify(config, null, 2) + '\n' };
    const shards: [string, Tensor][][] = [];
    let size = 0;
    let total = 0;
    for (const e of entries) {
      const bytes = e[1].numel * dtypeBytes(e[1].dtype);
      total += bytes;
      if (shards.length === 0 || (size + bytes > max && size > 0)) {
        shards.push([]);
        size = 0;
      }
      shards[shards.length - 1]!.push(e);
      size += bytes;
    }
    const metadata = { format: 'pt' };
    if (shards.length <= 1) {
      out['model.safetensors'] = save(new Map(shards[0] ?? []), { metadata });
      return out;
    }
    const n = shards.length;
    const pad = (i: number) => String(i).padStart(5, '0');
    const weightMap: Record<string, string> = {};
    shards.forEach((s, i) => {
      const name = `model-${pad(i + 1)}-of-${pad(n)}.safetensors`;
      out[name] = save(new Map(s), { metadata });
      for (const [k] of s) weightMap[k] = name;
    });
    const sorted = Object.fromEntries(Object.keys(weightMap).sort().map((k) => [k, weightMap[k]]));
    out['model.safetensors.index.json'] = JSON.stringify({ metadata: { total_size: total }, weight_map: sorted }, null, 2) + '\n';
    return out;
  } finally {
    for (const t of Object.values(state)) t.dispose();
  }
}
