// The threaded module from the installed tarball: dist/mt/ must be in the package
// (npm/package.json "files"), load with init({ threads: 2 }), compute, and let Node exit.
import assert from 'node:assert/strict';
import { init } from 'simdgrad';

const sg = await init({ threads: 2 });
assert.equal(sg.features().threads, true);
assert.equal(sg.getNumThreads(), 2);
const a = sg.ones([256, 256]);
assert.equal(a.matmul(a).sum().item(), 256 ** 3);
console.log('consumer threads.mjs: OK (threads', sg.getNumThreads() + ')');
