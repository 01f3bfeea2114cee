// A safetensors file's header read in JS from the file's first bytes and its length, with no tensor made and no
// data read: each tensor's dtype, shape and where its bytes lie. sg.models.fromPretrained checks a checkpoint with
// it, then reads each tensor's bytes and writes them straight into the parameter that takes them, so neither the
// file nor its tensors exist whole beside the model (sg.load makes them all at once). The checks are those of
// src/io/safetensors.cpp's reader, and its messages.
import type { DType } from '../runtime/embind.js';

// The file's dtype names, the dtype each is read as and its size (src/io/safetensors.cpp's kSupported).
const FILE_DTYPES = new Map<string, [DType, number]>([
  ['F32', ['float32', 4]], ['F16', ['float16', 2]], ['BF16', ['bfloat16', 2]], ['F64', ['float64', 8]], ['I64', ['int64', 8]],
  ['I32', ['int32', 4]], ['I8', ['int8', 1]], ['U8', ['uint8', 1]], ['BOOL', ['bool', 1]],
]);

function fail(message: string): never {
  throw new Error(`load: ${message}`);
}

/** One tensor of a file by its place: dtype and shape as stored, and where its bytes lie from the file's start. */
export interface PlacedTensor {
  dtype: DType;
  shape: number[];
  /** Byte offset of its data from the start of the file (8 + header + data_offsets[0]). */
  offset: number;
  byteLength: number;
}

/** The header's length from a file's first 8 bytes (little-endian u64). */
export function safetensorsHeaderLength(first8: Uint8Array, fileLength: number): number {
  if (fileLength < 8 || first8.length < 8) fail(`the data is ${Math.min(fileLength, first8.length)} bytes long; a safetensors file starts with an 8-byte header length`);
  const view = new DataView(first8.buffer, first8.byteOffset, 8);
  const headerLen = view.getUint32(0, true) + view.getUint32(4, true) * 2 ** 32;
  if (headerLen > fileLength - 8) fail(`the header length ${headerLen} exceeds the ${fileLength - 8} bytes that follow the length prefix`);
  return headerLen;
}

/**
 * The tensors of a safetensors file from its first 8 + headerLength bytes and its length alone (the data need not be
 * read: sg.models.fromPretrained checks every shard this way before reading any tensor); throws as sg.load does.
 */
export function placeSafetensors(prefix: Uint8Array, fileLength: number): Map<string, PlacedTensor> {
  const headerLen = safetensorsHeaderLength(prefix, fileLength);
  if (prefix.length < 8 + headerLen) fail(`the header length ${headerLen} exceeds the ${prefix.length - 8} bytes given after the length prefix`);
  let root: unknown;
  try {
    root = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(prefix.subarray(8, 8 + headerLen)));
  } catch (e) {
    fail(`header: ${(e as Error).message}`);
  }
  if (root === null || typeof root !== 'object' || Array.isArray(root)) fail(`the header must be a JSON object, got ${Array.isArray(root) ? 'an array' : String(root)}`);
  const dataLength = fileLength - 8 - headerLen;
  const out = new Map<string, PlacedTensor>();
  const regions: [number, number, string][] = [];
  for (const [name, v] of Object.entries(root as Record<string, unknown>)) {
    if (name === '__metadata__') continue;
    const at = `tensor '${name}'`;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(`${at} must be an object`);
    const { dtype, shape, data_offsets: offsets } = v as Record<string, unknown>;
    const info = typeof dtype === 'string' ? FILE_DTYPES.get(dtype) : undefined;
    if (info === undefined) fail(`${at} has unsupported dtype ${String(dtype)} (supported: ${[...FILE_DTYPES.keys()].join(', ')})`);
    if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) fail(`${at}: 'shape' must be an array of non-negative integers`);
    if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      fail(`${at}: 'data_offsets' must be an array of two non-negative integers`);
    }
    const [begin, end] = offsets as [number, number];
    if (begin > end) fail(`${at}: data_offsets [${begin}, ${end}] end before they begin`);
    if (end > dataLength) fail(`${at}: data_offsets [${begin}, ${end}] lie outside the ${dataLength}-byte data buffer`);
    const need = (shape as number[]).reduce((a, d) => a * d, 1) * info[1];
    if (end - begin !== need) fail(`${at}: data_offsets [${begin}, ${end}] span ${end - begin} bytes but shape [${shape.join(', ')}] of ${String(dtype)} needs ${need}`);
    regions.push([begin, end, name]);
    out.set(name, { dtype: info[0], shape: (shape as number[]).slice(), offset: 8 + headerLen + begin, byteLength: end - begin });
  }
  // The regions, sorted, must tile the data buffer exactly.
  regions.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let covered = 0;
  for (const [begin, end, name] of regions) {
    if (begin < covered) fail(`tensor '${name}' data_offsets [${begin}, ${end}] overlap the data of another tensor (which ends at ${covered})`);
    if (begin > covered) fail(`the data buffer has a hole: bytes [${covered}, ${begin}) belong to no tensor (tensor '${name}' starts at ${begin})`);
    covered = end;
  }
  if (covered !== dataLength) fail(`the data buffer has ${dataLength} bytes but the tensors cover only the first ${covered}`);
  return out;
}
