// Remote training round trips: sg.customLoss.forwardBackwardCustom through remoteClient against
// the real trainer (scripts/trainer.sh, a tiny GPT-2 written here), batch 8 × 64 tokens, and
// where each round trip's time goes:
//   forward        POST /forward (the trainer's forward + transport, both ways)
//   linearize      the custom loss and its gradient here (symbolic: autograd on the log-probs)
//   forward_backward POST /forward_backward, split into the trainer's own time (its
//                  metrics.seconds) and the rest (transport, JSON, HTTP)
//   node tests/bench/remote.mjs [--rounds 20] [--nproc 2] [--url URL --token T] [--grad symbolic|numerical]
// Without --url it starts a trainer (1 torch thread per rank) on a temporary folder and stops it at the end.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { init } from '../../npm/dist/index.mjs';
import { randomData, startTrainer, tinyGpt2, writeGpt2Folder, TINY_GPT2 } from '../js/remote_trainer.mjs';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : process.argv[i + 1];
}
const rounds = Number(arg('rounds', 20));
const nproc = Number(arg('nproc', 2));
const gradMethod = arg('grad', 'symbolic');
const B = 8;
const T = 64;

const sg = await init();
const config = { ...TINY_GPT2, n_positions: T };
let trainer = null;
let dir = null;
let url = arg('url', null);
const token = arg('token', url ? undefined : 'bench');
if (url === null) {
  dir = mkdtempSync(join(tmpdir(), 'sg-bench-remote-'));
  const model = tinyGpt2(sg, config);
  writeGpt2Folder(sg, model, dir, config);
  model.dispose();
  const t0 = performance.now();
  trainer = await startTrainer(dir, { nproc, token });
  url = trainer.url;
  console.log(`trainer: ${trainer.ranks} rank(s) at ${url}, started in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

const client = sg.customLoss.remoteClient(url, { token });
const timed = { forward: 0, forwardBackward: 0, trainer: 0 };
// The client, timed: what forwardBackwardCustom spends in each request.
const probe = {
  async forward(data) {
    const t0 = performance.now();
    try {
      return await client.forward(data);
    } finally {
      timed.forward += performance.now() - t0;
    }
  },
  async forwardBackward(data, weights) {
    const t0 = performance.now();
    const r = await client.forwardBackward(data, weights);
    timed.forwardBackward += performance.now() - t0;
    timed.trainer += r.metrics.seconds * 1000;
    return r;
  },
};

const nll = (lps) => [lps.map((t) => t.sum()).reduce((a, b) => a.add(b)).neg().div(B * T), {}];
const confidence = sg.customLoss.regularizer('confidence', 0.1, (lps) => [lps.map((t) => t.exp().mean()).reduce((a, b) => a.add(b)).div(lps.length), {}]);
const options = { baseLoss: nll, regularizers: [confidence], gradMethod };

const vocab = config.vocab_size;
const batches = Array.from({ length: rounds + 2 }, (_, i) => randomData(B, [T], vocab, 100 + i));
try {
  // Two warm-up rounds (connections, first allocations), then the timed ones.
  for (let i = 0; i < 2; i++) {
    await sg.customLoss.forwardBackwardCustom(probe, batches[i], options);
    await client.optimStep({ lr: 1e-3 });
  }
  Object.keys(timed).forEach((k) => (timed[k] = 0));
  let total = 0;
  let last;
  for (let i = 2; i < rounds + 2; i++) {
    const t0 = performance.now();
    last = await sg.customLoss.forwardBackwardCustom(probe, batches[i], options);
    total += performance.now() - t0;
    await client.optimStep({ lr: 1e-3 }); // not timed: one per round trip, as training does
  }
  const per = (ms) => (ms / rounds).toFixed(1).padStart(7);
  const linearize = total - timed.forward - timed.forwardBackward;
  console.log(`\nforwardBackwardCustom, tiny GPT-2 (${config.n_layer} layers, n_embd ${config.n_embd}, vocab ${vocab}), batch ${B} × ${T}, ${gradMethod} gradient, ${rounds} rounds`);
  console.log(`round trips per second: ${(1000 * rounds / total).toFixed(2)}  (${(total / rounds).toFixed(1)} ms each)`);
  console.log(`  forward request             ${per(timed.forward)} ms   (trainer forward + transport)`);
  console.log(`  linearize (here)            ${per(linearize)} ms   (loss, gradient, telemetry; gradient alone ${last.metrics.gradient_duration_ms.toFixed(1)} ms in the last round)`);
  console.log(`  forward_backward request    ${per(timed.forwardBackward)} ms`);
  console.log(`    trainer (metrics.seconds) ${per(timed.trainer)} ms`);
  console.log(`    transport, JSON, HTTP     ${per(timed.forwardBackward - timed.trainer)} ms`);
} finally {
  client.close();
  if (trainer) await trainer.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
