#!/usr/bin/env node
// The relaxed-SIMD GEMM kernels (f32x4.relaxed_madd) against the SIMD128 ones, side by side in
// one process, in Node 20 (a child with --experimental-wasm-relaxed-simd) and in headless
// Chromium (relaxed SIMD on by default; playwright-core from tests/browser). Each environment
// alternates the two kernels call by call after a warm-up and reports medians (Node: process
// CPU time per call; Chromium: wall time). Goal (issue 29): ≥ 1.25× at 512, 1024 and the MLP's
// shapes.
//   node tests/bench/relaxed_gemm.mjs [--node-only | --browser-only] [--budget MS]
// Needs npm/dist (bash scripts/build.sh wasm js).
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatRows, measureRelaxedGemm } from './lib/relaxed_gemm_measure.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');
const args = process.argv.slice(2);
const budgetMs = args.includes('--budget') ? Number(args[args.indexOf('--budget') + 1]) : 4000;
const FLAG = '--experimental-wasm-relaxed-simd';

if (args.includes('--child')) {
  // In Node with the flag: CPU time of this process per call.
  const { init } = await import(pathToFileURL(path.join(REPO, 'npm/dist/index.mjs')).href);
  const sg = await init();
  sg.manualSeed(0);
  const clock = () => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };
  const rows = await measureRelaxedGemm(sg, init, { clock, budgetMs });
  console.log('@@ROWS ' + JSON.stringify(rows));
  process.exit(0);
}

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`CPU: ${os.cpus()[0].model}, ${os.cpus().length} cores; Node ${process.version}; load average at start: ${load()}`);

if (!args.includes('--browser-only')) {
  const r = spawnSync(process.execPath, ['--no-liftoff', FLAG, fileURLToPath(import.meta.url), '--child', '--budget', String(budgetMs)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = r.stdout.split('\n').find((l) => l.startsWith('@@ROWS '));
  if (!line) throw new Error(`the Node child failed (${r.status}): ${r.stdout}`);
  console.log(formatRows(`\nNode ${process.version} ${FLAG} (CPU time per call, medians; load now ${load()})`, JSON.parse(line.slice(7))));
}

if (!args.includes('--node-only')) {
  const { launch } = await import('../browser/lib/browser.mjs');
  const { startServer } = await import('../../demos/web/serve.mjs');
  const server = await startServer({ roots: [{ prefix: '/bench/', dir: HERE }] });
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await page.goto(`${server.url}npm/dist/`).catch(() => {});  // any same-origin page: the module imports below need the origin
    const version = browser.context.browser()?.version() ?? 'Chromium';
    const rows = await page.evaluate(
      async ({ budgetMs }) => {
        const { init } = await import('/npm/dist/index.mjs');
        const { measureRelaxedGemm } = await import('/bench/lib/relaxed_gemm_measure.mjs');
        const sg = await init();
        sg.manualSeed(0);
        return measureRelaxedGemm(sg, init, { clock: () => performance.now(), budgetMs });
      },
      { budgetMs },
    );
    console.log(formatRows(`\nheadless Chromium ${version} (wall time per call, medians; load now ${load()})`, rows));
  } finally {
    await browser.close();
    await server.close();
  }
}
