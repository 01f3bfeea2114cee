// Deterministic input data shared by both libraries: every workload builds its tensors
// from the same Float32Arrays in simdgrad and in tfjs, so both compute the same thing
// (worker.mjs cross-checks one result per workload before timing).

/** mulberry32: a small seeded PRNG; returns uniform floats in [0, 1). */
export function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** n standard-normal floats (Box–Muller), times `scale`. */
export function normal(n, seed, scale = 1) {
  const u = rng(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - u())) * scale;
    const a = 2 * Math.PI * u();
    out[i] = r * Math.cos(a);
    if (i + 1 < n) out[i + 1] = r * Math.sin(a);
  }
  return out;
}

/** n floats uniform in [-bound, bound): PyTorch's default init range for Linear/Conv. */
export function uniform(n, seed, bound) {
  const u = rng(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (2 * u() - 1) * bound;
  return out;
}

/** n class labels in [0, classes). */
export function labels(n, classes, seed) {
  const u = rng(seed);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(u() * classes);
  return out;
}

/** Row-major `data` of `shape`, permuted as numpy.transpose(data, perm) (a copy). */
export function permute(data, shape, perm) {
  const nd = shape.length;
  const outShape = perm.map((p) => shape[p]);
  const inStrides = new Array(nd);
  for (let d = nd - 1, s = 1; d >= 0; d--) {
    inStrides[d] = s;
    s *= shape[d];
  }
  const out = new Float32Array(data.length);
  const idx = new Array(nd).fill(0);
  for (let o = 0; o < out.length; o++) {
    let src = 0;
    for (let d = 0; d < nd; d++) src += idx[d] * inStrides[perm[d]];
    out[o] = data[src];
    for (let d = nd - 1; d >= 0; d--) {
      if (++idx[d] < outShape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

/** Largest |a - b| relative to the largest |b| (both Float32Arrays of one length). */
export function relDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(b[i]));
  }
  return diff / (scale || 1);
}
