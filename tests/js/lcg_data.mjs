// Deterministic test data that depends on no module's generator (the threads tests compare a
// threaded module with the default one, so neither's sg.manualSeed can make their inputs).

/** n floats in [-1, 1) from a 32-bit linear congruential generator seeded with `seed`. */
export function data(n, seed) {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s / 2 ** 31 - 1;
  }
  return out;
}
