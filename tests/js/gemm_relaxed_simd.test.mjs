// The float32 GEMM's relaxed-SIMD microkernels (src/kernels/relaxed_simd, loaded by
// npm/src/runtime/relaxed_gemm.ts) and their SIMD128 fallback, each bit for bit against its own
// reference: every C entry is summed over p in the kernels' order (depth blocks of
// ceil(k / ceil(k / 512)), each from 0, then added to C block by block), with f32x4.relaxed_madd
// modelled as one rounding (an FMA) where this engine fuses it (relaxed_simd_probe.mjs, an
// independent 56-byte module) and the SIMD128 kernel as two (the product, then the sum).
// Node 20 runs relaxed SIMD only with --experimental-wasm-relaxed-simd, so this file also runs
// itself in a child process with the flag; without it the fallback's checks run here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { init } from '../../npm/dist/index.mjs';
import { RELAXED_MADD_MODULE, relaxedMaddFuses } from './relaxed_simd_probe.mjs';

const sg = await init();
const engineHasRelaxed = WebAssembly.validate(RELAXED_MADD_MODULE);
const FLAG = '--experimental-wasm-relaxed-simd';

// ---- float32 arithmetic, exactly
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
/** The float32 next to x (a float32) in the direction of `toward`. */
function nextFloat32(x, toward) {
  if (x === toward) return x;
  f32[0] = x;
  if (x === 0) u32[0] = toward > 0 ? 1 : 0x80000001;
  else if ((x < toward) === (x > 0)) u32[0] += 1;
  else u32[0] -= 1;
  return f32[0];
}
/** a·b + c rounded once to float32 (a, b, c float32): a·b is exact in double, and s + e = a·b + c exactly (TwoSum). */
function fmaF32(a, b, c) {
  const p = a * b;
  const s = p + c;
  const bb = s - p;
  const e = (p - (s - bb)) + (c - bb);
  const r = Math.fround(s);
  if (r === s) return r;  // e is far below half a float32 gap of s
  // Rounding s instead of s + e can only go wrong where s is a midpoint between two float32s
  // (a midpoint is a double: rounding to double never carries a value across one).
  const other = nextFloat32(r, s);
  if ((r + other) / 2 !== s || e === 0) return r;
  return e > 0 ? Math.max(r, other) : Math.min(r, other);
}
const mulAddF32 = (a, b, c) => Math.fround(Math.fround(a * b) + c);

/** op(A)·op(B) as the kernels sum it; A given [m, k] (or [k, m] when ta), B [k, n] (or [n, k] when tb). */
function reference(a, b, m, n, k, ta, tb, madd) {
  const A = (i, p) => (ta ? a[p * m + i] : a[i * k + p]);
  const B = (p, j) => (tb ? b[j * k + p] : b[p * n + j]);
  const kc = Math.ceil(k / Math.ceil(k / 512));
  const c = new Float32Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let out = 0;
      for (let p0 = 0; p0 < k; p0 += kc) {
        let acc = 0;
        for (let p = p0; p < Math.min(k, p0 + kc); p++) acc = madd(A(i, p), B(p, j), acc);
        out = p0 === 0 ? acc : Math.fround(acc + out);
      }
      c[i * n + j] = out;
    }
  }
  return c;
}

/** Deterministic float32 values of mixed sign and scale (an LCG; no shared state with simdgrad). */
function values(len, seed) {
  const out = new Float32Array(len);
  let s = seed >>> 0;
  for (let i = 0; i < len; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = ((s >>> 8) / 2 ** 24 - 0.5) * (1 + (i % 7));
  }
  return out;
}

function firstDifference(actual, expected) {
  const ua = new Uint32Array(actual.buffer, actual.byteOffset, actual.length);
  const ue = new Uint32Array(expected.buffer, expected.byteOffset, expected.length);
  for (let i = 0; i < ue.length; i++) if (ua[i] !== ue[i]) return i;
  return -1;
}

