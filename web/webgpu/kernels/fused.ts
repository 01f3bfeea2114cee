// A fused elementwise program of sg.compile (src/graph/fused_program.h) as one WGSL kernel: each
// invocation loads its element of every input, runs the program's unary and binary ops in
// registers — the very WGSL expressions of the op-by-op kernels (math.ts), so a value is what
// the separate dispatches would store — and stores each output. One dispatch where the ops one
// by one take one each, with every intermediate written to and read back from memory.
//
// Parameters: word 0 the element count, 1 the dims, 2.. the element offsets of the bound inputs
// then of the outputs, 16..23 the shape, then 8 words of strides per input read through strides, then
// one word per one-element CPU input (a number operand): 64 words in all, and at most 8 buffers
// (bindings/webgpu_backend.cpp keeps to that, or does not fuse).
import type { BufferLike } from '../gpu_types.js';
import { Params } from '../params.js';
import { BINARY, MATH, UNARY } from './math.js';
import { ENTRY, prelude } from './prelude.js';
import { coalesce, contiguousStrides, declare, groupsFor, operand, pad8, STRIDED, type KernelFn } from './common.js';

/** How an input is read (webgpu_backend.cpp's modes): VALUE is a number from the CPU, in the parameter block. */
const DENSE = 0, SCALAR = 1, GATHER = 2, VALUE = 3;
/** Storage buffers a kernel may bind (WebGPU's default maxStorageBuffersPerShaderStage). */
const MAX_BUFFERS = 8;

/** f32 bits as a WGSL runtime value (a constant NaN or infinity does not compile). */
const bits = (v: number) => `bitcast<f32>(0x${(new Uint32Array(new Float32Array([v]).buffer)[0]! >>> 0).toString(16)}u + zero)`;

export const fused: Record<string, KernelFn> = {
  fused_f32(ctx, a) {
    const shape = a.list();
    const nRegs = a.num(), nIn = a.num(), nOut = a.num();
    const constants = Array.from({ length: a.num() }, () => a.num());
    const code = Array.from({ length: a.num() }, () => ({
      binary: a.flag(), unary: a.num(), op: a.num(), param: a.num(), a: a.num(), b: a.num(), out: a.num(),
    }));
    const outRegs = Array.from({ length: nOut }, () => a.num());
    const ins = Array.from({ length: nIn }, () => {
      const mode = a.num();
      if (mode === VALUE) return { mode, value: a.num(), strides: [] as number[], buffer: null, at: 0 };
      return { mode, value: 0, strides: a.list(), ...operand(ctx, a) };
    });
    const outs = Array.from({ length: nOut }, () => operand(ctx, a));
    const n = shape.reduce((p, s) => p * s, 1);
    if (n === 0) return;

    // One-element GPU inputs bind one each, or, past 8 buffers, are copied into one (VALS).
    const pack = ins.filter((x) => x.mode !== VALUE).length + outs.length > MAX_BUFFERS;
    const bound = (x: (typeof ins)[number]) => x.mode !== VALUE && !(x.mode === SCALAR && pack);

    // The inputs read through strides share the coalesced shape with the (contiguous) outputs.
    const gathers = ins.filter((x) => x.mode === GATHER);
    const c = coalesce(shape, [...gathers.map((x) => x.strides), contiguousStrides(shape)]);
    const p = new Params().u(n).u(c.shape.length);
    for (const x of ins) if (bound(x)) p.u(x.at);  // offsets: words 2.. (at most 8 buffers)
    const outAt = p.length;
    for (const o of outs) p.u(o.at);
    while (p.length < 16) p.u(0);
    p.ints(pad8(c.shape));
    for (let g = 0; g < gathers.length; g++) p.ints(pad8(c.strides[g]!));
    const valuesAt = p.length;
    for (const x of ins) if (x.mode === VALUE) p.f(x.value);

    let body = '  if (id >= pu(0u)) { return; }\n  let zero = pu(0u) * 0u;\n';
    for (let r = 0; r < nRegs; r++) body += `  var r${r}: f32;\n`;
    let vals: BufferLike | null = null;
    if (pack) {
      const scalars = ins.filter((x) => x.mode === SCALAR);
      vals = ctx.temp(Math.max(256, 4 * scalars.length));
      scalars.forEach((x, j) => ctx.copy(x.buffer!, 4 * x.at, vals!, 4 * j, 4));
    }
    let slot = 0, word = valuesAt, packed = 0, offset = 2;
    ins.forEach((x, k) => {
      if (x.mode === VALUE) return void (body += `  r${k} = pf(${word++}u);\n`);
      if (!bound(x)) return void (body += `  r${k} = VALS[${packed++}];\n`);
      const at = `pu(${offset++}u)`;
      const index = x.mode === SCALAR ? at : x.mode === DENSE ? `${at} + id` : `u32(i32(${at}) + strided(id, ${24 + 8 * slot++}u))`;
      body += `  r${k} = IN${k}[${index}];\n`;
    });
    constants.forEach((v, j) => (body += `  r${nIn + j} = ${bits(v)};\n`));
    for (const i of code) {
      body += i.binary
        ? `  { let a = r${i.a}; let b = r${i.b}; r${i.out} = ${BINARY[i.op]}; }\n`
        : `  { let x = r${i.a}; let p = ${bits(i.param)}; r${i.out} = ${UNARY[i.unary]}; }\n`;
    }
    outRegs.forEach((r, o) => (body += `  OUT${o}[pu(${outAt + o}u) + id] = r${r};\n`));

    const buffered = ins.flatMap((x, k) => (bound(x) ? [{ name: `IN${k}`, buffer: x.buffer! }] : []));
    if (vals) buffered.push({ name: 'VALS', buffer: vals });
    const binds: { name: string; type: string; write?: boolean }[] = [
      ...buffered.map(({ name }) => ({ name, type: 'f32' })),
      ...outs.map((_, o) => ({ name: `OUT${o}`, type: 'f32', write: true })),
    ];
    ctx.dispatch(
      {
        key: `fused|${ins.map((x) => x.mode).join('')}|${body}`,
        access: binds.map((b) => (b.write ? 'write' : 'read') as 'read' | 'write'),
        code: () => declare(binds) + prelude(binds.length) + MATH + STRIDED + ENTRY(body),
      },
      [...buffered.map((x) => x.buffer), ...outs.map((o) => o.buffer)],
      p,
      groupsFor(n),
    );
  },
};
