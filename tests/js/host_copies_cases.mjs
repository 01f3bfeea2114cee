// What the tests of callbacks given host copies of GPU inputs share
// (compile_callback_host_copies.test.mjs, compile_jscall_host_inputs.test.mjs): the inputs x and
// w of their test functions, a tolerance check, and the memory counters that must stay flat.
import assert from 'node:assert/strict';

export const XV = [[0.5, -1.5, 2.0], [1.0, 0.25, -3.0]];
export const WV = [0.7, -1.2, 0.4];

/** Each got[i] within tol·(1 + |want[i]|) of want[i]. */
export function close(got, want, tol, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  want.forEach((w, i) => assert.ok(Math.abs(got[i] - w) <= tol * (1 + Math.abs(w)), `${what}[${i}]: ${got[i]} vs ${w}`));
}

/** Live tensors, handles, storages and bytes (the wasm heap's own bookkeeping left out). */
export function memoryOf(sg) {
  const { tensors, handles, storages, bytes, gpuBytes, gpuStorages } = sg.memory();
  return { tensors, handles, storages, bytes, gpuBytes, gpuStorages };
}
