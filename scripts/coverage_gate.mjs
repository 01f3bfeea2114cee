// The coverage gate (scripts/coverage.sh gate): one line per layer from the reports that
// scripts/coverage.sh wrote (build/coverage/cpp.json from gcovr, build/coverage/ts/
// coverage-summary.json from c8), each compared with its floor in .ci/coverage-floor.json.
// A layer below its floor fails the gate; so does a layer with a floor but no report (a stage
// that did not run must not pass as covered). The floors are a ratchet: raise one to the new
// figure (rounded down to a tenth) when a change lifts it, never lower one; the gate says when a
// figure is a whole point above its floor. Also lists the files that hold the most uncovered
// lines (where the rest of the way to the issue's 90 % is) and, for bindings/ (wasm only, no
// line coverage), how many of its bound names npm/src and web/webgpu call.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'build/coverage');
const floors = JSON.parse(readFileSync(join(root, '.ci/coverage-floor.json'), 'utf8'));
const TARGET = 90;

/** layer name -> [{ file (repository-relative), covered, total }] */
const layers = new Map();
const add = (layer, file, covered, total) => {
  if (!layers.has(layer)) layers.set(layer, []);
  layers.get(layer).push({ file, covered, total });
};

const cppJson = join(out, 'cpp.json');
if (existsSync(cppJson)) {
  for (const f of JSON.parse(readFileSync(cppJson, 'utf8')).files) {
    add('C++ src/', f.filename, f.line_covered, f.line_total);
    if (/^src\/(ops|kernels)\//.test(f.filename)) add('C++ src/ops + src/kernels', f.filename, f.line_covered, f.line_total);
  }
}
const tsJson = join(out, 'ts/coverage-summary.json');
if (existsSync(tsJson)) {
  for (const [abs, s] of Object.entries(JSON.parse(readFileSync(tsJson, 'utf8')))) {
    if (abs === 'total') continue;
    const file = relative(root, abs);
    const layer = file.startsWith('web/webgpu/') ? 'TypeScript web/webgpu' : file.startsWith('npm/src/') ? 'TypeScript npm/src' : null;
    if (layer) add(layer, file, s.lines.covered, s.lines.total);
  }
}

const pct = (c, t) => (t ? (100 * c) / t : 0);
let failed = 0;
for (const [layer, floor] of Object.entries(floors.lines)) {
  const files = layers.get(layer);
  if (!files) {
    console.log(`coverage: ${layer}: no report (its stage did not run or failed): FAIL`);
    failed++;
    continue;
  }
  const covered = files.reduce((a, f) => a + f.covered, 0);
  const total = files.reduce((a, f) => a + f.total, 0);
  const p = pct(covered, total);
  const ok = p + 1e-9 >= floor;
  if (!ok) failed++;
  const note = !ok ? ' FAIL: below the floor' : p >= floor + 1 ? ` (a point above the floor: raise it to ${Math.floor(p * 10) / 10} in .ci/coverage-floor.json)` : '';
  console.log(`coverage: ${layer}: ${p.toFixed(1)} % of lines (${covered}/${total}, ${files.length} files); floor ${floor} %, target ${TARGET} %${note}`);
  if (p < TARGET) {
    const worst = files.map((f) => ({ ...f, missed: f.total - f.covered })).sort((a, b) => b.missed - a.missed).slice(0, 5);
    console.log(`  most uncovered lines: ${worst.map((f) => `${f.file} ${f.missed}`).join(', ')}`);
  }
}

// bindings/: the names the module exports (plain exports sg_* and Embind functions) that the
// TypeScript layer calls by name. Not a line figure, and not gated: a name can be called and its
// branches still missed; it shows a binding that nothing reaches.
const srcText = (dir) => readdirSync(join(root, dir), { recursive: true })
  .filter((f) => f.endsWith('.ts')).map((f) => readFileSync(join(root, dir, f), 'utf8')).join('\n');
const ts = srcText('npm/src') + srcText('web/webgpu');
const bound = new Set();
for (const f of readdirSync(join(root, 'bindings')).filter((n) => n.endsWith('.cpp'))) {
  const text = readFileSync(join(root, 'bindings', f), 'utf8');
  for (const m of text.matchAll(/EMSCRIPTEN_KEEPALIVE\s+[\w:<>*& ]+?\bsg_(\w+)\s*\(/g)) bound.add(m[1]);
  for (const m of text.matchAll(/\bfunction\(\s*"(\w+)"/g)) bound.add(m[1]);
}
const unused = [...bound].filter((n) => !new RegExp(`\\b_?(sg_)?${n}\\b`).test(ts)).sort();
console.log(`coverage: bindings/ (wasm only, no line figure): ${bound.size - unused.length} of ${bound.size} bound names called from npm/src or web/webgpu${unused.length ? `; not called: ${unused.join(', ')}` : ''}`);

if (failed) console.log(`coverage: ${failed} layer(s) below the floor or without a report`);
process.exit(failed ? 1 : 0);
