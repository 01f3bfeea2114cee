// One time step of a recurrent cell as one WGSL kernel, forward and backward (sg::RnnStep and
// sg::RnnStepBackward, src/kernels/rnn_cell.h): one invocation per (row, hidden unit) reads its
// gates, writes the activations, the cell and hidden state (forward) or the gate gradients and
// the running state gradients (backward). The step's products (h·W_hhᵀ + b_hh, the projection,
// dA·W_hh) stay GEMM dispatches, so a step is 2 dispatches forward and 2 backward (LSTM with
// projection: 3 and 3, the backward's g_out + dh going into the previous product's write-back).
// The formulas and their order are those of src/kernels/reference/rnn_cell.cpp.
//
// The operands of a step often share one GPU buffer (the previous step's output and this
// step's, in the layer's one packed result): WebGPU lets a dispatch bind a buffer it writes
// only once, so each distinct buffer is bound once (read_write when any operand writes it) and
// each operand is read through a function over its buffer and offset; the pipeline is keyed by
// that sharing pattern (a handful per cell).
import { Params } from '../params.js';
import { operand, run, type Binding, type KernelFn, type Operand } from './common.js';

type Resolved = Operand & { none: boolean };
interface Named { name: string; op: Resolved; write: boolean }

const CELLS = ['lstm', 'gru', 'tanh', 'relu'];

/**
 * Binds each distinct buffer of `named` once; returns the bindings, a key naming the sharing
 * pattern, and WGSL accessors ld_NAME(i) / st_NAME(i, v) for each operand (its element offset at
 * parameter word `first + k`); a missing operand reads 0 (the kernels read only those they get).
 */
function bindShared(named: Named[], params: Params, first: number) {
  const binds: Binding[] = [];
  let key = '';
  let code = '';
  named.forEach((n, k) => {
    params.u(n.op.none ? 0 : n.op.at);
    if (n.op.none) {
      key += `${n.name}:-,`;
      code += `fn ld_${n.name}(i: u32) -> f32 { return 0.0; }\n`;
      return;
    }
    let b = binds.findIndex((x) => x.buffer === n.op.buffer);
    if (b < 0) {
      b = binds.length;
      binds.push({ name: `B${b}`, type: 'f32', buffer: n.op.buffer, write: n.write });
    } else if (n.write) binds[b].write = true;
    key += `${n.name}:${b},`;
    code += `fn ld_${n.name}(i: u32) -> f32 { return B${b}[pu(${first + k}u) + i]; }\n`;
    if (n.write) code += `fn st_${n.name}(i: u32, v: f32) { B${b}[pu(${first + k}u) + i] = v; }\n`;
  });
  return { binds, key: key + binds.map((b) => (b.write ? 'w' : 'r')).join(''), code };
}

// Forward bodies: `b`, `j` the row and unit, `k` = b·H + j, `a` the row's first gate index.
const FORWARD: Record<string, string> = {
  lstm: /* wgsl */ `
  let a = b * 4u * H + j;
  let i = sigmoid_f(ld_HG(a) + ld_ACTS(a));
  let f = sigmoid_f(ld_HG(a + H) + ld_ACTS(a + H));
  let g = tanh_f(ld_HG(a + 2u * H) + ld_ACTS(a + 2u * H));
  let o = sigmoid_f(ld_HG(a + 3u * H) + ld_ACTS(a + 3u * H));
  st_ACTS(a, i); st_ACTS(a + H, f); st_ACTS(a + 2u * H, g); st_ACTS(a + 3u * H, o);
  let c = f * ld_CP(k) + i * g;
  st_C(k, c);
  st_H(k, o * tanh_f(c));`,
  gru: /* wgsl */ `
  let a = b * 3u * H + j;
  let r = sigmoid_f(ld_HG(a) + ld_ACTS(a));
  let z = sigmoid_f(ld_HG(a + H) + ld_ACTS(a + H));
  let hn = ld_HG(a + 2u * H);
  let n = tanh_f(ld_ACTS(a + 2u * H) + hn * r);
  st_ACTS(a, r); st_ACTS(a + H, z); st_ACTS(a + 2u * H, n);
  st_HN(k, hn);
  st_H(k, (ld_HP(k) - n) * z + n);`,
  tanh: /* wgsl */ `
  let s = ld_HG(k) + ld_ACTS(k);
  st_ACTS(k, s);
  st_H(k, tanh_f(s));`,
  relu: /* wgsl */ `
  let s = ld_HG(k) + ld_ACTS(k);
  st_ACTS(k, s);
  st_H(k, select(s + 0.0, 0.0, s < 0.0));`,
};

