// The playground's 2-D datasets: points in [-1, 1]² with labels 0/1, from a seeded generator so
// the same settings always give the same points.

/** mulberry32: a tiny seeded uniform generator in [0, 1). */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(rand) {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

const makers = {
  // Two interleaved arms turning 1.75 times around the origin.
  spiral(rand, n, noise) {
    return Array.from({ length: n }, (_, i) => {
      const label = i % 2;
      const r = (Math.floor(i / 2) / (n / 2)) * 0.9 + 0.05;
      const t = 1.75 * 2 * Math.PI * r + label * Math.PI;
      return [r * Math.sin(t) + noise * 0.12 * gaussian(rand), r * Math.cos(t) + noise * 0.12 * gaussian(rand), label];
    });
  },
  // A disc (label 0) inside a ring (label 1).
  circles(rand, n, noise) {
    return Array.from({ length: n }, (_, i) => {
      const label = i % 2;
      const r = label ? 0.65 + rand() * 0.3 : rand() * 0.4;
      const t = rand() * 2 * Math.PI;
      return [r * Math.cos(t) + noise * 0.1 * gaussian(rand), r * Math.sin(t) + noise * 0.1 * gaussian(rand), label];
    });
  },
  // Label = sign(x) xor sign(y), away from the axes.
  xor(rand, n, noise) {
    return Array.from({ length: n }, () => {
      let x = rand() * 2 - 1;
      let y = rand() * 2 - 1;
      x += Math.sign(x) * 0.05;
      y += Math.sign(y) * 0.05;
      const label = x * y > 0 ? 0 : 1;
      return [x + noise * 0.1 * gaussian(rand), y + noise * 0.1 * gaussian(rand), label];
    });
  },
  // Four gaussian blobs, opposite corners sharing a class.
  blobs(rand, n, noise) {
    const centers = [[-0.5, -0.5, 0], [0.5, 0.5, 0], [-0.5, 0.5, 1], [0.5, -0.5, 1]];
    return Array.from({ length: n }, (_, i) => {
      const [cx, cy, label] = centers[i % 4];
      const s = 0.12 + noise * 0.15;
      return [cx + s * gaussian(rand), cy + s * gaussian(rand), label];
    });
  },
};

export const DATASETS = Object.keys(makers);

/** n points of a dataset: { x: Float32Array(2n), y: Int32Array(n) }. noise in [0, 1]. */
export function makeDataset(name, n, noise, seed) {
  const make = makers[name];
  if (!make) throw new Error(`playground: unknown dataset '${name}' (expected one of ${DATASETS.join(', ')})`);
  const pts = make(rng(seed), n, noise);
  const x = new Float32Array(2 * n);
  const y = new Int32Array(n);
  pts.forEach(([a, b, l], i) => {
    x[2 * i] = Math.max(-1, Math.min(1, a));
    x[2 * i + 1] = Math.max(-1, Math.min(1, b));
    y[i] = l;
  });
  return { x, y };
}
