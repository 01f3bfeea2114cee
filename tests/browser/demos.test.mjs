// Every browser demo, trained for a while in headless Chromium. The demos are found from the
// links of the index page (demos/web/index.html), so a new demo is covered without touching this
// file. Each page is opened with ?autostart=1; the test waits for window.simdgradDemo.ready,
// samples window.simdgradDemo.{step, loss, memory} while it trains (bounded time), and asks that
//   - the loss falls: the mean of the last few sampled losses < 0.8 × the first one,
//   - memory stays flat: sg.memory()'s tensors and bytes (reported by the worker with each
//     progress message, from step 1 on, when the optimizer state exists) the same at the last
//     sample as at the first,
//   - no console error (page or worker), page error or failed request appears,
// and saves a screenshot of each page into tests/browser/out/ (git-ignored). Then every demo again
// with ?backend=webgpu (loss falls, no errors), and the digits demo on wasm and on webgpu to the
// same step, whose held-out accuracies must agree within 1 point.
//   node --test tests/browser/demos.test.mjs    (needs npm/dist and demos/web/data: scripts/build.sh,
//                                                 node scripts/prepare-web-data.mjs)
// SG_DEMO_INDEX=/tests/browser/fixtures/demo-index.html runs the same harness on a minimal
// fixture demo instead (to check the harness itself).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../demos/web/serve.mjs';
import { launch, watch } from './lib/browser.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, 'out');
const INDEX = process.env.SG_DEMO_INDEX ?? '/';

const READY_TIMEOUT_MS = 60_000; // loading the package and the demo's data
const TRAIN_BUDGET_MS = 40_000; // the most a demo gets to show a falling loss
const SAMPLE_EVERY_MS = 200;
const MIN_STEPS = 20; // never judge a demo on fewer steps than this
const LAST_K = 5; // the "last few" losses averaged
const FALL = 0.8; // mean(last LAST_K) must be below FALL × first loss

let server;
let browser;
let demos = [];

