// sg.compile's options: fuse (default true: an elementwise chain becomes one fused kernel; false: each
// op its own node), backend ('wasm' | 'reference' | 'auto', the same values), and the option Errors
// with their messages. Oracle: sin(relu(2x + 1)) by hand (Math.sin in float32), the documented
// default of fuse, and the messages (npm/src/compile/compile.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith, scoped } from './helpers.mjs';

const fn = (x) => x.mul(2).add(1).relu().sin();
const want = [-1, 0.5, 2].map((v) => Math.sin(Math.max(0, 2 * v + 1)));

test('fuse: on by default (the 4-op chain is one fused node), off with { fuse: false } (4 nodes); the same values either way and on every backend', scoped(() => {
  const x = sg.tensor([-1, 0.5, 2]);
  for (const [options, fused, nodes] of [[undefined, 1, 1], [{}, 1, 1], [{ fuse: true }, 1, 1], [{ fuse: false }, 0, 4]]) {
    const f = sg.compile(fn, options);
    close(Array.from(f(x).dataSync()), want, 1e-6);
    const s = f.stats();
    assert.equal(s.fused, fused, `fused with ${JSON.stringify(options)}`);
    assert.equal(s.fusedOps, fused * 4, `fusedOps with ${JSON.stringify(options)}`);
    assert.equal(s.nodes, nodes, `nodes with ${JSON.stringify(options)}`);
  }
  for (const backend of ['wasm', 'reference', 'auto']) close(Array.from(sg.compile(fn, { backend })(x).dataSync()), want, 1e-6, backend);
}));

test('bad options are Errors naming the option and what it got', () => {
  throwsWith(() => sg.compile(fn, { cacheSize: 1.5 }), "compile: option 'cacheSize' must be a positive integer, got 1.5");
  throwsWith(() => sg.compile(fn, { cacheSize: 0 }), "compile: option 'cacheSize' must be a positive integer, got 0");
  throwsWith(() => sg.compile(fn, { backend: 'gpu' }), "compile: option 'backend' must be 'wasm', 'reference' or 'auto', got 'gpu'");
  throwsWith(() => sg.compile(fn, { fuse: 'yes' }), "compile: option 'fuse' must be a boolean, got 'yes'");
  throwsWith(() => sg.compile(fn, { async: 1 }), "compile: option 'async' must be a boolean, got 1");
  throwsWith(() => sg.compile(fn, { fused: true }), "compile: unknown option 'fused'");
  throwsWith(() => sg.compile(5), 'compile: expected fn to be a function, got 5');
});
