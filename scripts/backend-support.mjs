// Prints npm/README.md's "Backend support" section from the matrix the results-matrix test
// writes (build/backend_matrix.json: node --test tests/js/backend_matrix.test.mjs).
//   node scripts/backend-support.mjs > /tmp/section.md
import { readFileSync } from 'node:fs';

const matrix = JSON.parse(readFileSync(new URL('../build/backend_matrix.json', import.meta.url), 'utf8'));
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
  '| op | reference | wasm | webgpu |',
  '|---|---|---|---|',
  ...ops.map((op) => `| \`${op}\` | ${['reference', 'wasm', 'webgpu'].map((b) => label[matrix[op][b]] ?? '—').join(' | ')} |`),
  '',
];
process.stdout.write(lines.join('\n'));
