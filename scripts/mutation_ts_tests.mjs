// Which node:test files run against each sampled region of npm/src (scripts/mutation_ts.mjs), at
// most --tests-per-region T of them, in this order:
//   1. up to half the slots (T/2 rounded up): the files that both execute the region and NAME it
//      (its functions, classes and methods, or its Error messages' and other strings' words:
//      scripts/mutation_ts_names.mjs), the most strongly naming first;
//   2. a greedy set cover of the region's lines that some test executes and those files do not
//      (ties: the file naming it more, then the one executing more of the whole source);
//   3. slots left: the other files that execute and name it; then files that name it to the point
//      (a message's phrase, or a name while they show they use the source) but have no current
//      coverage of it (they may execute it; a file measured without reaching it does not); then the
//      other files that execute it, most lines first; where no coverage is current, those that
//      executed most of an older version; last those naming only the file's exports.
// Why naming: lines executed are not mutants killed. The test that asserts an Error's exact message
// (argument_errors.test, func_bad_input.test) executes few lines, so the cover of lines left it out
// and its region's string mutants survived (seed 15's jacobian.ts message; seeds 16-19 added
// argument_errors.test by hand with --ts-extra-tests).
// Per-test coverage is checked to be of the code the region holds now, measured afresh for the
// files of the sample where it is not. Deterministic: a seed and the tree name the same choice
// (every sort ends on the file name).
// Why measured afresh: the per-test coverage of the last full covered Node run (scripts/test.sh
// under NODE_V8_COVERAGE, remapped by scripts/coverage.sh ts into build/coverage/v8-mapped) goes
// stale as the tree moves on: a source edited since gets other lines, and a test file added or
// edited since is unknown to it. Picking tests from stale data left mutants NoCoverage that the
// suite kills (a defect of the sample, not of the suite), and a full covered run costs about
// 15 minutes of two cores.
// How coverage is known to be current: a test file's record is used for a source file only when the
// record is newer than the test file and the JavaScript it measured (the coverage twin then, or
// npm/dist when measured here) is byte for byte what the source transpiles to now (the hash below);
// V8's byte offsets then hold for today's source map. Measured here: the test files that are not
// current for a sampled source and most likely execute it (edited since last measured first, then
// those that name the region most, its file stem in their name counting too, then those that
// executed most of an older version of it; slow ones last), at most --measure-per-region of them
// per region, one `node <test file>` each under NODE_V8_COVERAGE, within --measure-budget-s seconds. Each run is kept in
// build/mutation/coverage/<test>.json (every npm/src script it loaded, with its hash) for later
// samples. In CI the covered run has just ended, so nothing is measured.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { namingScores, regionTerms, testTexts } from './mutation_ts_names.mjs';

