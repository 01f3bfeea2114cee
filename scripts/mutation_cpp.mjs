// Mutation testing of the C++ kernels and ops (src/ops, src/kernels) by operator swaps, because no
// maintained C++ mutation tool is reachable here: Mull (an LLVM plugin) and Dextool ship no Debian
// package and are built from source or downloaded from their release pages, universalmutator is on
// PyPI only, and npm's mutation tools (Stryker) mutate JavaScript/TypeScript/C#/Scala only.
//   node scripts/mutation_cpp.mjs --seed S --mutants N [--budget-min M] [--build DIR] [--out DIR]
//   node scripts/mutation_cpp.mjs --at src/kernels/simd/pool.cpp:270 [--swap ==#6] [--tc 'doctest case*'] [--build DIR]
//     (every swap on one line, or the one named, against the given test cases: re-checking a survivor)
//   --asan DIR (default build/native-asan where it exists, not with --tests-near; `--asan off`: none): a mutant that survives the
//     first build is compiled, linked and run again with DIR's commands (clang, ASan + UBSan, as CI)
//   --cxxflags FLAGS: appended to the mutant's compile (a comparison, e.g. -D_GLIBCXX_ASSERTIONS)
//   --tests-near: each mutant against only the doctest files of tests/native whose name holds the
//     mutated file's name (src/kernels/simd/gemm.cpp: *gemm*_test.cpp; linalg_tridiag_reduce.cpp,
//     where no file holds that name: *linalg_tridiag*, else *linalg*), or all where none does: CI's sample (scripts/test.sh) checks the machinery in seconds, not by a whole ASan run.
// What a mutant is: one binary operator written with a space on each side, swapped for its
// opposite (+ -, * /, < <=, > >=, == !=, && ||, += -=), or true/false swapped, on one line of a
// .cpp file under src/ops or src/kernels (headers are left out: a header edit rebuilds all that
// include it). The candidates are listed in a fixed order, shuffled by a Park-Miller generator
// seeded with S, and the first N are tried, so a seed names the same sample on any machine with the
// same sources.
// How one is tried: its file is copied with the one edit into DIR/tree/src/<same path>, compiled
// with the file's own command from an existing native build (build/native, else build/native-asan;
// compile_commands.json) with DIR/tree/src searched first (so a Highway kernel that re-includes
// itself through foreach_target.h gets the mutated copy) and the original folder after it for
// quoted includes. A Highway kernel is compiled for its static AVX2 target only
// (HWY_COMPILE_ONLY_STATIC -march=haswell, as the ASan build): the dispatcher then picks that
// target, and the compile takes one target's time instead of five. That object is linked in front
// of the build's libsimdgrad_core.a (the archive's original member is then not needed) into
// DIR/simdgrad_tests_mutant, and the doctests run until the first failure (--abort-after=1).
// Why survivors go through the sanitizers: a swap such as '<' -> '<=' on a loop bound can write
// or read one element past an array (a pointer array on the stack, a std::vector) without
// changing any value a test reads; -O2 without checks lets it pass, CI's ASan build stops on it.
// So the first build (fast) decides most mutants, and only its survivors are tried again in the
// ASan build: a kill there counts (killedIn names the build). Measured on the two such survivors
// (2026-11-30, 2 shared cores at load 9-18, so only the ratios mean much): conv.cpp:116 (rows[nr]
// written past a const float*[16] on the stack) survives -O2 (61 s against the *conv* doctests)
// and -O2 -D_GLIBCXX_ASSERTIONS (43 s), and UBSan's bounds check in the ASan build kills it
// (147 s); data_linalg.cpp:188 (a std::vector read one past) survives -O2 (14 s against *det*),
// dies under -D_GLIBCXX_ASSERTIONS (13 s) and ASan (heap-buffer-overflow, 45 s). Whole suite:
// the ASan dry run 328 s (76 s CPU), a fast mutant 22-97 s, a survivor's ASan try 274 s. The
// assertions cost nothing but see only std containers; ASan sees both, at about 3-5 times a
// mutant's cost, paid by survivors only (about one in six) plus one dry run.
// Verdicts as Stryker's: killed (a test failed or the binary crashed), timeout (counted as
// killed), survived, no coverage (the line never ran in the last coverage run,
// build/coverage/cpp-lines.json: counted as survived, without a run), compile error (not counted).
// Writes DIR/result.json: { seed, mutants: [{ id, file, line, from, to, status, text, seconds,
// killedBy?, asan?: { status, seconds } (the sanitizer build's try), killedIn? (where that killed) }] }.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = {}; // --name value (a value may hold spaces: one argv entry)
for (let i = 2; i < process.argv.length; i++) {
  const k = process.argv[i].replace(/^--/, '');
  const v = process.argv[i + 1];
  if (v === undefined || v.startsWith('--')) args[k] = 'true';
  else { args[k] = v; i++; }
}
const seed = Number(args.seed ?? 1);
const wanted = Number(args.mutants ?? 10);
const budgetMs = Number(args['budget-min'] ?? 1e9) * 60000;
const out = resolve(root, args.out ?? 'build/mutation/cpp');
const t0 = Date.now();

