// Bench rows for the relaxed-SIMD GEMM kernels (issue 29): the product with f32x4.relaxed_madd
// kernels, and as its in-process baseline the same product with the SIMD128 kernels, timed in the
// same rounds (the report's "X× its time" is relaxed's time over SIMD128's: goal ≤ 0.8, i.e.
// ≥ 1.25× the speed). The worker runs with --experimental-wasm-relaxed-simd (nodeFlags: Node 20
// needs it); the kernels are switched by the module's own switch between calls, synchronously
// (init({ relaxedSimd }) is async, the worker's steps are not).
import { normal } from './data.mjs';
import { mod } from '../../../npm/dist/esm/npm/src/runtime/module.js';

export const RELAXED_FLAG = '--experimental-wasm-relaxed-simd';

function relaxedProduct(name, desc, [m, k], [n, k2], tb) {
  const bShape = tb ? [n, k2] : [k2, n];
  return {
    name,
    group: 'matmul',
    desc: `${desc}, float32, f32x4.relaxed_madd kernels (baseline: the SIMD128 kernels)`,
    flops: 2 * m * n * k,
    peakLine: true,
    nodeFlags: [RELAXED_FLAG],
    iters: m * n * k >= 2 ** 30 ? { warmup: 1, min: 5, max: 5 } : { warmup: 3, min: 10, max: 60 },
    tol: 1e-4,
    data: () => ({ a: normal(m * k, 60), b: normal(n * k, 61) }),
    sg(sg, d) {
      if (!sg.features().relaxedSimd) throw new Error(`relaxed SIMD is not in use (engine without it, or no side module built)`);
      const module = mod();
      const a = sg.tensor(d.a, { shape: [m, k] });
      const b = sg.tensor(d.b, { shape: bShape });
      const mm = () => sg.matmul(a, tb ? b.T : b);
      return {
        step: () => { module.useGemmKernelSlots(true); mm(); },
        check: () => { module.useGemmKernelSlots(true); return mm().dataSync(); },
        dispose: () => { module.useGemmKernelSlots(true); sg.dispose([a, b]); },
        baseline: { desc: 'SIMD128 kernels', step: () => { module.useGemmKernelSlots(false); mm(); } },
      };
    },
    tf(tf, d) {
      const a = tf.tensor2d(d.a, [m, k]);
      const b = tf.tensor2d(d.b, bShape);
      const mm = () => tf.matMul(a, b, false, !!tb);
      return { step: () => void mm(), check: () => mm().dataSync(), dispose: () => tf.dispose([a, b]) };
    },
  };
}

export const RELAXED_WORKLOADS = [
  relaxedProduct('matmul_512_relaxed', 'A·B, 512×512', [512, 512], [512, 512], false),
  relaxedProduct('matmul_1024_relaxed', 'A·B, 1024×1024', [1024, 1024], [1024, 1024], false),
  relaxedProduct('matmul_mlp_relaxed', 'x·Wᵀ, [128, 784]·[256, 784]ᵀ (the MLP\'s first layer)', [128, 784], [256, 784], true),
];
