// Turns the workers' results into the printed table and the goal summary.
// Times are per iteration, process CPU time (see worker.mjs) unless a column says wall.
// ratio = tfjs median / simdgrad median: above 1, simdgrad is faster by that factor
// (for equal FLOPs it is also simdgrad GFLOP/s / tfjs GFLOP/s).
import { slowBlas } from './torch.mjs';

const num = (x, digits = 3) => (x == null || !Number.isFinite(x) ? '—' : x >= 10 ** digits ? x.toFixed(0) : x.toPrecision(digits));
const mb = (b) => (b == null ? '—' : (b / 2 ** 20).toFixed(1));

const med = (side) => side?.cpu?.median ?? null;
const pct = (x) => (x == null ? '—' : `${(100 * x).toFixed(0)} %`);

/** A side's GFLOP/s as a fraction of the SIMD128 peak measured in the same process (or null). */
export function peakFraction(r, key) {
  const g = r[key]?.gflops, p = r.peak?.gflops;
  return g && p ? g / p : null;
}

export function ratioOf(r, key = 'tf') {
  const sg = med(r.sg);
  const peer = med(r[key]);
  return sg && peer ? peer / sg : null;
}

// jax-js and ORT (lib/peers.mjs): ms, GFLOP/s and peer ÷ simdgrad beside tfjs's.
const PEER_COLUMNS = [['jax', 'jax-js'], ['ort', 'ORT']];
const PEER_NAMES = Object.fromEntries(PEER_COLUMNS);

function cell(side) {
  if (side?.cpu) return `${num(side.cpu.median)} (${num(side.cpu.min)}–${num(side.cpu.max)})`;
  if (side?.skipped) return 'skipped';
  if (side?.error) return 'ERROR';
  return '—';
}

function pad(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows.map((r) => r.map((v, c) => (c === 0 ? String(v).padEnd(widths[c]) : String(v).padStart(widths[c]))).join('  ')).join('\n');
}

export function table(results) {
  const head = ['workload', 'simdgrad ms median (min–max)', 'tfjs ms median (min–max)', 'sg wall', 'tfjs wall', 'sg GFLOP/s', 'tfjs GFLOP/s', 'tfjs/sg', ...PEER_COLUMNS.flatMap(([, n]) => [`${n} ms`, `${n} GFLOP/s`, `${n}/sg`]), 'SIMD128 peak', 'sg/peak', 'tfjs/peak', 'sg peak MB', 'tfjs peak MB', 'sg heap MB', 'tfjs heap MB', 'runs sg/tf/jax/ort'];
  const rows = [head];
  const notes = [];
  const peerSkips = {};
  for (const r of results) {
    const star = r.tf?.forwardOnly ? '*' : '';
    const ratio = ratioOf(r);
    rows.push([
      r.name,
      cell(r.sg),
      cell(r.tf) + star,
      num(r.sg?.wall?.median),
      num(r.tf?.wall?.median) + star,
      num(r.sg?.gflops),
      num(r.tf?.gflops) + star,
      ratio == null ? '—' : `${ratio.toFixed(2)}×${star}`,
      ...PEER_COLUMNS.flatMap(([k]) => {
        const x = ratioOf(r, k);
        // '—' where the peer does not run the workload (the why is a note), as issue 29 asks.
        return [r[k]?.skipped ? '—' : cell(r[k]), num(r[k]?.gflops), x == null ? '—' : `${x.toFixed(2)}×`];
      }),
      num(r.peak?.gflops),
      pct(peakFraction(r, 'sg')),
      pct(peakFraction(r, 'tf')) + (r.peak ? star : ''),
      mb(r.sg?.peakBytes),
      mb(r.tf?.peakBytes),
      mb(r.sg?.heapBytes),
      mb(r.tf?.heapBytes),
      ['sg', 'tf', 'jax', 'ort'].map((k) => r[k]?.runs ?? 0).join('/'),
    ]);
    for (const k of ['sg', 'tf', 'jax', 'ort']) {
      const who = { sg: 'simdgrad', tf: 'tfjs', jax: 'jax-js', ort: 'ORT' }[k];
      // A peer's '—' for the same reason on many workloads: one note per reason, below.
      if (r[k]?.skipped && k in PEER_NAMES) (peerSkips[`${who}: ${r[k].skipped}`] ??= []).push(r.name);
      else if (r[k]?.skipped) notes.push(`${r.name}: ${who} skipped: ${r[k].skipped}`);
      if (r[k]?.error) notes.push(`${r.name}: ${who} ERROR: ${r[k].error}`);
    }
    for (const n of r.notes ?? []) notes.push(`${r.name}: ${star ? '* ' : ''}${n}`);
    if (med(r.sgBaseline) && med(r.sg)) {
      const rel = med(r.sg) / med(r.sgBaseline);
      notes.push(`${r.name}: simdgrad ${r.sgBaseline.desc} in the same process ${num(med(r.sgBaseline))} ms: this variant takes ${rel.toFixed(2)}× its time`);
    }
  }
  for (const [why, names] of Object.entries(peerSkips)) notes.push(`— ${why} (${names.join(', ')})`);
  return { text: pad(rows), notes };
}