/** The JavaScript that V8 measured, without tsc's source-map comment and final newline. */
const body = (js) => js.replace(/\n?\/\/# sourceMappingURL=[^\n]*\n?$/, '').replace(/\n$/, '');
const hashOf = (text) => createHash('sha1').update(text).digest('hex');

export function decodeMappings(mappings) {
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

/**
 * V8 executed the byte at `at`: its block coverage nests (a function's first range is its whole
 * body, the later ones blocks inside it), and a byte's count is that of the innermost range holding
 * it (a function never called is there with count 0, so the module's range around it does not count).
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

/**
 * A sampled source as the tests run it: tsc's JavaScript for it (transpiled alone, which the
 * tsconfig's isolatedModules makes tsc's own output, with a source map), its hash, whether npm/dist
 * holds that same JavaScript, and per line of JavaScript with code the .ts lines it maps to.
 */
function compiled(root, ts, options, file) {
  const { outputText, sourceMapText } = ts.transpileModule(readFileSync(join(root, file), 'utf8'), { compilerOptions: options, fileName: file });
  const text = body(outputText);
  const dist = join(root, 'npm/dist/esm', file.replace(/\.ts$/, '.js'));
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  const lines = [];
  decodeMappings(JSON.parse(sourceMapText).mappings).forEach((orig, l) => {
    if (!orig.length || l >= starts.length) return;
    const end = starts[l + 1] ?? text.length;
    let lo = starts[l];
    while (lo < end && /\s/.test(text[lo])) lo++;
    if (lo < end) lines.push({ orig, lo });
  });
  return { file, hash: hashOf(text), distFresh: existsSync(dist) && body(readFileSync(dist, 'utf8')) === text, lines };
}

/** The names a source exports, which a test that uses it is likely to spell out (4 letters or more). */
function exportedNames(text) {
  const names = new Set();
  for (const m of text.matchAll(/export\s+(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|class|const|let|var|enum)\s+([A-Za-z_$][\w$]*)/g)) names.add(m[1]);
  for (const m of text.matchAll(/export\s*\{([^}]*)\}/g)) {
    for (const part of m[1].split(',')) {
      const name = part.trim().split(/\s+as\s+/).pop()?.trim();
      if (name) names.add(name);
    }
  }
  return [...names].filter((n) => n.length >= 4);
}

/**
 * Sets p.tests, p.linesReached, p.linesLeft and p.notes for each sampled region p ({ file, start, end }).
 * opts: { testsPerRegion, measurePerRegion, measureBudgetS, log }.
 */
export function chooseTests(root, picked, opts) {
  const ts = createRequire(join(root, 'npm/package.json'))('typescript');
  const parsed = ts.getParsedCommandLineOfConfigFile(join(root, 'npm/tsconfig.esm.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
  // As scripts/mutation_ts_transpile.mjs (which says why these module options), with a source map.
  const options = { ...parsed.options, declaration: false, sourceMap: true, rootDir: undefined, outDir: undefined,
    module: ts.ModuleKind.ES2022, moduleResolution: ts.ModuleResolutionKind.Bundler, incremental: false, tsBuildInfoFile: undefined, noEmit: false };
  const files = new Map([...new Set(picked.map((p) => p.file))].map((f) => [f, compiled(root, ts, options, f)]));
  const testFiles = readdirSync(join(root, 'tests/js')).filter((f) => /\.test\.[cm]?js$/.test(f)).sort().map((f) => `tests/js/${f}`);
  const testMtime = new Map(testFiles.map((t) => [t, statSync(join(root, t)).mtimeMs]));
  // How strongly each test file names each region (scripts/mutation_ts_names.mjs).
  const texts = testTexts(root, testFiles);
  const naming = picked.map((p) => {
    const text = readFileSync(join(root, p.file), 'utf8');
    return namingScores(texts, regionTerms(ts, text, p.file, p.start, p.end, exportedNames(text)));
  });
  const nameScore = (i, t) => naming[i].get(t)?.score ?? 0;

  // Records: { tests, time, scripts: [{ file, hash, functions }] }, the sampled sources only.
  const records = [];
  const keep = (functions) => functions.filter((fn) => fn.ranges.length).map((fn) => ({ ranges: fn.ranges }));
  // (1) The last full covered run, whose scripts are the coverage twin's (build/coverage/ts-maps).
  const mappedDir = join(root, 'build/coverage/v8-mapped');
  const twinDir = join(root, 'build/coverage/ts-maps/esm');
  const twinHash = new Map();
  if (existsSync(mappedDir) && existsSync(twinDir)) {
    const twinRoot = realpathSync(twinDir);
    for (const name of readdirSync(mappedDir)) {
      const data = JSON.parse(readFileSync(join(mappedDir, name), 'utf8'));
      if (!data.testFiles?.length) continue;
      // NODE_V8_COVERAGE names a process's file coverage-PID-TIME-N.json (TIME: when it was written).
      const time = Number(name.split('-')[2]) || statSync(join(mappedDir, name)).mtimeMs;
      const scripts = [];
      for (const s of data.result) {
        const js = fileURLToPath(s.url);
        const file = relative(twinRoot, js).replace(/\.js$/, '.ts');
        if (!files.has(file)) continue;
        if (!twinHash.has(js)) twinHash.set(js, existsSync(js) ? hashOf(body(readFileSync(js, 'utf8'))) : null);
        scripts.push({ file, hash: twinHash.get(js), functions: keep(s.functions) });
      }
      records.push({ tests: data.testFiles, time, scripts });
    }
  }
  // (2) Test files measured by earlier samples.
  const cacheDir = join(root, 'build/mutation/coverage');
  mkdirSync(cacheDir, { recursive: true });
  const readCached = (name) => {
    const c = JSON.parse(readFileSync(join(cacheDir, name), 'utf8'));
    return { tests: [c.testFile], time: c.time, scripts: c.scripts.filter((s) => files.has(s.file)) };
  };
  for (const name of readdirSync(cacheDir).filter((n) => n.endsWith('.json'))) records.push(readCached(name));
  const lastRun = new Map(); // test file -> when its last record was made
  for (const r of records) for (const t of r.tests) lastRun.set(t, Math.max(lastRun.get(t) ?? 0, r.time));
  const slowTests = new Set(); // measured here before, and slow: run past 60 s or cut by the budget
  for (const name of readdirSync(cacheDir).filter((n) => n.endsWith('.json'))) {
    const c = JSON.parse(readFileSync(join(cacheDir, name), 'utf8'));
    if (c.seconds > 60 || c.exit === 'SIGTERM') slowTests.add(c.testFile);
  }

  /** Per source: test file -> { current: Set of .ts lines executed (current records), before: blocks executed in older ones }. */
  const currentFor = (file) => {
    const info = files.get(file);
    const byTest = new Map();
    for (const r of records) {
      for (const s of r.scripts) {
        if (s.file !== file) continue;
        // Functions of the file it called (the script's own top level, at offset 0, runs on import
        // in every test process, so it says nothing of which tests use the file).
        const ran = s.functions.filter((fn) => fn.ranges[0].startOffset > 0 && fn.ranges[0].count > 0).length;
        for (const t of r.tests) {
          if (!testMtime.has(t)) continue; // a test file deleted since
          const e = byTest.get(t) ?? { current: null, before: 0 };
          byTest.set(t, e);
          if (s.hash === info.hash && r.time >= testMtime.get(t)) {
            e.current ??= new Set();
            for (const l of info.lines) if (executed(s.functions, l.lo)) for (const o of l.orig) e.current.add(o);
          } else e.before = Math.max(e.before, ran);
        }
      }
    }
    return byTest;
  };

  // ---- measure the likeliest test files that are not current for a sampled source
  const measurePerRegion = Number(opts.measurePerRegion ?? 4);
  const budgetMs = Number(opts.measureBudgetS ?? 180) * 1000;
  const queue = picked.map((p, i) => {
    const info = files.get(p.file);
    if (!info.distFresh || measurePerRegion <= 0) return [];
    const byTest = currentFor(p.file);
    const stem = basename(p.file, '.ts');
    const unknown = testFiles.filter((t) => !byTest.get(t)?.current);
    // Test files edited since they were last measured first, newest first (most likely written to
    // kill this sample's survivors); then those that name the region most (its functions, its
    // messages), then those that executed most of an older version of the file; the slow ones (a
    // run past 60 s, or cut by the budget) last.
    const edited = (t) => (lastRun.has(t) && testMtime.get(t) > lastRun.get(t) ? testMtime.get(t) : 0);
    const slow = (t) => (slowTests.has(t) ? 1 : 0);
    const before = (t) => byTest.get(t)?.before ?? 0;
    const score = (t) => nameScore(i, t) + (basename(t).includes(stem) ? 1 : 0);
    return unknown.filter((t) => before(t) > 0 || score(t) > 0)
      .sort((a, b) => slow(a) - slow(b) || edited(b) - edited(a) || score(b) - score(a) || before(b) - before(a) || a.localeCompare(b))
      .slice(0, measurePerRegion);
  });
  const toMeasure = [];
  for (let rank = 0; queue.some((q) => q.length > rank); rank++) { // each region's likeliest first
    for (const q of queue) if (q[rank] && !toMeasure.includes(q[rank])) toMeasure.push(q[rank]);
  }
  const t0 = Date.now();
  const measured = [];
  const distPrefix = pathToFileURL(join(root, 'npm/dist/esm')).href + '/';
  for (const t of toMeasure) {
    if (Date.now() - t0 > budgetMs) { opts.log?.(`  coverage: measuring budget (${budgetMs / 1000} s) spent; ${toMeasure.length - measured.length} test files left unmeasured`); break; }
    const raw = join(cacheDir, 'raw');
    rmSync(raw, { recursive: true, force: true });
    const start = Date.now();
    // Run as Stryker's tap runner does (node <file>, one process), not under --test.
    // Within what is left of the budget (a process killed on time writes no coverage: none kept).
    const r = spawnSync(process.execPath, [t], { cwd: root, env: { ...process.env, NODE_V8_COVERAGE: raw }, stdio: 'ignore', timeout: Math.max(10000, budgetMs - (start - t0)) });
    const scripts = [];
    const distHash = new Map();
    for (const name of existsSync(raw) ? readdirSync(raw) : []) {
      let data;
      try { data = JSON.parse(readFileSync(join(raw, name), 'utf8')); } catch { continue; } // a child ended while writing
      for (const s of data.result ?? []) {
        if (!s.url.startsWith(distPrefix + 'npm/src/')) continue;
        const js = fileURLToPath(s.url);
        // A dist file rebuilt during the run: which JavaScript ran is unknown, so it is not kept.
        if (!distHash.has(js)) distHash.set(js, existsSync(js) && statSync(js).mtimeMs < start ? hashOf(body(readFileSync(js, 'utf8'))) : null);
        if (distHash.get(js)) scripts.push({ file: s.url.slice(distPrefix.length).replace(/\.js$/, '.ts'), hash: distHash.get(js), functions: keep(s.functions) });
      }
    }
    rmSync(raw, { recursive: true, force: true });
    const name = `${basename(t).replace(/\W/g, '_')}.json`;
    writeFileSync(join(cacheDir, name), JSON.stringify({ testFile: t, time: start, seconds: (Date.now() - start) / 1000, exit: r.status ?? r.signal, scripts }));
    records.push(readCached(name));
    measured.push(t);
    opts.log?.(`  coverage: measured ${t} (${Math.round((Date.now() - start) / 1000)} s${r.status === 0 ? '' : `, exit ${r.status ?? r.signal}`})`);
  }

  // ---- per region: the test files that execute it and name it, a set cover of its lines, then the rest
  const testsPerRegion = Number(opts.testsPerRegion ?? 3);
  picked.forEach((p, i) => {
    const info = files.get(p.file);
    const byTest = currentFor(p.file);
    p.notes = [];
    if (!info.distFresh) p.notes.push('npm/dist is older than this source (bash scripts/build.sh js): its tests run other code');
    const inRegion = (l) => l >= p.start && l <= p.end;
    const reached = new Map(); // test -> Set of the region's lines it executes
    const aboutFile = new Map(); // test -> how many of the file's lines it executes
    for (const [t, e] of byTest) {
      if (!e.current) continue;
      aboutFile.set(t, e.current.size);
      const lines = [...e.current].filter(inRegion);
      if (lines.length) reached.set(t, new Set(lines));
    }
    const named = (t) => nameScore(i, t);
    const termsOf = (t) => naming[i].get(t)?.terms ?? [];
    const namesRegion = (t) => termsOf(t).some((x) => x.kind !== 'export'); // not by the file's exports alone
    // A file not measured names the region to the point: one of its messages' phrases, or one of
    // its names while it shows it uses the file (its stem, an export, calls into an older version).
    const likely = (t) => termsOf(t).some((x) => x.kind === 'phrase') || (namesRegion(t)
      && (basename(t).includes(basename(p.file, '.ts')) || termsOf(t).some((x) => x.kind === 'export') || byTest.get(t)?.before > 0));
    const chosen = [];
    const all = new Set([...reached.values()].flatMap((s) => [...s]));
    const left = new Set(all);
    const take = (t) => {
      if (chosen.includes(t) || chosen.length >= testsPerRegion) return;
      chosen.push(t);
      for (const l of reached.get(t) ?? []) left.delete(l);
    };
    // (1) Up to half the slots: the files that execute the region and name it, most named first.
    // Lines are not mutants: seed 15's jacobian.ts:76 (an Error's prefix) survived against the one
    // file whose lines covered the region, while func_bad_input.test, which checks that message,
    // was left out; seeds 16-19 left out argument_errors.test the same way.
    const both = [...reached.keys()].filter((t) => named(t) > 0)
      .sort((a, b) => named(b) - named(a) || reached.get(b).size - reached.get(a).size || a.localeCompare(b));
    both.slice(0, Math.ceil(testsPerRegion / 2)).forEach(take);
    // (2) Greedy cover of the lines left: each step takes the file that adds most lines; among
    // equals, the one that names the region most, then the one that executes most of the whole file
    // (the test about that file). Ranking by blocks executed alone chose one big test file and left
    // a region's error paths, reached by another file, NoCoverage.
    while (left.size && chosen.length < testsPerRegion) {
      const gain = (t) => [...reached.get(t)].filter((l) => left.has(l)).length;
      const [best] = [...reached.keys()].filter((t) => !chosen.includes(t))
        .sort((a, b) => gain(b) - gain(a) || named(b) - named(a) || aboutFile.get(b) - aboutFile.get(a) || a.localeCompare(b));
      if (!best || !gain(best)) break;
      take(best);
    }
    // (3) Slots left: the other files that execute and name it; then those that name the region and
    // whose coverage of this file is unknown (not measured: they may execute it; a file measured
    // without reaching the region does not); then the other files that execute it, most lines
    // first; where nothing is current (npm/dist stale, or the budget spent), the files that
    // executed most of an older version of the file; last those that name only the file's exports.
    const unknown = testFiles.filter((t) => !byTest.get(t)?.current && named(t) > 0)
      .sort((a, b) => named(b) - named(a) || a.localeCompare(b));
    const rest = [...reached.keys()]
      .sort((a, b) => reached.get(b).size - reached.get(a).size || aboutFile.get(b) - aboutFile.get(a) || a.localeCompare(b));
    const noneCurrent = ![...byTest.values()].some((e) => e.current);
    const guess = noneCurrent ? [...byTest].filter(([, e]) => e.before > 0).sort((a, b) => b[1].before - a[1].before || a[0].localeCompare(b[0])).map(([t]) => t) : [];
    [...both, ...unknown.filter(likely), ...rest, ...guess, ...unknown].forEach(take);
    if (noneCurrent && chosen.length) p.notes.push('no current coverage of this source: tests that name the region or executed an older version of it');
    const byName = chosen.filter(namesRegion).map((t) => `${basename(t).replace(/\.test\.mjs$/, '')} (${termsOf(t).filter((x) => x.kind !== 'export').slice(0, 2).map((x) => `'${x.text}'`).join(', ')})`);
    if (byName.length) p.notes.push(`naming the region: ${byName.join(', ')}`);
    p.tests = chosen;
    p.linesReached = all.size;
    p.linesLeft = left.size;
    const unmeasured = testFiles.filter((t) => !byTest.get(t)?.current).length;
    if (unmeasured) p.notes.push(`${unmeasured} test files have no current coverage of this source`);
  });
  return { measured };
}
