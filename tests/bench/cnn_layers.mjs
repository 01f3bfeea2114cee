// The bench CNN's forward (tests/bench/lib/workloads.mjs, batch 64, no grad) layer by layer,
// simdgrad against tfjs-backend-wasm in one process: where the time of `cnn_forward` goes.
//   node tests/bench/cnn_layers.mjs [iterations]
// Process CPU time per call (median of the rounds), both libraries alternating, one thread.
import { normal, uniform } from './lib/data.mjs';
import { loadSimdgrad, loadTfjs } from './lib/libs.mjs';

const iters = Number(process.argv[2] ?? 200);
const { sg } = await loadSimdgrad();
const { tf } = await loadTfjs();
const B = 64;
const u = (n, seed, fanIn) => uniform(n, seed, 1 / Math.sqrt(fanIn));

// simdgrad (NCHW) and tfjs (NHWC) inputs of each layer; the values need not agree here.
const sgT = (data, shape) => sg.tensor(data, { shape });
const tfT = (data, shape) => tf.tensor(data, shape);
const x1 = normal(B * 28 * 28, 7), x2 = normal(B * 16 * 14 * 14, 8), x3 = normal(B * 32 * 7 * 7, 9);
const w1 = u(16 * 9, 20, 9), b1 = u(16, 21, 9), w2 = u(32 * 16 * 9, 22, 144), b2 = u(32, 23, 144);
const w3 = u(10 * 32 * 49, 24, 1568), b3 = u(10, 25, 1568);
const s = {
  x1: sgT(x1, [B, 1, 28, 28]), x2: sgT(x2, [B, 16, 14, 14]), x3: sgT(x3, [B, 32 * 49]),
  w1: sgT(w1, [16, 1, 3, 3]), b1: sgT(b1, [16]), w2: sgT(w2, [32, 16, 3, 3]), b2: sgT(b2, [32]),
  w3: sgT(w3, [10, 32 * 49]), b3: sgT(b3, [10]),
  z1: sgT(normal(B * 16 * 28 * 28, 10), [B, 16, 28, 28]), z2: sgT(normal(B * 32 * 14 * 14, 11), [B, 32, 14, 14]),
};
const t = {
  x1: tfT(x1, [B, 28, 28, 1]), x2: tfT(x2, [B, 14, 14, 16]), x3: tfT(x3, [B, 32 * 49]),
  w1: tfT(w1, [3, 3, 1, 16]), b1: tfT(b1, [16]), w2: tfT(w2, [3, 3, 16, 32]), b2: tfT(b2, [32]),
  w3: tfT(w3, [32 * 49, 10]), b3: tfT(b3, [10]),
  z1: tfT(normal(B * 16 * 28 * 28, 10), [B, 28, 28, 16]), z2: tfT(normal(B * 32 * 14 * 14, 11), [B, 14, 14, 32]),
};
const { F, nn } = sg;
// The fused conv + ReLU + max pool is what nn.Sequential runs for that sequence of layers.
function fusedBlock(w, b, cin, cout) {
  const conv = new nn.Conv2d(cin, cout, 3, { padding: 1 });
  sg.noGrad(() => { conv.weight.copy_(w); conv.bias.copy_(b); });
  return new nn.Sequential(conv, new nn.ReLU(), new nn.MaxPool2d(2));
}
const block1 = fusedBlock(s.w1, s.b1, 1, 16), block2 = fusedBlock(s.w2, s.b2, 16, 32);
const same = { padding: 1 };
const rows = [
  ['conv1+relu+pool (fused)', () => block1.forward(s.x1),
    () => tf.maxPool(tf.relu(tf.add(tf.conv2d(t.x1, t.w1, 1, 'same'), t.b1)), 2, 2, 'valid')],
  ['conv1+relu', () => F.conv2d(s.x1, s.w1, s.b1, { ...same, activation: 'relu' }),
    () => tf.relu(tf.add(tf.conv2d(t.x1, t.w1, 1, 'same'), t.b1))],
  ['pool1', () => F.maxPool2d(s.z1, 2), () => tf.maxPool(t.z1, 2, 2, 'valid')],
  ['conv2+relu+pool (fused)', () => block2.forward(s.x2),
    () => tf.maxPool(tf.relu(tf.add(tf.conv2d(t.x2, t.w2, 1, 'same'), t.b2)), 2, 2, 'valid')],
  ['conv2+relu', () => F.conv2d(s.x2, s.w2, s.b2, { ...same, activation: 'relu' }),
    () => tf.relu(tf.add(tf.conv2d(t.x2, t.w2, 1, 'same'), t.b2))],
  ['conv2 alone', () => F.conv2d(s.x2, s.w2, s.b2, same), () => tf.conv2d(t.x2, t.w2, 1, 'same')],
  ['pool2', () => F.maxPool2d(s.z2, 2), () => tf.maxPool(t.z2, 2, 2, 'valid')],
  ['linear', () => F.linear(s.x3, s.w3, s.b3), () => tf.add(tf.matMul(t.x3, t.w3), t.b3)],
];

function cpuMs(f) {
  const c0 = process.cpuUsage();
  f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const fmt = (v) => v.toFixed(3).padStart(8);
console.log(`layer                      sg ms     tf ms   tf/sg   (${iters} calls per round, median of 7 rounds)`);
for (const [name, sgFn, tfFn] of rows) {
  const sgRun = () => sg.noGrad(() => sg.tidy(() => { for (let i = 0; i < iters; ++i) sg.tidy(() => void sgFn()); }));
  const tfRun = () => tf.tidy(() => { for (let i = 0; i < iters; ++i) tf.tidy(() => void tfFn()); });
  sgRun();
  tfRun();
  const a = [], b = [];
  for (let r = 0; r < 7; ++r) {
    a.push(cpuMs(sgRun) / iters);
    b.push(cpuMs(tfRun) / iters);
  }
  const ms = median(a), mt = median(b);
  console.log(`${name.padEnd(24)} ${fmt(ms)}  ${fmt(mt)}  ${(mt / ms).toFixed(2).padStart(5)}×`);
}
