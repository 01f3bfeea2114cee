// The work a training step does, counted in bytes and random draws rather than timed (issues 23 and
// 29: the LoRA and nanoGPT-shaped steps' speed). Each case fails if a step starts doing work it
// does not need again: a dropout of p = 0 drawing a mask, GPT-2's Conv1D making a second
// activation-sized tensor for its bias, a frozen weight getting a weight gradient, a transposed
// weight being copied. Expected values are computed here in float64 from the inputs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { close, sg } from './helpers.mjs';

const F32 = 4;

/** y = x·W + b and the gradients of Σ y ⊙ G, in float64 (x [R, I], W [I, O], b [O], G [R, O], all row-major). */
function conv1dByHand(x, W, b, G, R, I, O) {
  const y = new Float64Array(R * O), dx = new Float64Array(R * I), dW = new Float64Array(I * O), db = new Float64Array(O);
  for (let r = 0; r < R; r++)
    for (let o = 0; o < O; o++) {
      let s = b[o];
      for (let i = 0; i < I; i++) s += x[r * I + i] * W[i * O + o];
      y[r * O + o] = s;
      db[o] += G[r * O + o];
      for (let i = 0; i < I; i++) {
        dx[r * I + i] += G[r * O + o] * W[i * O + o];
        dW[i * O + o] += x[r * I + i] * G[r * O + o];
      }
    }
  return { y, dx, dW, db };
}

test('dropout with p = 0 while training returns its input: no random draw, no mask, no new bytes', () => {
  sg.tidy(() => {
    const x = sg.randn([64, 33], { requiresGrad: true });
    sg.manualSeed(7);
    const before = sg.memory().bytes;
    const y = sg.F.dropout(x, { p: 0, training: true });
    const m = new sg.nn.Dropout(0);
    m.train();
    const z = m.forward(y);
    // Nothing allocated: the results are x's storage (a mask and a product would be 2 × 8.4 KB each).
    assert.equal(sg.memory().bytes - before, 0);
    // The generator's stream is where it was: PyTorch's _dropout returns its input for p == 0 without a
    // draw (checked in torch 1.13.1: torch.rand after F.dropout(x, 0.0, True) equals it without the call).
    const after = sg.rand([6]).dataSync();
    sg.manualSeed(7);
    assert.deepEqual(after, sg.rand([6]).dataSync());
    assert.deepEqual(z.dataSync(), x.dataSync());
    z.mul(3).sum().backward();
    assert.ok(x.grad.dataSync().every((g) => g === 3));
    x.grad = null;
  });
});

test("GPT-2's Conv1D is one linear: x·W + b and its gradients, with no second activation-sized tensor", () => {
  sg.tidy(() => {
    const [R, I, O] = [6, 40, 24];
    sg.manualSeed(3);
    const conv = new sg.models.Conv1D(O, I); // weight [I, O]
    sg.noGrad(() => conv.bias.copy_(sg.randn([O])));
    const x = sg.randn([2, 3, I], { requiresGrad: true });
    const G = sg.randn([2, 3, O]);
    const before = sg.memory().bytes;
    const y = conv.forward(x);
    // The output alone (matmul then add kept the product alive too: 2 × R·O floats).
    assert.equal(sg.memory().bytes - before, R * O * F32);
    y.mul(G).sum().backward();
    const want = conv1dByHand(x.dataSync(), conv.weight.dataSync(), conv.bias.dataSync(), G.dataSync(), R, I, O);
    close(Array.from(y.dataSync()), Array.from(want.y), 1e-5);
    close(Array.from(x.grad.dataSync()), Array.from(want.dx), 1e-5);
    // The weight's gradient arrives in the weight's own [in, out] layout (computed as Xᵀ·G for the transposed view).
    assert.deepEqual(conv.weight.grad.shape, [I, O]);
    close(Array.from(conv.weight.grad.dataSync()), Array.from(want.dW), 1e-5);
    close(Array.from(conv.bias.grad.dataSync()), Array.from(want.db), 1e-5);
    x.grad = null;
    conv.dispose();
  });
});