// [m, n, k, transposeA, transposeB]: every height of a tile's last rows (1..6), widths with
// tails (n mod 8), depth 1, one and two depth blocks (k 512 / 600 → 300 + 300), the small
// products' path (m·n·k ≤ 2^19, A read in place) and the packed one (above it, or Aᵀ), three
// column blocks (n > 512: blocks of 256), and the transposed operands.
const SHAPES = [
  [1, 8, 3, false, false], [2, 9, 1, false, false], [3, 17, 5, false, false], [4, 8, 31, false, false],
  [5, 23, 64, false, false], [6, 15, 512, false, false], [7, 33, 600, false, false], [13, 7, 19, false, false],
  [67, 45, 600, false, false], [61, 129, 97, false, false], [11, 530, 97, false, false], [29, 37, 41, true, false],
  [23, 31, 600, false, true], [19, 70, 65, true, true], [64, 128, 72, false, false],
];

/** Every shape through sg.matmul against the reference with `madd`, bit for bit. */
function checkShapes(madd, label) {
  for (const [m, n, k, ta, tb] of SHAPES) {
    const a = values(m * k, m * 1000 + k), b = values(k * n, n * 1000 + k + 1);
    const expected = reference(a, b, m, n, k, ta, tb, madd);
    const actual = sg.tidy(() => {
      const A = sg.tensor(a, { shape: ta ? [k, m] : [m, k] });
      const B = sg.tensor(b, { shape: tb ? [n, k] : [k, n] });
      return sg.matmul(ta ? A.T : A, tb ? B.T : B).dataSync();
    });
    const at = firstDifference(actual, expected);
    assert.equal(at, -1, `${label}: [${m}, ${k}]${ta ? 'ᵀ' : ''} · [${k}, ${n}]${tb ? 'ᵀ' : ''}: C[${Math.floor(at / n)}, ${at % n}] = ${actual[at]}, the reference gives ${expected[at]}`);
  }
}

test('the references differ: one rounding and two give other sums on these operands', () => {
  let differing = 0;
  for (const [m, n, k, ta, tb] of SHAPES.filter(([, , k]) => k > 1)) {
    const a = values(m * k, m * 1000 + k), b = values(k * n, n * 1000 + k + 1);
    if (firstDifference(reference(a, b, m, n, k, ta, tb, fmaF32), reference(a, b, m, n, k, ta, tb, mulAddF32)) >= 0) differing++;
  }
  assert.equal(differing, SHAPES.filter(([, , k]) => k > 1).length, 'each shape tells an FMA from a mul + add');
  // The FMA model itself, on cases worked by hand.
  const x = 1 + 2 ** -12;
  assert.equal(fmaF32(x, x, -(1 + 2 ** -11)), 2 ** -24);
  assert.equal(mulAddF32(x, x, -(1 + 2 ** -11)), 0);
  assert.equal(fmaF32(3, 5, 7), 22);
  // The exact product 1 + 2^-11 + 2^-24 is the midpoint between 1 + 2^-11 and 1 + 2^-11 + 2^-23:
  // a tiny addend decides the rounding, which the double sum alone would lose.
  assert.equal(fmaF32(x, x, 2 ** -60), 1 + 2 ** -11 + 2 ** -23);
  assert.equal(fmaF32(x, x, -(2 ** -60)), 1 + 2 ** -11);
  assert.equal(fmaF32(x, x, 0), 1 + 2 ** -11, 'a tie goes to the even neighbour');
  assert.equal(mulAddF32(x, x, 2 ** -60), 1 + 2 ** -11);
});

test('SIMD128 fallback: init({ relaxedSimd: false }) multiplies, then adds (two roundings), bit for bit', async () => {
  await init({ relaxedSimd: false });
  assert.equal(sg.features().relaxedSimd, false);
  checkShapes(mulAddF32, 'SIMD128');
});

