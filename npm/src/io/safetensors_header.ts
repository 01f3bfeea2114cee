// A safetensors file's header read in JS, with no tensor made: each tensor's dtype, shape and bytes (a view into
// the file). sg.models.fromPretrained checks a checkpoint with it, then writes each tensor's bytes straight into
// the parameter that takes them, so the file's tensors never exist beside the model (sg.load makes them all at
// once). The checks are those of src/io/safetensors.cpp's reader, and its messages.
import type { DType } from '../runtime/embind.js';

/** One tensor of a file: its dtype and shape as stored, and its little-endian bytes (a view into the file). */
export interface StoredTensor {
  dtype: DType;
  shape: number[];
  bytes: Uint8Array;
}

// The file's dtype names, the dtype each is read as and its size (src/io/safetensors.cpp's kSupported).
const FILE_DTYPES = new Map<string, [DType, number]>([
  ['F32', ['float32', 4]], ['F16', ['float16', 2]], ['BF16', ['bfloat16', 2]], ['F64', ['float64', 8]], ['I64', ['int64', 8]],
  ['I32', ['int32', 4]], ['I8', ['int8', 1]], ['U8', ['uint8', 1]], ['BOOL', ['bool', 1]],
]);

function fail(message: string): never {
  throw new Error(`load: ${message}`);
}

/** The tensors of safetensors bytes, by name in the file's order; throws as sg.load does for a malformed or truncated file. */
export function readSafetensorsHeader(bytes: Uint8Array): Map<string, StoredTensor> {
  if (bytes.length < 8) fail(`the data is ${bytes.length} bytes long; a safetensors file starts with an 8-byte header length`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = view.getUint32(0, true) + view.getUint32(4, true) * 2 ** 32;
  if (headerLen > bytes.length - 8) fail(`the header length ${headerLen} exceeds the ${bytes.length - 8} bytes that follow the length prefix`);
  let root: unknown;
  try {
    root = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + headerLen)));
  } catch (e) {
    fail(`header: ${(e as Error).message}`);
  }
  if (root === null || typeof root !== 'object' || Array.isArray(root)) fail(`the header must be a JSON object, got ${Array.isArray(root) ? 'an array' : String(root)}`);
  const data = bytes.subarray(8 + headerLen);
  const out = new Map<string, StoredTensor>();
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
    if (end > data.length) fail(`${at}: data_offsets [${begin}, ${end}] lie outside the ${data.length}-byte data buffer`);
    const need = (shape as number[]).reduce((a, d) => a * d, 1) * info[1];
    if (end - begin !== need) fail(`${at}: data_offsets [${begin}, ${end}] span ${end - begin} bytes but shape [${shape.join(', ')}] of ${String(dtype)} needs ${need}`);
    regions.push([begin, end, name]);
    out.set(name, { dtype: info[0], shape: (shape as number[]).slice(), bytes: data.subarray(begin, end) });
  }
  // The regions, sorted, must tile the data buffer exactly.
  regions.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let covered = 0;
  for (const [begin, end, name] of regions) {
    if (begin < covered) fail(`tensor '${name}' data_offsets [${begin}, ${end}] overlap the data of another tensor (which ends at ${covered})`);
    if (begin > covered) fail(`the data buffer has a hole: bytes [${covered}, ${begin}) belong to no tensor (tensor '${name}' starts at ${begin})`);
    covered = end;
  }
  if (covered !== data.length) fail(`the data buffer has ${data.length} bytes but the tensors cover only the first ${covered}`);
  return out;
}
