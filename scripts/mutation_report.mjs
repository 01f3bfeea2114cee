// The mutation score of scripts/mutation.sh's runs, per folder, with every surviving mutant listed:
//   node scripts/mutation_report.mjs [build/mutation]
// Reads Stryker's report (ts/mutation.json) and the C++ runner's (cpp/result.json), whichever
// exist, and .ci/mutation-equivalent.txt: mutants found equivalent to the original (no test can
// tell them apart: same results for every input), each with its reason. Those leave the count.
// Score = (killed + timeout) / (killed + timeout + survived + no coverage), as Stryker's: mutants
// that do not compile or type-check, and those the time budget left unrun, are not counted.
// Equivalent-mutant entries, two lines each (the key names the line by its text, not its number,
// so that an entry outlives edits elsewhere in the file):
//   mutant: <file> | <mutator> | <replacement> | <the mutated line, trimmed>
//   span: <the code the mutant replaces>      (optional, Stryker's only: where one line holds several
//                                              mutants with the same mutator and replacement)
//   reason: <why no test can kill it>
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const dir = resolve(root, process.argv[2] ?? 'build/mutation');
const norm = (s) => s.replace(/\s+/g, ' ').trim();

const equivalents = new Map(); // key -> [{ span (null: any), reason }]
const eqFile = join(root, '.ci/mutation-equivalent.txt');
if (existsSync(eqFile)) {
  let key = null, span = null;
  for (const line of readFileSync(eqFile, 'utf8').split('\n')) {
    if (line.startsWith('mutant:')) {
      const parts = line.slice(7).split(' | ');
      key = [parts[0], parts[1], parts[2], parts.slice(3).join(' | ')].map((p) => norm(p ?? '')).join(' | ');
      span = null;
    } else if (line.startsWith('span:') && key) {
      span = norm(line.slice(5));
    } else if (line.startsWith('reason:') && key) {
      equivalents.set(key, [...(equivalents.get(key) ?? []), { span, reason: line.slice(7).trim() }]);
      key = null;
    }
  }
}
const isEquivalent = (m) => (equivalents.get(m.key) ?? []).some((e) => e.span === null || e.span === m.span);

const mutants = []; // { layer, folder, file, line, key, status, show }
const tsReport = join(dir, 'ts/mutation.json');
if (existsSync(tsReport)) {
  const r = JSON.parse(readFileSync(tsReport, 'utf8'));
  for (const [file, f] of Object.entries(r.files)) {
    const src = f.source.split('\n');
    for (const m of f.mutants) {
      const line = m.location.start.line;
      const text = norm(src[line - 1] ?? '');
      const key = [file, m.mutatorName, norm(m.replacement ?? ''), text].join(' | ');
      // The code replaced (Stryker's columns are 1-based), when it lies on one line.
      const { start, end } = m.location;
      const span = start.line === end.line ? norm((src[line - 1] ?? '').slice(start.column - 1, end.column - 1)) : null;
      mutants.push({
        layer: 'npm/src', folder: file.split('/').slice(0, 3).join('/').replace(/\.ts$/, ''), file, line, key, span, status: m.status,
        show: `${file}:${line} ${m.mutatorName}: ${text.slice(0, 100)}  =>  ${norm(m.replacement ?? '').slice(0, 80)}`,
      });
    }
  }
}
const cppReport = join(dir, 'cpp/result.json');
let cppSeed = null;
if (existsSync(cppReport)) {
  const r = JSON.parse(readFileSync(cppReport, 'utf8'));
  cppSeed = r.seed;
  for (const m of r.mutants) {
    // The mutator names the occurrence on the line ('==' -> '!=' #3: the third '==').
    const key = [m.file, `'${m.from}' -> '${m.to}' #${m.nth}`, m.to, norm(m.text)].join(' | ');
    mutants.push({
      layer: 'src/ops + src/kernels', folder: m.file.split('/').slice(0, m.file.startsWith('src/kernels/') ? 3 : 2).join('/'),
      file: m.file, line: m.line, key, status: m.status, show: `${m.file}:${m.line} '${m.from}' -> '${m.to}' #${m.nth}: ${norm(m.text).slice(0, 100)}`,
    });
  }
}

for (const m of mutants) if (m.status === 'Survived' || m.status === 'NoCoverage') if (isEquivalent(m)) m.status = 'Equivalent';
const counted = (s) => ['Killed', 'Timeout', 'Survived', 'NoCoverage'].includes(s);
const detected = (s) => s === 'Killed' || s === 'Timeout';
const line = (name, ms) => {
  const c = ms.filter((m) => counted(m.status));
  const k = c.filter((m) => detected(m.status)).length;
  const by = (s) => ms.filter((m) => m.status === s).length;
  const score = c.length ? ((100 * k) / c.length).toFixed(1) + ' %' : 'n/a';
  return `${name}: ${score} (${k} killed of ${c.length}; survived ${by('Survived')}, no coverage ${by('NoCoverage')}, equivalent ${by('Equivalent')}, compile errors ${by('CompileError')}, not run ${by('NotRun') + by('Pending')})`;
};
for (const layer of [...new Set(mutants.map((m) => m.layer))]) {
  const ms = mutants.filter((m) => m.layer === layer);
  console.log(`mutation score ${line(layer, ms)}${layer !== 'npm/src' && cppSeed !== null ? `, seed ${cppSeed}` : ''}`);
  for (const folder of [...new Set(ms.map((m) => m.folder))].sort()) console.log(`  ${line(folder, ms.filter((m) => m.folder === folder))}`);
  const left = ms.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage');
  if (left.length) {
    console.log(`  survived (kill with a test, or record in .ci/mutation-equivalent.txt with the reason):`);
    for (const m of left) {
      console.log(`    [${m.status === 'NoCoverage' ? 'no coverage' : 'survived'}] ${m.show}`);
      console.log(`      mutant: ${m.key}`); // the line .ci/mutation-equivalent.txt takes
      if (m.span) console.log(`      span: ${m.span}`);
    }
  }
}
// A sample of comments and types only (Stryker's allowEmpty) is said so, not left out silently.
if (existsSync(tsReport) && !mutants.some((m) => m.layer === 'npm/src')) console.log('mutation score npm/src: n/a (the sampled regions hold no mutant)');
else if (!mutants.length) console.log('mutation: no report found under ' + dir);
