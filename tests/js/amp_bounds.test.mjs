// Boundaries and single disjuncts of sg.amp's guards: autocast's two accepted dtypes each alone
// and a third refused; GradScaler's growthFactor / backoffFactor / growthInterval just inside their
// bounds (torch.cuda.amp.GradScaler: growth > 1.0, backoff < 1.0, a positive interval) and on them;
// scale() over an object of tensors and its refusal of null / numbers; unscale_ skipping a
// parameter without a gradient. Expected values by hand; messages: the source's.
import test from 'node:test';
import assert from 'node:assert/strict';
import { sg, close, throwsWith } from './helpers.mjs';

test("autocast: 'bfloat16' and 'float16' each accepted alone, 'float32' / 'float64' refused by name", () => {
  const a = sg.ones([2, 2]);
  assert.equal(sg.autocast({ dtype: 'bfloat16' }, () => a.matmul(a).dtype), 'bfloat16');
  assert.equal(sg.autocast({ dtype: 'float16' }, () => a.matmul(a).dtype), 'float16');
  throwsWith(() => sg.autocast({ dtype: 'float32' }, () => 0), /^autocast: expected dtype 'bfloat16' or 'float16', got 'float32'$/);
  throwsWith(() => sg.autocast({ dtype: 'float64' }, () => 0), /^autocast: expected dtype 'bfloat16' or 'float16', got 'float64' \(autocast lowers precision; float64 is not a lower-precision dtype, as in PyTorch\)$/);
});

test('GradScaler: growthFactor 1 / backoffFactor 1 / growthInterval 0 refused; 1.0001 / 0.9999 / 1 accepted', () => {
  throwsWith(() => new sg.amp.GradScaler({ growthFactor: 1 }), /^GradScaler: the growth factor must be > 1\.0, got 1$/);
  throwsWith(() => new sg.amp.GradScaler({ backoffFactor: 1 }), /^GradScaler: the backoff factor must be < 1\.0, got 1$/);
  throwsWith(() => new sg.amp.GradScaler({ growthInterval: 0 }), /^GradScaler: the growth interval must be > 0, got 0$/);
  const s = new sg.amp.GradScaler({ growthFactor: 1.0001, backoffFactor: 0.9999, growthInterval: 1, initScale: 4 });
  assert.equal(s.getGrowthFactor(), 1.0001);
  assert.equal(s.getBackoffFactor(), 0.9999);
  assert.equal(s.getGrowthInterval(), 1);
});

test('GradScaler.scale: an object of tensors is scaled entry by entry; null and a number are refused', () => {
  const s = new sg.amp.GradScaler({ initScale: 4 });
  const out = s.scale({ a: sg.tensor([1, 2]), b: [sg.tensor([3])] });
  close(out.a.toArray(), [4, 8]);
  close(out.b[0].toArray(), [12]);
  throwsWith(() => s.scale({ a: null }), /^GradScaler\.scale: expected a Tensor or arrays \/ objects of Tensors, got null$/);
  throwsWith(() => s.scale(3), /^GradScaler\.scale: expected a Tensor or arrays \/ objects of Tensors, got 3$/);
});

test('GradScaler.unscale_: a parameter without a gradient (null) is skipped, the others divided', () => {
  const p = sg.tensor([1, 2], { requiresGrad: true });
  const q = sg.tensor([3], { requiresGrad: true });
  const opt = new sg.optim.SGD([p, q], { lr: 0.1 });
  const s = new sg.amp.GradScaler({ initScale: 4 });
  s.scale(p.sum()).backward();
  assert.equal(q.grad, null);
  s.unscale_(opt);
  close(p.grad.toArray(), [1, 1]);
  assert.equal(q.grad, null);
  s.step(opt);
  close(p.toArray(), [0.9, 1.9]);
  close(q.toArray(), [3]);
});
