// Convolution pipelines on WebGPU keyed by shape class (web/webgpu/kernels/conv.ts), not by
// exact geometry: a loop over ever new image sizes compiles pipelines for the first few
// geometries (every field a constant), then one per layer class (kernel, stride, padding,
// dilation, groups; sizes from the parameters), then one generic one per product, so the count
// stops growing. Counts, never times; every convolution's value and gradients (input, weight,
// bias) equal the 'reference' backend's at each of the three levels. Dawn over SwiftShader.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';
import { f } from './backend_cases.mjs';
import { compare, runCase } from './backend_matrix_run.mjs';

const skip = gpu ? false : why;
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : await init();
after(() => {
  sg.setBackend('wasm');
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

// Four layer classes: [C, O, kH, kW, options].
const LAYERS = [
  [3, 4, 3, 3, { padding: 1 }],
  [4, 6, 3, 3, { stride: 2 }],
  [4, 4, 1, 2, { groups: 2 }],
  [2, 3, 2, 2, { padding: 1, dilation: 2 }],
];

/** conv2d of layer `l` on an N × C × H × W image, forward and backward, as a results-matrix case. */
function conv(l, N, H, W, seed) {
  const [C, O, kH, kW, opts] = LAYERS[l];
  return {
    name: `layer ${l} on ${N}×${C}×${H}×${W}`,
    tol: 1e-4,
    inputs: [f([N, C, H, W], -1, 1, seed), f([O, C / (opts.groups ?? 1), kH, kW], -1, 1, seed + 1), f([O], -1, 1, seed + 2)],
    run: (s, x, w, b) => s.F.conv2d(x, w, b, opts),
  };
}

/** Runs each case on webgpu and the reference; returns the differences and the pipelines compiled. */
async function pass(cases) {
  const errors = [];
  sg.setBackend('webgpu');
  await sg.sync();
  const before = sg.webgpuStats().pipelines;
  for (const c of cases) {
    const got = await runCase(sg, c, 'webgpu');
    const want = await runCase(sg, c, 'reference');
    const e = compare(want, got, c.tol);
    if (e) errors.push(`${c.name}: ${e}`);
  }
  sg.setBackend('webgpu');
  await sg.sync();
  const added = sg.webgpuStats().pipelines - before;
  sg.setBackend('wasm');
  return { errors, added };
}

test('conv2d pipelines by shape class: a loop over new image sizes stops adding pipelines; values as the reference at every level', { skip }, async (t) => {
  const { activeRuntime } = await import('../../npm/dist/esm/npm/src/runtime/webgpu_device.js');
  const prefs = activeRuntime().prefs;
  const kept = { exact: prefs.convExact, layers: prefs.convLayers };
  try {
    // Small limits so that one short loop reaches all three levels: 3 exact geometries, then 2
    // layer classes (the first two seen past the exact ones), then the generic kernels.
    prefs.convExact = 3;
    prefs.convLayers = 2;
    let seed = 1;
    const sizes = (from) => Array.from({ length: 4 }, (_, i) => [1 + (i % 2), from + i, from + 2 * i + 1]);
    const round = (from) => sizes(from).flatMap(([N, H, W]) => LAYERS.map((_, l) => conv(l, N, H, W, (seed += 3))));
    const first = await pass(round(9)); // its last image is large enough for the weight gradient in slices
    const second = await pass(round(13));
    const third = await pass(round(17));
    t.diagnostic(`pipelines added by three rounds of ${round(9).length} convolutions at new sizes: ${first.added}, ${second.added}, ${third.added}`);
    assert.deepEqual([...first.errors, ...second.errors, ...third.errors], []);
    assert.ok(first.added > 0, 'the first round compiles pipelines');
    assert.equal(second.added, 0, 'new image sizes of known layer classes: no new pipeline');
    assert.equal(third.added, 0, 'new image sizes of known layer classes: no new pipeline');
  } finally {
    prefs.convExact = kept.exact;
    prefs.convLayers = kept.layers;
  }
});
