// String(module) reads as PyTorch 1.13's repr() of the same module: 178 modules built both ways
// (tests/data/gen_module_repr.py: PyTorch's expression beside the sg one, and PyTorch's repr of it),
// with defaults and with settings given, so a setting stored wrong, dropped, or printed in another
// form (1e-05, tuples, None, True) shows. Two rewrites of PyTorch's text, both for JavaScript's sake
// or PyTorch's internals: a float holding an integer prints as one (Python's 1.0 is JavaScript's 1),
// and MultiheadAttention's out_proj is PyTorch's NonDynamicallyQuantizableLinear (a quantization
// marker subclass of Linear with Linear's repr). Also: the leading positional settings of the small
// modules take a trailing options object (API.md's conventions), and the settings PyTorch requires
// are required.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readRef, sg } from './helpers.mjs';

const ref = readRef('module_repr_ref.json');

test('String(module) equals PyTorch 1.13 repr() for every module of module_repr_ref.json', () => {
  assert.ok(ref.cases.length >= 170, `${ref.cases.length} cases`);
  const wrong = [];
  for (const c of ref.cases) {
    const want = c.repr.replace(/(\d)\.0\b/g, '$1').replaceAll('NonDynamicallyQuantizableLinear', 'Linear');
    const m = new Function('sg', `return ${c.sg}`)(sg);
    const got = String(m);
    if (got !== want) wrong.push(`${c.sg}\n  PyTorch: ${want}\n  sg:      ${got}`);
    for (const p of m.parameters()) p.dispose();
    for (const [, b] of m.namedBuffers()) b?.dispose();
  }
  assert.deepEqual(wrong, []);
});

test('a positional setting and a trailing options object: both apply; inplace writes into the input', () => {
  const x = sg.tensor([-2, 0.5, -1]);
  const y = new sg.nn.LeakyReLU(0.5, { inplace: true }).forward(x);
  // PyTorch: LeakyReLU(0.5, inplace=True)(x) returns x, now [-1, 0.5, -0.5].
  assert.deepEqual(Array.from(x.dataSync()), [-1, 0.5, -0.5]);
  assert.deepEqual(Array.from(y.dataSync()), [-1, 0.5, -0.5]);
  const h = new sg.nn.Hardtanh(-0.5, 0.25, { inplace: true });
  assert.equal(h.minVal, -0.5); assert.equal(h.maxVal, 0.25); assert.equal(h.inplace, true);
  const s = new sg.nn.Softplus(2, { threshold: 7 });
  assert.equal(s.beta, 2); assert.equal(s.threshold, 7);
  const r = new sg.nn.RReLU(0.1, { upper: 0.2 });
  assert.equal(r.lower, 0.1); assert.equal(r.upper, 0.2); assert.equal(r.inplace, false);
  const p = new sg.nn.PReLU(2, { init: 0.1 });
  assert.deepEqual(Array.from(p.weight.dataSync()).map((v) => Math.round(v * 1e6) / 1e6), [0.1, 0.1]);
  // An undefined positional keeps its default, as an omitted one.
  assert.equal(new sg.nn.Dropout(undefined, { inplace: true }).p, 0.5);
  for (const t of [x, y, p.weight]) t.dispose();
});

test('a setting given twice, or too many positionals, is an Error naming the module', () => {
  const cases = [
    [() => new sg.nn.LeakyReLU(0.2, { negativeSlope: 0.3 }), "LeakyReLU: 'negativeSlope' given both as argument 1 and in the options"],
    [() => new sg.nn.Hardtanh(-1, 2, { maxVal: 3 }), "Hardtanh: 'maxVal' given both as argument 2 and in the options"],
    [() => new sg.nn.Dropout(0.1, 0.2), 'Dropout: takes (p?, options?), got 0.2 as argument 2'],
    [() => new sg.nn.ELU(1, true), 'ELU: takes (alpha?, options?), got true as argument 2'],
    [() => new sg.nn.Hardtanh(-1, 2, 3), 'Hardtanh: takes (minVal?, maxVal?, options?), got 3 as argument 3'],
    [() => new sg.nn.Dropout2d(0.1, { inplace: 1 }), /Dropout2d: .*inplace/],
  ];
  for (const [fn, message] of cases) {
    assert.throws(fn, (e) => e instanceof Error && (typeof message === 'string' ? e.message === message : message.test(e.message)), String(message));
  }
  assert.equal(String(new sg.nn.LeakyReLU(0.2)), 'LeakyReLU(negative_slope=0.2)'); // still usable
});

test('the sizes PyTorch requires are required: Unfold, Fold, MaxUnpool*, AdaptiveMaxPool*, Threshold', () => {
  const cases = [
    // (these three, as PyTorch's, check the sizes' values when called: argument_errors.test)
    [() => new sg.nn.Unfold(), /^Unfold: missing the required argument 'kernelSize'$/],
    [() => new sg.nn.Fold([4, 5]), /^Fold: missing the required argument 'kernelSize'$/],
    [() => new sg.nn.Fold(undefined, 2), /^Fold: missing the required argument 'outputSize'$/],
    [() => new sg.nn.MaxUnpool1d(), /^MaxUnpool1d: missing the required argument 'kernelSize'$/],
    [() => new sg.nn.AdaptiveMaxPool1d(), /^AdaptiveMaxPool1d: expected 'outputSize' to be a positive integer, got undefined$/],
    [() => new sg.nn.AdaptiveMaxPool2d([2, 0]), /^AdaptiveMaxPool2d: expected 'outputSize' to be a positive integer or 2 of them \(null keeps a dim\), got \[2, 0\]$/],
    [() => new sg.nn.Threshold(), /^Threshold: expected 'threshold' to be a number, got undefined$/],
    [() => new sg.nn.Threshold(0.5), /^Threshold: expected 'value' to be a number, got undefined$/],
  ];
  for (const [fn, re] of cases) assert.throws(fn, (e) => e instanceof Error && re.test(e.message), String(re));
  assert.equal(String(new sg.nn.AdaptiveMaxPool2d([2, null])), 'AdaptiveMaxPool2d(output_size=(2, None))');
});
