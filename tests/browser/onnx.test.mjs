// Train in simdgrad, serve with onnxruntime-web, in one page: fixtures/onnx.html trains the digits
// CNN briefly on MNIST in headless Chromium, exports it with sg.onnx.export and runs the exported
// model with onnxruntime-web (wasm backend, files served from node_modules: no network) on the
// held-out digits; the predictions must be the same digit for digit, the logits equal within 1e-4.
//   node --test tests/browser/onnx.test.mjs   (needs npm/dist and demos/web/data: scripts/build.sh wasm js; node scripts/prepare-web-data.mjs)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { startServer } from '../../demos/web/serve.mjs';
import { launch, watch } from './lib/browser.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const FIXTURES = join(HERE, 'fixtures');
const BUNDLE = join(HERE, 'out', 'onnx-proto');
const ORT_DIST = dirname(createRequire(import.meta.url).resolve('onnxruntime-web'));
const PAGE_TIMEOUT_MS = 180_000;

let server;
let browser;

before(async () => {
  // onnx-proto is CommonJS: bundle it into an ES module for the page, as an app's bundler would
  await build({
    configFile: false,
    logLevel: 'warn',
    build: {
      outDir: BUNDLE,
      emptyOutDir: true,
      minify: false,
      lib: { entry: join(FIXTURES, 'onnx-proto-entry.mjs'), formats: ['es'], fileName: () => 'onnx-proto.mjs' },
    },
  });
  server = await startServer({
    roots: [
      { prefix: '/tests/browser/fixtures/', dir: FIXTURES },
      { prefix: '/ort/', dir: ORT_DIST },
      { prefix: '/onnx-proto/', dir: BUNDLE },
    ],
  });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('digits CNN: trained by simdgrad, exported, served by onnxruntime-web in the same page: same predictions', async (t) => {
  const page = await browser.context.newPage();
  const watcher = watch(page);
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  let report;
  try {
    await page.goto(`${server.url}tests/browser/fixtures/onnx.html`);
    await page.waitForFunction(() => window.sgOnnx?.done === true, null, { timeout: PAGE_TIMEOUT_MS });
    report = await page.evaluate(() => window.sgOnnx);
  } finally {
    await page.close();
  }
  t.diagnostic(JSON.stringify(report));
  assert.equal(report.error, null, report.error);
  assert.ok(report.loss.last < 0.6 * report.loss.first, `the loss fell while training: ${JSON.stringify(report.loss)}`);
  assert.ok(report.accuracy > 0.8, `held-out accuracy after ${report.steps} steps: ${report.accuracy}`);
  assert.equal(report.memoryFlat, true, 'sg.memory() flat over the training loop');
  assert.deepEqual(report.ortDims, [report.n, 10], 'onnxruntime-web ran the whole held-out set through the dynamic batch');
  assert.equal(report.agree, report.n, `onnxruntime-web predicted the same digit for ${report.agree} of ${report.n}`);
  assert.ok(report.maxLogitDiff <= 1e-4, `max relative logit difference ${report.maxLogitDiff}`);
  assert.equal(report.ortAccuracy, report.accuracy);
  assert.deepEqual(watcher.problems(), []);
  assert.deepEqual(requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:')), [], 'no request leaves the local server');
});
