// nn.Embedding with paddingIdx made on the GPU ('webgpu' backend): its padding row is zeroed there
// (nn/embedding.ts fillPaddingRow's device branch), as torch.nn.Embedding's, at construction and on
// resetParameters(), and only that row: the others keep their N(0, 1) draws. Needs Dawn
// (webgpu_env.mjs); skipped without it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gpu, why } from './webgpu_env.mjs';
import { init } from '../../npm/dist/index.mjs';

const skip = gpu ? false : why;
const sg = gpu ? await init({ backend: 'webgpu', gpu }) : await init();
after(() => {
  sg.setBackend('wasm');
  if (gpu) setTimeout(() => process.exit(process.exitCode ?? 0), 100); // Dawn keeps Node alive otherwise
});

test('Embedding on the GPU: the paddingIdx row is 0 after construction and resetParameters, the others are not', { skip }, async () => {
  for (const paddingIdx of [0, 2, -1]) {
    const e = new sg.nn.Embedding(5, 4, { paddingIdx });
    assert.equal(e.weight.device, 'webgpu');
    const row = ((paddingIdx % 5) + 5) % 5;
    for (const when of ['construction', 'resetParameters']) {
      if (when === 'resetParameters') e.resetParameters();
      const host = e.weight.to('cpu');
      const w = await host.data();
      host.dispose();
      for (let r = 0; r < 5; r++) {
        const values = Array.from(w.slice(r * 4, r * 4 + 4));
        if (r === row) assert.deepEqual(values, [0, 0, 0, 0], `${when}: padding row ${r} (paddingIdx ${paddingIdx})`);
        else assert.ok(values.some((v) => v !== 0), `${when}: row ${r} keeps its draw`);
      }
    }
    e.dispose();
  }
});
