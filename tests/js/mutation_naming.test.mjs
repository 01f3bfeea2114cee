// scripts/mutation_ts_names.mjs: which test files name a sampled region (its declarations, its
// messages' words), the rule the Stryker sampler uses to add the tests that assert a region's
// Error messages. Expected terms and scores are worked out by hand from the rule in its header.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { namingScores, regionTerms, testText } from '../../scripts/mutation_ts_names.mjs';

const ts = createRequire(new URL('../../npm/package.json', import.meta.url))('typescript');

const source = [
  /* 1 */ 'export class Counter {',
  /* 2 */ '  step(n: unknown): number {',
  /* 3 */ "    if (typeof n !== 'number') throw new Error(`Counter.step: expected a positive count, got ${n}`);",
  /* 4 */ "    return n === 0 ? OPS.get('GreaterOrEqual')! : n;",
  /* 5 */ '  }',
  /* 6 */ '}',
  /* 7 */ "export function elsewhere(): string { return 'far away from the region here'; }",
  /* 8 */ "const OPS = new Map([['GreaterOrEqual', 1]]);",
].join('\n');

test('regionTerms: the declarations around the region, its strings as 3-word phrases, short keys as names', () => {
  const terms = regionTerms(ts, source, 'counter.ts', 3, 4, ['Counter', 'elsewhere']);
  const of = (kind) => terms.filter((t) => t.kind === kind).map((t) => t.text).sort();
  assert.deepEqual(of('name'), ['Counter', 'GreaterOrEqual', 'step']); // not typeof's 'number'
  assert.deepEqual(of('phrase'), ['a positive count', 'counter step expected', 'expected a positive', 'positive count got', 'step expected a']);
  assert.deepEqual(of('export'), ['elsewhere']); // Counter is a name already; line 7's string is outside
});

test('namingScores: rarity-weighted, phrases twice a name, a term in a quarter of the files dropped', () => {
  const terms = regionTerms(ts, source, 'counter.ts', 3, 4, ['Counter', 'elsewhere']);
  const texts = [
    testText('a', "assert.throws(() => c.step('x'), /Counter\\.step: expected a positive count, got x/);"),
    testText('b', 'new Counter().step(2); elsewhere();'),
    testText('c', 'const Counter = 1;'),
    ...['d', 'e', 'f', 'g', 'h', 'i', 'j', 'k'].map((t) => testText(t, 'unrelated();')),
  ];
  const s = namingScores(texts, terms);
  const N = texts.length; // 11: 'Counter' in 3 files, 3 * 4 >= 11: dropped
  const idf1 = Math.log((N + 1) / 2); // a term only one file holds
  const idf2 = Math.log((N + 1) / 3); // 'step': files a and b
  // a: 'step' and the 5 phrases (the regex escape and punctuation ignored).
  assert.ok(Math.abs(s.get('a').score - (idf2 + 5 * 2 * idf1)) < 1e-12, `a: ${s.get('a').score}`);
  assert.deepEqual(s.get('a').terms.filter((t) => t.kind === 'phrase').length, 5);
  // b: 'step' and the export 'elsewhere' at a tenth.
  assert.ok(Math.abs(s.get('b').score - (idf2 + 0.1 * idf1)) < 1e-12, `b: ${s.get('b').score}`);
  assert.equal(s.get('c').score, 0); // holds only 'Counter', too common here
  assert.equal(s.get('d').score, 0);
  assert.ok(!s.get('a').terms.some((t) => t.text === 'Counter'));
});
