// Mutation testing of npm/src with Stryker (scripts/mutation.sh runs this; see there for the flags):
// a seeded sample of regions (a file, a window of lines) of npm/src/**/*.ts, mutated by
// @stryker-mutator/core with the TypeScript checker (mutants that do not type-check are not
// counted) and run by its tap runner against the node:test files that execute that region.
//   node scripts/mutation_ts.mjs --seed S --regions N --window L [--tests-per-region T] [--out DIR]
//   node scripts/mutation_ts.mjs --region npm/src/a.ts:10-40[,...] [--tests tests/js/x.test.mjs[,...]]
//     (given regions and tests, e.g. to check that a new test kills the survivors)
//   --extra-tests tests/js/x.test.mjs[,...]: run these too, beside the tests chosen for each region
//   --measure-per-region M (4), --measure-budget-s S (180): how many test files per region, and for
//     how long in all, the sampler may run under coverage where the last covered run is stale
//   --select-only: print the sample and the tests chosen for each region, run nothing
//   --code-only: a region is drawn again until one of its lines compiles to JavaScript (a line of
//     code, not only comments, types, interfaces or braces), so that a small sample (CI's: one
//     region of 4 lines) holds mutants; 3 of the 8 regions of seeds 25+26 (10 lines) held none.
//     Seeds name other samples with it than without.
//   --no-checker: without Stryker's TypeScript checker (CI's sample: its start-up, a type-check of
//     all of npm/src, and a check per mutant, cost most of the 300 s there; measured on a 4-line
//     region of 9 mutants, 80 s CPU with it, 40 s without). Mutants that TypeScript would reject
//     are then not set aside as compile errors: the build transpiles them file by file (no type
//     check), so they run as JavaScript and count killed or survived like the rest.
// How the pieces fit this repository:
// - The tests load the built package (npm/dist/esm). Stryker writes its instrumented sources (every
//   mutant of the sample in one file, switched at run time) into a sandbox copy of the repository;
//   the build command there transpiles just those files into the sandbox's npm/dist/esm
//   (scripts/mutation_ts_transpile.mjs: ts.transpileModule, valid since the tsconfig has
//   isolatedModules) instead of a whole tsc run, and the rest of npm/dist is the copy of the
//   real one. So npm/dist must be built from the current sources (scripts/build.sh js).
// - Which tests: at most --tests-per-region of them: first those that both execute the region and
//   name its functions or its messages' words, then a cover of its lines, then more that name it
//   (scripts/mutation_ts_tests.mjs gives the order and why), from per-test V8 coverage checked to be of the
//   region's current code: the last covered Node run's (build/coverage/v8-mapped, written by
//   scripts/coverage.sh ts) where it still is, else measured here for the sampled sources
//   (scripts/mutation_ts_tests.mjs says how). Stryker's own per-test coverage then picks, per
//   mutant, which of those run. A mutant that none of them executes is NoCoverage, counted as surviving.
// Writes DIR/stryker.config.json and Stryker's JSON report DIR/mutation.json (default build/mutation/ts).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { chooseTests, decodeMappings } from './mutation_ts_tests.mjs';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = {}; // --name value (a value may hold spaces: one argv entry)
for (let i = 2; i < process.argv.length; i++) {
  const k = process.argv[i].replace(/^--/, '');
  const v = process.argv[i + 1];
  if (v === undefined || v.startsWith('--')) args[k] = 'true';
  else { args[k] = v; i++; }
}
const seed = Number(args.seed ?? 1);
const regions = Number(args.regions ?? 4);
const window = Number(args.window ?? 30);
const testsPerRegion = Number(args['tests-per-region'] ?? 3);
const out = resolve(root, args.out ?? 'build/mutation/ts');
mkdirSync(out, { recursive: true });

/** Park-Miller, so that a seed names the same sample on every machine. */
let state = (seed % 2147483646) + 1;
const rand = () => (state = (state * 48271) % 2147483647) / 2147483647;
// The first draws of a small seed are small (seed · 48271 / 2^31): without these, every seed below
// a few thousand sampled the alphabetically first file (amp/autocast.ts) first.
for (let i = 0; i < 4; i++) rand();

// Candidates: source files with code (not declaration-only), weighted by their line count, so that
// every line of npm/src is about equally likely to be sampled.
const sources = readdirSync(join(root, 'npm/src'), { recursive: true })
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).sort()
  .map((f) => ({ file: `npm/src/${f}`, lines: readFileSync(join(root, 'npm/src', f), 'utf8').split('\n').length }))
  .filter((s) => s.lines > 10);
const totalLines = sources.reduce((a, s) => a + s.lines, 0);
const picked = [];
/** --code-only: whether lines start..end of file hold code, i.e. a line that tsc's source map maps
 * JavaScript to and that holds a word (not a lone brace). */
const codeLines = new Map();
function holdsCode(file, start, end) {
  if (!codeLines.has(file)) {
    const ts = createRequire(join(root, 'npm/package.json'))('typescript');
    const { sourceMapText } = ts.transpileModule(readFileSync(join(root, file), 'utf8'),
      { compilerOptions: { sourceMap: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022 }, fileName: file });
    const text = readFileSync(join(root, file), 'utf8').split('\n');
    codeLines.set(file, new Set(decodeMappings(JSON.parse(sourceMapText).mappings).flat().filter((l) => /\w/.test(text[l - 1] ?? ''))));
  }
  for (let l = start; l <= end; l++) if (codeLines.get(file).has(l)) return true;
  return false;
}
// --region npm/src/a.ts:10-40[,more]: these regions instead of a sample (to re-check survivors).
for (const r of (args.region ?? '').split(',').filter(Boolean)) {
  const [, file, a, b] = r.match(/^(.*):(\d+)-(\d+)$/) ?? [];
  if (!file) throw new Error(`--region: expected file.ts:start-end, got ${r}`);
  picked.push({ file, start: Number(a), end: Number(b) });
}
while (!args.region && picked.length < regions) {
  let r = rand() * totalLines, s = sources[0];
  for (s of sources) if ((r -= s.lines) < 0) break;
  const start = 1 + Math.floor(rand() * Math.max(1, s.lines - window));
  const end = Math.min(s.lines, start + window - 1);
  if (picked.some((p) => p.file === s.file && p.start <= end && start <= p.end)) continue;
  if (args['code-only'] && !holdsCode(s.file, start, end)) continue;
  picked.push({ file: s.file, start, end });
}

