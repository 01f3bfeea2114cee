// node --no-liftoff tests/bench/lora_loss.mjs [--dist DIR] [--rounds 9]
// The LoRA step's next-token loss alone (issue 23; lora_gpt2.mjs's step at GPT-2's size: logits [4, 128, 50257]
// float32 from a leaf that requires grad, as the head's output does): forward and backward, CPU ms (median of
// --rounds after a warm-up) and the live bytes it adds at its peak (sg.memory().peakBytes above the logits), two
// ways of writing it (both give the same loss and gradients):
//   narrow  F.crossEntropy(logits.narrow(1, 0, T − 1).reshape([-1, V]), ids[:, 1:]) — a copy of the logits, and in
//           backward the gradient padded back to T positions (a second copy);
//   labels  F.crossEntropy(logits.reshape([-1, V]), labels) with the labels shifted left and padded with -100
//           (transformers' ForCausalLMLoss since 4.46): a view, the gradient written once.
// Then crossEntropy's kernels alone on a contiguous [508, 50257] (forward; forward + backward) and log-softmax
// over the same rows (three passes) beside them. --dist points at another build's npm/dist (a before/after pair).
// Measures, asserts nothing; the load average is printed (this machine is shared).
import os from 'node:os';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? (typeof dflt === 'number' ? Number(args[i + 1]) : args[i + 1]) : dflt;
};
const dist = opt('dist', new URL('../../npm/dist', import.meta.url).pathname);
const rounds = opt('rounds', 9);
const { init } = await import(`${dist}/index.mjs`);
const sg = await init();
const V = 50257, B = 4, T = 128, MB = 2 ** 20;

sg.manualSeed(1);
const logits = sg.tidy(() => sg.randn([B, T, V]).mul(2)).requiresGrad_();
const ids = sg.randint(0, V, [B, T]).to('int32');
const shifted = ids.narrow(1, 1, T - 1).reshape([-1]);
const labels = sg.cat([ids.narrow(1, 1, T - 1), sg.full([B, 1], -100, { dtype: 'int32' })], 1).reshape([-1]);

const ways = {
  narrow: () => sg.F.crossEntropy(logits.narrow(1, 0, T - 1).reshape([-1, V]), shifted),
  labels: () => sg.F.crossEntropy(logits.reshape([-1, V]), labels),
};
const step = (way) => () => {
  sg.tidy(() => void ways[way]().backward());
  logits.grad.dispose();
  logits.grad = null;
};
const cpuMedian = (fn) => {
  for (let i = 0; i < 2; i++) fn();
  const xs = [];
  for (let i = 0; i < rounds; i++) {
    const c = process.cpuUsage();
    fn();
    const d = process.cpuUsage(c);
    xs.push((d.user + d.system) / 1000);
  }
  return xs.sort((a, b) => a - b)[xs.length >> 1];
};

console.log(`next-token loss over [${B}, ${T}, ${V}] float32 logits, wasm, 1 thread, ${dist}; load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
const t0 = performance.now();
while (performance.now() - t0 < 3000) step('labels')(); // V8 compiles wasm functions lazily
for (const way of Object.keys(ways)) {
  step(way)();
  const rest = sg.memory().bytes;
  sg.resetPeakMemory();
  step(way)();
  const peak = sg.memory().peakBytes - rest;
  console.log(`  ${way.padEnd(7)} forward + backward ${cpuMedian(step(way)).toFixed(1).padStart(6)} ms CPU, peak ${(peak / MB).toFixed(0)} MB above the logits`);
}
const flat = sg.tidy(() => logits.detach().narrow(1, 0, T - 1).reshape([-1, V])).requiresGrad_();
const kf = cpuMedian(() => sg.tidy(() => void sg.noGrad(() => sg.F.crossEntropy(flat, shifted))));
const kfb = cpuMedian(() => {
  sg.tidy(() => void sg.F.crossEntropy(flat, shifted).backward());
  flat.grad.dispose();
  flat.grad = null;
});
const ls = cpuMedian(() => sg.tidy(() => void sg.noGrad(() => flat.logSoftmax(1))));
console.log(`  crossEntropy alone on [${B * (T - 1)}, ${V}]: forward ${kf.toFixed(1)} ms, forward + backward ${kfb.toFixed(1)} ms; logSoftmax ${ls.toFixed(1)} ms`);
console.log(`load at end ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
