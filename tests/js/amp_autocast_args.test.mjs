// sg.autocast's argument Errors with their whole messages (PyTorch 1.13's torch.autocast('cpu')
// takes only lower-precision dtypes; float64 gets its own explanation), and its defaults: dtype
// bfloat16 (torch.autocast('cpu')'s default), enabled true. Each Error leaves autocast off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

test('autocast: dtype and fn checks say what was given; float64 is explained', () => {
  assert.throws(() => sg.autocast({ dtype: 'float64' }, () => 1),
    { message: "autocast: expected dtype 'bfloat16' or 'float16', got 'float64' (autocast lowers precision; float64 is not a lower-precision dtype, as in PyTorch)" });
  assert.throws(() => sg.autocast({ dtype: 'int8' }, () => 1), { message: "autocast: expected dtype 'bfloat16' or 'float16', got 'int8'" });
  assert.throws(() => sg.autocast({}, 'f'), { message: "autocast: expected fn to be a function, got 'f'" });
  sg.tidy(() => {
    const a = sg.ones([2, 2]);
    assert.equal(a.matmul(a).dtype, 'float32', 'autocast is off after the Errors');
    // defaults: bfloat16, enabled
    assert.equal(sg.autocast({}, () => a.matmul(a).dtype), 'bfloat16');
    assert.equal(sg.autocast({ enabled: true }, () => a.matmul(a).dtype), 'bfloat16');
    assert.equal(sg.autocast({ enabled: false }, () => a.matmul(a).dtype), 'float32');
    assert.equal(sg.autocast({}, () => 7), 7);
  });
});
