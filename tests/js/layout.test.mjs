// The house rules of the source tree (issue 22), checked on the files themselves: no file named
// for when it was written, every npm/src folder says what it holds, and a folder imports only
// the folders below it (the "May import" line of each folder's README.md; file-level circles are
// madge's job, `npm run lint:circles`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tracked = execFileSync('git', ['ls-files', 'src', 'bindings', 'npm/src', 'web', 'tests/native', 'tests/js'], { cwd: root })
  .toString()
  .trim()
  .split('\n')
  .filter((f) => existsSync(join(root, f)));

test('no source file is named for when it was written (_more, _misc, _extra, _new, _other, a _2-style number)', () => {
  // A number that is part of a name (gpt2, conv3d, log2) is fine; a suffix counting versions is not.
  const bad = tracked.filter((f) => /(_more|_misc|_extra|_new|_other|_\d+)\.(ts|cpp|h|mjs|js)$/.test(f));
  assert.deepEqual(bad, []);
});

// What each folder of npm/src may import (besides itself), bottom to top.
const MAY_IMPORT = {
  runtime: ['web/webgpu'],
  tensor: ['runtime', 'autograd'],
  autograd: ['runtime', 'tensor'],
  compile: ['runtime', 'tensor', 'autograd'],
  nn: ['runtime', 'tensor', 'autograd', 'compile'],
  optim: ['runtime', 'tensor', 'autograd', 'compile'],
  customloss: ['runtime', 'tensor', 'autograd', 'compile'],
  data: ['runtime', 'tensor'],
  io: ['runtime', 'tensor'],
  linalg: ['runtime', 'tensor'],
  special: ['runtime', 'tensor'],
  distributions: ['runtime', 'tensor', 'autograd', 'nn'],
  models: ['runtime', 'tensor', 'autograd', 'nn', 'io', 'utils'],
  tokenizers: ['runtime', 'tensor'],
  func: ['runtime', 'tensor', 'compile'],
  amp: ['runtime', 'tensor', 'autograd'],
  peft: ['runtime', 'tensor', 'autograd', 'nn', 'io', 'models'],
  utils: ['runtime', 'tensor', 'autograd', 'compile'],
  'web/webgpu': [],
};

function folderOf(file) {
  if (file.startsWith(`web${sep}webgpu`) || file.startsWith('web/webgpu')) return 'web/webgpu';
  const parts = relative('npm/src', file).split(sep);
  return parts.length > 1 ? parts[0] : '(entry)';
}

test('every npm/src folder has a README.md saying what it holds and what it may import', () => {
  const folders = new Set(tracked.filter((f) => f.startsWith('npm/src/') && f.endsWith('.ts')).map(folderOf));
  folders.delete('(entry)');
  for (const folder of folders) {
    assert.ok(folder in MAY_IMPORT, `npm/src/${folder}: a new folder needs its row in MAY_IMPORT (tests/js/layout.test.mjs)`);
    if (folder === 'web/webgpu') continue;
    const readme = join(root, 'npm/src', folder, 'README.md');
    assert.ok(existsSync(readme), `npm/src/${folder}/README.md is missing`);
    assert.match(readFileSync(readme, 'utf8'), /May import:/, `npm/src/${folder}/README.md: no "May import:" line`);
  }
});

test('each folder imports only the folders below it', () => {
  const wrong = [];
  for (const file of tracked.filter((f) => (f.startsWith('npm/src/') || f.startsWith('web/webgpu/')) && f.endsWith('.ts'))) {
    const from = folderOf(file);
    if (from === '(entry)') continue; // index.ts and api.ts assemble everything
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const to = folderOf(normalize(join(dirname(file), m[1])));
      if (to !== from && !MAY_IMPORT[from].includes(to)) wrong.push(`${file} imports ${m[1]} (${from} -> ${to})`);
    }
  }
  assert.deepEqual(wrong, []);
});
