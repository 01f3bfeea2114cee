// Prints npm/README.md's "Backend support" section from the matrix the results-matrix test
// writes (build/backend_matrix.json: node --test tests/js/backend_matrix.test.mjs).
//   node scripts/backend-support.mjs > /tmp/section.md
import { existsSync, readFileSync } from 'node:fs';

const matrix = JSON.parse(readFileSync(new URL('../build/backend_matrix.json', import.meta.url), 'utf8'));
// The dtype dimension: build/dtype_matrix.json, written by tests/js/dtype_compute.test.mjs (op →
// dtype → where its expected values came from), when that test has run.
const dtypeFile = new URL('../build/dtype_matrix.json', import.meta.url);
const dtypes = existsSync(dtypeFile) ? JSON.parse(readFileSync(dtypeFile, 'utf8')) : {};
// float64: build/float64_matrix.json, written by tests/js/float64.test.mjs (op → backend → source).
const f64File = new URL('../build/float64_matrix.json', import.meta.url);
if (existsSync(f64File)) {
  for (const [op, backends] of Object.entries(JSON.parse(readFileSync(f64File, 'utf8')))) {
    if (backends.reference && backends.wasm) (dtypes[op] ??= {}).float64 = backends.reference;
  }
}
const SHORT = { float64: 'f64', float16: 'f16', bfloat16: 'bf16', int8: 'i8', uint8: 'u8', int64: 'i64' };
// The same for webgpu: build/webgpu_dtype_matrix.json, written by tests/js/webgpu_dtypes.test.mjs.
const gpuFile = new URL('../build/webgpu_dtype_matrix.json', import.meta.url);
const gpuDtypes = existsSync(gpuFile) ? JSON.parse(readFileSync(gpuFile, 'utf8')) : {};
const listed = (m, op) => Object.keys(SHORT).filter((d) => m[op]?.[d]).map((d) => SHORT[d]).join(' ');
const dtypeCell = (op) => [listed(dtypes, op), listed(gpuDtypes, op) && `webgpu: ${listed(gpuDtypes, op)}`].filter(Boolean).join('; ') || '—';
const ops = Object.keys(matrix).sort((a, b) => a.localeCompare(b));
const label = { kernel: 'kernel', fallback: 'wasm fallback', differs: '**differs**', error: '**error**' };
const count = (s) => ops.filter((op) => matrix[op].webgpu === s).length;
const lines = [
  '## Backend support',
  '',
  'Every op (forward and gradients), layer, loss and optimizer step runs on `reference`, `wasm` and',
  '`webgpu` and is compared with the reference (elementwise 1e-5, matmul/reductions/convolutions/losses',
  "1e-4, optimizer steps 2e-6, abs + rel): `tests/js/backend_matrix.test.mjs` in Node (npm `webgpu`, Dawn",
  "on SwiftShader) and `tests/browser/webgpu.test.mjs` in headless Chromium. *kernel*: the op's own",
  "kernels ran and matched; *wasm fallback*: the op has no WGSL kernel yet, ran on wasm with its data",
  `moved for it, and matched. On webgpu: ${count('kernel')} with kernels, ${count('fallback')} through the fallback, ${count('differs') + count('error')} differing.`,
  '',
  'The dtypes column lists the dtypes besides float32/int32/bool whose values and gradients',
  "`tests/js/dtype_compute.test.mjs` compares with PyTorch 1.13 for the op on `reference` and `wasm`",
  '(float16/bfloat16 computed in float32 and rounded once; int8/uint8 in int32, wrapping; int64 in int32',
  'where exact, else an Error); other ops take those dtypes the same way, untested per op. f64: the op',
  'computes in double and `tests/js/float64.test.mjs` compares its float64 values and gradients with',
  "PyTorch 1.13's to 1e-12 (gradcheck with PyTorch's float64 defaults too); an op without f64 refuses",
  'float64 by name.',
  "*webgpu:* the dtypes whose values on webgpu `tests/js/webgpu_dtypes.test.mjs` compares with the CPU's",
  '(float64 has no GPU storage); `tests/js/dtype_grads_16bit.test.mjs` compares the float16/bfloat16',
  "values and gradients of the differentiable ones with PyTorch 1.13's there (and on the CPU backends).",
  '',
  '| op | reference | wasm | webgpu | dtypes |',
  '|---|---|---|---|---|',
  ...ops.map((op) => `| \`${op}\` | ${['reference', 'wasm', 'webgpu'].map((b) => label[matrix[op][b]] ?? '—').join(' | ')} | ${dtypeCell(op)} |`),
  '',
];
process.stdout.write(lines.join('\n'));