const SWAPS = [[' + ', ' - '], [' - ', ' + '], [' * ', ' / '], [' / ', ' * '], [' < ', ' <= '], [' <= ', ' < '],
  [' > ', ' >= '], [' >= ', ' > '], [' == ', ' != '], [' != ', ' == '], [' && ', ' || '], [' || ', ' && '],
  [' += ', ' -= '], [' -= ', ' += '], ['true', 'false'], ['false', 'true']];

/** The code of a line with comments and string/char literals blanked (same length). */
function codeOf(line, inBlock) {
  let s = '', i = 0, block = inBlock;
  while (i < line.length) {
    if (block) {
      const e = line.indexOf('*/', i);
      if (e < 0) { s += ' '.repeat(line.length - i); i = line.length; break; }
      s += ' '.repeat(e + 2 - i); i = e + 2; block = false; continue;
    }
    if (line.startsWith('//', i)) { s += ' '.repeat(line.length - i); break; }
    if (line.startsWith('/*', i)) { block = true; continue; }
    const c = line[i];
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < line.length && line[j] !== c) j += line[j] === '\\' ? 2 : 1;
      s += c + ' '.repeat(Math.max(0, Math.min(j, line.length) - i - 1)) + (j < line.length ? c : '');
      i = j + 1; continue;
    }
    s += c; i++;
  }
  return { code: s, block };
}

const files = ['src/ops', 'src/kernels'].flatMap((d) => readdirSync(join(root, d), { recursive: true })
  .filter((f) => f.endsWith('.cpp')).map((f) => `${d}/${f}`)).sort();
