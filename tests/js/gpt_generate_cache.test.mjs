// sg.models.GPT.generate with its key/value cache against model.py's generate written out here with the model's
// own full forward (the whole cropped sequence each step, the last position's logits, temperature, top-k,
// multinomial): the same tokens, greedy and sampled with one seed, within blockSize and past it (where both
// recompute the cropped window); the cache is used (no full forward while the sequence fits), and not in train mode
// with dropout (model.py's draws). models.test.mjs checks greedy against argmax of full forwards too.
import assert from 'node:assert/strict';
import test from 'node:test';
import { sg } from './helpers.mjs';

const CONFIG = { blockSize: 24, vocabSize: 37, nLayer: 2, nHead: 3, nEmbd: 24, dropout: 0.1, bias: true };

/** model.py's generate: recompute everything each step. */
function recompute(m, idx, n, { temperature = 1, topK = null } = {}) {
  return sg.noGrad(() => {
    let out = idx.clone();
    for (let i = 0; i < n; i++) {
      const next = sg.tidy(() => {
        const T = out.shape[1];
        const cond = T <= CONFIG.blockSize ? out : out.narrow(1, T - CONFIG.blockSize, CONFIG.blockSize);
        let logits = m.forward(cond).logits.select(1, 0).div(temperature);
        if (topK !== null) logits = logits.maskedFill(logits.lt(logits.topk(topK).values.narrow(-1, topK - 1, 1)), -Infinity);
        return sg.cat([out, sg.multinomial(logits.softmax(-1), 1)], 1);
      });
      out.dispose();
      out = next;
    }
    return out;
  });
}

function countingForward(m) {
  let calls = 0;
  const forward = m.forward.bind(m);
  m.forward = (...a) => {
    calls++;
    return forward(...a);
  };
  return () => calls;
}

test('GPT.generate with the cache gives model.py\'s tokens (greedy and sampled, one seed), inside blockSize and past it', () => {
  sg.manualSeed(11);
  const m = new sg.models.GPT(CONFIG).eval();
  const idx = sg.tensor([[1, 2, 3, 4, 5], [9, 8, 7, 6, 5]], { dtype: 'int32' });
  for (const [n, options] of [[15, { topK: 1 }], [15, { temperature: 0.8, topK: 5 }], [30, { temperature: 1.3 }], [30, {}]]) {
    sg.manualSeed(3);
    const want = recompute(m, idx, n, options);
    sg.manualSeed(3);
    const calls = countingForward(m);
    const got = m.generate(idx, n, options);
    assert.deepEqual(got.toArray(), want.toArray(), `${n} tokens, ${JSON.stringify(options)}`);
    // Steps read 5 … 5 + n − 1 positions: the cache serves every step whose sequence fits in blockSize (24).
    assert.equal(calls(), Math.max(0, 5 + n - 1 - CONFIG.blockSize), `full forwards for ${n} tokens`);
    delete m.forward;
    sg.dispose([got, want]);
  }
  idx.dispose();
  m.dispose();
});

test('GPT.generate in train mode with dropout recomputes as model.py (same draws); the cache leaves memory flat', () => {
  sg.manualSeed(12);
  const m = new sg.models.GPT(CONFIG).train();
  const idx = sg.tensor([[4, 5, 6]], { dtype: 'int32' });
  sg.manualSeed(7);
  const want = recompute(m, idx, 6);
  sg.manualSeed(7);
  const calls = countingForward(m);
  const got = m.generate(idx, 6);
  assert.deepEqual(got.toArray(), want.toArray());
  assert.equal(calls(), 6);
  delete m.forward;
  sg.dispose([got, want]);
  m.eval();
  m.generate(idx, 4).dispose();
  const { tensors, bytes } = sg.memory();
  for (let i = 0; i < 3; i++) m.generate(idx, 25).dispose();
  assert.deepEqual([sg.memory().tensors, sg.memory().bytes], [tensors, bytes]);
  idx.dispose();
  m.dispose();
});
