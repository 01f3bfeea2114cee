// Mutation testing of npm/src with Stryker (scripts/mutation.sh runs this; see there for the flags):
// a seeded sample of regions (a file, a window of lines) of npm/src/**/*.ts, mutated by
// @stryker-mutator/core with the TypeScript checker (mutants that do not type-check are not
// counted) and run by its tap runner against the node:test files that execute that region.
//   node scripts/mutation_ts.mjs --seed S --regions N --window L [--tests-per-region T] [--out DIR]
//   node scripts/mutation_ts.mjs --region npm/src/a.ts:10-40[,...] [--tests tests/js/x.test.mjs[,...]]
//     (given regions and tests, e.g. to check that a new test kills the survivors)
//   --extra-tests tests/js/x.test.mjs[,...]: run these too, beside the tests chosen for each region
//     (a test file added since the last covered run)
//   --select-only: print the sample and the tests chosen for each region, run nothing
// How the pieces fit this repository:
// - The tests load the built package (npm/dist/esm). Stryker writes its instrumented sources (every
//   mutant of the sample in one file, switched at run time) into a sandbox copy of the repository;
//   the build command there transpiles just those files into the sandbox's npm/dist/esm
//   (scripts/mutation_ts_transpile.mjs: ts.transpileModule, valid since the tsconfig has
//   isolatedModules) instead of a whole tsc run, and the rest of npm/dist is the copy of the
//   real one. So npm/dist must be built from the current sources (scripts/build.sh js).
// - Which tests: the fewest test files that together execute every line of the region that the
//   suite executed in the last covered Node run (build/coverage/v8-mapped, written by
//   scripts/coverage.sh ts; V8's block ranges per test process, mapped to .ts lines through the
//   source maps of build/coverage/ts-maps), at most --tests-per-region of them. Stryker's own per-test coverage then picks, per mutant, which of
//   those run. A mutant that none of them executes is NoCoverage, counted as surviving.
// Writes DIR/stryker.config.json and Stryker's JSON report DIR/mutation.json (default build/mutation/ts).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
  picked.push({ file: s.file, start, end });
}

// ---- which test files executed each region (from the last covered Node run)
function decodeMappings(mappings) {
  // Source map v3 VLQ: per generated line, segments [genCol, src, srcLine, srcCol]; we need srcLine.
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const lines = [];
  let srcLine = 0;
  for (const line of mappings.split(';')) {
    const out = [];
    for (const seg of line.split(',')) {
      if (!seg) continue;
      const vals = [];
      let shift = 0, value = 0;
      for (const ch of seg) {
        const d = chars.indexOf(ch);
        value += (d & 31) << shift;
        if (d & 32) shift += 5;
        else { vals.push(value & 1 ? -(value >>> 1) : value >>> 1); value = 0; shift = 0; }
      }
      if (vals.length >= 3) { srcLine += vals[2]; out.push(srcLine + 1); }
    }
    lines.push(out);
  }
  return lines; // lines[jsLine] = original (1-based) lines it maps to
}

const twinDir = join(root, 'build/coverage/ts-maps/esm');
const mappedDir = join(root, 'build/coverage/v8-mapped');
const haveCoverage = existsSync(mappedDir) && existsSync(twinDir);
/**
 * Where the file's lines are in the twin's JavaScript: { url, lines: [{ ts, lo, hi, inRegion }] },
 * one entry per JavaScript line that maps to a .ts line (lo..hi: its code, leading blanks skipped).
 * A source edited after the last covered run no longer matches its twin line for line: then every
 * line of the file stands for the region (the tests chosen cover the whole file: more than needed,
 * never fewer).
 */
function linesOf(region) {
  const js = join(twinDir, region.file.replace(/\.ts$/, '.js'));
  if (!existsSync(js) || !existsSync(js + '.map')) return null;
  const stale = statSync(join(root, region.file)).mtimeMs > statSync(js).mtimeMs;
  const text = readFileSync(js, 'utf8');
  const jsLines = decodeMappings(JSON.parse(readFileSync(js + '.map', 'utf8')).mappings);
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  const lines = [];
  jsLines.forEach((orig, l) => {
    if (!orig.length) return;
    const inRegion = orig.filter((o) => stale || (o >= region.start && o <= region.end));
    const end = starts[l + 1] ?? text.length;
    let lo = starts[l];
    while (lo < end && /\s/.test(text[lo])) lo++;
    if (lo < end) lines.push({ ts: inRegion[0] ?? orig[0], lo, hi: end, inRegion: inRegion.length > 0 });
  });
  // The coverage names the twin by its real path (build/coverage may be a link, in a copy of the tree).
  return { url: pathToFileURL(realpathSync(js)).href, lines, stale };
}
/**
 * Did this process execute the byte at `at`? V8's block coverage nests: a function's first range is
 * its whole body, the later ones the blocks inside it, and a byte's count is that of the innermost
 * range holding it (a function never called is there with count 0, so its body is not "covered" by
 * the module's range around it).
 */
