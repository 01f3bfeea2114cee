// LoRA fine-tuning of pretrained Hugging Face folders on WebGPU (Dawn on SwiftShader, webgpu_env.mjs), end to end:
// fromPretrained(dir, { device: 'webgpu' }), a PEFT adapter loaded, SGD steps, the adapter saved and loaded back.
// The folders are gen_models_16bit.py's tiny random GPT-2 and Llama (bf16 checkpoints, loaded as float32 or kept bf16).
// The same steps run on the cpu (wasm) first; the webgpu run must give:
// - float32: the step-0 loss within 1e-5 (relative) and adapter gradients within 1e-4 (relative to their scale) of
//   the cpu's, and of PyTorch's for GPT-2 (gen_models_16bit.py's LoRA oracle over nanoGPT);
// - bf16 base: the loss within u and the gradients within 24u (u = 2⁻⁸) of the cpu's and of PyTorch's own bf16
//   run — the bounds models_16bit.test.mjs holds PyTorch's bf16 to;
// - every step's loss within the same bound of the cpu's (plain SGD: a step moves the adapter by lr × its gradient,
//   so the runs stay as close as their gradients), the loss falling, no op falling back to wasm (a console warning),
//   and the tensors and GPU bytes flat from the second step on; built on the GPU (the cpu heap's peak while
//   loading a third of the model's bytes at most: no cpu copy of the model);
// - the adapter saved on webgpu (saveAdapterAsync) equal, bit for bit, to the trained weights read back, and loaded
//   onto a fresh cpu model giving the webgpu model's logits.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import test from 'node:test';
import { exitAfterTests, gpu, why } from './webgpu_env.mjs';
import { relToScale, sg, torchOracle } from './helpers.mjs';
import { init } from '../../npm/dist/index.mjs';

const gen = gpu ? torchOracle('gen_models_16bit.py') : { skip: why };
const skip = gen.skip ?? false;
await exitAfterTests();

const U = 2 ** -8;
const STEPS = 3;
const LR = 0.5;
const CASES = [
  { name: 'GPT-2, float32', dir: 'gpt2_bf16', dtype: 'float32', adapter: 'gpt2_bf16_lora', oracle: 'float32', tol: { loss: 1e-5, grads: 1e-4 } },
  { name: 'GPT-2, bf16 base', dir: 'gpt2_bf16', dtype: 'bfloat16', adapter: 'gpt2_bf16_lora', oracle: 'bfloat16', tol: { loss: U, grads: 24 * U } },
  { name: 'Llama, float32', dir: 'llama_bf16', dtype: 'float32', tol: { loss: 1e-5, grads: 1e-4 } },
  { name: 'Llama, bf16 base', dir: 'llama_bf16', dtype: 'bfloat16', tol: { loss: U, grads: 24 * U } },
];

/** A Llama adapter made on the cpu: getPeftModel on q/v/o with seeded, non-zero B (PEFT's B starts at zero). */
async function llamaAdapter(dir) {
  const model = await sg.models.fromPretrained(dir, { dtype: 'float32', device: 'cpu' });
  sg.manualSeed(3);
  sg.peft.getPeftModel(model, { r: 4, loraAlpha: 8, targetModules: ['q_proj', 'v_proj', 'o_proj'] });
  for (const [n, p] of model.namedParameters()) if (n.includes('lora_B')) sg.nn.init.normal_(p, 0, 0.2);
  const files = sg.peft.saveAdapter(model);
  model.dispose();
  return files;
}

/** A tensor's values as float32 numbers (a cast copy disposed). */
async function read(t) {
  const f = t.dtype === 'float32' ? t : t.to('float32');
  const v = Array.from(await f.data());
  if (f !== t) f.dispose();
  return v;
}

