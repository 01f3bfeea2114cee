// sg.save / sg.load: state dicts in the safetensors format (src/io/safetensors.h does the
// parsing and writing; this file only converts between JS objects and the binding's lists).
//   sg.save({ name: Tensor, ... }, { metadata? }) → Uint8Array (F32, I32, BOOL tensors)
//   sg.load(bytes) → { name: Tensor, ... } in the file's order (F32, F16, BF16 → float32;
//   I32, I64 → int32; BOOL → bool). sg.loadMetadata(bytes) → the "__metadata__" strings.
import type { DType, TensorHandle } from '../runtime/embind.js';
import { callOp1, handleDType, releaseHandle } from '../runtime/handles.js';
import { DTYPES, isFloatingDType } from '../runtime/dtypes.js';
import { mod } from '../runtime/module.js';
import { checkOptions, describe } from '../runtime/options.js';
import { Tensor } from '../tensor/tensor.js';
import { sync } from '../runtime/webgpu_device.js';

export interface SaveOptions {
  /** String → string pairs stored under "__metadata__". */
  metadata?: Record<string, string>;
}

/** Bytes as sg.load accepts them: Uint8Array (a Node Buffer is one), ArrayBuffer, or any ArrayBufferView. */
export type BytesLike = Uint8Array | ArrayBuffer | ArrayBufferView;

const metadataSpec = {
  check: (v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v as object).every((s) => typeof s === 'string'),
  expected: 'an object of string values',
};

/** Serializes a state dict (plain object or Map of name → Tensor) to safetensors bytes. */
export function save(stateDict: Record<string, Tensor> | Map<string, Tensor>, options?: SaveOptions): Uint8Array {
  const o = checkOptions<SaveOptions>('save', options, { metadata: metadataSpec });
  let entries: [string, unknown][];
  if (stateDict instanceof Map) entries = [...stateDict.entries()];
  else if (stateDict !== null && typeof stateDict === 'object' && !Array.isArray(stateDict) && !(stateDict instanceof Tensor)) {
    entries = Object.entries(stateDict);
  } else {
    throw new Error(`save: expected a state dict { name: Tensor } (e.g. model.stateDict()), got ${describe(stateDict)}`);
  }
  const names: string[] = [];
  const handles: TensorHandle[] = [];
  for (const [name, t] of entries) {
    if (typeof name !== 'string') throw new Error(`save: names must be strings, got ${describe(name)}`);
    if (!(t instanceof Tensor)) throw new Error(`save: '${name}' must be a Tensor, got ${describe(t)}`);
    if (t.isDisposed) throw new Error(`save: '${name}' is a disposed Tensor`);
    if (t.device !== 'cpu') {
      throw new Error(
        `save: '${name}' is a ${t.device} tensor, which sg.save cannot read synchronously: use \`await sg.saveAsync(stateDict)\` ` +
          "(or move the model first: `model.to('cpu'); await sg.sync()`)",
      );
    }
    names.push(name);
    handles.push(t.handle);
  }
  return mod().saveSafetensors(names, handles, o.metadata ?? null);
}

/**
 * sg.save for state dicts that may hold GPU tensors: they are read back first (a copy on the
 * cpu, freed afterwards); the model stays where it is.
 */
export async function saveAsync(stateDict: Record<string, Tensor> | Map<string, Tensor>, options?: SaveOptions): Promise<Uint8Array> {
  const entries = stateDict instanceof Map ? [...stateDict.entries()] : stateDict !== null && typeof stateDict === 'object' ? Object.entries(stateDict) : null;
  if (entries === null || stateDict instanceof Tensor || Array.isArray(stateDict)) return save(stateDict, options); // save's own error
  const copies: Tensor[] = [];
  try {
    const onCpu = new Map<string, Tensor>();
    for (const [name, t] of entries) {
      if (t instanceof Tensor && !t.isDisposed && t.device !== 'cpu') {
        const d = t.detach();
        const c = d.to('cpu');
        d.dispose();
        copies.push(c);
        onCpu.set(name, c);
      } else onCpu.set(name, t);
    }
    await sync();
    return save(onCpu, options);
  } finally {
    for (const c of copies) c.dispose();
  }
}

function asBytes(fn: string, bytes: unknown): Uint8Array {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  if (ArrayBuffer.isView(bytes)) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw new Error(`${fn}: expected the bytes of a safetensors file (Uint8Array, Buffer or ArrayBuffer), got ${describe(bytes)}`);
}

function parse(fn: string, bytes: unknown) {
  const u8 = asBytes(fn, bytes);
  // A Uint8Array subclass (Node's Buffer) is copied as a plain view for the binding's check.
  const plain = u8.constructor === Uint8Array ? u8 : new Uint8Array(u8.buffer, u8.byteOffset, u8.byteLength);
  return mod().loadSafetensors(plain);
}

/** Reads safetensors bytes into a state dict { name: Tensor } (file order); the caller owns the tensors. */
export interface LoadOptions {
  /**
   * Casts every floating tensor to this dtype (integer and bool tensors keep theirs, as
   * module.to(dtype) does); by default each tensor keeps the file's dtype.
   */
  dtype?: DType;
}

export function load(bytes: BytesLike, options?: LoadOptions): Record<string, Tensor> {
  const o = checkOptions<LoadOptions>('load', options, { dtype: DTYPES });
  const r = parse('load', bytes);
  const handles = r.tensors.slice();
  try {
    handles.forEach((h, i) => {
      const d = handleDType(h);
      if (o.dtype === undefined || o.dtype === d || !isFloatingDType(d)) return;
      handles[i] = callOp1('cast', [h], { dtype: o.dtype });
      releaseHandle(h);
    });
  } catch (e) {
    for (const h of handles) releaseHandle(h); // nothing half-made survives a failed cast
    throw e;
  }
  const out: Record<string, Tensor> = {};
  r.names.forEach((name, i) => {
    // defineProperty: a tensor named '__proto__' stays an ordinary key.
    Object.defineProperty(out, name, { value: new Tensor(handles[i]!), enumerable: true, writable: true, configurable: true });
  });
  return out;
}

/** The "__metadata__" of safetensors bytes ({} when there is none). */
export function loadMetadata(bytes: BytesLike): Record<string, string> {
  const r = parse('loadMetadata', bytes);
  for (const h of r.tensors) releaseHandle(h);
  return { ...r.metadata };
}
