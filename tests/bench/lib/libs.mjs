// Loads the two libraries under test into this process.
//   simdgrad: the built package (npm/dist/index.mjs, from `bash scripts/build.sh wasm js`),
//             through its public API only.
//   tfjs:     @tensorflow/tfjs-core + @tensorflow/tfjs-backend-wasm from tests/bench/node_modules,
//             its .wasm files read from that local package (setWasmPaths), single-threaded SIMD.
import { createRequire, register } from 'node:module';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const REPO_DIR = path.resolve(BENCH_DIR, '../..');
export const SG_ENTRY = path.join(REPO_DIR, 'npm/dist/index.mjs');

export async function loadSimdgrad() {
  const { init } = await import(pathToFileURL(SG_ENTRY).href);
  const sg = await init({ backend: 'wasm' });
  sg.manualSeed(0);
  return {
    sg,
    info: { version: sg.version, backend: sg.getBackend(), features: sg.features() },
  };
}

export async function loadTfjs() {
  const require = createRequire(path.join(BENCH_DIR, 'package.json'));
  // The Node bundle of tfjs-core registers no gradient functions (the @tensorflow/tfjs
  // union package normally does that). They exist only as unbundled ES modules with
  // extensionless imports; this hook lets Node load them. Both copies of tfjs-core share
  // one engine and kernel/gradient registry (tfjs keeps them on globalThis).
  register(pathToFileURL(path.join(BENCH_DIR, 'lib/tfjs-esm-hooks.mjs')).href);
  const tf = require('@tensorflow/tfjs-core');
  const wasm = require('@tensorflow/tfjs-backend-wasm');
  await import(pathToFileURL(require.resolve('@tensorflow/tfjs-core/dist/register_all_gradients.js')).href);

  // Force the SIMD, non-threaded binary: no worker pool, one XNNPACK thread, so that both
  // libraries run on one core. (In Node tfjs already reports no thread support; the flag
  // makes it explicit and survives a future change of that detection.)
  const dir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm')) + path.sep;
  wasm.setWasmPaths(dir);
  wasm.setThreadsCount(1);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  // Which .wasm file tfjs really reads: its Emscripten glue loads it through Node's fs.
  const fs = require('node:fs');
  const read = [];
  const spy = (fn) => function (file, ...rest) {
    if (String(file).endsWith('.wasm')) read.push(path.basename(String(file)));
    return fn.call(this, file, ...rest);
  };
  const { readFileSync, readFile } = fs;
  fs.readFileSync = spy(readFileSync);
  fs.readFile = spy(readFile);
  try {
    if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: setBackend("wasm") failed');
    await tf.ready();
  } finally {
    fs.readFileSync = readFileSync;
    fs.readFile = readFile;
  }
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  const threaded = await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT');
  // The same choice tfjs-backend-wasm's getPathToWasmBinary() makes from these two flags.
  const binary = simd && threaded ? 'tfjs-backend-wasm-threaded-simd.wasm' : simd ? 'tfjs-backend-wasm-simd.wasm' : 'tfjs-backend-wasm.wasm';
  if (!existsSync(dir + binary)) throw new Error(`tfjs: ${dir + binary} is missing`);
  return {
    tf,
    info: {
      version: tf.version_core,
      backend: tf.getBackend(),
      binary: path.relative(REPO_DIR, dir + binary),
      binaryRead: read.join(', ') || 'not seen (read outside node:fs)',
      features: { simd, threads: threaded, threadsCount: wasm.getThreadsCount() },
    },
  };
}

/** Bytes of tfjs's wasm heap (it only grows, so in a fresh process: the workload's high-water mark). */
export function tfjsHeapBytes(tf) {
  return tf.backend().wasm?.HEAPU8?.byteLength ?? null;
}
