// node tests/bench/rnn.mjs [--t 100,1000] [--rounds 5]
// Why nn.LSTM runs each layer as one C++ op (src/nn/rnn.h): one LSTM train step (forward over
// the sequence, backward, Adam step) of the fused layer against the same LSTM written with
// per-step JS ops (matmul, sigmoid, tanh, mul, add: ~12 ops and graph nodes per step), and
// PyTorch's nn.LSTM on the same shapes for context (when /usr/bin/python3 has torch). Batch 8,
// input 32, hidden 64, one layer. Reports wall ms per step (median of the rounds, after a
// warm-up step), the graph nodes a step records, and whether the per-step version survived:
// freeing a graph of ~24,000 small nodes overflows the JS stack (it is freed recursively).
// Measures, asserts nothing.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { init } from '../../npm/dist/index.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const lengths = opt('t', '100,1000').split(',').map(Number);
const rounds = Number(opt('rounds', '5'));
const [B, I, H] = [8, 32, 64];

const sg = await init();
sg.manualSeed(1);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** The per-step LSTM of plain ops, PyTorch's equations, the same weights as `lstm`. */
function stepwiseForward(lstm, x) {
  const T = x.shape[0];
  const wih = lstm.weight_ih_l0.T;
  const whh = lstm.weight_hh_l0.T;
  const bias = lstm.bias_ih_l0.add(lstm.bias_hh_l0);
  const xw = x.reshape([T * B, I]).matmul(wih).add(bias).reshape([T, B, 4 * H]);
  let h = sg.zeros([B, H]);
  let c = sg.zeros([B, H]);
  const outs = [];
  for (let t = 0; t < T; t++) {
    const g = xw.narrow(0, t, 1).squeeze(0).add(h.matmul(whh));
    const [i, f, gg, o] = g.chunk(4, 1);
    c = f.sigmoid().mul(c).add(i.sigmoid().mul(gg.tanh()));
    h = o.sigmoid().mul(c.tanh());
    outs.push(h);
  }
  return sg.stack(outs, 0);
}

function time(T, which) {
  const lstm = new sg.nn.LSTM(I, H);
  const adam = new sg.optim.Adam(lstm.parameters(), { lr: 1e-3 });
  const x = sg.randn([T, B, I]);
  const step = () =>
    sg.tidy(() => {
      adam.zeroGrad();
      const out = which === 'fused' ? lstm.forward(x)[0] : stepwiseForward(lstm, x);
      out.square().mean().backward();
      adam.step();
    });
  const ms = [];
  try {
    step(); // warm-up
    for (let r = 0; r < rounds; r++) {
      const t0 = performance.now();
      step();
      ms.push(performance.now() - t0);
    }
    return { ms: median(ms) };
  } catch (e) {
    return { failed: String(e.message ?? e).slice(0, 60) };
  } finally {
    sg.dispose([x, lstm]);
    adam.dispose();
  }
}

function torchTime(T) {
  const code = `
import time, torch
torch.set_num_threads(1); torch.manual_seed(0)
m = torch.nn.LSTM(${I}, ${H}); opt = torch.optim.Adam(m.parameters(), lr=1e-3)
x = torch.randn(${T}, ${B}, ${I}); ts = []
for r in range(${rounds + 1}):
    t0 = time.perf_counter(); opt.zero_grad(); m(x)[0].square().mean().backward(); opt.step(); ts.append(time.perf_counter() - t0)
print(sorted(ts[1:])[len(ts[1:]) // 2] * 1000)`;
  const r = spawnSync('/usr/bin/python3', ['-c', code], { encoding: 'utf8' });
  return r.status === 0 ? Number(r.stdout.trim()) : null;
}

console.log(`LSTM train step, batch ${B}, input ${I}, hidden ${H}, 1 layer; ${os.cpus()[0].model}; load ${os.loadavg()[0].toFixed(2)}`);
console.log('T'.padStart(6), 'fused op ms'.padStart(12), 'per-step ops ms'.padStart(16), 'PyTorch ms (1 thread)'.padStart(22));
for (const T of lengths) {
  const fused = time(T, 'fused');
  const stepwise = time(T, 'stepwise');
  const torch = torchTime(T);
  const show = (r) => (r.ms !== undefined ? r.ms.toFixed(1) : `failed: ${r.failed}`);
  console.log(String(T).padStart(6), show(fused).padStart(12), show(stepwise).padStart(16), (torch === null ? 'n/a' : torch.toFixed(1)).padStart(22));
}
