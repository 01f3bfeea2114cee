// The API in a browser page: fixtures/api.html imports simdgrad from npm/dist through an import
// map (no bundler) and runs fixtures/api-suite.mjs in headless Chromium, once with the default
// single-threaded build (init()) and once with the threaded build (init({ threads: 2 })) in a
// cross-origin-isolated page. Every check the page ran becomes a subtest here.
//   node --test tests/browser/api.test.mjs      (needs npm/dist: bash scripts/build.sh wasm wasm-mt js)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../demos/web/serve.mjs';
import { launch, watch } from './lib/browser.mjs';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const PAGE_TIMEOUT_MS = 90_000;

let server;
let browser;

before(async () => {
  const roots = [{ prefix: '/tests/browser/fixtures/', dir: FIXTURES }];
  // SG_NPM_DIST=<folder>: test another build of the package (e.g. a branch's npm/dist) in place of this checkout's.
  if (process.env.SG_NPM_DIST) roots.push({ prefix: '/npm/dist/', dir: process.env.SG_NPM_DIST });
  server = await startServer({ roots });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Loads api.html with the query, waits for its report; returns { report, problems }. */
async function runPage(query) {
  const page = await browser.context.newPage();
  const watcher = watch(page);
  try {
    await page.goto(`${server.url}tests/browser/fixtures/api.html${query}`);
    await page.waitForFunction(() => window.sgApi?.done === true, null, { timeout: PAGE_TIMEOUT_MS });
    const report = await page.evaluate(() => window.sgApi);
    return { report, problems: watcher.problems() };
  } finally {
    await page.close();
  }
}

function failures(results) {
  return results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.error}`);
}

test('single-threaded build: init() in a page, API subset', async (t) => {
  const { report, problems } = await runPage('?webgpu=1');
  assert.equal(report.coi, true, 'the page is cross-origin isolated (COOP/COEP from the server)');
  assert.deepEqual(report.init, { ok: true }, 'init() resolves');
  assert.ok(report.results.length >= 11, `the page ran ${report.results.length} checks`);
  for (const r of report.results) {
    await t.test(r.name, () => {
      assert.ok(r.ok, r.error);
    });
  }
  await t.test("init({ backend: 'webgpu' }) rejects with a clear Error, or works", () => {
    const w = report.webgpu;
    assert.ok(w, 'the page tried the WebGPU backend');
    if (w.resolved) {
      assert.equal(w.backend, 'webgpu');
      assert.deepEqual(w.value, [3, 7], '[[1,2],[3,4]] @ [[1],[1]] on WebGPU');
    } else {
      assert.equal(w.isError, true, `rejected with an Error: ${w.message}`);
      assert.match(w.message, /webgpu/i, 'the message names the backend');
    }
    t.diagnostic(`webgpu: ${JSON.stringify(w)}`);
  });
  await t.test("init({ backend: 'auto' }) takes WebGPU when it works, else 'wasm' with one warning", () => {
    const a = report.auto;
    assert.ok(a && !a.error, `init({ backend: 'auto' }) resolves: ${a?.error}`);
    if (report.webgpu?.resolved) {
      assert.equal(a.backend, 'webgpu');
    } else {
      assert.equal(a.backend, 'wasm');
      assert.equal(a.warnings.length, 1, `one console warning: ${JSON.stringify(a.warnings)}`);
      assert.match(a.warnings[0], /auto/);
    }
  });
  await t.test('no console error, page error or failed request', () => {
    assert.deepEqual(problems, []);
  });
});

test(
  'threaded build: init({ threads: 2 }) in a cross-origin-isolated page, API subset',
  async (t) => {
    const { report, problems } = await runPage('?threads=2');
    assert.equal(report.coi, true, 'self.crossOriginIsolated (SharedArrayBuffer needs it)');
    assert.deepEqual(report.init, { ok: true }, 'init({ threads: 2 }) resolves');
    assert.equal(report.features?.threads, true, 'features().threads');
    t.diagnostic(`getNumThreads(): ${report.numThreads}; checks: ${report.results.map((r) => `${r.name.split(':')[0]} ${r.ms.toFixed(0)} ms`).join(', ')}`);
    assert.ok(report.results.length >= 11, `the page ran ${report.results.length} checks`);
    assert.deepEqual(failures(report.results), [], 'every in-page check passes with threads');
    assert.deepEqual(problems, [], 'no console error, page error or failed request');
  },
);
