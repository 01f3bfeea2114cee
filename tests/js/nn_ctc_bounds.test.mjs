// F.ctcLoss (nn/ctc_loss.ts): the length lists' count, element and type bounds; concatenated targets' total;
// padded targets' width bound (a length equal to S taken, S + 1 refused), each alone. Oracle: PyTorch 1.13
// F.ctc_loss (concatenated targets of exactly Σ lengths taken, one more refused; padded [N, S] with a length
// S taken, S + 1 refused; a padded [N, S] whose N·S differs from Σ lengths taken); messages are sg's contract.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith, close } from './helpers.mjs';

const F = sg.F;
const i32 = (v) => sg.tensor(v, { dtype: 'int32' });

test('ctcLoss lengths: wrong count, not a list, a negative or fractional element refused alone; 0 and a single number taken', () => sg.tidy(() => {
  const lp = sg.full([4, 2, 3], Math.log(1 / 3));
  const tg = i32([[1, 2], [1, 1]]);
  const msg = (name, got) => `ctcLoss: expected '${name}' to be 2 non-negative integers, got ${got}`;
  throwsWith(() => F.ctcLoss(lp, tg, [4], [2, 2]), msg('inputLengths', '[4]'));
  throwsWith(() => F.ctcLoss(lp, tg, [4, 4, 4], [2, 2]), msg('inputLengths', '[4, 4, 4]'));
  throwsWith(() => F.ctcLoss(lp, tg, 'x', [2, 2]), msg('inputLengths', "'x'"));
  throwsWith(() => F.ctcLoss(lp, tg, 'xy', [2, 2]), msg('inputLengths', "'xy'"));
  throwsWith(() => F.ctcLoss(lp, tg, [4, 4], [2, -1]), msg('targetLengths', '[2, -1]'));
  throwsWith(() => F.ctcLoss(lp, tg, [4, 4], [2, 0.5]), msg('targetLengths', '[2, 0.5]'));
  assert.equal(F.ctcLoss(lp, tg, [4, 4], [2, 0], { reduction: 'none' }).shape[0], 2);
  const lp1 = sg.full([4, 1, 3], Math.log(1 / 3));
  assert.equal(F.ctcLoss(lp1, i32([[1, 2]]), 4, 2, { reduction: 'none' }).shape[0], 1);
}));

test('ctcLoss targets: concatenated of Σ lengths taken, one more refused; padded needs every length <= S (== S taken)', () => sg.tidy(() => {
  const lp = sg.full([4, 2, 3], Math.log(1 / 3));
  const padded = F.ctcLoss(lp, i32([[1, 2], [1, 1]]), [4, 4], [2, 2], { reduction: 'none' }).toArray();
  const cat = F.ctcLoss(lp, i32([1, 2, 1, 1]), [4, 4], [2, 2], { reduction: 'none' }).toArray();
  close(cat, padded, 1e-6);
  throwsWith(() => F.ctcLoss(lp, i32([1, 2, 1, 1, 1]), [4, 4], [2, 2]), 'ctcLoss: expected concatenated targets of length 4 (the sum of targetLengths), got 5');
  throwsWith(() => F.ctcLoss(lp, i32([1, 2, 1]), [4, 4], [2, 2]), 'ctcLoss: expected concatenated targets of length 4 (the sum of targetLengths), got 3');
  // Padded targets whose N·S is not Σ lengths: taken.
  close(F.ctcLoss(lp, i32([[1, 2, 0], [1, 1, 0]]), [4, 4], [2, 2], { reduction: 'none' }).toArray(), padded, 1e-6);
  throwsWith(() => F.ctcLoss(lp, i32([[1, 2], [1, 1]]), [4, 4], [2, 3]),
    'ctcLoss: expected targets [N, S] (or [S] for one sample) holding every target length, got shape [2, 2] for targetLengths [2, 3]');
  const lpu = sg.full([4, 3], Math.log(1 / 3));
  assert.equal(F.ctcLoss(lpu, i32([1, 2]), 4, 2).ndim, 0);
  throwsWith(() => F.ctcLoss(lpu, i32([1, 2]), 4, 3), 'got shape [2] for targetLengths [3]');
}));