// Backward bodies: d = dh + g_h is the gradient reaching h (rnn_cell.h).
const BACKWARD: Record<string, string> = {
  lstm: /* wgsl */ `
  let a = b * 4u * H + j;
  let i = ld_ACTS(a); let f = ld_ACTS(a + H); let g = ld_ACTS(a + 2u * H); let o = ld_ACTS(a + 3u * H);
  let tc = tanh_f(ld_C(k));
  let d = ld_GH(k) + ld_DH(k);
  let dc = ld_GC(k) + ld_DC(k) + d * o * (1.0 - tc * tc);
  st_DA(a, dc * g * i * (1.0 - i));
  st_DA(a + H, dc * ld_CP(k) * f * (1.0 - f));
  st_DA(a + 2u * H, dc * i * (1.0 - g * g));
  st_DA(a + 3u * H, d * tc * o * (1.0 - o));
  st_DC(k, dc * f);`,
  gru: /* wgsl */ `
  let a = b * 3u * H + j;
  let r = ld_ACTS(a); let z = ld_ACTS(a + H); let n = ld_ACTS(a + 2u * H);
  let d = ld_GH(k) + ld_DH(k);
  let dan = d * (1.0 - z) * (1.0 - n * n);
  let dar = dan * ld_HN(k) * r * (1.0 - r);
  let daz = d * (ld_HP(k) - n) * z * (1.0 - z);
  st_DA(a, dar); st_DA(a + H, daz); st_DA(a + 2u * H, dan * r);
  st_DXI(a, dar); st_DXI(a + H, daz); st_DXI(a + 2u * H, dan);
  st_DH(k, d * z);`,
  tanh: /* wgsl */ `
  let h = ld_H(k);
  st_DA(k, (ld_GH(k) + ld_DH(k)) * (1.0 - h * h));`,
  relu: /* wgsl */ `
  st_DA(k, (ld_GH(k) + ld_DH(k)) * select(0.0, 1.0, ld_H(k) > 0.0));`,
};

// The operands each cell uses, by name (the others are read but not bound).
const FORWARD_USES: Record<string, string[]> = {
  lstm: ['ACTS', 'HG', 'CP', 'C', 'H'],
  gru: ['ACTS', 'HG', 'HP', 'HN', 'H'],
  tanh: ['ACTS', 'HG', 'H'],
  relu: ['ACTS', 'HG', 'H'],
};
const BACKWARD_USES: Record<string, string[]> = {
  lstm: ['ACTS', 'C', 'CP', 'GH', 'GC', 'DH', 'DC', 'DA'],
  gru: ['ACTS', 'HN', 'HP', 'GH', 'DH', 'DA', 'DXI'],
  tanh: ['H', 'GH', 'DH', 'DA'],
  relu: ['H', 'GH', 'DH', 'DA'],
};
const WRITES = new Set(['ACTS', 'C', 'HN', 'H', 'DC', 'DA', 'DXI']);

function dispatchStep(ctx: Parameters<KernelFn>[0], kind: string, cell: string, B: number, H: number,
  ops: Record<string, Resolved>, uses: string[], body: string, writes: Set<string>): void {
  const p = new Params().u(B * H).u(H);
  const named = uses.map((name) => ({ name, op: ops[name], write: writes.has(name) }));
  for (const n of named) {
    if (n.write && n.op.none) throw new Error(`webgpu: internal error: rnn ${kind} step without its ${n.name} output`);
  }
  const shared = bindShared(named, p, 2);
  run(ctx, `rnn_${kind}_${cell}|${shared.key}`, shared.binds, p, B * H, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let H = pu(1u);
  let k = id;
  let b = id / H;
  let j = id % H;${body}`, shared.code);
}

export const rnn: Record<string, KernelFn> = {
  rnn_step_f32(ctx, a) {
    const cell = CELLS[a.num()];
    const B = a.num(), H = a.num();
    const ops: Record<string, Resolved> = {};
    for (const name of ['ACTS', 'HG', 'HP', 'CP', 'C', 'HN', 'H']) ops[name] = operand(ctx, a);
    dispatchStep(ctx, 'step', cell, B, H, ops, FORWARD_USES[cell], FORWARD[cell], WRITES);
  },

  rnn_step_backward_f32(ctx, a) {
    const cell = CELLS[a.num()];
    const B = a.num(), H = a.num();
    const ops: Record<string, Resolved> = {};
    for (const name of ['ACTS', 'C', 'CP', 'HN', 'HP', 'H', 'GH', 'GC', 'DH', 'DC', 'DA', 'DXI']) ops[name] = operand(ctx, a);
    // Backward, the states are read (C, H) and the running gradients written (DH for GRU).
    const writes = new Set(['DC', 'DA', 'DXI', ...(cell === 'gru' ? ['DH'] : [])]);
    dispatchStep(ctx, 'back', cell, B, H, ops, BACKWARD_USES[cell], BACKWARD[cell], writes);
  },
};
