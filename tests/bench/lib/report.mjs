// Turns the workers' results into the printed table and the goal summary.
// Times are per iteration, process CPU time (see worker.mjs) unless a column says wall.
// ratio = tfjs median / simdgrad median: above 1, simdgrad is faster by that factor
// (for equal FLOPs it is also simdgrad GFLOP/s / tfjs GFLOP/s).

const num = (x, digits = 3) => (x == null || !Number.isFinite(x) ? '—' : x >= 10 ** digits ? x.toFixed(0) : x.toPrecision(digits));
const mb = (b) => (b == null ? '—' : (b / 2 ** 20).toFixed(1));

const med = (side) => side?.cpu?.median ?? null;

export function ratioOf(r) {
  const sg = med(r.sg);
  const tf = med(r.tf);
  return sg && tf ? tf / sg : null;
}

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
  const head = ['workload', 'simdgrad ms median (min–max)', 'tfjs ms median (min–max)', 'sg wall', 'tfjs wall', 'sg GFLOP/s', 'tfjs GFLOP/s', 'tfjs/sg', 'sg peak MB', 'tfjs peak MB', 'sg heap MB', 'tfjs heap MB', 'runs sg/tf'];
  const rows = [head];
  const notes = [];
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
      mb(r.sg?.peakBytes),
      mb(r.tf?.peakBytes),
      mb(r.sg?.heapBytes),
      mb(r.tf?.heapBytes),
      `${r.sg?.runs ?? 0}/${r.tf?.runs ?? 0}`,
    ]);
    for (const k of ['sg', 'tf']) {
      const who = k === 'sg' ? 'simdgrad' : 'tfjs';
      if (r[k]?.skipped) notes.push(`${r.name}: ${who} skipped: ${r[k].skipped}`);
      if (r[k]?.error) notes.push(`${r.name}: ${who} ERROR: ${r[k].error}`);
    }
    for (const n of r.notes ?? []) notes.push(`${r.name}: ${star ? '* ' : ''}${n}`);
    if (med(r.sgBaseline) && med(r.sg)) {
      const rel = med(r.sg) / med(r.sgBaseline);
      notes.push(`${r.name}: simdgrad ${r.sgBaseline.desc} in the same process ${num(med(r.sgBaseline))} ms: this variant takes ${rel.toFixed(2)}× its time`);
    }
  }
  return { text: pad(rows), notes };
}

/** The tuning goals of the benchmark issue: reported, never asserted. */
export function goals(results) {
  const by = Object.fromEntries(results.map((r) => [r.name, r]));
  const out = [];
  const add = (goal, value, target, met, unit = '×') => out.push({ goal, value, target, met: value == null ? null : met, unit });
  for (const n of [512, 1024]) {
    const r = ratioOf(by[`matmul_${n}`] ?? {});
    add(`matmul ${n}: simdgrad GFLOP/s ≥ 1.3× tfjs`, r, 1.3, r >= 1.3);
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
  for (const [name, label, target] of [['mlp_train', 'MLP train step', 5], ['attention_fwd_bwd', 'attention fwd+bwd', 6], ['exp_1M', 'exp 1M', 3], ['add_1M', 'add 1M', 1], ['mul_1M', 'mul 1M', 1], ['sum_1M', 'sum 1M', 1]]) {
    const r = ratioOf(by[name] ?? {});
    add(`${label}: tfjs/simdgrad ≥ ${target}×`, r, target, r >= target);
  }
  // tfjs's forward timed alternately with our train step in the same process when it cannot
  // train (forwardOnly); else its separate cnn_forward run.
  const train = med(by.cnn_train?.sg);
  const fwd = med(by.cnn_train?.tf?.forwardOnly ? by.cnn_train.tf : by.cnn_forward?.tf);
  const rel = train && fwd ? train / fwd : null;
  add('CNN: simdgrad train step ≤ 3× tfjs forward', rel, 3, rel <= 3);
  // Per-op overhead: one iteration is 1,000 ops, so its ms are µs per op.
  const small = med(by.small_add_100?.sg);
  add('small op (add, 100 floats): simdgrad < 2 µs per call', small, 2, small < 2, 'µs');
  const chainRatio = ratioOf(by.chain_1000 ?? {});
  add('1,000-op chain of 100-float ops: tfjs/simdgrad ≥ 2×', chainRatio, 2, chainRatio >= 2);
  return out;
}

export function goalsText(gs) {
  const rows = [['goal (for later tuning, not asserted)', 'measured', 'target', '']];
  for (const g of gs) {
    const le = /[≤<]/.test(g.goal);
    const u = g.unit === '×' ? '×' : ` ${g.unit}`;
    rows.push([g.goal, g.value == null ? '—' : `${g.value.toFixed(2)}${u}`, `${g.goal.includes('<') ? '<' : le ? '≤' : '≥'} ${g.target}${u}`, g.met == null ? 'n/a' : g.met ? 'met' : 'not met']);
  }
  return pad(rows);
}