const candidates = [];
// Each file's text as listed: a mutant is made from this copy, so that an edit of the file while
// the sample runs (a shared working tree) cannot put a swap on the wrong line.
const texts = new Map();
for (const file of files) {
  texts.set(file, readFileSync(join(root, file), 'utf8'));
  const lines = texts.get(file).split('\n');
  let block = false;
  lines.forEach((line, k) => {
    const r = codeOf(line, block);
    block = r.block;
    if (/^\s*#/.test(line)) return; // preprocessor lines: includes, pragmas, macros
    for (const [from, to] of SWAPS) {
      const word = /^\w/.test(from);
      for (let at = r.code.indexOf(from); at >= 0; at = r.code.indexOf(from, at + 1)) {
        if (word && (/\w/.test(r.code[at - 1] ?? '') || /\w/.test(r.code[at + from.length] ?? ''))) continue;
        const nth = r.code.slice(0, at).split(from).length; // which occurrence on the line (1-based)
        candidates.push({ file, line: k + 1, col: at, nth, from, to });
      }
    }
  });
}

// Per-line counts of the last coverage run (scripts/coverage.sh cpp writes them).
const lineCounts = new Map();
const covFile = join(root, 'build/coverage/cpp-lines.json');
if (existsSync(covFile)) {
  for (const f of JSON.parse(readFileSync(covFile, 'utf8')).files ?? []) {
    const m = new Map();
    for (const l of f.lines) m.set(l.line_number, Math.max(m.get(l.line_number) ?? 0, l.count));
    // A file edited since that run has moved lines: its counts would name the wrong ones.
    if (existsSync(join(root, f.file)) && statSync(join(root, f.file)).mtimeMs <= statSync(covFile).mtimeMs) lineCounts.set(f.file, m);
  }
}

let state = (seed % 2147483646) + 1;
const rand = () => (state = (state * 48271) % 2147483647) / 2147483647;
for (let i = candidates.length - 1; i > 0; i--) {
  const j = Math.floor(rand() * (i + 1));
  [candidates[i], candidates[j]] = [candidates[j], candidates[i]];
}
// --at file:line: every candidate on that line instead of a sample (to re-check a survivor).
const at = args.at?.match(/^(.*):(\d+)$/);
const sample = at ? candidates.filter((c) => c.file === at[1] && c.line === Number(at[2]) &&
  (!args.swap || `${c.from.trim()}#${c.nth}` === args.swap)) : candidates.slice(0, wanted);
console.log(`mutation cpp: seed ${seed}, ${sample.length} of ${candidates.length} operator-swap candidates in src/ops + src/kernels${lineCounts.size ? '' : ' (no build/coverage/cpp-lines.json: every mutant is run)'}`);

// --build DIR picks the build; by default build/native, else build/native-asan (what CI builds).
const isBuild = (d) => existsSync(join(d, 'compile_commands.json')) && existsSync(join(d, 'simdgrad_tests'));
const buildDir = (args.build ? [args.build] : ['build/native', 'build/native-asan']).map((d) => resolve(root, d)).find(isBuild);
if (!buildDir) {
  console.error('mutation cpp: needs a native build (bash scripts/build.sh native, or asan)');
  process.exit(1);
}
// --asan DIR: the sanitizer build that tries again each mutant the first build lets survive; by
// default build/native-asan where it exists, --asan off for none. Not by default with
// --tests-near: CI's smoke sample has seconds to spend, not an ASan dry run (in CI the first build
// is build/native-asan anyway, as no build/native is made there).
const asanDir = args.asan === 'off' || (!args.asan && args['tests-near']) ? null : resolve(root, args.asan ?? 'build/native-asan');
if (args.asan && args.asan !== 'off' && !isBuild(asanDir)) {
  console.error(`mutation cpp: --asan ${args.asan} is not a native build (expected compile_commands.json and simdgrad_tests in it)`);
  process.exit(1);
}
const loadBuild = (dir) => ({
  dir, name: relative(root, dir),
  commands: new Map(JSON.parse(readFileSync(join(dir, 'compile_commands.json'), 'utf8')).map((c) => [relative(root, c.file), c])),
  link: readFileSync(join(dir, 'CMakeFiles/simdgrad_tests.dir/link.txt'), 'utf8').trim(),
  dry: new Map(), // filter set -> whether the unmutated binary passed it (the dry run, once)
});
const fast = loadBuild(buildDir);
const sanitizer = asanDir && asanDir !== buildDir && isBuild(asanDir) ? loadBuild(asanDir) : null;
const tree = join(out, 'tree/src');
mkdirSync(tree, { recursive: true });
const sh = (cmd, cwd, timeoutMs) => spawnSync('bash', ['-c', cmd], { cwd, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 << 20 });
// The build's own .gcda files must not collect the mutants' counts (build/native-asan). Under
// ASan + UBSan (build/native-asan) the doctests' own options: tests of huge allocations expect a
// clean sg::Error, and a sanitizer finding stops the run (the mutant counts as killed).
const env = {
  ...process.env, GCOV_PREFIX: join(out, 'gcda'), GCOV_PREFIX_STRIP: '0',
  ASAN_OPTIONS: process.env.ASAN_OPTIONS ?? 'abort_on_error=1:detect_leaks=1:allocator_may_return_null=1',
  UBSAN_OPTIONS: process.env.UBSAN_OPTIONS ?? 'halt_on_error=1:print_stacktrace=1',
};

// As Stryker's dry run: the unmutated binary must pass the same test cases, or every mutant would
// count as killed by a test that fails anyway.
const filters = [...(args.tc ? [`-tc=${args.tc}`] : []), ...(args.tce ? [`-tce=${args.tce}`] : [])];
const testFiles = readdirSync(join(root, 'tests/native')).filter((f) => f.endsWith('_test.cpp'));
/** The doctest filters a mutant runs under: --tests-near's source-file filter, then --tc/--tce. */
function filtersFor(m) {
  if (!args['tests-near']) return filters;
  // linalg_tridiag_reduce, else linalg_tridiag, else linalg: the longest name some test file holds.
  for (let stem = m.file.split('/').at(-1).replace(/\.cpp$/, ''); stem; stem = stem.replace(/_?[^_]*$/, '')) {
    if (testFiles.some((f) => f.includes(stem))) return [`-sf=*tests/native/*${stem}*_test.cpp`, ...filters];
  }
  return filters;
}
const covered = (m) => !(lineCounts.get(m.file) && !(lineCounts.get(m.file).get(m.line) > 0));
/** The dry run of one build under one filter set, once: false (and why, on stderr) where it fails. */
function dryRun(build, filterArgs) {
  const key = JSON.stringify(filterArgs);
  if (build.dry.has(key)) return build.dry.get(key);
  const base = spawnSync(join(build.dir, 'simdgrad_tests'), ['--no-colors', ...filterArgs], { env, encoding: 'utf8', timeout: 1800000, maxBuffer: 64 << 20 });
  if (base.status !== 0) {
    const failing = [...new Set([...base.stdout.matchAll(/TEST CASE:\s+(.*)/g)].map((x) => x[1].trim()))];
    console.error(`mutation cpp: the unmutated tests fail in ${build.name} (${failing.join('; ') || `exit ${base.status ?? base.signal}`}); fix them or leave them out with --tce`);
  }
  build.dry.set(key, base.status === 0);
  return base.status === 0;
}
for (const f of new Set(sample.filter((m) => at || covered(m)).map((m) => JSON.stringify(filtersFor(m))))) {
  if (!dryRun(fast, JSON.parse(f))) process.exit(1);
}

/** Compiles mutant m (its file's text with the one swap) with build's commands, links it into that
 * build's doctest binary and runs it: { status, killedBy?, why? }. */
function tryMutant(build, m) {
  const cmd = build.commands.get(m.file);
  if (!cmd) return { status: 'NotRun', why: `not in ${build.name}/compile_commands.json` };
  const lines = texts.get(m.file).split('\n');
  const l = lines[m.line - 1];
  lines[m.line - 1] = l.slice(0, m.col) + m.to + l.slice(m.col + m.from.length);
  const copy = join(tree, relative('src', m.file));
  mkdirSync(dirname(copy), { recursive: true });
  writeFileSync(copy, lines.join('\n'));
  const obj = join(out, 'mutant.o');
  const highway = /foreach_target\.h/.test(lines.join('\n'));
  // Without the build's precompiled header (GCC's -include, clang's -Xclang -include-pch): GCC
  // drops #pragma once for a header that changed after the .gch was made, clang refuses such a
  // .pch, and the sources include what they use anyway.
  let compile = cmd.command.replace(/ -Winvalid-pch| -include \S*cmake_pch\.hxx| -Xclang -include-pch -Xclang \S+| -Xclang -include -Xclang \S*cmake_pch\.hxx/g, '')
    .replace(/ -o \S+/, ` -o ${obj}`).replace(/ -c \S+$/, ` -c ${copy}`)
    .replace(/^(\S+)/, `$1 -I${tree} -iquote ${dirname(join(root, m.file))}`);
  if (highway) compile += ' -DHWY_COMPILE_ONLY_STATIC -march=haswell -maes';
  if (args.cxxflags) compile += ` ${args.cxxflags}`;
  const c = sh(compile, cmd.directory, 900000);
  rmSync(copy); // the next mutant of another file must not include this copy
  if (c.status !== 0) return { status: 'CompileError', why: c.stderr.slice(0, 400) };
  const bin = join(out, 'simdgrad_tests_mutant');
  const lk = sh(build.link.replace(/ -o simdgrad_tests /, ` -o ${bin} ${obj} `), build.dir, 600000);
  if (lk.status !== 0) return { status: 'CompileError', why: lk.stderr.slice(0, 400) };
  // A mutant that loops or slows the suite down badly counts as a timeout (killed), as in Stryker.
  // --tc PATTERN: only those doctest cases (to check that a new test kills a survivor); --tce
  // PATTERN: all but those (cases that crash in a tree under edit would count every mutant killed).
  // (Under ASan the suite runs 3-5 times longer, so its limit is three times the first build's.)
  const run = spawnSync(bin, ['--no-colors', '--abort-after=1', '--minimal', ...filtersFor(m)], { env, encoding: 'utf8', timeout: build === fast ? 600000 : 1800000, maxBuffer: 64 << 20 });
  const status = run.error?.code === 'ETIMEDOUT' ? 'Timeout' : run.status === 0 ? 'Survived' : 'Killed';
  if (status !== 'Killed') return { status };
  const testCase = (run.stdout.match(/TEST CASE:\s+(.*)/) ?? [])[1]?.trim();
  const finding = (run.stderr.match(/ERROR: AddressSanitizer: [\w-]+|runtime error: [^\n]{0,100}/) ?? [])[0];
  return { status, killedBy: [finding, testCase && `"${testCase}"`].filter(Boolean).join(' in ') || `exit ${run.status ?? run.signal}` };
}

const results = [];
for (const [n, m] of sample.entries()) {
  const id = `${m.file}:${m.line}:${m.col} '${m.from.trim()}' -> '${m.to.trim()}'`;
  const text = texts.get(m.file).split('\n')[m.line - 1];
  const res = { id, file: m.file, line: m.line, nth: m.nth, from: m.from.trim(), to: m.to.trim(), text: text.trim() };
  results.push(res);
  // --at re-checks a chosen line: run it even where the last coverage run (perhaps older than the
  // test that is to kill it, or than an edit that moved the line) saw it unreached.
  if (!at && !covered(m)) { res.status = 'NoCoverage'; console.log(`  [${n + 1}] ${id}: no coverage`); continue; }
  if (Date.now() - t0 > budgetMs) { res.status = 'NotRun'; continue; }
  let started = Date.now();
  Object.assign(res, tryMutant(fast, m), { seconds: Math.round((Date.now() - started) / 1000) });
  // A survivor of the fast build tries again under the sanitizers: an access one past an array
  // changes no value a test reads, and only ASan sees it (CI's own build, so such a kill is real).
  if (res.status === 'Survived' && sanitizer && Date.now() - t0 <= budgetMs && dryRun(sanitizer, filtersFor(m))) {
    started = Date.now();
    const again = tryMutant(sanitizer, m);
    res.asan = { status: again.status, seconds: Math.round((Date.now() - started) / 1000) };
    if (again.status === 'Killed' || again.status === 'Timeout') Object.assign(res, again, { killedIn: sanitizer.name });
  }
  const how = res.status === 'CompileError' ? 'does not compile' : res.status.toLowerCase();
  console.log(`  [${n + 1}] ${id}: ${how}${res.killedIn ? ` in ${res.killedIn}` : ''}${res.killedBy ? ` by ${res.killedBy}` : ''} (${res.seconds} s${res.asan ? `; ${sanitizer.name} ${res.asan.status.toLowerCase()}, ${res.asan.seconds} s` : ''})`);
}
writeFileSync(join(out, 'result.json'), JSON.stringify({ seed, candidates: candidates.length, mutants: results }, null, 1) + '\n');
