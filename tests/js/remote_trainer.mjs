// Shared by tests/js/remote*.test.mjs and tests/bench/remote.mjs: a tiny GPT-2 folder written
// from a seeded JS model (config.json + model.safetensors, Hugging Face's names, the tied head
// left out as HF saves it), and the real trainer (scripts/trainer.sh) started on 127.0.0.1 with
// an ephemeral port, its "trainer listening on ..." line awaited with a bounded timeout.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;

/** Whether Debian's Python has torch (the trainer needs it; scripts/trainer.sh would install it with apt). */
export function torchAvailable() {
  const r = spawnSync('/usr/bin/python3', ['-c', 'import torch'], { stdio: 'ignore', timeout: 60000 });
  return r.status === 0;
}

export const TINY_GPT2 = {
  model_type: 'gpt2',
  vocab_size: 64,
  n_positions: 32,
  n_embd: 16,
  n_layer: 2,
  n_head: 2,
  layer_norm_epsilon: 1e-5,
  activation_function: 'gelu_new',
  resid_pdrop: 0,
  embd_pdrop: 0,
  attn_pdrop: 0,
};

/**
 * A seeded GPT2LMHeadModel with every parameter perturbed (random LayerNorm scales and biases
 * too, so that each weight matters), in eval mode.
 */
export function tinyGpt2(sg, config = TINY_GPT2, seed = 7) {
  sg.manualSeed(seed);
  const model = new sg.models.GPT2LMHeadModel({ ...config, initializer_range: 0.3 });
  sg.noGrad(() => {
    for (const [name, p] of model.namedParameters()) {
      sg.tidy(() => {
        const std = name.endsWith('.bias') ? 0.1 : name.includes('ln_') ? 0.1 : 0.05;
        p.add_(sg.randn(p.shape).mul(std));
      });
    }
  });
  model.eval();
  return model;
}

/** Writes model's weights as a Hugging Face GPT-2 folder (lm_head.weight left out: it is tied). */
export function writeGpt2Folder(sg, model, dir, config = TINY_GPT2) {
  mkdirSync(dir, { recursive: true });
  const sd = model.stateDict();
  delete sd['lm_head.weight'];
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config, null, 1));
  writeFileSync(join(dir, 'model.safetensors'), sg.save(sd));
  sg.dispose(Object.values(sd));
  return dir;
}

/**
 * Starts `bash scripts/trainer.sh --model dir --nproc n --port 0 ...` and resolves, once it prints
 * "trainer listening on http://127.0.0.1:P (n ranks)", to { url, proc, stop(), stderr() }.
 * Rejects (and kills it) when the line does not come within readyMs.
 */
export function startTrainer(dir, { nproc = 1, token, extra = [], readyMs = 90000 } = {}) {
  const args = [join(ROOT, 'scripts/trainer.sh'), '--model', dir, '--nproc', String(nproc), '--port', '0',
    '--threads', '1', '--device', 'cpu', ...(token ? ['--token', token] : []), ...extra];
  const env = { ...process.env, OMP_NUM_THREADS: '1' };
  delete env.TRAINER_TOKEN;
  const proc = spawn('bash', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr.on('data', (d) => (err = (err + d).slice(-20000)));
  const stop = () =>
    new Promise((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      const hard = setTimeout(() => proc.kill('SIGKILL'), 10000);
      proc.once('exit', () => {
        clearTimeout(hard);
        resolve();
      });
      proc.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`trainer did not start within ${readyMs} ms:\n${err}`));
    }, readyMs);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /trainer listening on (http:\/\/127\.0\.0\.1:\d+) \((\d+) ranks?\)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1], ranks: Number(m[2]), proc, stop, stderr: () => err });
      }
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`trainer exited (${code ?? signal}) before listening:\n${err}`));
    });
  });
}

/** A small deterministic generator (LCG) for token ids. */
export function lcg(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

/** n data { inputIds, targets } with the given lengths (cycled), ids in [0, vocab). */
export function randomData(n, lengths, vocab, seed) {
  const r = lcg(seed);
  return Array.from({ length: n }, (_, i) => {
    const T = lengths[i % lengths.length];
    const seq = Array.from({ length: T + 1 }, () => Math.floor(r() * vocab));
    return { inputIds: seq.slice(0, T), targets: seq.slice(1) };
  });
}
