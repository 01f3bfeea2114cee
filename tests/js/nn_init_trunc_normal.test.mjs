// sg.nn.init.truncNormal_ (torch.nn.init.trunc_normal_): N(mean, std²) restricted to [a, b].
// Checked three independent ways: the sample moments against the truncated normal's closed form
// (asymmetric bounds, and a narrow interval in one tail); the values against
// the library generator's own sg.randn stream (rejection sampling keeps, in order, the draws whose
// mean + std·z lies in [a, b], both ends included as in PyTorch's [a, b]); and the generator state
// the fill leaves behind (rounds of max(16, 2·missing) draws), so a seeded program that draws after
// an initialization gets the same numbers on every run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sg, throwsWith } from './helpers.mjs';

const init = sg.nn.init;
const phi = (x) => Math.exp(-x * x / 2) / Math.sqrt(2 * Math.PI);

/** ∫ φ over [lo, hi] by Simpson's rule on 20,000 intervals (error far below 1e-10 here). */
function normalMass(lo, hi) {
  const n = 20000, h = (hi - lo) / n;
  let s = phi(lo) + phi(hi);
  for (let i = 1; i < n; i++) s += (i % 2 ? 4 : 2) * phi(lo + i * h);
  return s * h / 3;
}

/** Mean and standard deviation of N(mean, std²) truncated to [a, b] (the closed form; PyTorch 1.13's
 * trunc_normal_ on 4M float64 draws gives 1.5376 / 1.5305 for the first case below, this 1.5375 / 1.5304). */
function truncatedMoments(mean, std, a, b) {
  const al = (a - mean) / std, be = (b - mean) / std;
  const z = normalMass(al, be);
  const d = (phi(al) - phi(be)) / z;
  const variance = std * std * (1 + (al * phi(al) - be * phi(be)) / z - d * d);
  return { mean: mean + std * d, std: Math.sqrt(variance) };
}

/** The values rejection sampling keeps from sg.randn's stream, and how many draws it makes. */
function replay(n, mean, std, a, b) {
  const kept = [];
  let draws = 0;
  while (kept.length < n) {
    const k = Math.max(16, 2 * (n - kept.length));
    const z = sg.randn([k]);
    draws += k;
    for (const v of z.dataSync()) {
      const x = mean + std * v;
      if (x >= a && x <= b && kept.length < n) kept.push(Math.fround(x));
    }
    z.dispose();
  }
  return { kept, draws };
}

test('truncNormal_: moments of N(1, 2²) on [-1, 6] against the closed form, every value inside, all 20,000 filled', () => {
  sg.tidy(() => {
    sg.manualSeed(11);
    const t = init.truncNormal_(sg.full([100, 200], NaN), 1, 2, -1, 6);
    const v = Array.from(t.dataSync());
    assert.equal(v.length, 20000);
    assert.ok(v.every((x) => x >= -1 && x <= 6), 'every value within [a, b] (NaN would fail: none left unfilled)');
    const m = v.reduce((s, x) => s + x, 0) / v.length;
    const sd = Math.sqrt(v.reduce((s, x) => s + (x - m) ** 2, 0) / v.length);
    const want = truncatedMoments(1, 2, -1, 6);
    // Standard error of the mean ~ 1.6 / √20000 = 0.011: 0.04 is well beyond chance. (A mirrored
    // draw, mean - std·z, has this same distribution, z being symmetric: the replay below tells it.)
    assert.ok(Math.abs(m - want.mean) < 0.04, `mean ${m}, closed form ${want.mean}`);
    assert.ok(Math.abs(sd - want.std) < 0.03, `std ${sd}, closed form ${want.std}`);
    // One tail of [a, b] only: on [1.5, 2.5] (6 % of N(0, 1)) it takes many rounds.
    const narrow = Array.from(init.truncNormal_(sg.empty([500]), 0, 1, 1.5, 2.5).dataSync());
    const nw = truncatedMoments(0, 1, 1.5, 2.5);
    const nm = narrow.reduce((s, x) => s + x, 0) / narrow.length;
    assert.ok(narrow.every((x) => x >= 1.5 && x <= 2.5));
    assert.ok(Math.abs(nm - nw.mean) < 0.03, `narrow mean ${nm}, closed form ${nw.mean}`);
  });
});

test("truncNormal_: the draws of sg.randn's stream that land in [a, b], in order; the generator left after its draws", () => {
  sg.tidy(() => {
    for (const [n, mean, std, a, b] of [[37, 0.5, 2, 1, 4], [3, 0, 1, -2, 2], [200, -1, 0.5, -0.6, 0]]) {
      sg.manualSeed(21);
      const { kept, draws } = replay(n, mean, std, a, b);
      const after = sg.randn([4]).toArray();
      sg.manualSeed(21);
      const got = Array.from(init.truncNormal_(sg.empty([n]), mean, std, a, b).dataSync());
      assert.deepEqual(got, kept, `N(${mean}, ${std}²) on [${a}, ${b}], ${n} values`);
      assert.deepEqual(sg.randn([4]).toArray(), after, `the generator after ${draws} draws`);
    }
    // An empty tensor takes no draw at all and returns at once.
    sg.manualSeed(3);
    const next = sg.randn([2]).toArray();
    sg.manualSeed(3);
    assert.deepEqual(init.truncNormal_(sg.empty([0]), 0, 1, 5, 6).shape, [0]);
    assert.deepEqual(sg.randn([2]).toArray(), next);
  });
});

test('truncNormal_: both bounds are inclusive (a draw equal to a or to b is kept)', () => {
  sg.tidy(() => {
    sg.manualSeed(8);
    const z = Array.from(sg.randn([16]).dataSync());
    // mean 0, std 1: v = z exactly, so a bound set to the first draw meets it with equality.
    for (const [a, b] of [[z[0], z[0] + 10], [z[0] - 10, z[0]]]) {
      sg.manualSeed(8);
      const got = init.truncNormal_(sg.empty([1]), 0, 1, a, b).dataSync()[0];
      assert.equal(got, z[0], `[${a}, ${b}] keeps the draw ${z[0]}`);
    }
  });
});

test('truncNormal_: bounds no draw reaches give up after 1001 rounds with an Error naming them', () => {
  sg.tidy(() => {
    sg.manualSeed(5);
    const t = sg.zeros([4]);
    throwsWith(() => init.truncNormal_(t, 0, 1, 50, 51), /^truncNormal_: \[50, 51\] is too far from the distribution N\(0, 1²\)$/);
    assert.deepEqual(t.toArray(), [0, 0, 0, 0], 'nothing written');
    // Rounds 0 to 1000 drew 16 values each (4 missing: max(16, 8)), then the Error.
    const after = sg.randn([3]).toArray();
    sg.manualSeed(5);
    sg.randn([1001 * 16]);
    assert.deepEqual(after, sg.randn([3]).toArray());
    // The name reaches the write too: inside sg.compile an existing tensor is refused by name.
    const w = sg.zeros([3]);
    throwsWith(() => sg.compile(() => init.truncNormal_(w))(), /^truncNormal_: cannot write into an existing tensor inside sg\.compile/);
  });
});
