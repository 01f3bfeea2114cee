// sg.compile in the threaded module (init({ threads: 2 })): the kernels of a stage are split over
// the pool, while JavaScript callbacks and vjps run only on the thread that made the call (never
// on a worker), and the results equal the eager ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isMainThread } from 'node:worker_threads';
import { init } from '../../npm/dist/index.mjs';

const sg = await init({ threads: 2 });

test('callbacks and vjps run on the calling thread; kernels on the pool; compiled equals eager', () => {
  assert.equal(sg.getNumThreads(), 2);
  const onMain = [];
  const cb = (t) => {
    onMain.push(isMainThread);
    return t.neg();
  };
  const vjp = (_, [g]) => {
    onMain.push(isMainThread);
    return [g.neg()];
  };
  // 512² elements: the matmul and the elementwise kernels are split over the threads.
  const loss = (x, w) => {
    const y = x.matmul(w).tanh().mul(2);
    const z = sg.jsCall({ shape: [512, 512] }, [y], cb, { vjp });
    return z.add(1).square().mean();
  };
  const compiled = sg.compile(loss);
  sg.tidy(() => {
    const x = sg.randn([512, 512]);
    const w1 = sg.randn([512, 512]).mul(0.05).requiresGrad_(), w2 = w1.detach().requiresGrad_();
    const lc = compiled(x, w1);
    lc.backward();
    const le = loss(x, w2);
    le.backward();
    assert.ok(Math.abs(lc.item() - le.item()) <= 1e-6 * Math.abs(le.item()));
    const a = w1.grad.dataSync(), b = w2.grad.dataSync();
    let worst = 0;
    for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / (1e-3 + Math.abs(b[i])));
    assert.ok(worst < 1e-4, `gradients differ by ${worst}`);
  });
  assert.ok(onMain.length >= 4);
  assert.ok(onMain.every((m) => m === true));
  sg.shutdown();
});
