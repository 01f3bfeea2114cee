// Indexing and padding: index_select and its index_add adjoint, gather and its adjoints
// (scatter_add, scatter), reflect/replicate padding. Twins of src/kernels/reference/data_index.cpp. The
// adjoints accumulate without atomics: each invocation owns a line of the output that only it
// writes (every index of the line, in order), so repeated indices add up as on the CPU.
import { Params } from '../params.js';
import { rawRead, rawWrite, wordType } from './elements.js';
import { coalesce, contiguousStrides, operand, pad8, run, STRIDED, type KernelFn } from './common.js';

// Elements of 1, 2, 4 or 8 bytes move as raw bits (elements.ts: 1- and 2-byte ones packed in
// words and written through atomics, 8-byte ones as two words), so no float load or store ever
// touches them (NaN payloads and subnormals of any dtype arrive as they were).
const elemType = (bytes: number, write = false) => (bytes === 4 ? 'u32' : wordType(bytes, write));
const moveElem = (bytes: number, dst: string, src: string) =>
  bytes === 4 ? `OUT[${dst}] = X[${src}];` : `OUT_put(${dst}, X_get(${src}));`;
const byteHelpers = (bytes: number) => (bytes === 4 ? '' : rawRead('X', bytes) + rawWrite('OUT', bytes));

/**
 * gather's adjoints over lines along the dim (args: GatherGeom, src, idx, out): each invocation
 * walks one line in order and is the only one to write the output line it maps to, so repeated
 * indices add up, or the last one wins, exactly as on the CPU. `type` is the element type, or the
 * element size in bytes for scatter (1: bool bytes).
 */
