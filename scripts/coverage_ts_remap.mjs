// Points the raw V8 coverage of a Node test run (NODE_V8_COVERAGE=DIR) at the source-mapped twin
// of npm/dist/esm, so that c8 can report it against npm/src/**/*.ts and web/webgpu/**/*.ts.
//   node scripts/coverage_ts_remap.mjs RAW_DIR TWIN_DIR OUT_DIR
// Why a twin: the published package carries no source maps (npm/tsconfig.esm.json says why), and
// the tests load that package build. scripts/coverage.sh compiles the same sources a second time
// with --sourceMap into TWIN_DIR (build/coverage/ts-maps/esm); tsc's output there is the dist file
// byte for byte plus one last "//# sourceMappingURL=" line, so V8's byte offsets hold for it. Each
// twin is compared with its dist file first: a script whose twin differs (a source edited after the
// last build) is left out and counted, never mapped onto the wrong lines.
// Everything that is not our compiled TypeScript (Node's internals, the tests, the Emscripten glue,
// node_modules) is dropped here, which also keeps the report step small.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const [rawDir, twinDir, outDir] = process.argv.slice(2).map((p) => resolve(p));
if (!outDir) {
  console.error('usage: node scripts/coverage_ts_remap.mjs RAW_DIR TWIN_DIR OUT_DIR');
  process.exit(2);
}
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const distPrefix = pathToFileURL(join(root, 'npm/dist/esm')).href + '/';
const ours = /^(npm\/src|web\/webgpu)\//;

const verdict = new Map(); // dist url -> twin url | null (differs or missing)
const stale = new Set();
function twinOf(url) {
  if (verdict.has(url)) return verdict.get(url);
  let result = null;
  const rel = url.slice(distPrefix.length);
  const twin = join(twinDir, rel);
  if (existsSync(twin)) {
    const dist = readFileSync(fileURLToPath(url), 'utf8');
    const mapped = readFileSync(twin, 'utf8').replace(/\n?\/\/# sourceMappingURL=[^\n]*\n?$/, '');
    if (mapped === dist.replace(/\n$/, '')) result = pathToFileURL(twin).href;
  }
  if (!result) stale.add(rel);
  verdict.set(url, result);
  return result;
}

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
let files = 0, scripts = 0;
for (const name of readdirSync(rawDir).filter((n) => n.endsWith('.json'))) {
  let data;
  try {
    data = JSON.parse(readFileSync(join(rawDir, name), 'utf8'));
  } catch {
    continue; // a process killed while writing (a test's own child, ended on purpose)
  }
  const result = [];
  // The test files this process ran (node --test runs one per process): scripts/mutation_ts.mjs
  // picks the tests that execute a sampled region of a source file from these.
  const testFiles = (data.result ?? []).map((s) => s.url).filter((u) => /\/tests\/js\/[^/]+\.test\.[cm]?js$/.test(u))
    .map((u) => relative(root, fileURLToPath(u)));
  for (const s of data.result ?? []) {
    if (!s.url.startsWith(distPrefix) || !ours.test(s.url.slice(distPrefix.length))) continue;
    const url = twinOf(s.url);
    if (url) result.push({ ...s, url });
  }
  if (!result.length) continue;
  writeFileSync(join(outDir, name), JSON.stringify({ result, testFiles }));
  files++;
  scripts += result.length;
}
console.log(`coverage: ${files} processes, ${scripts} scripts of npm/src and web/webgpu mapped to the .ts sources`);
if (stale.size) {
  console.log(`coverage: ${stale.size} scripts left out, their twin differs from npm/dist (rebuild both): ${[...stale].slice(0, 5).join(', ')}${stale.size > 5 ? ', ...' : ''}`);
}