/** The tuning goals of the benchmark issues: reported, never asserted. */
export function goals(results, native = null) {
  const by = Object.fromEntries(results.map((r) => [r.name, r]));
  const out = [];
  const add = (goal, value, target, met, unit = '×') => out.push({ goal, value, target, met: value == null ? null : met, unit });
  for (const name of ['matmul_512', 'matmul_1024', 'matmul_mlp']) {
    const r = by[name] ?? {};
    const f = peakFraction(r, 'sg');
    add(`${name}: simdgrad ≥ 0.75 of the SIMD128 peak`, f, 0.75, f >= 0.75, '');
    const x = ratioOf(r);
    add(`${name}: tfjs/simdgrad ≥ 1.15×`, x, 1.15, x >= 1.15);
  }
  for (const n of [128, 256, 512, 1024]) {
    // simdgrad against itself: the slower of Aᵀ·B and A·Bᵀ over plain A·B, each against the
    // plain product timed alternately in its own process (sgBaseline).
    const rels = ['tn', 'nt'].map((v) => {
      const r = by[`matmul_${n}_${v}`];
      const t = med(r?.sg), plain = med(r?.sgBaseline);
      return t && plain ? t / plain : null;
    });
    const rel = rels.every((x) => x != null) ? Math.max(...rels) : null;
    add(`matmul ${n}: slower of Aᵀ·B, A·Bᵀ ≤ 1.1× plain (simdgrad)`, rel, 1.1, rel <= 1.1);
  }
  // Relaxed SIMD (issue 29): the SIMD128 kernels' time over the relaxed-SIMD kernels', timed
  // alternately in one process (relaxed_workloads.mjs).
  for (const name of ['matmul_512_relaxed', 'matmul_1024_relaxed', 'matmul_mlp_relaxed']) {
    const r = by[name];
    const x = med(r?.sg) && med(r?.sgBaseline) ? med(r.sgBaseline) / med(r.sg) : null;
    add(`${name}: relaxed SIMD ≥ 1.25× the SIMD128 kernels`, x, 1.25, x >= 1.25);
  }
  const fwdRatio = ratioOf(by.cnn_forward ?? {});
  add('CNN forward: tfjs/simdgrad ≥ 1.3×', fwdRatio, 1.3, fwdRatio >= 1.3);
  // tfjs's forward timed alternately with our train step in the same process when it cannot
  // train (forwardOnly); else its separate cnn_forward run.
  const train = med(by.cnn_train?.sg);
  const fwd = med(by.cnn_train?.tf?.forwardOnly ? by.cnn_train.tf : by.cnn_forward?.tf);
  const rel = train && fwd ? train / fwd : null;
  add('CNN: simdgrad train step ≤ 2.5× tfjs forward', rel, 2.5, rel <= 2.5);
  for (const n of [512, 1024]) {
    const x = native?.sizes?.[n]?.ratio ?? null;
    add(`native GEMM ${n}: ≥ 80 % of single-threaded OpenBLAS`, x, 0.8, x >= 0.8, '');
  }
  const gpt = by.gpt_train;
  const gptSg = gpt?.sgInterleaved ?? med(gpt?.sg);
  const gptRel = gptSg && gpt?.torch?.[1]?.cpu_ms ? gptSg / gpt.torch[1].cpu_ms : null;
  add('GPT train step: simdgrad ≤ 1.0× PyTorch 1.13 (1 thread, interleaved medians)', gptRel, 1, gptRel <= 1);
  // Transcendental ops: elements per ns, forward and backward (the backward kernel's rate is
  // the forward + backward run minus the forward run).
  for (const op of ['gelu', 'tanh', 'sigmoid', 'exp']) {
    const f = med(by[`${op}_1M`]?.sg), fb = med(by[`${op}_fwd_bwd_1M`]?.sg);
    const n = 2 ** 20;
    const fwd = f ? n / (f * 1e6) : null;
    const bwd = f && fb && fb > f ? n / ((fb - f) * 1e6) : null;
    add(`${op} forward: ≥ 1 element/ns`, fwd, 1, fwd >= 1, '/ns');
    add(`${op} backward: ≥ 1 element/ns`, bwd, 1, bwd >= 1, '/ns');
  }
  for (const [name, label, target] of [['mlp_train', 'MLP train step', 7], ['attention_fwd_bwd', 'attention fwd+bwd', 8], ['exp_1M', 'exp 1M', 4], ['add_1M', 'add 1M', 1], ['mul_1M', 'mul 1M', 1], ['sum_1M', 'sum 1M', 1]]) {
    const r = ratioOf(by[name] ?? {});
    add(`${label}: tfjs/simdgrad ≥ ${target}×`, r, target, r >= target);
  }
  // Per-op overhead: one iteration is 1,000 ops, so its ms are µs per op.
  const small = med(by.small_add_100?.sg);
  add('small op (add, 100 floats): simdgrad < 2 µs per call', small, 2, small < 2, 'µs');
  const chainRatio = ratioOf(by.chain_1000 ?? {});
  add('1,000-op chain of 100-float ops: tfjs/simdgrad ≥ 2×', chainRatio, 2, chainRatio >= 2);
  return out;
}

