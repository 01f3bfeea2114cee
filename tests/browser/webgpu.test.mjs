// The results matrix in headless Chromium with --enable-unsafe-webgpu (SwiftShader's adapter):
// fixtures/webgpu.html runs tests/js/backend_matrix_run.mjs against navigator.gpu, so every op,
// layer, loss and optimizer step is compared across reference, wasm and webgpu in a browser too;
// and a compiled elementwise chain runs as one fused WGSL kernel there.
//   node --test tests/browser/webgpu.test.mjs      (needs npm/dist: bash scripts/build.sh wasm js)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../demos/web/serve.mjs';
import { launch, watch } from './lib/browser.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
let server;
let browser;

before(async () => {
  const roots = [
    { prefix: '/tests/browser/fixtures/', dir: join(HERE, 'fixtures') },
    { prefix: '/tests/js/', dir: join(HERE, '..', 'js') },
  ];
  server = await startServer({ roots });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the results matrix passes on webgpu in Chromium', async (t) => {
  const page = await browser.context.newPage();
  const watcher = watch(page);
  try {
    await page.goto(`${server.url}tests/browser/fixtures/webgpu.html`);
    await page.waitForFunction(() => window.sgWebgpu?.done === true, null, { timeout: 300_000 });
    const r = await page.evaluate(() => window.sgWebgpu);
    assert.deepEqual(r.init?.ok, true, `init({ backend: 'webgpu' }) in the page: ${r.failures.join('; ')}`);
    assert.equal(r.init.backend, 'webgpu');
    assert.equal(r.init.features.webgpu, true);
    assert.deepEqual(r.failures, []);
    const ops = Object.keys(r.matrix);
    assert.ok(ops.length > 90, `${ops.length} ops in the matrix`);
    const fallback = ops.filter((op) => r.matrix[op].webgpu === 'fallback');
    for (const op of fallback) {
      assert.ok(r.warnings.includes(`simdgrad: ${op} has no webgpu kernel yet; running it on wasm`), `${op} warned`);
    }
    // sg.compile's fused elementwise kernel in the browser: 8 ops, one dispatch, the eager values.
    assert.equal(r.fused?.device, 'webgpu', JSON.stringify(r.fused));
    assert.equal(r.fused.fused, 1, JSON.stringify(r.fused));
    assert.equal(r.fused.dispatches, 1, JSON.stringify(r.fused));
    assert.ok(r.fused.maxDiff <= 1e-6, JSON.stringify(r.fused));
    assert.deepEqual(watcher.problems(), []);
    t.diagnostic(`${ops.length} ops; on webgpu ${ops.length - fallback.length} with kernels, ${fallback.length} through the fallback; ${JSON.stringify(r.stats)}`);
  } finally {
    await page.close();
  }
});