/** The case's model on `device` with its adapter; STEPS SGD steps on the folder's ids; what they gave. */
async function fineTune(c, device, adapterFiles) {
  const dir = join(gen.dir, c.dir);
  const cpuBytes = sg.memory().bytes;
  sg.resetPeakMemory();
  const model = await sg.models.fromPretrained(dir, { dtype: c.dtype, device });
  const cpuPeak = sg.memory().peakBytes - cpuBytes;
  const modelBytes = sg.memory().bytes - cpuBytes;
  await sg.peft.loadAdapter(model, adapterFiles);
  const adapter = model.namedParameters().filter(([, p]) => p.requiresGrad);
  assert.ok(adapter.length > 0 && adapter.every(([, p]) => p.device === device && p.dtype === 'float32'));
  assert.ok(model.parameters().every((p) => p.device === device && (p.requiresGrad || p.dtype === c.dtype)));
  const opt = new sg.optim.SGD(adapter.map(([, p]) => p), { lr: LR });
  const ids = sg.tensor(gen.expected[c.dir].ids, { dtype: 'int32', device });
  const [, T] = ids.shape;
  const losses = [];
  const memory = [];
  let grads = null;
  for (let s = 0; s < STEPS; s++) {
    const loss = sg.tidy(() => {
      opt.zeroGrad();
      const logits = model.forward(ids.narrow(1, 0, T - 1));
      const l = sg.F.crossEntropy(logits.reshape([-1, logits.shape[2]]).to('float32'), ids.narrow(1, 1, T - 1).reshape([-1]));
      l.backward();
      return l;
    });
    losses.push((await loss.data())[0]);
    loss.dispose();
    if (s === 0) {
      grads = {};
      for (const [n, p] of adapter) {
        const g = p.grad;
        grads[n] = await read(g);
        g.dispose(); // the wrapper read here (the gradient stays): else it lingers until garbage-collected
      }
    }
    opt.step();
    await sg.sync();
    memory.push(sg.memory());
  }
  const logits = sg.tidy(() => model.forward(ids));
  const out = { model, ids, cpuPeak, modelBytes, losses, grads, memory, logits: await read(logits), trained: {} };
  logits.dispose();
  for (const [n, p] of adapter) out.trained[n] = await read(p);
  opt.dispose();
  return out;
}

const cpu = {};
const adapters = {};

test('the cpu runs (the reference of the webgpu runs); { device: \'webgpu\' } before init is an Error', { skip }, async () => {
  const before = sg.memory().tensors;
  await assert.rejects(sg.models.fromPretrained(join(gen.dir, 'gpt2_bf16'), { device: 'webgpu' }), /fromPretrained: device 'webgpu' is not running: start it with `await init\(\{ backend: 'webgpu' \}\)`/);
  assert.equal(sg.memory().tensors, before);
  for (const c of CASES) {
    const files = c.adapter ? join(gen.dir, c.adapter) : (adapters[c.dir] ??= await llamaAdapter(join(gen.dir, c.dir)));
    const r = await fineTune(c, 'cpu', files);
    r.model.dispose();
    r.ids.dispose();
    cpu[c.name] = r;
    assert.ok(r.losses[STEPS - 1] < r.losses[0], `${c.name}: cpu loss falls ${r.losses.join(' → ')}`);
  }
});