/** simdgrad against its PyTorch twin (workloads with r.torch), CPU-time medians. */
export function torchText(results) {
  const lines = [];
  for (const r of results.filter((x) => x.torch)) {
    if (r.torch.error) {
      lines.push(`${r.name}: PyTorch twin not run: ${r.torch.error}`);
      continue;
    }
    const t1 = r.torch[1], t2 = r.torch[2], ng = r.torch.nanogpt;
    const sg = r.sgInterleaved ?? med(r.sg);
    const rounds = (xs) => (xs?.length ? ` [rounds: ${xs.map((x) => num(x)).join(', ')}]` : '');
    const fmt = (t) => (t?.error ? `error: ${t.error}` : `${num(t.cpu_ms)} ms CPU (wall ${num(t.wall_ms)}, CPU/wall ${num(t.cpu_per_wall, 2)}, ${num(t.faults_per_step, 2)} page faults a step)${rounds(t.cpuRounds)}`);
    lines.push(`${r.name} vs PyTorch ${t1?.torch ?? ''} natively, ${r.torch.rounds ?? 1} interleaved rounds of fresh processes (simdgrad, torch/gpt_step.py, nanoGPT's model.py), medians:`);
    lines.push(`  PyTorch: BLAS ${t1?.blas ?? '?'} (OpenBLAS threads ${t1?.openblas_threads ?? '—'}, kernels ${t1?.openblas_core ?? '—'}: OPENBLAS_CORETYPE unset for it); allocator ${t1?.allocator ?? '?'}`);
    const noYardstick = t1?.blas ? slowBlas(t1) : null;
    if (noYardstick) lines.push(`  WARNING: ${noYardstick}`);
    if (t1?.cpu_per_wall > 1.1) lines.push(`  WARNING: PyTorch's CPU time is ${num(t1.cpu_per_wall, 2)}× its wall time: it ran more than one thread`);
    lines.push(`  simdgrad 1 thread ${num(sg)} ms CPU${rounds(r.sgRounds)}`);
    lines.push(`  PyTorch 1 thread, restated model.py: ${fmt(t1)}`);
    if (ng) lines.push(`  PyTorch 1 thread, nanoGPT's model.py: ${fmt(ng)}`);
    lines.push(`  PyTorch 2 threads (once, after): ${fmt(t2)}`);
    if (sg && t1?.cpu_ms) lines.push(`  simdgrad / PyTorch (1 thread): ${(sg / t1.cpu_ms).toFixed(2)}×${ng?.cpu_ms ? ` (against nanoGPT's model.py ${(sg / ng.cpu_ms).toFixed(2)}×)` : ''}; first loss: simdgrad ${r.sgLoss?.toFixed(6) ?? '—'}, PyTorch ${t1.loss0?.toFixed(6)}${ng?.loss0 != null ? `, nanoGPT ${ng.loss0.toFixed(6)}` : ''}`);
    lines.push('  (2 threads on both sides: node tests/bench/threads.mjs --only gpt_train)');
  }
  return lines.join('\n');
}

export function goalsText(gs) {
  const rows = [['goal (for later tuning, not asserted)', 'measured', 'target', '']];
  for (const g of gs) {
    const le = /[≤<]/.test(g.goal);
    const unit = g.unit ?? '×';
    const u = unit === '×' || unit === '' || unit.startsWith('/') ? unit : ` ${unit}`;
    rows.push([g.goal, g.value == null ? '—' : `${g.value.toFixed(2)}${u}`, `${g.goal.includes('<') ? '<' : le ? '≤' : '≥'} ${g.target}${u}`, g.met == null ? 'n/a' : g.met ? 'met' : 'not met']);
  }
  return pad(rows);
}