function executed(functions, at) {
  let best = null;
  for (const fn of functions) {
    for (const b of fn.ranges) {
      if (b.startOffset <= at && at < b.endOffset && (!best || b.endOffset - b.startOffset <= best.endOffset - best.startOffset)) best = b;
    }
  }
  return best !== null && best.count > 0;
}
// region index -> Map(test file -> Set of the region's .ts lines it executed); and of the file's
// lines, how many it executed (which test is about this file, when several execute the region alike)
const reached = picked.map(() => new Map());
const aboutFile = picked.map(() => new Map());
const where = haveCoverage ? picked.map(linesOf) : [];
if (haveCoverage) {
  for (const name of readdirSync(mappedDir)) {
    const data = JSON.parse(readFileSync(join(mappedDir, name), 'utf8'));
    if (!data.testFiles?.length) continue;
    for (const s of data.result) {
      where.forEach((w, k) => {
        if (!w || s.url !== w.url) return;
        const functions = s.functions.filter((fn) => fn.ranges.length);
        for (const l of w.lines) {
          if (!executed(functions, l.lo)) continue;
          for (const t of data.testFiles) {
            aboutFile[k].set(t, (aboutFile[k].get(t) ?? 0) + 1);
            if (!l.inRegion) continue;
            if (!reached[k].has(t)) reached[k].set(t, new Set());
            reached[k].get(t).add(l.ts);
          }
        }
      });
    }
  }
}
const testFiles = new Set();
picked.forEach((p, k) => {
  // The fewest test files that together execute every line of the region that any test executes
  // (greedy set cover: each step takes the file that adds most lines; among equals, the one that
  // executes most of the whole file, i.e. the test about that file), at most --tests-per-region of them. Ranking by the blocks executed alone
  // chose one big test file and left a region's error paths, reached by another file, NoCoverage:
  // a defect of the sample, not of the suite.
  const all = new Set([...reached[k].values()].flatMap((s) => [...s]));
  const left = new Set(all);
  const chosen = [];
  while (left.size && chosen.length < testsPerRegion) {
    const gain = (t) => [...reached[k].get(t)].filter((l) => left.has(l)).length;
    const [best] = [...reached[k].keys()].filter((t) => !chosen.includes(t))
      .sort((a, b) => gain(b) - gain(a) || aboutFile[k].get(b) - aboutFile[k].get(a) || a.localeCompare(b));
    if (!best || !gain(best)) break;
    chosen.push(best);
    for (const l of reached[k].get(best)) left.delete(l);
  }
  // --tests a.test.mjs[,more]: these test files instead (a new test, not yet in the coverage run).
  p.tests = args.tests ? args.tests.split(',') : chosen;
  // --extra-tests a.test.mjs[,more]: these as well, for every region (test files newer than the last
  // covered run, which the set cover cannot know of; Stryker's per-test coverage runs them only
  // against the mutants they execute).
  for (const t of (args['extra-tests'] ?? '').split(',').filter(Boolean)) if (!p.tests.includes(t)) p.tests.push(t);
  p.linesReached = all.size;
  p.linesLeft = args.tests ? 0 : left.size;
  p.staleCoverage = where[k]?.stale ?? false;
  p.tests.forEach((t) => testFiles.add(t));
});
console.log(`mutation ts: seed ${seed}, ${regions} regions of ${window} lines${haveCoverage ? '' : ' (no build/coverage/v8-mapped: run the Node tests under coverage first; regions without tests count as NoCoverage)'}`);
for (const p of picked) {
  const note = [p.staleCoverage && 'source edited since the covered run: tests chosen for the whole file',
    p.linesLeft && `${p.linesLeft} of the ${p.linesReached} lines the suite executes are left to no chosen test (--ts-tests ${testsPerRegion})`].filter(Boolean);
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
  checkers: ['typescript'],
  tsconfigFile: 'npm/tsconfig.esm.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  mutate: picked.map((p) => `${p.file}:${p.start}-${p.end}`),
  // Only what the tests load goes into the sandbox (Stryker links npm/node_modules back in): the
  // package and its sources, the tests and their data, and what some tests read or run besides
  // (the PyTorch oracles import trainer/, the demo tests run demos/, backend_grad_completeness
  // reads src/, demo_data imports scripts/). A test file that finds one of these missing fails the
  // dry run, and Stryker then refuses the whole sample. The whole of npm/dist goes (only the ES
  // build's JavaScript is mutated): package.test.mjs loads the CommonJS entry, pretrained.test.mjs
  // type-checks a use of the .d.ts files.
  ignorePatterns: ['/*', '!/npm', '!/web', '!/tests', '/tests/*', '!/tests/js', '!/tests/data', '!/tests/bench', '!/tests/onnx',
    '!/trainer', '!/demos', '!/src', '!/scripts', '!/README.md', '/npm/node_modules'],
  buildCommand: `node ${join(root, 'scripts/mutation_ts_transpile.mjs')} ${picked.map((p) => p.file).join(' ')}`,
  plugins: ['@stryker-mutator/typescript-checker', '@stryker-mutator/tap-runner'],
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
