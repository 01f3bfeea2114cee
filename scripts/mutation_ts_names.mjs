// Which node:test files NAME a sampled region of npm/src (scripts/mutation_ts_tests.mjs uses this
// beside per-test coverage): a test that spells out the region's functions, classes and methods, or
// the words of its Error messages and other strings, is the one whose assertions kill its mutants.
// Why: lines executed are not mutants killed. A StringLiteral mutant of an Error message survives
// every test that only executes the throw; argument_errors.test, which asserts the message, was left
// out by the set cover of lines (seeds 16-19 had to add it by hand with --ts-extra-tests).
// What counts as naming, from the TypeScript AST of the source:
// - names: the declarations the region overlaps and those around it (function, method, accessor,
//   class, a const/property holding a function), as a whole word in the test's text;
// - phrases: every string and template chunk in the region, as runs of three words, matched word
//   for word in the test's text with punctuation and regex escapes ignored, case-insensitively; a
//   chunk of fewer words that is one key of 6 characters or more ('Greater', an ONNX op's name;
//   not typeof's 'string' and the like) counts as a name, spelled as is;
// - the file's other exported names, at a tenth of the weight (a test that uses the file may reach
//   the region: the best guess where nothing else names it).
// A term counts by its rarity among the test files (log((N + 1) / (df + 1))), phrases twice; a term
// that a quarter of the test files hold or more tells nothing and is dropped.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// typeof's answers: a chunk every file compares with, that names nothing.
const TYPEOF = new Set(['string', 'number', 'bigint', 'boolean', 'symbol', 'undefined', 'object', 'function']);
const words = (text) => text.match(/[A-Za-z0-9_]+/g) ?? [];
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A test file's text: raw (for names) and as lower-case words between spaces (for phrases). */
export const testText = (t, raw) => ({ t, raw, flat: ` ${words(raw.toLowerCase()).join(' ')} ` });
/** The test files' text, read once. */
export const testTexts = (root, testFiles) => testFiles.map((t) => testText(t, readFileSync(join(root, t), 'utf8')));

/** The region's terms: { kind: 'name' | 'phrase' | 'export', text }. */
export function regionTerms(ts, sourceText, fileName, start, end, exported) {
  const sf = ts.createSourceFile(fileName, sourceText, ts.ScriptTarget.Latest, true);
  const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const names = new Set();
  const phrases = new Set();
  const nameOf = (node) => {
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isClassDeclaration(node) || ts.isGetAccessor(node)
      || ts.isSetAccessor(node)) && node.name && ts.isIdentifier(node.name)) return node.name.text;
    if ((ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node) || ts.isPropertyAssignment(node)) && node.name
      && ts.isIdentifier(node.name) && node.initializer && (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))) return node.name.text;
    if (ts.isConstructorDeclaration(node) && node.parent.name) return node.parent.name.text;
    return null;
  };
  const addPhrases = (text) => {
    const w = words(text.toLowerCase());
    if (w.length >= 3) for (let i = 0; i + 3 <= w.length; i++) phrases.add(w.slice(i, i + 3).join(' '));
    // A short chunk is a key or a tag ('Greater', an ONNX op's name): spelled as is, as a name is.
    else if (/^[A-Za-z_$][\w$.]*$/.test(text) && text.length >= 6 && !TYPEOF.has(text)) names.add(text);
  };
  const visit = (node) => {
    const a = lineOf(node.getStart(sf)), b = lineOf(node.getEnd());
    if (b < start || a > end) return; // outside the region: nothing of it, nor below it
    const n = nameOf(node);
    if (n) names.add(n); // overlaps the region: encloses it or lies in it
    // Visited means it overlaps the region; a chunk of a template that spans lines counts whole.
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node)
      || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) addPhrases(node.text);
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(sf, visit);
  const terms = [...names].filter((n) => n.length >= 3).map((text) => ({ kind: 'name', text }));
  terms.push(...[...phrases].map((text) => ({ kind: 'phrase', text })));
  terms.push(...exported.filter((n) => !names.has(n)).map((text) => ({ kind: 'export', text })));
  return terms;
}

const WEIGHT = { name: 1, phrase: 2, export: 0.1 };

/** test file -> { score: how strongly it names the region (0: not at all), terms: the terms it holds }. */
export function namingScores(texts, terms) {
  const N = texts.length;
  const holds = (x, term) => (term.kind === 'phrase' ? x.flat.includes(` ${term.text} `)
    : (term.re ??= new RegExp(`(?<![\\w$])${escapeRe(term.text)}(?![\\w$])`)).test(x.raw));
  const scores = new Map(texts.map((x) => [x.t, { score: 0, terms: [] }]));
  for (const term of terms) {
    const having = texts.filter((x) => holds(x, term));
    if (!having.length || having.length * 4 >= N) continue; // absent, or too common to tell anything
    const w = WEIGHT[term.kind] * Math.log((N + 1) / (having.length + 1));
    for (const x of having) {
      const s = scores.get(x.t);
      s.score += w;
      s.terms.push(term);
    }
  }
  return scores;
}
