// The fine-tuning demo (demos/web/finetune/) in headless Chromium, offline: the default model
// (a tiny Llama in demos/web/finetune/model/) loads with sg.models.fromPretrained, the page's
// sg.tokenizers encodes the default text, a run of LoRA steps lowers the loss, the model writes a
// sample before and after (model.generate), and "Download adapter" gives PEFT's two files
// (adapter_model.safetensors with base_model.model.….lora_A/B.weight keys, adapter_config.json with
// peft_type LORA). No console error, page error or failed request. The screenshot goes to
// tests/browser/out/finetune.png. demos.test.mjs also runs this page with the other demos.
//   node --test tests/browser/finetune.test.mjs   (needs npm/dist: scripts/build.sh)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../demos/web/serve.mjs';
import { launch, watch } from './lib/browser.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, 'out');
const STEPS = 60;

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('fine-tune page: LoRA steps lower the loss, samples before and after, the adapter downloads in PEFT format', { timeout: 300_000 }, async () => {
  const page = await browser.context.newPage();
  const watcher = watch(page);
  await page.goto(new URL(`finetune/?autostart=1&steps=${STEPS}`, server.url).href);
  await page.waitForFunction(() => window.simdgradDemo?.ready, null, { timeout: 120_000 });
  await page.waitForFunction(() => !document.getElementById('before').textContent.startsWith('…'), null, { timeout: 60_000 });
  const losses = [];
  await page.waitForFunction(() => window.simdgradDemo.step >= 1, null, { timeout: 60_000 });
  losses.push(await page.evaluate(() => window.simdgradDemo.loss));
  await page.waitForFunction((n) => window.simdgradDemo.step >= n, STEPS, { timeout: 240_000, polling: 500 });
  losses.push(await page.evaluate(() => window.simdgradDemo.loss));
  await page.waitForFunction(() => document.getElementById('after-step').textContent.includes('step'), null, { timeout: 60_000 });
  const before = await page.textContent('#before');
  const afterText = await page.textContent('#after');
  assert.ok(losses[1] < 0.6 * losses[0], `loss ${losses[0]} → ${losses[1]} after ${STEPS} steps`);
  assert.ok(before.length > 40 && afterText.length > 40, `samples: ${JSON.stringify(before)} / ${JSON.stringify(afterText)}`);
  assert.ok(before.startsWith('The Owl and') && afterText.startsWith('The Owl and'), 'both samples continue the prompt');
  assert.notEqual(afterText, before);
  assert.match(await page.textContent('#model-note'), /LlamaForCausalLM: [\d,]+ parameters, [\d,]+ trainable \(LoRA\)/);
  assert.match(await page.textContent('#rate'), /tokens\/s/);

  const downloads = [];
  page.on('download', (d) => downloads.push(d));
  await page.click('#download');
  await page.waitForFunction(() => true, null, { timeout: 1000 }).catch(() => {});
  for (let i = 0; i < 50 && downloads.length < 2; i++) await page.waitForTimeout(200);
  const byName = Object.fromEntries(await Promise.all(downloads.map(async (d) => [d.suggestedFilename(), await readFile(await d.path())])));
  assert.deepEqual(Object.keys(byName).sort(), ['adapter_config.json', 'adapter_model.safetensors']);
  const cfg = JSON.parse(byName['adapter_config.json'].toString('utf8'));
  assert.equal(cfg.peft_type, 'LORA');
  assert.equal(cfg.r, 8);
  const st = byName['adapter_model.safetensors'];
  const headerLen = Number(st.readBigUInt64LE(0));
  const header = JSON.parse(st.subarray(8, 8 + headerLen).toString('utf8'));
  const keys = Object.keys(header).filter((k) => k !== '__metadata__');
  assert.ok(keys.length > 0 && keys.every((k) => /^base_model\.model\.model\.layers\.\d+\.self_attn\.[qkvo]_proj\.lora_[AB]\.weight$/.test(k)), keys.join());

  await mkdir(OUT, { recursive: true });
  await page.screenshot({ path: join(OUT, 'finetune.png'), fullPage: true });
  assert.deepEqual(watcher.problems(), []);
  await page.close();
});
