// simdgrad as a Vite user gets it: `npm pack` npm/ (as tests/consumer/run.sh does), install the
// tarball into a fresh copy of tests/vite-consumer/ outside the repo, then
//   - `vite build` it, serve dist/ (demos/web/serve.mjs, COOP/COEP) and run it in Chromium, with
//     init() and with
//     init({ threads: 2 }),
//   - start the Vite dev server on it and run it there too (the same two ways).
// The app trains y = 2x − 1 and writes what it learned into #result.
//   node --test tests/browser/vite.test.mjs     (needs npm/dist: scripts/build.sh wasm js)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build, createServer } from 'vite';
import { startServer } from '../../demos/web/serve.mjs';
import { launch, watch } from './lib/browser.mjs';

const run = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const APP_SOURCE = join(ROOT, 'tests', 'vite-consumer');
// SG_NPM_DIR=<folder>: pack another checkout's npm/ (e.g. a branch's, built) instead of this one's.
const NPM_DIR = resolve(process.env.SG_NPM_DIR ?? join(ROOT, 'npm'));
const PAGE_TIMEOUT_MS = 60_000;

let work;
let app;
let browser;
let version;
let dev = null; // the Vite dev server, started by the first dev test

before(async () => {
  version = JSON.parse(await readFile(join(NPM_DIR, 'package.json'), 'utf8')).version;
  await readFile(join(NPM_DIR, 'dist', 'index.mjs')).catch(() => {
    throw new Error(`${NPM_DIR}/dist is empty: run bash scripts/build.sh wasm js`);
  });
  work = await mkdtemp(join(tmpdir(), 'simdgrad-vite-'));
  const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', work], { cwd: NPM_DIR });
  const tarball = join(work, stdout.trim().split('\n').at(-1));
  app = join(work, 'app');
  await cp(APP_SOURCE, app, { recursive: true });
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'simdgrad-vite-consumer', private: true, type: 'module' }, null, 2));
  // --prefer-offline: simdgrad's own dependency comes from npm's cache when it is there.
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball], { cwd: app });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (dev) await (await dev.catch(() => null))?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Opens url, waits for the app's #result, returns { status, text, problems }. */
async function runApp(url) {
  const page = await browser.context.newPage();
  const watcher = watch(page);
  try {
    await page.goto(url);
    await page.waitForFunction(() => document.getElementById('result')?.dataset.status !== 'running', null, { timeout: PAGE_TIMEOUT_MS });
    const [status, text] = await page.$eval('#result', (el) => [el.dataset.status, el.textContent]);
    return { status, text, problems: watcher.problems() };
  } finally {
    await page.close();
  }
}

/** What the app learned: y = 2x − 1 exactly, by plain gradient descent from any start. */
function checkResult(t, { status, text, problems }, { threads = false } = {}) {
  assert.deepEqual(problems, [], 'no console error, page error or failed request');
  assert.equal(status, 'done', `the app finished: ${text}`);
  const r = JSON.parse(text);
  t.diagnostic(`learned w ${r.weight}, b ${r.bias}; loss ${r.firstLoss} → ${r.lastLoss}`);
  assert.equal(r.version, version, 'sg.version is the packed version');
  assert.equal(r.features.simd, true, 'the SIMD build runs');
  assert.equal(r.features.threads, threads, `features().threads is ${threads}`);
  assert.ok(r.lastLoss < 1e-4 && r.lastLoss < r.firstLoss / 100, `loss ${r.firstLoss} → ${r.lastLoss}`);
  assert.ok(Math.abs(r.weight - 2) < 1e-2, `weight ${r.weight}, expected 2`);
  assert.ok(Math.abs(r.bias + 1) < 1e-2, `bias ${r.bias}, expected −1`);
}

let built = null;
/** `vite build` once (both build tests need it; the first to run does it). */
function buildOnce() {
  built ??= build({ root: app, configFile: join(app, 'vite.config.js'), logLevel: 'warn' });
  return built;
}

/** Serves the built dist/ (cross-origin isolated) while fn(url) runs. */
async function serveDist(fn) {
  const server = await startServer({ roots: [{ prefix: '/vite-app/', dir: join(app, 'dist') }] });
  try {
    await fn(`${server.url}vite-app/`);
  } finally {
    await server.close();
  }
}

test('vite build: the bundled app runs in Chromium', async (t) => {
  await buildOnce();
  const assets = await readdir(join(app, 'dist', 'assets'));
  assert.ok(assets.some((f) => f.endsWith('.wasm')), `the .wasm is emitted as an asset: ${assets.join(', ')}`);
  await serveDist(async (url) => checkResult(t, await runApp(url)));
});

test('vite build: init({ threads: 2 }) in the bundled app (cross-origin isolated)', async (t) => {
  await buildOnce();
  await serveDist(async (url) => checkResult(t, await runApp(`${url}?threads=2`), { threads: true }));
});

/** One Vite dev server for both dev tests, closed in after(). */
async function devUrl() {
  dev ??= (async () => {
    const server = await createServer({
      root: app,
      configFile: join(app, 'vite.config.js'),
      logLevel: 'warn',
      server: { host: '127.0.0.1', port: 0, strictPort: false },
    });
    await server.listen();
    return server;
  })();
  return (await dev).resolvedUrls.local[0];
}

test('vite dev server (optimizeDeps.exclude simdgrad): the app runs in Chromium', async (t) => {
  checkResult(t, await runApp(await devUrl()));
});

test('vite dev server: init({ threads: 2 }) (COOP/COEP from vite.config.js)', async (t) => {
  checkResult(t, await runApp(`${await devUrl()}?threads=2`), { threads: true });
});
