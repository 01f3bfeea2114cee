// Every optimizer refuses a negative hyperparameter as PyTorch 1.13 does (torch.optim's
// "Invalid learning rate: -1", "Invalid epsilon value: ...", ...), in sg's words:
// "<Optimizer>: invalid <what>: <value> (expected a number >= 0)", where <what> is PyTorch's
// phrase with the option's sg name (lrDecay, weightDecay, ...). The table is written from
// torch/optim/*.py's checks, not read from the code: a message naming another optimizer or
// option, or a check left out, fails here. A refused optimizer is not made; zero is accepted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

const O = sg.optim;
// [optimizer, option, the phrase PyTorch's message uses for it]
const CHECKS = [
  ['SGD', 'lr', 'learning rate'], ['SGD', 'momentum', 'momentum value'], ['SGD', 'weightDecay', 'weightDecay value'],
  ['Adam', 'lr', 'learning rate'], ['Adam', 'eps', 'epsilon value'], ['Adam', 'weightDecay', 'weightDecay value'],
  ['AdamW', 'lr', 'learning rate'], ['AdamW', 'eps', 'epsilon value'], ['AdamW', 'weightDecay', 'weightDecay value'],
  ['Adagrad', 'lr', 'learning rate'], ['Adagrad', 'lrDecay', 'lrDecay value'], ['Adagrad', 'weightDecay', 'weightDecay value'],
  ['Adagrad', 'initialAccumulatorValue', 'initialAccumulatorValue value'], ['Adagrad', 'eps', 'epsilon value'],
  ['Adadelta', 'lr', 'learning rate'], ['Adadelta', 'eps', 'epsilon value'], ['Adadelta', 'weightDecay', 'weightDecay value'],
  ['RMSprop', 'lr', 'learning rate'], ['RMSprop', 'eps', 'epsilon value'], ['RMSprop', 'momentum', 'momentum value'],
  ['RMSprop', 'weightDecay', 'weightDecay value'], ['RMSprop', 'alpha', 'alpha value'],
  ['Adamax', 'lr', 'learning rate'], ['Adamax', 'eps', 'epsilon value'], ['Adamax', 'weightDecay', 'weightDecay value'],
  ['NAdam', 'lr', 'learning rate'], ['NAdam', 'eps', 'epsilon value'], ['NAdam', 'weightDecay', 'weightDecay value'],
  ['NAdam', 'momentumDecay', 'momentumDecay value'],
  ['RAdam', 'lr', 'learning rate'], ['RAdam', 'eps', 'epsilon value'], ['RAdam', 'weightDecay', 'weightDecay value'],
  ['LBFGS', 'lr', 'learning rate'], ['LBFGS', 'toleranceGrad', 'toleranceGrad value'], ['LBFGS', 'toleranceChange', 'toleranceChange value'],
];

test('a negative hyperparameter: "<Optimizer>: invalid <what>: <value> (expected a number >= 0)"; 0 is accepted', () => {
  const p = new sg.nn.Parameter(sg.ones([2]));
  for (const [opt, option, what] of CHECKS) {
    for (const bad of [-1, -0.5]) {
      const message = `${opt}: invalid ${what}: ${bad} (expected a number >= 0)`;
      // SGD has no default lr (PyTorch 1.13's 'required'): every case gives one.
      assert.throws(() => new O[opt]([p], { lr: 0.1, [option]: bad }), (e) => e instanceof Error && e.message === message, message);
    }
    assert.doesNotThrow(() => new O[opt]([p], { lr: 0.1, [option]: 0 }), `${opt} with ${option} 0`);
  }
  p.dispose();
});
