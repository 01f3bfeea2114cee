// Shared helpers of the browser tests: one headless Chromium (the system's /usr/bin/chromium,
// driven by playwright-core, so nothing is downloaded) and a watcher that records everything a
// page reports as going wrong.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.SG_CHROMIUM ?? '/usr/bin/chromium';

// TOOLCHAIN.md §WebGPU: --no-sandbox (we run as root), the new headless mode, no background
// traffic, and a fresh profile per launch. --enable-unsafe-webgpu exposes SwiftShader's fallback
// adapter, so navigator.gpu exists even without a GPU.
const ARGS = [
  '--no-sandbox',
  '--headless=new',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--enable-unsafe-webgpu',
];

/**
 * Launches Chromium with a fresh user-data-dir (a persistent context is the only way Playwright
 * takes one). Returns { context, close() }; close() also deletes the profile.
 */
export async function launch() {
  const profile = await mkdtemp(join(tmpdir(), 'simdgrad-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ARGS,
      viewport: { width: 1100, height: 800 },
    });
  } catch (e) {
    await rm(profile, { recursive: true, force: true });
    throw e;
  }
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Records console errors (of the page and of its workers, where the demos train), uncaught page
 * errors, crashes, failed requests and HTTP error responses of a page. problems() lists them as
 * strings, each once; a passing page has none.
 */
export function watch(page) {
  const seen = [];
  const note = (s) => {
    if (!seen.includes(s)) seen.push(s);
  };
  page.on('console', (m) => {
    if (m.type() === 'error') note(`console.error: ${m.text()}`);
  });
  page.on('worker', (w) => {
    w.on('console', (m) => {
      if (m.type() === 'error') note(`console.error (worker ${w.url()}): ${m.text()}`);
    });
  });
  page.on('pageerror', (e) => note(`pageerror: ${e.message}`));
  page.on('crash', () => note('the page crashed'));
  page.on('requestfailed', (r) => note(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  page.on('response', (r) => {
    if (r.status() >= 400) note(`HTTP ${r.status()}: ${r.url()}`);
  });
  return { problems: () => [...seen] };
}