// ---- which test files run against each region (scripts/mutation_ts_tests.mjs: current per-test
// coverage, measured afresh for the sampled sources where the last covered run is stale)
const testFiles = new Set();
if (!args.tests) {
  chooseTests(root, picked, { testsPerRegion, measurePerRegion: Number(args['measure-per-region'] ?? 4),
    measureBudgetS: Number(args['measure-budget-s'] ?? 180), log: (s) => console.log(s) });
}
picked.forEach((p) => {
  // --tests a.test.mjs[,more]: these test files instead (e.g. a new test meant to kill survivors).
  if (args.tests) Object.assign(p, { tests: args.tests.split(','), linesReached: 0, linesLeft: 0, notes: [] });
  // --extra-tests a.test.mjs[,more]: these as well, for every region (Stryker's per-test coverage
  // runs them only against the mutants they execute).
  for (const t of (args['extra-tests'] ?? '').split(',').filter(Boolean)) if (!p.tests.includes(t)) p.tests.push(t);
  p.tests.forEach((t) => testFiles.add(t));
});
console.log(`mutation ts: ${args.region ? `${picked.length} given regions` : `seed ${seed}, ${regions} regions of ${window} lines`}`);
for (const p of picked) {
  const note = [...p.notes, p.linesLeft && `${p.linesLeft} of the ${p.linesReached} lines the suite executes are left to no chosen test (--ts-tests ${testsPerRegion})`].filter(Boolean);
  console.log(`  ${p.file}:${p.start}-${p.end}  tests: ${p.tests.join(', ') || '(none executed it)'}${note.length ? `  [${note.join('; ')}]` : ''}`);
}
if (!testFiles.size) testFiles.add('tests/js/smoke_bindings.test.mjs'); // Stryker needs one test file to start

const bin = join(root, 'npm/node_modules');
const config = {
  $schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
  packageManager: 'npm',
  testRunner: 'tap',
  // The test files that start Dawn end with process.exit (Dawn keeps Node alive), which cut off
  // node:test's TAP plan: the runner counted them failed and refused the sample, so they were left
  // out, and a device branch (nn/utils.ts vectorToParameters on webgpu) stayed NoCoverage.
  // scripts/mutation_tap_exit.cjs lets node:test finish its TAP output before such an exit.
  tap: { testFiles: [...testFiles].sort(), forceBail: true, nodeArgs: ['-r', '{{hookFile}}', '-r', join(root, 'scripts/mutation_tap_exit.cjs')] },
  ...(args['no-checker'] ? { checkers: [] } : {
    checkers: ['typescript'],
    tsconfigFile: 'npm/tsconfig.esm.json',
    typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  }),
  coverageAnalysis: 'perTest',
  mutate: picked.map((p) => `${p.file}:${p.start}-${p.end}`),
  // Only what the tests load goes into the sandbox (Stryker links npm/node_modules back in): the
  // package and its sources, the tests and their data, and what some tests read or run besides
  // (the PyTorch oracles import trainer/, the demo tests run demos/, backend_grad_completeness
  // reads src/, demo_data imports scripts/). A test file that finds one of these missing fails the
  // dry run, and Stryker then refuses the whole sample. The whole of npm/dist goes (only the ES
  // build's JavaScript is mutated): package.test.mjs loads the CommonJS entry, pretrained.test.mjs
  // type-checks a use of the .d.ts files.
  // (A sandbox of only what the chosen test files name was tried for CI's sample: 2,123 files instead
  // of 2,482, and no time saved; the copy takes seconds, the TypeScript checker the rest.)
  ignorePatterns: ['/*', '!/npm', '!/web', '!/tests', '/tests/*', '!/tests/js', '!/tests/data', '!/tests/bench', '!/tests/onnx',
    '!/trainer', '!/demos', '!/src', '!/scripts', '!/README.md', '/npm/node_modules'],
  buildCommand: `node ${join(root, 'scripts/mutation_ts_transpile.mjs')} ${picked.map((p) => p.file).join(' ')}`,
  plugins: [...(args['no-checker'] ? [] : ['@stryker-mutator/typescript-checker']), '@stryker-mutator/tap-runner'],
  allowEmpty: true, // a small region may hold no mutant (comments, types)
  concurrency: 1,
  timeoutMS: 30000,
  dryRunTimeoutMinutes: 20,
  reporters: ['json', 'progress-append-only'],
  jsonReporter: { fileName: relative(root, join(out, 'mutation.json')) },
  tempDirName: relative(root, join(out, 'sandbox')),
  cleanTempDir: 'always',
};
writeFileSync(join(out, 'stryker.config.json'), JSON.stringify(config, null, 2) + '\n');
writeFileSync(join(out, 'sample.json'), JSON.stringify({ seed, regions: picked }, null, 2) + '\n');
if (args['select-only']) process.exit(0); // --select-only: print the sample and its tests, run nothing
const r = spawnSync(join(bin, '.bin/stryker'), ['run', relative(root, join(out, 'stryker.config.json'))], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
