// The WebGPU device for the node tests: Dawn from the npm package `webgpu` (a dev dependency
// of npm/) on Chromium's SwiftShader Vulkan driver (../shared/TOOLCHAIN.md), no GPU needed.
// Set the two variables before anything loads Dawn; `gpu` is null (with `why`) where the
// driver or the package is missing, and the tests that need it skip with that reason.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';

const ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.VK_ICD_FILENAMES ??= ICD;
if (!existsSync('/usr/lib/x86_64-linux-gnu/libvulkan.so.1')) {
  process.env.LD_LIBRARY_PATH = `/usr/lib/chromium${process.env.LD_LIBRARY_PATH ? `:${process.env.LD_LIBRARY_PATH}` : ''}`;
}

export let gpu = null;
export let why = '';
if (!existsSync(ICD)) why = `no SwiftShader Vulkan driver at ${ICD} (apt-get install chromium)`;
else {
  try {
    const require = createRequire(new URL('../../npm/package.json', import.meta.url));
    const { create, globals } = require('webgpu');
    Object.assign(globalThis, globals);
    gpu = create([]);
  } catch (e) {
    why = `npm package 'webgpu' not loadable: ${e.message}`;
  }
}

/** node:test's `skip` for a test that needs the device: false, or why it is missing. */
export const skipWithoutGpu = gpu ? false : why;

/** Ends the process once the file's tests are done (Dawn keeps Node alive), where the device started. */
export async function exitAfterTests() {
  if (!gpu) return;
  const { after } = await import('node:test');
  after(() => setTimeout(() => process.exit(process.exitCode ?? 0), 100));
}