test(`relaxed SIMD: f32x4.relaxed_madd kernels bit for bit (${engineHasRelaxed ? 'this engine takes relaxed SIMD' : 'run in a child with ' + FLAG})`, async () => {
  if (!engineHasRelaxed) {
    // Node 20: the same file with the flag (its tests must pass there, this one included).
    // (Without NODE_TEST_CONTEXT, which node --test sets: the child reports as a plain run.)
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const r = spawnSync(process.execPath, [FLAG, fileURLToPath(import.meta.url)], { encoding: 'utf8', timeout: 120_000, env });
    assert.equal(r.status, 0, `the child with ${FLAG} failed:\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /# pass [1-9]/);
    assert.match(r.stdout, /# fail 0/);
    return;
  }
  await init({ relaxedSimd: true });
  assert.equal(sg.features().relaxedSimd, true, 'the engine takes relaxed SIMD, so init() must install the kernels');
  const fuses = relaxedMaddFuses();
  checkShapes(fuses ? fmaF32 : mulAddF32, fuses ? 'relaxed (fused)' : 'relaxed (this engine does not fuse)');
  // Switching back and forth in one module: each kernel again.
  await init({ relaxedSimd: false });
  checkShapes(mulAddF32, 'SIMD128 after relaxed');
  await init();
  assert.equal(sg.features().relaxedSimd, false, 'init() without the option keeps the choice');
  await init({ relaxedSimd: true });
  checkShapes(fuses ? fmaF32 : mulAddF32, 'relaxed again');
});

/** conv2d (stride 1, zero padding p) in float64, directly by its definition. */
function conv2dDirect(x, w, [N, C, H, W], [O, kH, kW], p) {
  const oH = H + 2 * p - kH + 1, oW = W + 2 * p - kW + 1;
  const y = new Float64Array(N * O * oH * oW);
  for (let n = 0; n < N; n++)
    for (let o = 0; o < O; o++)
      for (let i = 0; i < oH; i++)
        for (let j = 0; j < oW; j++) {
          let acc = 0;
          for (let c = 0; c < C; c++)
            for (let u = 0; u < kH; u++)
              for (let v = 0; v < kW; v++) {
                const r = i + u - p, q = j + v - p;
                if (r >= 0 && r < H && q >= 0 && q < W) acc += x[((n * C + c) * H + r) * W + q] * w[((o * C + c) * kH + u) * kW + v];
              }
          y[((n * O + o) * oH + i) * oW + j] = acc;
        }
  return y;
}

test('convolutions (the kernels that read B in place, and the packed ones) agree with a float64 convolution', async (t) => {
  if (!engineHasRelaxed) {
    t.skip(`the relaxed kernels run in the child with ${FLAG} (the test above)`);
    return;
  }
  await init({ relaxedSimd: true });
  assert.equal(sg.features().relaxedSimd, true);
  // Heights of the last panel (O mod 6), widths with tails, 1×1 to 5×5 kernels, stride 1 (the
  // padded-image path of the convolutions) and the weight and input gradients' products.
  for (const [N, C, H, O, k] of [[2, 3, 9, 5, 3], [1, 4, 13, 13, 5], [3, 2, 7, 7, 1], [1, 8, 11, 16, 3]]) {
    const p = (k - 1) / 2;
    const x = values(N * C * H * H, 10 * C + H), w = values(O * C * k * k, O + k);
    const expected = conv2dDirect(x, w, [N, C, H, H], [O, k, k], p);
    const actual = sg.tidy(() => sg.F.conv2d(sg.tensor(x, { shape: [N, C, H, H] }), sg.tensor(w, { shape: [O, C, k, k] }), null, { padding: p }).dataSync());
    // Bound: each output sums C·k·k products of |x|, |w| ≤ 3.5 rounded in float32.
    const bound = C * k * k * 3.5 * 3.5 * 2 ** -22;
    let worst = 0;
    for (let i = 0; i < expected.length; i++) worst = Math.max(worst, Math.abs(actual[i] - expected[i]));
    assert.ok(worst <= bound, `conv2d N=${N} C=${C} H=${H} O=${O} k=${k}: off by ${worst} (bound ${bound})`);
  }
});

test('init({ relaxedSimd }) takes a boolean only', async () => {
  await assert.rejects(init({ relaxedSimd: 1 }), (e) => e instanceof Error && /init: option 'relaxedSimd' must be a boolean, got 1/.test(e.message));
  await assert.rejects(init({ relaxedSimd: 'yes' }), /relaxedSimd/);
});
