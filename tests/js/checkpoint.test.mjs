// sg.utils.checkpoint and model.gradientCheckpointingEnable(): gradients equal those of the same
// computation without checkpointing (the plain autograd graph is the oracle: identical ops, so equal
// to float32 rounding), dropout replays the same masks in the recompute (the random state of the
// forward) and leaves the generator where an unchecked run leaves it, and the memory a forward
// holds for backward (sg.memory().bytes after the forward, peakBytes over the step) drops. Inside
// sg.compile it is fn traced as it is: the compiled step's gradients equal the plain graph's.
import assert from 'node:assert/strict';
import test from 'node:test';
import { sg, throwsWith } from './helpers.mjs';
import { forEachBackend, values } from './backends.mjs';

function maxDiff(a, b) {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** A deep tanh-MLP block as a function of x, with W1, W2 captured (leaves the recompute must reach). */
function mlp(W1, W2, p = 0) {
  return (x) => {
    let h = x;
    for (let i = 0; i < 6; i++) {
      h = h.matmul(W1).tanh();
      if (p > 0) h = sg.F.dropout(h, { p, training: true });
      h = h.matmul(W2).sigmoid().add(h);
    }
    return h;
  };
}

function grads(run, tensors) {
  for (const t of tensors) t.grad = null;
  sg.tidy(() => run().backward());
  return sg.tidy(() => tensors.map((t) => Float32Array.from(t.grad.dataSync())));
}

test('checkpoint(fn, x): the same gradients for x and for the leaves fn captures; two outputs; non-tensor arguments', () => {
  sg.manualSeed(1);
  const W1 = sg.randn([16, 16]).mul(0.3).requiresGrad_();
  const W2 = sg.randn([16, 16]).mul(0.3).requiresGrad_();
  const x = sg.randn([8, 16]).requiresGrad_();
  const f = mlp(W1, W2);
  const plain = grads(() => f(x).square().sum(), [x, W1, W2]);
  const ckpt = grads(() => sg.utils.checkpoint(f, x).square().sum(), [x, W1, W2]);
  plain.forEach((g, i) => assert.ok(maxDiff(g, ckpt[i]) <= 1e-6, `grad ${i}: ${maxDiff(g, ckpt[i])}`));
  // Two outputs and a number argument.
  const two = (a, scale) => [f(a).mul(scale), a.matmul(W2).exp()];
  const plain2 = grads(() => { const [u, v] = two(x, 3); return u.sum().add(v.square().sum()); }, [x, W1, W2]);
  const ckpt2 = grads(() => { const [u, v] = sg.utils.checkpoint(two, x, 3); return u.sum().add(v.square().sum()); }, [x, W1, W2]);
  plain2.forEach((g, i) => assert.ok(maxDiff(g, ckpt2[i]) <= 1e-5 * (1 + Math.max(...g.map(Math.abs))), `two outputs, grad ${i}`));
  // An input that does not require grad: the captured leaves still get theirs.
  const xc = x.detach();
  const plain3 = grads(() => f(xc).sum(), [W1, W2]);
  const ckpt3 = grads(() => sg.utils.checkpoint(f, xc).sum(), [W1, W2]);
  plain3.forEach((g, i) => assert.ok(maxDiff(g, ckpt3[i]) <= 1e-6, `frozen input, grad ${i}`));
  sg.dispose([W1, W2, x, xc]);
});

test('dropout inside: the recompute draws the masks of the forward, and the generator ends where it would without checkpointing', () => {
  sg.manualSeed(2);
  const W1 = sg.randn([16, 16]).mul(0.3).requiresGrad_();
  const W2 = sg.randn([16, 16]).mul(0.3).requiresGrad_();
  const x = sg.randn([8, 16]).requiresGrad_();
  const f = mlp(W1, W2, 0.3);
  sg.manualSeed(9);
  const plain = grads(() => f(x).square().sum(), [x, W1, W2]);
  const after1 = sg.tidy(() => Array.from(sg.rand([4]).dataSync()));
  sg.manualSeed(9);
  const ckpt = grads(() => sg.utils.checkpoint(f, x).square().sum(), [x, W1, W2]);
  const after2 = sg.tidy(() => Array.from(sg.rand([4]).dataSync()));
  plain.forEach((g, i) => assert.ok(maxDiff(g, ckpt[i]) <= 1e-6, `grad ${i}: ${maxDiff(g, ckpt[i])}`));
  assert.deepEqual(after2, after1);
  sg.dispose([W1, W2, x]);
});

test('memory: the forward keeps only the inputs and outputs of a checkpointed region; intermediates come back in backward', () => {
  sg.manualSeed(3);
  const W1 = sg.randn([256, 256]).mul(0.05).requiresGrad_();
  const W2 = sg.randn([256, 256]).mul(0.05).requiresGrad_();
  const x = sg.randn([64, 256]).requiresGrad_();
  const f = mlp(W1, W2);
  const held = (wrap) => {
    const base = sg.memory().bytes;
    sg.resetPeakMemory();
    let during = 0;
    sg.tidy(() => {
      const loss = wrap(x).square().sum();
      during = sg.memory().bytes - base;
      loss.backward();
    });
    return { during, peak: sg.memory().peakBytes - base };
  };
  const plain = held(f);
  const ckpt = held((a) => sg.utils.checkpoint(f, a));
  const act = 64 * 256 * 4; // one activation
  // Without checkpointing the graph holds the 6 blocks' intermediates (≥ 4 activations each); with
  // it, the output (and the loss's square) only.
  assert.ok(plain.during >= 20 * act, `plain forward holds ${plain.during / act} activations`);
  assert.ok(ckpt.during <= 4 * act, `checkpointed forward holds ${ckpt.during / act} activations`);
  assert.ok(ckpt.peak < plain.peak, `peak ${ckpt.peak} vs ${plain.peak}`);
  sg.dispose([W1, W2, x, W1.grad, W2.grad, x.grad]);
});

/** Next-token loss of a model that maps ids to logits [B, T, V]. */
function nextTokenLoss(model, ids) {
  const logits = model.forward(ids);
  const [, T, V] = logits.shape;
  return sg.F.crossEntropy(logits.narrow(1, 0, T - 1).reshape([-1, V]), ids.narrow(1, 1, T - 1).reshape([-1]));
}

async function lmCase(make, lossOf = nextTokenLoss) {
  sg.manualSeed(4);
  const model = make();
  const ids = sg.randint(0, 48, [2, 12]).to('int32');
  const step = () => {
    model.zeroGrad();
    sg.tidy(() => lossOf(model, ids).backward());
    // tidy: each .grad read is a Tensor of its own.
    return sg.tidy(() => model.namedParameters().filter(([, p]) => p.requiresGrad).map(([n, p]) => [n, Float32Array.from(p.grad.dataSync())]));
  };
  const plain = step();
  model.gradientCheckpointingEnable();
  const ckpt = step();
  plain.forEach(([n, g], i) => assert.ok(maxDiff(g, ckpt[i][1]) <= 1e-5 * (1 + Math.max(...g.map(Math.abs))), `${n}: ${maxDiff(g, ckpt[i][1])}`));
  // Flat over steps.
  step();
  const m0 = sg.memory();
  for (let i = 0; i < 3; i++) step();
  assert.equal(sg.memory().tensors, m0.tensors);
  assert.equal(sg.memory().bytes, m0.bytes);
  ids.dispose();
  model.dispose();
}

test('gradientCheckpointingEnable(): Llama (full fine-tuning and LoRA over a frozen embedding) and GPT-2 with dropout give the same gradients', async () => {
  const llama = () => new sg.models.LlamaForCausalLM({ vocab_size: 48, hidden_size: 32, intermediate_size: 40, num_hidden_layers: 3, num_attention_heads: 4, num_key_value_heads: 2, max_position_embeddings: 32 });
  await lmCase(llama);
  await lmCase(() => sg.peft.getPeftModel(llama(), { r: 4, targetModules: ['q_proj', 'v_proj', 'down_proj'] }));
  // GPT-2 with its dropouts on (train mode): the recompute replays them.
  await lmCase(() => {
    const m = new sg.models.GPT2LMHeadModel({ vocab_size: 48, n_positions: 16, n_embd: 32, n_layer: 2, n_head: 4 });
    // Reseed between the two steps so that both draw the same masks.
    const forward = m.forward.bind(m);
    m.forward = (ids) => {
      sg.manualSeed(77);
      return forward(ids);
    };
    return m;
  });
});

test('gradientCheckpointingEnable(): nanoGPT (sg.models.GPT) and BertForMaskedLM give the same gradients', async () => {
  await lmCase(
    () => new sg.models.GPT({ vocabSize: 48, blockSize: 16, nLayer: 2, nHead: 4, nEmbd: 32, dropout: 0 }),
    (model, ids) => model.forward(ids.narrow(1, 0, 11).contiguous(), ids.narrow(1, 1, 11).contiguous()).loss,
  );
  await lmCase(
    () => new sg.models.BertForMaskedLM({ vocabSize: 48, hiddenSize: 32, numHiddenLayers: 2, numAttentionHeads: 4, intermediateSize: 64, maxPositionEmbeddings: 16, hiddenDropoutProb: 0, attentionProbsDropoutProb: 0 }),
    (model, ids) => model.forward(ids, { labels: ids }).loss,
  );
});

test('checkpoint: bad input is an Error; under noGrad it is a plain call', () => {
  throwsWith(() => sg.utils.checkpoint(3), 'checkpoint: expected a function');
  const x = sg.ones([2]).requiresGrad_();
  throwsWith(() => sg.utils.checkpoint(() => 5, x), 'fn must return a Tensor', '5');
  const d = sg.ones([2]);
  d.dispose();
  throwsWith(() => sg.utils.checkpoint((a) => a, d), 'argument 0 is a disposed Tensor');
  const y = sg.noGrad(() => sg.utils.checkpoint((a) => a.mul(2), x));
  assert.equal(y.requiresGrad, false);
  assert.deepEqual(Array.from(y.dataSync()), [2, 2]);
  sg.dispose([x, y]);
});

forEachBackend('inside sg.compile checkpoint is fn traced as it is: the compiled step\'s gradients equal the plain graph\'s, call after call', async () => {
  sg.manualSeed(1);
  const W1 = sg.randn([16, 16]).mul(0.3).requiresGrad_();
  const W2 = sg.randn([16, 16]).mul(0.3).requiresGrad_();
  const x = sg.randn([8, 16]).requiresGrad_();
  const f = mlp(W1, W2);
  const leaves = [x, W1, W2];
  const read = async () => Promise.all(leaves.map(async (t) => (await values(t.grad)).flat()));
  f(x).square().sum().backward();
  const plain = await read();
  const step = sg.compile((input) => sg.utils.checkpoint(f, input).square().sum());
  for (let call = 0; call < 2; call++) {
    for (const t of leaves) t.grad = null;
    const loss = step(x);
    loss.backward();
    const got = await read();
    plain.forEach((g, i) => assert.ok(maxDiff(g, got[i]) <= 1e-5 * (1 + Math.max(...g.map(Math.abs))), `call ${call}, grad ${i}: ${maxDiff(g, got[i])}`));
    loss.dispose();
  }
  assert.equal(step.stats().compiles, 1);
  assert.equal(step.stats().callbacks, 0, 'no callback node: fn joins the graph');
  step.clear();
  for (const t of leaves) t.grad = null;
  sg.dispose(leaves);
});
