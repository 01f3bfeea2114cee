// sg.compile with static (non-tensor) arguments of every kind: each distinct value is its own
// signature (a new trace), an equal one replays. The oracle: the compiled result equals the eager
// fn on the same arguments (hand values below), and stats().compiles counts the distinct
// signatures. Two symbols with one description are different values: they once shared a key
// (String(symbol)), so the second call replayed the first one's trace ([2, 4] where eager gives [3, 6]).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, scoped } from './helpers.mjs';

const x = () => sg.tensor([1, 2]);
const vals = (t) => Array.from(t.dataSync());

test('static booleans, undefined and null, bigints and symbols key the trace by value (symbols by identity)', scoped(() => {
  const A = Symbol('mode');
  const B = Symbol('mode');
  const R = Symbol.for('registered');
  // the factor each static value stands for
  const factor = (s) => (s === true ? 2 : s === false ? 3 : s === undefined ? 4 : s === null ? 5 : s === 7n ? 6 : s === 8n ? 7 : s === A ? 8 : s === B ? 9 : s === R ? 10 : 1);
  const f = sg.compile((t, s) => t.mul(factor(s)), { cacheSize: 16 });
  const calls = [[true, 2], [false, 3], [undefined, 4], [null, 5], [7n, 6], [8n, 7], [A, 8], [B, 9], [R, 10]];
  for (const [s, k] of calls) assert.deepEqual(vals(f(x(), s)), [k, 2 * k], `static ${String(s)}`);
  assert.equal(f.stats().compiles, calls.length, 'one trace per distinct value');
  // equal values replay
  for (const [s, k] of calls) assert.deepEqual(vals(f(x(), s)), [k, 2 * k], `replay ${String(s)}`);
  assert.equal(f.stats().compiles, calls.length);
  assert.equal(f.stats().cacheHits, calls.length);
  assert.deepEqual(vals(f(x(), Symbol.for('registered'))), [10, 20], 'Symbol.for gives the same symbol');
  assert.equal(f.stats().compiles, calls.length);
}));

test('class instances and functions are keyed by identity, plain objects by their contents', scoped(() => {
  class Cfg {
    constructor(k) { this.k = k; }
  }
  const g = sg.compile((t, c) => t.mul(c.k));
  const c1 = new Cfg(2);
  const c2 = new Cfg(5);
  assert.deepEqual(vals(g(x(), c1)), [2, 4]);
  assert.deepEqual(vals(g(x(), c2)), [5, 10]);
  assert.deepEqual(vals(g(x(), c1)), [2, 4]);
  assert.equal(g.stats().compiles, 2);
  const h = sg.compile((t, fn) => fn(t));
  const double = (t) => t.mul(2);
  const square = (t) => t.mul(t);
  assert.deepEqual(vals(h(x(), double)), [2, 4]);
  assert.deepEqual(vals(h(x(), square)), [1, 4]);
  assert.deepEqual(vals(h(x(), double)), [2, 4]);
  assert.equal(h.stats().compiles, 2);
  const p = sg.compile((t, o) => t.mul(o.k));
  assert.deepEqual(vals(p(x(), { k: 3 })), [3, 6]);
  assert.deepEqual(vals(p(x(), { k: 3 })), [3, 6]);
  assert.deepEqual(vals(p(x(), { k: 4 })), [4, 8]);
  assert.equal(p.stats().compiles, 2, 'an equal plain object replays');
}));

test('the cache keeps 8 signatures by default (torch._dynamo cache_size_limit 8), least recently used out first; cacheSize raises it', scoped(() => {
  const fn = (t, k) => t.mul(k);
  const f = sg.compile(fn);
  for (let k = 1; k <= 9; k++) assert.deepEqual(vals(f(x(), k)), [k, 2 * k]);
  assert.equal(f.stats().compiles, 9);
  assert.deepEqual(vals(f(x(), 9)), [9, 18]);
  assert.equal(f.stats().compiles, 9, 'the most recent signature is kept');
  assert.deepEqual(vals(f(x(), 1)), [1, 2]);
  assert.equal(f.stats().compiles, 10, 'the first (least recently used) was dropped at the 9th');
  assert.deepEqual(vals(f(x(), 3)), [3, 6]);
  assert.equal(f.stats().compiles, 10, 'the 3rd is still kept (the 2nd went out for the 1st)');
  assert.deepEqual(vals(f(x(), 2)), [2, 4]);
  assert.equal(f.stats().compiles, 11);
  const g = sg.compile(fn, { cacheSize: 9 });
  for (let k = 1; k <= 9; k++) g(x(), k);
  g(x(), 1);
  assert.equal(g.stats().compiles, 9, 'with cacheSize 9 nine signatures stay');
  // least recently used, not first in: a hit on 1 keeps it over 2
  const three = sg.compile(fn, { cacheSize: 3 });
  for (const k of [1, 2, 3, 1, 4, 1]) three(x(), k);
  assert.equal(three.stats().compiles, 4, '1 was used after 2 and 3: 4 drops 2');
  three(x(), 2);
  assert.equal(three.stats().compiles, 5);
  const one = sg.compile(fn, { cacheSize: 1 });
  one(x(), 1);
  one(x(), 2);
  one(x(), 1);
  assert.equal(one.stats().compiles, 3);
}));
