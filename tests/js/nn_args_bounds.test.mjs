// nn/args.ts (positionalOrOptions, tupleArg) and F.celu's alpha (nn/activations_composed.ts): each part of each
// guard decides a call. Oracle: PyTorch 1.13 (F.celu: alpha 0 and -0 refused, ZeroDivisionError "alpha cannot be 0";
// a negative alpha taken: celu(-1, alpha=-1) = -1·(exp(1) − 1) = -1.718281828; nn.CELU(alpha) takes one positional;
// Conv3d's kernel_size an int or a 3-tuple); messages are sg's contract (read from the source).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith, close } from './helpers.mjs';

test("F.celu: alpha not a number, not finite, or zero (each alone) is refused; small and negative alphas are taken", () => sg.tidy(() => {
  const x = sg.tensor([-1, 1]);
  const msg = (got) => `celu: expected 'alpha' to be a finite nonzero number, got ${got}`;
  throwsWith(() => sg.F.celu(x, '1'), msg("'1'"));
  throwsWith(() => sg.F.celu(x, NaN), msg('NaN'));
  throwsWith(() => sg.F.celu(x, Infinity), msg('Infinity'));
  throwsWith(() => sg.F.celu(x, 0), msg('0'));
  throwsWith(() => sg.F.celu(x, -0), /celu: expected 'alpha' to be a finite nonzero number, got -?0$/);
  close(sg.F.celu(x, -1).toArray(), [-1.718281828, 1], 1e-5);
  close(sg.F.celu(x, 1e-3).toArray(), [-1e-3, 1], 1e-6);
  close(sg.F.celu(x).toArray(), [Math.exp(-1) - 1, 1], 1e-6);
}));

test('positionalOrOptions: as many positionals as keys taken, one more refused naming it; undefined and null positionals are not given', () => sg.tidy(() => {
  assert.equal(new sg.nn.CELU(0.5).alpha, 0.5);
  assert.equal(new sg.nn.CELU(0.5, { inplace: true }).inplace, true);
  throwsWith(() => new sg.nn.CELU(0.5, 0.25), 'CELU: takes (alpha?, options?), got 0.25 as argument 2');
  assert.equal(new sg.nn.CELU(null, { alpha: 0.3 }).alpha, 0.3);
  assert.equal(new sg.nn.CELU(undefined, { alpha: 0.3 }).alpha, 0.3);
  throwsWith(() => new sg.nn.CELU(0.2, { alpha: 0.3 }), "CELU: 'alpha' given both as argument 1 and in the options");
}));

test('tupleArg: an array of n or of 1 taken (the 1 repeated), other lengths and bad elements refused', () => sg.tidy(() => {
  assert.deepEqual(new sg.nn.Conv3d(1, 1, [2]).weight.shape, [1, 1, 2, 2, 2]);
  assert.deepEqual(new sg.nn.Conv3d(1, 1, [1, 2, 3]).weight.shape, [1, 1, 1, 2, 3]);
  assert.deepEqual(new sg.nn.Conv3d(1, 1, 2).weight.shape, [1, 1, 2, 2, 2]);
  const msg = (got) => `Conv3d: expected 'kernelSize' to be an integer >= 1 or an array of 3 integers >= 1, got ${got}`;
  throwsWith(() => new sg.nn.Conv3d(1, 1, [2, 2]), msg('[2, 2]'));
  throwsWith(() => new sg.nn.Conv3d(1, 1, [2, 2, 2, 2]), msg('[2, 2, 2, 2]'));
  throwsWith(() => new sg.nn.Conv3d(1, 1, []), msg('[]'));
  throwsWith(() => new sg.nn.Conv3d(1, 1, [2, 0, 2]), msg('[2, 0, 2]'));
  throwsWith(() => new sg.nn.Conv3d(1, 1, [0]), msg('[0]'));
  throwsWith(() => new sg.nn.Conv3d(1, 1, 0), msg('0'));
}));
