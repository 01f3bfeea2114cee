// Runs a test once per available backend: 'reference' and 'wasm', plus 'webgpu' when
// sg.features().webgpu says it can be used. The backend is named in the test title and the
// previous one is restored afterwards, also when the body fails. Bodies read results with
// `await values(t)`, which works on every device (synchronous reads throw on 'webgpu').
import { test } from 'node:test';
import { sg } from './helpers.mjs';

/** The backends this process can run. */
export function availableBackends() {
  return ['reference', 'wasm', ...(sg.features().webgpu ? ['webgpu'] : [])];
}

/** test(`${title} [${backend}]`, options, () => body(backend)) for every available backend. */
export function forEachBackend(title, options, body) {
  if (typeof options === 'function') [options, body] = [{}, options];
  for (const backend of availableBackends()) {
    test(`${title} [${backend}]`, options, async () => {
      const previous = sg.getBackend();
      sg.setBackend(backend);
      try {
        await body(backend);
      } finally {
        sg.setBackend(previous);
      }
    });
  }
}

/** A tensor's elements as nested arrays (a number for 0-d), read asynchronously. */
export async function values(t) {
  const flat = Array.from(await t.data());
  const shape = t.shape;
  let pos = 0;
  const build = (d) => (d === shape.length ? flat[pos++] : Array.from({ length: shape[d] }, () => build(d + 1)));
  return build(0);
}