before(async () => {
  server = await startServer({ roots: [{ prefix: '/tests/browser/fixtures/', dir: join(HERE, 'fixtures') }] });
  browser = await launch();
  demos = await discover(new URL(INDEX.replace(/^\//, ''), server.url).href);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Same-origin page links of the index (outside /npm/), each once, in document order. */
async function discover(indexUrl) {
  const page = await browser.context.newPage();
  const watcher = watch(page);
  try {
    await page.goto(indexUrl);
    const hrefs = await page.$$eval('a[href]', (as) => as.map((a) => a.href));
    const index = new URL(indexUrl);
    const seen = new Set();
    const found = [];
    for (const href of hrefs) {
      const u = new URL(href);
      u.hash = '';
      u.search = '';
      if (u.origin !== index.origin || u.pathname === index.pathname || u.pathname.startsWith('/npm/')) continue;
      if (!(u.pathname.endsWith('/') || u.pathname.endsWith('.html'))) continue;
      if (seen.has(u.href)) continue;
      seen.add(u.href);
      found.push(u);
    }
    assert.deepEqual(watcher.problems(), [], `the index ${indexUrl} loads cleanly`);
    return found;
  } finally {
    await page.close();
  }
}

/** A file name for a demo's screenshot: its path, e.g. /digits/ → digits.png. */
function shotName(u) {
  return `${u.pathname.replace(/^\/|\/$/g, '').replace(/\/index\.html$|\.html$/, '').replace(/[^\w.-]+/g, '_') || 'index'}.png`;
}

test('the index links to at least one demo', () => {
  assert.ok(demos.length > 0, `no demo links found on ${INDEX}`);
});

test('every demo trains in Chromium: ready, loss falls, memory flat, no errors', async (t) => {
  await mkdir(OUT, { recursive: true });
  for (const demo of demos) {
    await t.test(demo.pathname, async (st) => {
      const page = await browser.context.newPage();
      const watcher = watch(page);
      try {
        const url = new URL(demo);
        url.searchParams.set('autostart', '1');
        await page.goto(url.href);
        const t0 = Date.now();
        try {
          await page.waitForFunction(() => window.simdgradDemo?.ready === true, null, { timeout: READY_TIMEOUT_MS });
        } catch (e) {
          // Say what the page itself showed, and keep a screenshot of it.
          const shown = await page.evaluate(() => document.getElementById('status')?.textContent ?? document.body?.innerText?.slice(0, 300)).catch(() => '?');
          await page.screenshot({ path: join(OUT, shotName(demo)), fullPage: true }).catch(() => {});
          throw new Error(`not ready after ${Date.now() - t0} ms (${e.message}); the page shows ${JSON.stringify(shown)}; problems: ${JSON.stringify(watcher.problems())}`);
        }
        const readyMs = Date.now() - t0;

        // Sample (step, loss) whenever the step moves on, until the loss has clearly fallen over
        // enough steps, the budget runs out, or something goes wrong on the page.
        const samples = [];
        const verdict = () => {
          if (samples.length < LAST_K + 1 || samples.at(-1).step < MIN_STEPS) return null;
          const first = samples[0].loss;
          const last = samples.slice(-LAST_K).reduce((s, x) => s + x.loss, 0) / LAST_K;
          return { first, last, fell: last < FALL * first };
        };
        const t1 = Date.now();
        while (Date.now() - t1 < TRAIN_BUDGET_MS && watcher.problems().length === 0) {
          const { step, loss, memory } = await page.evaluate(() => {
            const d = window.simdgradDemo;
            return { step: d.step, loss: d.loss, memory: d.memory && { tensors: d.memory.tensors, bytes: d.memory.bytes } };
          });
          if (step > 0 && Number.isFinite(loss) && step !== samples.at(-1)?.step) samples.push({ step, loss, memory });
          if (verdict()?.fell) break;
          await page.waitForTimeout(SAMPLE_EVERY_MS);
        }
        const trainMs = Date.now() - t1;
        await page.screenshot({ path: join(OUT, shotName(demo)), fullPage: true });

        const v = verdict();
        const lastStep = samples.at(-1)?.step ?? 0;
        st.diagnostic(
          `ready in ${readyMs} ms; ${samples.length} samples, step ${lastStep} after ${trainMs} ms; ` +
            `loss ${v ? `${v.first.toPrecision(4)} → ${v.last.toPrecision(4)} (mean of the last ${LAST_K})` : 'not judged'}; ` +
            `memory ${JSON.stringify(samples[0]?.memory)} → ${JSON.stringify(samples.at(-1)?.memory)}`,
        );
        assert.deepEqual(watcher.problems(), [], 'no console error, page error or failed request');
        assert.ok(v, `the demo reached only step ${lastStep} with ${samples.length} loss samples in ${TRAIN_BUDGET_MS} ms (need step ≥ ${MIN_STEPS}, ${LAST_K + 1} samples)`);
        assert.ok(v.fell, `the loss did not fall: first ${v.first}, mean of the last ${LAST_K} ${v.last} (need < ${FALL} × first)`);
        const [m0, m1] = [samples[0].memory, samples.at(-1).memory];
        assert.ok(m0 && m1, 'window.simdgradDemo.memory reports { tensors, bytes }');
        assert.deepEqual(m1, m0, `memory at step ${lastStep} equals memory at step ${samples[0].step}`);
      } finally {
        await page.close();
      }
    });
  }
});

// ---- the same demos on WebGPU (Chromium's SwiftShader adapter, --enable-unsafe-webgpu) ----

/** Opens a demo with `query`, waits until it is ready; returns { page, watcher }. */
async function openDemo(demo, query) {
  const page = await browser.context.newPage();
  const watcher = watch(page);
  const url = new URL(demo);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  await page.goto(url.href);
  await page.waitForFunction(() => window.simdgradDemo?.ready === true, null, { timeout: READY_TIMEOUT_MS });
  return { page, watcher };
}

// SwiftShader runs a GPU on the CPU, slower than wasm for these small models (the transformer
// makes ~1 step/s there): judged from 10 steps.
const MIN_STEPS_WEBGPU = 10;
// And given longer: the loss is judged as soon as it falls, so only a slow run uses the extra time.
// The playground's loss needs ~230 steps to fall by 20 % (the same trajectory on every run: its
// seed is fixed): 249 steps took 5.9 s on a quiet 2-core machine, but beside CI's other stages
// SwiftShader's threads got little CPU, and two clean-clone runs of 2026-11-30 reached step 233 in
// 35 s (passed) and step 213 in 40 s (failed, loss 0.702 → 0.587).
const TRAIN_BUDGET_WEBGPU_MS = 90_000;

test('every demo trains on webgpu (?backend=webgpu): the backend is webgpu, the loss falls, no errors', async (t) => {
  for (const demo of demos) {
    await t.test(demo.pathname, async (st) => {
      const { page, watcher } = await openDemo(demo, { autostart: '1', backend: 'webgpu' });
      try {
        assert.equal(await page.evaluate(() => window.simdgradDemo.backend), 'webgpu');
        assert.equal(await page.$eval('#backend-choice', (s) => s.value), 'webgpu');
        const samples = [];
        const t1 = Date.now();
        let fell = false;
        while (Date.now() - t1 < TRAIN_BUDGET_WEBGPU_MS && watcher.problems().length === 0 && !fell) {
          const { step, loss } = await page.evaluate(() => ({ step: window.simdgradDemo.step, loss: window.simdgradDemo.loss }));
          if (step > 0 && Number.isFinite(loss) && step !== samples.at(-1)?.step) samples.push({ step, loss });
          if (samples.length > LAST_K && samples.at(-1).step >= MIN_STEPS_WEBGPU) {
            fell = samples.slice(-LAST_K).reduce((s, x) => s + x.loss, 0) / LAST_K < FALL * samples[0].loss;
          }
          await page.waitForTimeout(SAMPLE_EVERY_MS);
        }
        await page.screenshot({ path: join(OUT, shotName(demo).replace(/\.png$/, '-webgpu.png')), fullPage: true });
        st.diagnostic(`step ${samples.at(-1)?.step} after ${Date.now() - t1} ms; loss ${samples[0]?.loss} → ${samples.at(-1)?.loss}`);
        assert.deepEqual(watcher.problems(), []);
        assert.ok(fell, `the loss did not fall on webgpu: ${JSON.stringify(samples.slice(0, 3))} … ${JSON.stringify(samples.slice(-3))}`);
      } finally {
        await page.close();
      }
    });
  }
});

test('the digits demo reaches the same held-out accuracy on webgpu as on wasm (± 1 point)', async (t) => {
  const digits = demos.find((d) => d.pathname.includes('digits'));
  if (!digits) return t.skip('no digits demo on this index');
  // 200 steps: 0.929 on both backends (2026-11-29; 300 steps took 113 s of the browser stage,
  // 200 take 87 s; at 150 wasm gave 0.9055, too near the 0.9 floor to keep).
  const STEPS = 200;
  const accuracy = {};
  for (const backend of ['wasm', 'webgpu']) {
    const { page, watcher } = await openDemo(digits, { autostart: '1', steps: String(STEPS), backend });
    try {
      await page.waitForFunction((n) => window.simdgradDemo.step >= n, STEPS, { timeout: 240_000, polling: 500 });
      // The full evaluation on all 2,000 held-out digits, at exactly STEPS steps.
      const ev = await page.evaluate(() => window.simdgradDemo.request('evaluate'));
      accuracy[backend] = ev.accuracy;
      assert.equal(await page.evaluate(() => window.simdgradDemo.backend), backend);
      assert.deepEqual(watcher.problems(), []);
    } finally {
      await page.close();
    }
  }
  t.diagnostic(`held-out accuracy after ${STEPS} steps: wasm ${accuracy.wasm}, webgpu ${accuracy.webgpu}`);
  assert.ok(accuracy.wasm > 0.9, `wasm ${accuracy.wasm}`);
  assert.ok(Math.abs(accuracy.webgpu - accuracy.wasm) <= 0.01, `webgpu ${accuracy.webgpu} vs wasm ${accuracy.wasm}`);
});
