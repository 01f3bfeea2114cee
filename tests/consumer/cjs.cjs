// Consumer check (CommonJS): require('simdgrad') gives the same init (tests/consumer/run.sh).
'use strict';
const assert = require('node:assert/strict');
const { init, Tensor } = require('simdgrad');

(async () => {
  assert.equal(typeof init, 'function');
  const sg = await init();
  const t = sg.tensor([[1, 2], [3, 4]]);
  assert.ok(t instanceof Tensor);
  assert.deepEqual(t.matmul(t).toArray(), [[7, 10], [15, 22]]);
  const g = sg.grad((x) => x.square().sum())(sg.tensor([1, 2, 3]));
  assert.deepEqual(g.toArray(), [2, 4, 6]);
  console.log(`cjs: ok (simdgrad ${sg.version})`);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
