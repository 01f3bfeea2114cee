// sg.tokenizers.fromPretrained: a Hugging Face tokenizer (tokenizer.json + tokenizer_config.json) through
// @huggingface/tokenizers (the tokenizers of transformers.js; loaded on first use), with API.md's names:
// encode / decode / encodeBatch (int32 tensors) / vocabSize / bosTokenId / eosTokenId / padTokenId.
import { checkOptions, describe, isInteger } from '../runtime/options.js';
import { tensor } from '../tensor/creation.js';
import { Tensor } from '../tensor/tensor.js';
import { mendSentencePieceParts } from './sentencepiece_fixes.js';

const FN = 'tokenizers.fromPretrained';

/** A tokenizer folder: a Node path, or its files by name (bytes, Blob/File, or a JSON file's text). */
export type TokenizerSource = string | Record<string, Uint8Array | ArrayBuffer | Blob | string> | Map<string, Uint8Array | ArrayBuffer | Blob | string>;

export interface EncodeOptions {
  /** Adds the tokens the post-processor adds (BOS, [CLS]/[SEP], …); default true. */
  addSpecialTokens?: boolean;
}

export interface DecodeOptions {
  /** Drops special tokens (default false). */
  skipSpecialTokens?: boolean;
}

export interface EncodeBatchOptions extends EncodeOptions {
  /** true or 'longest': pad to the longest text; 'max_length': pad to maxLength; false (default): the texts must encode to one length. */
  padding?: boolean | 'longest' | 'max_length';
  /** Cuts each text to maxLength tokens, keeping the special tokens (as transformers' truncation=True). */
  truncation?: boolean;
  maxLength?: number;
}

export interface BatchEncoding {
  /** int32 [B, T]. */
  inputIds: Tensor;
  /** int32 [B, T]: 1 for a token, 0 for padding. */
  attentionMask: Tensor;
}

async function readFile(source: unknown, name: string): Promise<string | null> {
  if (typeof source === 'string') {
    const spec = 'node:fs/promises';
    let fs: { readFile(p: string, enc: 'utf8'): Promise<string> };
    try {
      fs = (await import(spec)) as typeof fs;
    } catch {
      throw new Error(`${FN}: a folder path needs Node's fs; in a browser pass the files (an object or Map from file name to File/Blob/Uint8Array)`);
    }
    try {
      return await fs.readFile(`${source.replace(/[\\/]+$/, '')}/${name}`, 'utf8');
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') return null;
      throw new Error(`${FN}: cannot read '${source}/${name}': ${(e as Error).message}`);
    }
  }
  let files: Map<unknown, unknown>;
  if (source instanceof Map) files = source;
  else if (source !== null && typeof source === 'object' && !Array.isArray(source)) files = new Map(Object.entries(source));
  else throw new Error(`${FN}: expected a folder path or an object / Map from file name to Uint8Array | ArrayBuffer | Blob | File | string, got ${describe(source)}`);
  let v = files.get(name);
  if (v === undefined) {
    const hits = [...files.keys()].filter((k) => typeof k === 'string' && k.endsWith(`/${name}`));
    if (hits.length === 1) v = files.get(hits[0]);
  }
  if (v === undefined) return null;
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array || v instanceof ArrayBuffer) return new TextDecoder().decode(v);
  if (typeof Blob !== 'undefined' && v instanceof Blob) return await v.text();
  throw new Error(`${FN}: expected '${name}' to be a Uint8Array, ArrayBuffer, Blob, File or string, got ${describe(v)}`);
}

