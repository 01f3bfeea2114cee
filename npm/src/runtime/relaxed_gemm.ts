// The relaxed-SIMD GEMM microkernels (src/kernels/relaxed_simd/): f32x4.relaxed_madd, one fused
// multiply-add per product where the CPU has FMA. Emscripten 3.1.6 cannot build them into
// simdgrad.wasm, so they are a small module of their own, carried inside simdgrad.wasm as bytes
// (bindings/relaxed_gemm.cpp). Where the engine validates relaxed SIMD (Chromium; Node 22; Node
// 20 with --experimental-wasm-relaxed-simd) it is instantiated on the main module's memory and
// its functions are written into the main module's function table at the slots the C++ GEMM
// calls through (kernels/simd/gemm_slots.h). Elsewhere, and in the threaded module (a table per
// worker: see bindings/relaxed_gemm.cpp), the SIMD128 kernels run.
import type { SimdgradModule } from './embind.js';
import { isThreadedModule } from './threads.js';

/** Modules whose slots hold the relaxed kernels (the table entries stay written once set). */
const filled = new WeakSet<SimdgradModule>();

/** The engine's own objects of an Emscripten 3.1.6 module: its exports (minified names) under `asm`. */
function memoryAndTable(m: SimdgradModule): { memory: WebAssembly.Memory; table: WebAssembly.Table } {
  const exportsOf = (m as unknown as { asm?: Record<string, unknown> }).asm ?? {};
  const values = Object.values(exportsOf);
  const memory = values.find((v): v is WebAssembly.Memory => v instanceof WebAssembly.Memory);
  const table = values.find((v): v is WebAssembly.Table => v instanceof WebAssembly.Table);
  if (!memory || !table) throw new Error('simdgrad: relaxed SIMD: the wasm module exports no memory or function table (expected Emscripten 3.1.6 glue with Module.asm)');
  return { memory, table };
}

/** Writes the side module's kernels into m's slots; false where there is no side module or the engine refuses it. */
async function fill(m: SimdgradModule): Promise<boolean> {
  if (filled.has(m)) return true;
  const bytes = m.relaxedGemmModule() as Uint8Array<ArrayBuffer>;  // a copy: its own ArrayBuffer
  if (bytes.length === 0 || !WebAssembly.validate(bytes)) return false;
  const { memory, table } = memoryAndTable(m);
  const instance = await WebAssembly.instantiate(await WebAssembly.compile(bytes), { env: { memory } });
  const slots = m.gemmKernelSlots();
  // Every kernel is looked up before any slot is written: all or none.
  const kernels = slots.map(([name]) => {
    const f = instance.exports[name];
    if (typeof f !== 'function') throw new Error(`simdgrad: relaxed SIMD: the side module lacks the kernel '${name}' (rebuild with scripts/build.sh wasm)`);
    return f;
  });
  slots.forEach(([, index], i) => table.set(index, kernels[i]));
  filled.add(m);
  return true;
}

/**
 * Switches m's GEMM to the relaxed-SIMD kernels (on, where available) or to the SIMD128 ones.
 * Returns whether the relaxed kernels are in use afterwards.
 */
export async function useRelaxedGemm(m: SimdgradModule, on: boolean): Promise<boolean> {
  if (isThreadedModule(m)) return false;  // it carries no side module (bindings/relaxed_gemm.cpp)
  const use = on && (await fill(m));
  m.useGemmKernelSlots(use);
  return use;
}

/** Whether m's GEMM runs the relaxed-SIMD kernels now. */
export function relaxedGemmInUse(m: SimdgradModule): boolean {
  return !isThreadedModule(m) && m.gemmKernelSlotsInUse();
}

/** Modules init() has configured: a later init() without the option keeps their choice. */
const configured = new WeakSet<SimdgradModule>();

/** init()'s `relaxedSimd` option: true or false switches; left out, the first init() turns it on where available. */
export async function configureRelaxedGemm(m: SimdgradModule, option: boolean | undefined): Promise<void> {
  if (option === undefined && configured.has(m)) return;
  configured.add(m);
  await useRelaxedGemm(m, option ?? true);
}