function scatterLines(ctx: Parameters<KernelFn>[0], a: Parameters<KernelFn>[1], type: 'f32' | 'i32' | number, body: string): void {
  const eb = typeof type === 'number' ? type : 4;
  const shape = a.list(), walk = a.list();
  const dimStride = a.num();
  a.num(); // dim_size
  const dim = a.num();
  const src = operand(ctx, a, eb), idx = operand(ctx, a), out = operand(ctx, a, eb);
  const total = shape.reduce((p, s) => p * s, 1);
  if (total === 0) return;
  const cs = contiguousStrides(shape);
  const lines = total / shape[dim];
  // The shape of the lines (the dim's size 1), its walk strides and the index's own strides.
  const lineShape = shape.map((s, d) => (d === dim ? 1 : s));
  const p = new Params().u(lines).u(shape.length).u(src.at).u(idx.at).u(out.at).i(dimStride).u(shape[dim]).u(cs[dim]);
  while (p.length < 16) p.u(0);
  p.ints(pad8(lineShape)).ints(pad8(walk)).ints(pad8(cs));
  const elem = typeof type === 'number' ? elemType(type) : type;
  const outElem = typeof type === 'number' ? elemType(type, true) : type;
  run(ctx, `scatter_lines_${type}_${body}`,
    [{ name: 'X', type: elem, buffer: src.buffer }, { name: 'IDX', type: 'i32', buffer: idx.buffer },
      { name: 'OUT', type: outElem, buffer: out.buffer, write: true }], p, lines, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let w = strided(id, 24u);
  let i0 = u32(strided(id, 32u));
  for (var j = 0u; j < pu(6u); j++) {
    let i = pu(2u) + i0 + j * pu(7u);
    let at = u32(i32(pu(4u)) + w + IDX[pu(3u) + i0 + j * pu(7u)] * pi(5u));
    ${body}
  }`, STRIDED + byteHelpers(eb));
}

export const indexing: Record<string, KernelFn> = {
  index_select(ctx, a) {
    const eb = a.num();
    const x = operand(ctx, a, eb);
    const outer = a.num(), size = a.num(), inner = a.num();
    const idx = operand(ctx, a);
    const n = a.num();
    const out = operand(ctx, a, eb);
    const total = outer * n * inner;
    const p = new Params().u(total).u(x.at).u(size).u(inner).u(idx.at).u(n).u(out.at);
    run(ctx, `index_select${eb}`,
      [{ name: 'X', type: elemType(eb), buffer: x.buffer }, { name: 'IDX', type: 'i32', buffer: idx.buffer },
        { name: 'OUT', type: elemType(eb, true), buffer: out.buffer, write: true }], p, total, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let inner = pu(3u); let n = pu(5u);
  let k = id % inner; let j = (id / inner) % n; let o = id / (inner * n);
  let src = pu(1u) + (o * pu(2u) + u32(IDX[pu(4u) + j])) * inner + k;
  ${moveElem(eb, 'pu(6u) + id', 'src')}`, byteHelpers(eb));
  },

  index_add_f32(ctx, a) {
    const g = operand(ctx, a);
    const outer = a.num(), n = a.num(), inner = a.num();
    const idx = operand(ctx, a);
    const size = a.num();
    const out = operand(ctx, a);
    const p = new Params().u(outer * inner).u(g.at).u(n).u(inner).u(idx.at).u(size).u(out.at);
    run(ctx, 'index_add',
      [{ name: 'G', type: 'f32', buffer: g.buffer }, { name: 'IDX', type: 'i32', buffer: idx.buffer },
        { name: 'OUT', type: 'f32', buffer: out.buffer, write: true }], p, outer * inner, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let inner = pu(3u); let n = pu(2u);
  let o = id / inner; let k = id % inner;
  for (var j = 0u; j < n; j++) {
    let at = pu(6u) + (o * pu(5u) + u32(IDX[pu(4u) + j])) * inner + k;
    OUT[at] = OUT[at] + G[pu(1u) + (o * n + j) * inner + k];
  }`);
  },

  gather(ctx, a) {
    const eb = a.num();
    const shape = a.list(), walk = a.list();
    const dimStride = a.num();
    a.num(); // dim_size (indices were checked before)
    a.num(); // dim
    const x = operand(ctx, a, eb), idx = operand(ctx, a), out = operand(ctx, a, eb);
    const total = shape.reduce((p, s) => p * s, 1);
    if (total === 0) return;
    const c = coalesce(shape, [walk, contiguousStrides(shape)]);
    if (c.shape.length === 0) c.shape.push(1), c.strides.forEach((s) => s.push(0));
    const p = new Params().u(total).u(c.shape.length).u(x.at).u(idx.at).u(out.at).i(dimStride);
    while (p.length < 16) p.u(0);
    p.ints(pad8(c.shape)).ints(pad8(c.strides[0]));
    run(ctx, `gather${eb}`,
      [{ name: 'X', type: elemType(eb), buffer: x.buffer }, { name: 'IDX', type: 'i32', buffer: idx.buffer },
        { name: 'OUT', type: elemType(eb, true), buffer: out.buffer, write: true }], p, total, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let src = u32(i32(pu(2u)) + strided(id, 24u) + IDX[pu(3u) + id] * pi(5u));
  ${moveElem(eb, 'pu(4u) + id', 'src')}`, STRIDED + byteHelpers(eb));
  },

  scatter_add_f32(ctx, a) {
    scatterLines(ctx, a, 'f32', 'OUT[at] = OUT[at] + X[i];');
  },

  /** scatter_add for int32 (wrapping, as the CPU's). */
  scatter_add_i32(ctx, a) {
    scatterLines(ctx, a, 'i32', 'OUT[at] = OUT[at] + X[i];');
  },

  /** scatter: the last write of a line wins, as the CPU's row-major order (a line is one invocation's). */
  scatter(ctx, a) {
    const eb = a.num();
    scatterLines(ctx, a, eb, moveElem(eb, 'at', 'i'));
  },

  pad_mapped(ctx, a) {
    const eb = a.num();
    const outShape = a.list(), inShape = a.list(), inStrides = a.list(), left = a.list();
    const reflect = a.flag();
    const x = operand(ctx, a, eb), out = operand(ctx, a, eb);
    const total = outShape.reduce((p, s) => p * s, 1);
    if (total === 0) return;
    if (outShape.length > 8) throw new Error('webgpu: pad of more than 8 dims is not supported by the WebGPU kernels');
    const p = new Params().u(total).u(outShape.length).u(x.at).u(out.at).u(reflect ? 1 : 0);
    while (p.length < 16) p.u(0);
    p.ints(pad8(outShape)).ints(pad8(left)).ints(pad8(inShape)).ints(pad8(inStrides));
    run(ctx, `pad${eb}`,
      [{ name: 'X', type: elemType(eb), buffer: x.buffer }, { name: 'OUT', type: elemType(eb, true), buffer: out.buffer, write: true }],
      p, total, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  var rem = id;
  var src = i32(pu(2u));
  let nd = pu(1u);
  for (var k = 0u; k < nd; k++) {
    let d = nd - 1u - k;
    let o = i32(rem % pu(16u + d));
    rem = rem / pu(16u + d);
    let size = pi(32u + d);
    var i = o - pi(24u + d);
    if (pu(4u) != 0u) { if (i < 0) { i = -i; } else if (i >= size) { i = 2 * (size - 1) - i; } }
    else { i = clamp(i, 0, size - 1); }
    src += i * pi(40u + d);
  }
  ${moveElem(eb, 'pu(3u) + id', 'u32(src)')}`, byteHelpers(eb));
  },

  // The adjoint of pad_mapped: dx[i] += Σ grad[o] over the output positions o that read i. Each
  // invocation owns one dx element and walks the combinations of, per dim, the output indices
  // that map to its index (one inside, up to three with reflection, a run at a replicated edge).
  pad_mapped_backward_f32(ctx, a) {
    const outShape = a.list(), inShape = a.list(), left = a.list();
    const reflect = a.flag();
    const g = operand(ctx, a), dx = operand(ctx, a);
    const total = inShape.reduce((p, v) => p * v, 1);
    if (total === 0 || outShape.reduce((p, v) => p * v, 1) === 0) return;
    if (outShape.length > 8) throw new Error('webgpu: pad of more than 8 dims is not supported by the WebGPU kernels');
    const p = new Params().u(total).u(outShape.length).u(g.at).u(dx.at).u(reflect ? 1 : 0);
    while (p.length < 16) p.u(0);
    p.ints(pad8(outShape)).ints(pad8(left)).ints(pad8(inShape));
    run(ctx, 'pad_backward',
      [{ name: 'G', type: 'f32', buffer: g.buffer }, { name: 'DX', type: 'f32', buffer: dx.buffer, write: true }],
      p, total, /* wgsl */ `
  if (id >= pu(0u)) { return; }
  let nd = pu(1u);
  var want: array<i32, 8>; // this element's index per dim
  var o: array<i32, 8>;    // the current output index per dim
  var rem = id;
  for (var k = 0u; k < nd; k++) {
    let d = nd - 1u - k;
    want[d] = i32(rem % pu(32u + d));
    rem = rem / pu(32u + d);
  }
  // First candidate of every dim; none in some dim: no output reads this element.
  for (var d = 0u; d < nd; d++) {
    o[d] = next_candidate(d, 0, want[d]);
    if (o[d] < 0) { return; }
  }
  var acc = 0.0;
  loop {
    var at = 0;
    for (var d = 0u; d < nd; d++) { at = at * pi(16u + d) + o[d]; }
    acc += G[pu(2u) + u32(at)];
    // Odometer over the candidates, innermost dim first.
    var d = i32(nd) - 1;
    loop {
      if (d < 0) { break; }
      let nxt = next_candidate(u32(d), o[d] + 1, want[d]);
      if (nxt >= 0) { o[d] = nxt; break; }
      o[d] = next_candidate(u32(d), 0, want[d]);
      d -= 1;
    }
    if (d < 0) { break; }
  }
  DX[pu(3u) + id] += acc;`, /* wgsl */ `
// The input index output index o of dim d reads (pad_mapped's map).
fn source(d: u32, o: i32) -> i32 {
  let size = pi(32u + d);
  var i = o - pi(24u + d);
  if (pu(4u) != 0u) { if (i < 0) { i = -i; } else if (i >= size) { i = 2 * (size - 1) - i; } }
  else { i = clamp(i, 0, size - 1); }
  return i;
}
// The first output index ≥ start of dim d that reads input index want, or −1.
fn next_candidate(d: u32, start: i32, want: i32) -> i32 {
  for (var q = start; q < pi(16u + d); q++) { if (source(d, q) == want) { return q; } }
  return -1;
}
`);
  },
};