function parseJson(name: string, text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`${FN}: ${name} is not valid JSON (${(e as Error).message})`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${FN}: ${name} must hold a JSON object, got ${describe(v)}`);
  return v as Record<string, unknown>;
}

/** A token named in tokenizer_config.json ('<s>' or { content: '<s>', … }). */
function tokenContent(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (v !== null && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') return (v as { content: string }).content;
  return null;
}

/**
 * What this wrapper uses of @huggingface/tokenizers' Tokenizer, declared here: that package's own
 * .d.ts files do not type-check under node16/nodenext resolution (extensionless relative
 * imports), so they must stay out of simdgrad's declarations (tests/consumer checks them strictly).
 */
interface HFTokenizer {
  encode(text: string, options?: { add_special_tokens?: boolean }): { ids: number[] };
  decode(ids: number[], options?: { skip_special_tokens?: boolean }): string;
  token_to_id(token: string): number | undefined;
  id_to_token(id: number): string | undefined;
  get_vocab(withAddedTokens?: boolean): Map<string, number>;
}

/** A loaded tokenizer (sg.tokenizers.fromPretrained). */
export class PreTrainedTokenizer {
  /** @internal */
  declare private tok: HFTokenizer;
  /** The model's vocabulary size, without tokens added beyond it (transformers' tokenizer.vocab_size). */
  declare readonly vocabSize: number;
  /** Every id, added tokens included (transformers' len(tokenizer)). */
  declare readonly length: number;
  declare readonly bosTokenId: number | null;
  declare readonly eosTokenId: number | null;
  declare readonly padTokenId: number | null;
  declare readonly paddingSide: 'left' | 'right';

  /** @internal use sg.tokenizers.fromPretrained. */
  constructor(tok: HFTokenizer, config: Record<string, unknown>, modelVocabSize: number | null) {
    const id = (key: string): number | null => {
      const content = tokenContent(config[key]);
      if (content === null) return null;
      return tok.token_to_id(content) ?? null;
    };
    const side = config.padding_side === 'left' ? 'left' : 'right';
    Object.defineProperties(this, {
      tok: { value: tok },
      vocabSize: { value: modelVocabSize ?? tok.get_vocab(true).size, enumerable: true },
      length: { value: tok.get_vocab(true).size, enumerable: true },
      bosTokenId: { value: id('bos_token'), enumerable: true },
      eosTokenId: { value: id('eos_token'), enumerable: true },
      padTokenId: { value: id('pad_token'), enumerable: true },
      paddingSide: { value: side, enumerable: true },
    });
  }

  /** text → token ids (with the special tokens the post-processor adds unless addSpecialTokens is false). */
  encode(text: string, options?: EncodeOptions): number[] {
    const o = checkOptions<EncodeOptions>('encode', options, { addSpecialTokens: 'boolean' });
    if (typeof text !== 'string') throw new Error(`encode: expected a string, got ${describe(text)}`);
    return this.tok.encode(text, { add_special_tokens: o.addSpecialTokens ?? true }).ids;
  }

  /** ids (numbers or an integer Tensor [T]) → text. */
  decode(ids: readonly number[] | Tensor, options?: DecodeOptions): string {
    const o = checkOptions<DecodeOptions>('decode', options, { skipSpecialTokens: 'boolean' });
    let list: number[];
    if (ids instanceof Tensor) {
      if (ids.ndim !== 1 || (ids.dtype !== 'int32' && ids.dtype !== 'int64')) throw new Error(`decode: expected an int32 Tensor [T] or an array of ids, got a ${ids.dtype} Tensor [${ids.shape.join(', ')}]`);
      list = Array.from(ids.toArray() as ArrayLike<number | bigint>, Number);
    } else if (Array.isArray(ids) && ids.every((i) => isInteger(i) && i >= 0)) list = ids.slice();
    else throw new Error(`decode: expected an array of token ids (integers >= 0) or an int32 Tensor, got ${describe(ids)}`);
    if (list.length === 0) return ''; // as transformers; the library throws on an empty list
    return this.tok.decode(list, { skip_special_tokens: o.skipSpecialTokens ?? false });
  }

  /** The token string of an id (undefined when out of the vocabulary). */
  idToToken(id: number): string | undefined {
    return this.tok.id_to_token(id);
  }

  /** The id of a token string (undefined when absent). */
  tokenToId(token: string): number | undefined {
    return this.tok.token_to_id(token);
  }

  /** texts → { inputIds, attentionMask } (int32 [B, T]), padded with padTokenId on the tokenizer's padding side. */
  encodeBatch(texts: readonly string[], options?: EncodeBatchOptions): BatchEncoding {
    const fn = 'encodeBatch';
    const o = checkOptions<EncodeBatchOptions>(fn, options, {
      addSpecialTokens: 'boolean',
      padding: { check: (v) => v === true || v === false || v === 'longest' || v === 'max_length', expected: "true, false, 'longest' or 'max_length'" },
      truncation: 'boolean',
      maxLength: { check: (v) => isInteger(v) && v > 0, expected: 'a positive integer' },
    });
    if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === 'string')) {
      throw new Error(`${fn}: expected a non-empty array of strings, got ${describe(texts)}`);
    }
    const padding = o.padding === true ? 'longest' : (o.padding ?? false);
    if ((o.truncation || padding === 'max_length') && o.maxLength === undefined) {
      throw new Error(`${fn}: ${o.truncation ? 'truncation' : "padding: 'max_length'"} needs maxLength`);
    }
    const special = o.addSpecialTokens ?? true;
    const rows = texts.map((t) => {
      const ids = this.tok.encode(t, { add_special_tokens: special }).ids;
      if (!o.truncation || ids.length <= o.maxLength!) return ids;
      return special ? this.truncateKeepingSpecials(t, ids, o.maxLength!) : ids.slice(0, o.maxLength);
    });
    const longest = Math.max(...rows.map((r) => r.length));
    const T = padding === 'max_length' ? Math.max(o.maxLength!, longest) : longest;
    if (padding === false && rows.some((r) => r.length !== T)) {
      throw new Error(`${fn}: the texts encode to different lengths (${rows.map((r) => r.length).join(', ')}): pass { padding: true }`);
    }
    if (rows.some((r) => r.length < T) && this.padTokenId === null) {
      throw new Error(`${fn}: padding needs a pad token, and tokenizer_config.json names none (pad_token)`);
    }
    const ids = new Int32Array(rows.length * T).fill(this.padTokenId ?? 0);
    const mask = new Int32Array(rows.length * T);
    rows.forEach((r, b) => {
      const start = b * T + (this.paddingSide === 'left' ? T - r.length : 0);
      ids.set(r, start);
      mask.fill(1, start, start + r.length);
    });
    return { inputIds: tensor(ids, { shape: [rows.length, T] }), attentionMask: tensor(mask, { shape: [rows.length, T] }) };
  }

  /** The text's ids cut to maxLength, keeping what the post-processor adds around them (transformers' truncation). */
  private truncateKeepingSpecials(text: string, withSpecials: number[], maxLength: number): number[] {
    const plain: number[] = this.tok.encode(text, { add_special_tokens: false }).ids;
    const added = withSpecials.length - plain.length;
    for (let p = 0; p + plain.length <= withSpecials.length; p++) {
      if (plain.every((id: number, i: number) => withSpecials[p + i] === id)) {
        const keep = Math.max(0, maxLength - added);
        return [...withSpecials.slice(0, p), ...plain.slice(0, keep), ...withSpecials.slice(p + plain.length)].slice(0, maxLength);
      }
    }
    return withSpecials.slice(0, maxLength);
  }
}

/** sg.tokenizers.fromPretrained(source): reads tokenizer.json (+ tokenizer_config.json, optional) of a folder path or files. */
export async function fromPretrained(source: TokenizerSource): Promise<PreTrainedTokenizer> {
  const json = await readFile(source, 'tokenizer.json');
  if (json === null) throw new Error(`${FN}: no tokenizer.json in ${typeof source === 'string' ? `folder '${source}'` : 'the given files'}`);
  const tj = parseJson('tokenizer.json', json);
  if (tj.model === null || typeof tj.model !== 'object') throw new Error(`${FN}: tokenizer.json has no 'model' object`);
  const cfgText = await readFile(source, 'tokenizer_config.json');
  const config = cfgText === null ? {} : parseJson('tokenizer_config.json', cfgText);
  let Tokenizer: new (json: object, config: object) => HFTokenizer;
  try {
    ({ Tokenizer } = (await import('@huggingface/tokenizers')) as unknown as { Tokenizer: typeof Tokenizer });
  } catch (e) {
    // A browser page without a bundler or an import map cannot resolve the bare specifier.
    throw new Error(`${FN}: cannot load the npm package '@huggingface/tokenizers' (a dependency of simdgrad; in a page without a bundler, map it with an import map): ${(e as Error).message}`);
  }
  let tok: HFTokenizer;
  try {
    tok = new Tokenizer(tj, config);
    mendSentencePieceParts(tok);
  } catch (e) {
    throw new Error(`${FN}: tokenizer.json: ${(e as Error).message}`);
  }
  // HF's vocab_size: the model's vocabulary (an object for BPE/WordPiece, an array for Unigram).
  const v = (tj.model as { vocab?: unknown }).vocab;
  const size = Array.isArray(v) ? v.length : v !== null && typeof v === 'object' ? Object.keys(v).length : null;
  return new PreTrainedTokenizer(tok, config, size);
}