for (const c of CASES) {
  test(`LoRA fine-tuning on webgpu: ${c.name} — loss, adapter gradients and steps as on the cpu, memory flat, adapter saved and loaded`, { skip }, async (t) => {
    const ref = cpu[c.name];
    assert.ok(ref, 'the cpu run came first');
    await init({ backend: 'webgpu', gpu });
    const warnings = [];
    const realWarn = console.warn;
    console.warn = (...a) => warnings.push(a.join(' '));
    let r;
    try {
      r = await fineTune(c, 'webgpu', c.adapter ? join(gen.dir, c.adapter) : adapters[c.dir]);
    } finally {
      console.warn = realWarn;
    }
    try {
      assert.deepEqual(warnings, [], 'no op fell back to wasm');
      const gradErr = Math.max(...Object.keys(ref.grads).map((n) => relToScale(r.grads[n], ref.grads[n])));
      const lossErr = r.losses.map((l, i) => Math.abs(l - ref.losses[i]) / Math.abs(ref.losses[i]));
      t.diagnostic(`tensors ${r.memory.map((m) => m.tensors).join(" ")}`);
      t.diagnostic(`cpu heap peak while loading onto webgpu: ${r.cpuPeak} bytes (the model on the cpu: ${ref.modelBytes})`);
      // Built on the GPU: the cpu holds a file tensor or two at a time, never the model.
      assert.ok(r.cpuPeak <= ref.modelBytes / 3, `cpu heap peak ${r.cpuPeak} while loading onto webgpu; the model is ${ref.modelBytes} bytes`);
      t.diagnostic(`${c.name}: losses webgpu ${r.losses.map((l) => l.toFixed(5)).join(' → ')}; vs cpu: loss ${Math.max(...lossErr).toExponential(2)}, gradients ${gradErr.toExponential(2)}`);
      assert.ok(gradErr <= c.tol.grads, `${c.name}: step-0 adapter gradients vs cpu ${gradErr}`);
      lossErr.forEach((e, i) => assert.ok(e <= c.tol.loss, `${c.name}: step ${i} loss ${r.losses[i]} vs cpu ${ref.losses[i]}`));
      assert.ok(r.losses[STEPS - 1] < r.losses[0] - 0.01, `loss falls: ${r.losses.join(' → ')}`);
      if (c.oracle) {
        const o = gen.expected[c.adapter].oracles[c.oracle];
        assert.ok(Math.abs(r.losses[0] - o.loss) / o.loss <= c.tol.loss, `${c.name}: loss ${r.losses[0]} vs PyTorch ${o.loss}`);
        for (const [k, g] of Object.entries(o.grads)) {
          const mine = r.grads[k];
          assert.ok(mine, `${k}: no webgpu gradient`);
          assert.ok(relToScale(mine, g) <= c.tol.grads, `${c.name}: ${k} vs PyTorch ${relToScale(mine, g)}`);
        }
      }
      for (const m of r.memory.slice(1)) {
        assert.equal(m.tensors, r.memory[1].tensors, 'live tensors flat over steps');
        assert.equal(m.gpuBytes, r.memory[1].gpuBytes, 'GPU bytes flat over steps');
      }
      // Saved on webgpu, loaded onto a fresh cpu model: the trained weights, and the webgpu model's logits.
      assert.throws(() => sg.peft.saveAdapter(r.model), /saveAdapter: 'base_model\.model\.[\w.]+\.lora_A\.weight' is a webgpu tensor, which saveAdapter cannot read synchronously: use `await sg\.peft\.saveAdapterAsync\(model\)`/);
      const files = await sg.peft.saveAdapterAsync(r.model);
      const saved = sg.load(files['adapter_model.safetensors']);
      for (const [n, w] of Object.entries(r.trained)) {
        const key = `base_model.model.${n.replace('.default.', '.')}`;
        assert.deepEqual(Array.from(saved[key].dataSync()), w, `${key} saved as trained`);
      }
      sg.dispose(Object.values(saved));
      const back = await sg.models.fromPretrained(join(gen.dir, c.dir), { dtype: c.dtype, device: 'cpu' });
      // Built on the cpu while new tensors go to the GPU: the default is 'webgpu' again afterwards.
      assert.equal(sg.getBackend(), 'webgpu', 'fromPretrained({ device: \'cpu\' }) restores the default device');
      await sg.peft.loadAdapter(back, files);
      const ids = sg.tensor(gen.expected[c.dir].ids, { dtype: 'int32', device: 'cpu' });
      const logits = sg.tidy(() => back.forward(ids).to('float32').dataSync());
      ids.dispose();
      back.dispose();
      const err = relToScale(logits, r.logits);
      assert.ok(err <= (c.dtype === 'float32' ? 1e-5 : 8 * U), `${c.name}: logits of the adapter loaded on the cpu vs webgpu ${err}`);
    } finally {
      r.model.dispose();
      r.ids.dispose();
    }
  });
}