test('a frozen Conv1D base under LoRA gets no weight gradient and is never copied (backward peak far below its bytes)', () => {
  sg.tidy(() => {
    const n = 512; // the frozen weight: 1 MiB
    const model = new sg.models.GPT2LMHeadModel({ vocab_size: 4096, n_positions: 16, n_embd: 64, n_layer: 1, n_head: 2, resid_pdrop: 0, embd_pdrop: 0, attn_pdrop: 0 });
    sg.peft.getPeftModel(model, { r: 4, loraAlpha: 8, targetModules: ['attn.c_attn', 'attn.c_proj'] });
    model.train();
    const ids = sg.tensor(new Int32Array([5, 900, 4000, 17, 3, 2048]), { shape: [1, 6] });
    // The tied head's weight wte [4096, 64] (1 MiB) is frozen and read transposed by the head.
    const wteBytes = 4096 * 64 * F32;
    const loss = () => {
      const logits = model.forward(ids);
      return sg.F.crossEntropy(logits.narrow(1, 0, 5).reshape([-1, 4096]), ids.narrow(1, 1, 5).reshape([-1]));
    };
    sg.tidy(() => loss().backward()); // a first step: the adapters' .grad exist from here on
    const rest = sg.memory().bytes;
    sg.resetPeakMemory();
    sg.tidy(() => loss().backward());
    const above = sg.memory().peakBytes - rest;
    // A weight gradient or a transposed copy of wte would add 1 MiB; the step's own activations are ~0.2 MiB.
    assert.ok(above < wteBytes / 2, `step peak ${above} bytes above rest, wte is ${wteBytes}`);
    // Standalone: a frozen 512 × 512 Conv1D over a few rows that require grad.
    const conv = new sg.models.Conv1D(n, n);
    conv.requiresGrad_(false);
    const x = sg.randn([1, 4, n], { requiresGrad: true });
    const rest2 = sg.memory().bytes;
    sg.resetPeakMemory();
    sg.tidy(() => conv.forward(x).sum().backward());
    assert.ok(sg.memory().peakBytes - rest2 < (n * n * F32) / 4, `peak ${sg.memory().peakBytes - rest2} bytes above rest`);
    assert.equal(conv.weight.grad, null);
    for (const p of model.parameters()) if (p.requiresGrad) assert.ok(p.grad !== null, 'every adapter weight got a gradient');
    model.dispose();
    conv.dispose();
    x.grad = null;
  });
});

test("a frozen weight's input is not held for backward (linear, Conv1D, matmul); a trainable weight's is", () => {
  sg.tidy(() => {
    const [R, I, O] = [256, 512, 8]; // h = 2·x0 is 512 KiB, the outputs 8 KiB
    const x0 = sg.randn([R, I], { requiresGrad: true });
    const w = sg.randn([O, I]); // [out, in]
    const conv = new sg.models.Conv1D(O, I);
    sg.noGrad(() => (conv.weight.copy_(w.transpose(0, 1)), conv.bias.zero_()));
    const forms = {
      linear: (h, wt) => sg.F.linear(h, wt),
      conv1d: (h) => conv.forward(h),
      matmul: (h, wt) => h.matmul(wt.transpose(0, 1)),
    };
    // dL/dx0 for L = Σ y, y = (2·x0)·wᵀ: every row is 2·Σ_o w[o, :] (float64 here).
    const wv = w.dataSync();
    const row = Array.from({ length: I }, (_, i) => {
      let s = 0;
      for (let o = 0; o < O; o++) s += wv[o * I + i];
      return 2 * s;
    });
    for (const [name, f] of Object.entries(forms)) {
      for (const trainable of [false, true]) {
        const wt = w.detach().requiresGrad_(trainable);
        conv.weight.requiresGrad_(trainable);
        const before = sg.memory().bytes;
        const h = x0.mul(2); // mul by a number saves nothing: h lives on only if the product saves it
        const y = f(h, wt);
        h.dispose();
        const held = sg.memory().bytes - before;
        // y (8 KiB) and mul's 0-d number (4 bytes), plus h (512 KiB) only when the weight's gradient needs it.
        const want = R * O * F32 + (trainable ? R * I * F32 : 0);
        assert.ok(held >= want && held < want + 1024, `${name}, weight ${trainable ? 'trainable' : 'frozen'}: ${held} bytes held, expected ${want} (+ < 1 KiB)`);
        y.sum().backward();
        close(Array.from(x0.grad.dataSync().slice(0, I)), row, 1e-5, `${name} dx0`);
        close(Array.from(x0.grad.dataSync().slice((R - 1) * I)), row, 1e-5, `${name} dx0 last row`);
        x0.grad = null;
        conv.zeroGrad();
      }
    }
    conv.dispose();
  });
});
