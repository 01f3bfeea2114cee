// The results matrix's table: every op of the registry (forward and gradients), layer, loss and
// optimizer step, run through the public API on each backend (backend_matrix.test.mjs). A row:
//   { name, op: the registry op it exercises (coverage names it), tol (abs + rel, per op),
//     inputs: input specs, run: (sg, ...tensors) => Tensor | Tensor[], random?: seeds first }
// Input specs: f(shape, lo, hi, seed) float32 that requires grad, fb(...) float32 without grad,
// i(shape, values) int32, b(shape, values) bool. Values come from a fixed LCG (no library RNG),
// so every backend gets the same inputs.

export const f = (shape, lo = -1, hi = 1, seed = 3) => ({ kind: 'f', shape, lo, hi, seed, grad: true });
export const fb = (shape, lo = -1, hi = 1, seed = 3) => ({ kind: 'f', shape, lo, hi, seed, grad: false });
export const i = (shape, values) => ({ kind: 'i', shape, values });
export const b = (shape, values) => ({ kind: 'b', shape, values });

/** Uniform values in [lo, hi) from a 32-bit LCG seeded by `seed` (same on every backend). */
export function lcg(n, lo, hi, seed) {
  let s = (seed * 2654435761) >>> 0 || 1;
  const out = new Float32Array(n);
  for (let k = 0; k < n; k++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[k] = lo + ((s >>> 8) / 16777216) * (hi - lo);
  }
  return out;
}

const E = 1e-5; // elementwise
const R = 1e-4; // matmul, reductions, convolutions, losses

const rows = [];
const add = (name, op, inputs, run, tol = E, extra = {}) => rows.push({ name, op, inputs, run, tol, ...extra });

const x = f([2, 3], 0.5, 2, 1), row = f([3], 0.5, 2, 2), s = f([2, 3], -1, 1, 4);
const xi = i([2, 3], [3, -2, 7, 0, -5, 2]), rowi = i([3], [2, 3, -1]);
const mask = b([2, 3], [1, 0, 0, 1, 1, 0]);
const t3 = f([2, 3, 4], -2, 2, 6);
const img = f([2, 3, 5, 5], -1, 1, 12);

for (const op of ['add', 'sub', 'mul', 'div', 'pow', 'maximum', 'minimum']) add(op, op, [x, row], (sg, a, c) => a[op](c));
for (const op of ['add', 'sub', 'mul', 'maximum', 'minimum']) add(`${op} int32`, op, [xi, rowi], (sg, a, c) => a[op](c));
add('pow int32', 'pow', [xi, i([3], [2, 0, 3])], (sg, a, c) => a.pow(c));
add('add float + int32', 'add', [x, rowi], (sg, a, c) => a.add(c));
add('mul by a scalar', 'mul', [x], (sg, a) => a.mul(2.5));
add('add broadcast 3-D', 'add', [f([2, 1, 4], -1, 1, 7), f([3, 1], -1, 1, 8)], (sg, a, c) => a.add(c));
add('maximum bool', 'maximum', [mask, b([3], [0, 1, 0])], (sg, a, c) => a.maximum(c));
for (const op of ['eq', 'ne', 'lt', 'le', 'gt', 'ge']) {
  add(op, op, [s], (sg, a) => a[op](0));
  add(`${op} int32`, op, [xi, rowi], (sg, a, c) => a[op](c));
}
add('eq bool', 'eq', [mask, b([3], [1, 1, 0])], (sg, a, c) => a.eq(c));
for (const op of ['neg', 'exp', 'log', 'log2', 'log10', 'log1p', 'expm1', 'sqrt', 'rsqrt', 'sin', 'cos', 'erf', 'square',
  'reciprocal', 'selu', 'sigmoid', 'tanh', 'silu', 'contiguous', 'clone']) add(op, op, [x], (sg, a) => a[op]());
for (const op of ['exp', 'expm1', 'log1p', 'erf', 'sigmoid', 'tanh', 'sin']) add(`${op} small`, op, [f([7], -1e-3, 1e-3, 9)], (sg, a) => a[op]());
for (const op of ['abs', 'sign', 'relu', 'neg', 'square']) add(`${op} signed`, op, [s], (sg, a) => a[op]());
for (const op of ['abs', 'sign', 'relu', 'neg', 'square']) add(`${op} int32`, op, [xi], (sg, a) => a[op]());
add('where', 'where', [mask, s, x], (sg, m, a, c) => sg.where(m, a, c));
add('maskedFill', 'maskedFill', [s, mask], (sg, a, m) => a.maskedFill(m, -7.5));
add('maskedFill int32', 'maskedFill', [xi, mask], (sg, a, m) => a.maskedFill(m, 4));
add('clamp', 'clamp', [s], (sg, a) => a.clamp(-0.25, 0.5));
add('clamp int32', 'clamp', [xi], (sg, a) => a.clamp(-1, 3));
add('leakyRelu', 'leakyRelu', [s], (sg, a) => a.leakyRelu(0.1));
add('elu', 'elu', [s], (sg, a) => a.elu(1.5));
add('gelu', 'gelu', [s], (sg, a) => a.gelu());
add('gelu tanh', 'gelu', [s], (sg, a) => a.gelu({ approximate: 'tanh' }));
add('softplus', 'softplus', [s], (sg, a) => a.softplus({ beta: 2 }));
add('prelu', 'prelu', [f([2, 3, 2]), f([3], 0, 0.5, 5)], (sg, a, w) => a.prelu(w));
add('cast to int32', 'cast', [s], (sg, a) => a.mul(5).to('int32'));
add('cast to bool', 'cast', [xi], (sg, a) => a.to('bool'));
add('cast to float32', 'cast', [mask], (sg, a) => a.to('float32'));
add('softmax', 'softmax', [t3], (sg, a) => a.softmax(1), R);
add('logSoftmax', 'logSoftmax', [t3], (sg, a) => a.logSoftmax(-1), R);
add('softmax wide rows', 'softmax', [f([3, 300], -3, 3, 10)], (sg, a) => a.softmax(1), R);
// causalSoftmax through F.scaledDotProductAttention's isCausal: square, L < S, and rows wider than
// the WGSL kernel's one-invocation rows (a workgroup per row).
const causalSdpa = (sg, q, k, v) => sg.F.scaledDotProductAttention(q, k, v, null, { isCausal: true });
add('causalSoftmax (attention isCausal)', 'causalSoftmax', [f([2, 2, 5, 3], -1, 1, 21), f([2, 2, 5, 3], -1, 1, 22), f([2, 2, 5, 3], -1, 1, 23)], causalSdpa, R);
add('causalSoftmax L < S', 'causalSoftmax', [f([1, 2, 4, 3], -1, 1, 24), f([1, 2, 7, 3], -1, 1, 25), f([1, 2, 7, 3], -1, 1, 26)], causalSdpa, R);
add('causalSoftmax wide rows', 'causalSoftmax', [f([1, 1, 3, 2], -2, 2, 27), f([1, 1, 300, 2], -2, 2, 28), f([1, 1, 300, 2], -1, 1, 29)], causalSdpa, R);
for (const op of ['sum', 'mean', 'prod', 'max', 'min', 'logsumexp']) {
  add(`${op} dim`, op, [t3], (sg, a) => a[op](1), R);
  add(`${op} two dims keepdim`, op, [t3], (sg, a) => a[op]([0, 2], true), R);
  add(`${op} all`, op, [t3], (sg, a) => a[op](), R);
}
add('sum long rows', 'sum', [f([2, 1000], -1, 1, 11)], (sg, a) => a.sum(1), R);
add('max int32', 'max', [i([2, 2], [1, 5, 5, 2])], (sg, a) => a.max(1));
add('sum bool', 'sum', [mask], (sg, a) => a.sum(0));
add('prod int32', 'prod', [xi], (sg, a) => a.prod());
add('max ties', 'max', [f([2, 2], 0, 0, 1)], (sg, a) => a.max(1));
add('var', 'var', [t3], (sg, a) => a.var(1), R);
add('std', 'std', [t3], (sg, a) => a.std(2, false, { unbiased: false }), R);
for (const p of [2, 1, 3, Infinity, 0]) add(`norm p=${p}`, 'norm', [t3], (sg, a) => a.norm(p, 2), R);
add('argmax', 'argmax', [t3], (sg, a) => a.argmax(1));
add('argmin int32', 'argmin', [xi], (sg, a) => a.argmin());
add('matmul', 'matmul', [f([2, 3, 4]), f([4, 5])], (sg, a, c) => a.matmul(c), R);
add('matmul batched', 'matmul', [f([2, 3, 4]), f([2, 4, 5], -1, 1, 9)], (sg, a, c) => a.matmul(c), R);
// Broadcast batch dims: B's offsets repeat (0, 1, 0, 1, ...), so the GPU's batched dispatches split.
add('matmul broadcast batch', 'matmul', [f([3, 1, 4, 5]), f([2, 5, 6], -1, 1, 9)], (sg, a, c) => a.matmul(c), R);
add('matmul 1-D', 'matmul', [f([4]), f([4, 5])], (sg, a, c) => a.matmul(c), R);
add('matmul transposed tiles', 'matmul', [f([37, 45], -1, 1, 21), f([33, 45], -1, 1, 22)], (sg, a, c) => a.matmul(c.T), R);
add('reshape', 'reshape', [t3], (sg, a) => a.reshape([4, -1]));
add('view', 'view', [t3], (sg, a) => a.view([6, 4]));
add('expand', 'expand', [f([1, 3])], (sg, a) => a.expand([4, 3]));
add('flatten', 'flatten', [t3], (sg, a) => a.flatten(1));
add('squeeze', 'squeeze', [f([2, 1, 3])], (sg, a) => a.squeeze());
add('unsqueeze', 'unsqueeze', [x], (sg, a) => a.unsqueeze(1));
add('transpose', 'transpose', [t3], (sg, a) => a.transpose(0, 2).mul(1));
add('permute', 'permute', [t3], (sg, a) => a.permute(2, 0, 1).contiguous());
add('narrow', 'narrow', [t3], (sg, a) => a.narrow(2, 1, 2).contiguous());
add('slice', 'slice', [t3], (sg, a) => a.slice(2, 0, 4, 2).contiguous());
add('cat', 'cat', [x, s], (sg, a, c) => sg.cat([a, c], 1));
add('stack', 'stack', [x, s], (sg, a, c) => sg.stack([a, c], 0));
add('split', 'split', [t3], (sg, a) => a.split(3, 2));
add('chunk', 'chunk', [t3], (sg, a) => a.chunk(2, 1));
add('indexSelect', 'indexSelect', [t3, i([3], [2, 0, 2])], (sg, a, k) => a.indexSelect(1, k));
add('gather', 'gather', [t3, i([2, 2, 4], [0, 2, 1, 1, 2, 2, 0, 1, 1, 0, 0, 2, 2, 1, 0, 0])], (sg, a, k) => a.gather(1, k));
add('pad constant', 'pad', [t3], (sg, a) => sg.pad(a, [1, 2, 0, 1], { value: 0.5 }));
add('pad reflect', 'pad', [t3], (sg, a) => sg.pad(a, [2, 1], { mode: 'reflect' }));
add('pad replicate', 'pad', [t3], (sg, a) => sg.pad(a, [1, 2, 2, 0], { mode: 'replicate' }));
add('pad reflect 2-D', 'pad', [img], (sg, a) => sg.pad(a, [1, 2, 2, 1], { mode: 'reflect' }));
add('pad replicate wide', 'pad', [f([2, 3], -1, 1, 7)], (sg, a) => sg.pad(a, [4, 5, 3, 0], { mode: 'replicate' }));
// The C++ ops of PyTorch breadth (npm/src/tensor/pointwise.ts, reductions.ts, sorting.ts, ...).
for (const op of ['floor', 'ceil', 'round', 'trunc', 'tan', 'atan', 'asin', 'acos', 'sinh', 'cosh', 'logicalNot']) {
  add(op, op, [s], (sg, a) => a[op]());
}
add('round int32', 'round', [xi], (sg, a) => a.round());
add('atan2', 'atan2', [s, row], (sg, a, c) => sg.atan2(a, c));
for (const op of ['fmod', 'remainder']) {
  add(op, op, [s, row], (sg, a, c) => sg[op](a.mul(5), c));
  add(`${op} int32`, op, [xi, rowi], (sg, a, c) => a[op](c));
}
add('floorDivide', 'floorDivide', [fb([2, 3], -5, 5, 8), fb([3], 0.5, 2, 9)], (sg, a, c) => sg.floorDivide(a, c));
add('floorDivide int32', 'floorDivide', [xi, rowi], (sg, a, c) => a.floorDivide(c));
add('div floor', 'divRounded', [s, row], (sg, a, c) => sg.div(a.mul(5), c, { roundingMode: 'floor' }));
add('div trunc int32', 'divRounded', [xi, rowi], (sg, a, c) => sg.div(a, c, { roundingMode: 'trunc' }));
// special.ts: erfinv on s in (−1, 1); lgamma, digamma, polygamma on positive values (off the poles).
for (const op of ['erfinv', 'erfc', 'i0']) add(op, op, [s], (sg, a) => a[op]());
for (const op of ['lgamma', 'digamma']) add(op, op, [f([2, 3], 0.5, 4, 12)], (sg, a) => sg[op](a));
add('polygamma', 'polygamma', [f([2, 3], 0.5, 4, 12)], (sg, a) => sg.polygamma(2, a));
add('hardtanh', 'hardtanh', [s], (sg, a) => sg.F.hardtanh(a, { minVal: -0.5, maxVal: 0.5 }));
for (const op of ['logicalAnd', 'logicalOr', 'logicalXor']) add(op, op, [s, mask], (sg, a, m) => a[op](m));
// tensor/bitwise.ts: int32 bits (broadcast), bool as the logical ops; shift amounts inside [0, 32).
for (const op of ['bitwiseAnd', 'bitwiseOr', 'bitwiseXor', 'gcd', 'lcm']) add(op, op, [xi, rowi], (sg, a, c) => a[op](c));
for (const op of ['bitwiseAnd', 'bitwiseOr', 'bitwiseXor']) add(`${op} bool`, op, [mask, b([3], [1, 0, 1])], (sg, a, c) => a[op](c));
add('bitwiseNot', 'bitwiseNot', [xi], (sg, a) => a.bitwiseNot());
for (const op of ['bitwiseLeftShift', 'bitwiseRightShift']) add(op, op, [xi, i([3], [1, 0, 31])], (sg, a, c) => a[op](c));
add('any', 'any', [s], (sg, a) => a.any(1));
add('all int32', 'all', [xi], (sg, a) => a.all());
add('cumsum', 'cumsum', [t3], (sg, a) => a.cumsum(1));
add('cumsum int32', 'cumsum', [xi], (sg, a) => a.cumsum(0));
add('cumprod', 'cumprod', [t3], (sg, a) => a.cumprod(-1), R);
add('sort', 'sort', [t3], (sg, a) => { const r = a.sort(1, { descending: true }); return [r.values, r.indices]; });
add('argsort int32', 'argsort', [xi], (sg, a) => a.argsort(0));
add('topk', 'topk', [t3], (sg, a) => { const r = a.topk(2); return [r.values, r.indices]; });
add('scatter', 'scatter', [x, f([2, 4], -1, 1, 7)], (sg, a, c) => a.scatter(0, [[1, 0, 1], [0, 1, 1]], c));
add('scatterAdd', 'scatterAdd', [x, s], (sg, a, c) => a.scatterAdd(0, [[1, 0, 1], [0, 1, 1]], c));
add('scatterAdd int32', 'scatterAdd', [xi, xi], (sg, a, c) => a.scatterAdd(1, [[1, 0, 1], [0, 1, 1]], c));
for (const [k, reduce] of ['sum', 'prod', 'mean', 'amax', 'amin'].entries()) {
  for (const includeSelf of [true, false]) {
    add(`scatterReduce ${reduce}${includeSelf ? '' : ' without self'}`, 'scatterReduce', [x, f([2, 4], -1, 1, 20 + k)],
      (sg, a, c) => a.scatterReduce(k % 2, [[1, 0, 1], [0, 1, 1]], c, reduce, { includeSelf }));
  }
}
add('scatterReduce int32 mean', 'scatterReduce', [xi, xi], (sg, a, c) => a.scatterReduce(0, [[1, 0, 1], [0, 0, 1]], c, 'mean', { includeSelf: false }));
add('tril', 'tril', [t3], (sg, a) => a.tril(-1));
add('triu int32', 'triu', [xi], (sg, a) => a.triu(1));
add('diag of a vector', 'diag', [row], (sg, a) => a.diag(1));
add('diag of a matrix', 'diag', [x], (sg, a) => a.diag(-1));
add('outer', 'outer', [row, f([2])], (sg, a, c) => sg.outer(a, c));
add('einsum', 'einsum', [t3, f([4, 2], -1, 1, 8)], (sg, a, c) => sg.einsum('bij,jk->bki', a, c), R);
add('einsum diagonal', 'einsum', [f([3, 3])], (sg, a) => sg.einsum('ii->i', a));
// linalg: random entries plus 3·I (diagonally dominant), or a·aᵀ + 3·I (positive-definite).
const wellConditioned = (sg, a) => a.add(sg.eye(3).mul(3));
const positiveDefinite = (sg, a) => a.matmul(a.transpose(-2, -1)).add(sg.eye(3).mul(3));
const mats = f([2, 3, 3], -1, 1, 40);
add('linalg.inv', 'linalgInv', [mats], (sg, a) => sg.linalg.inv(wellConditioned(sg, a)), R);
add('linalg.det', 'linalgDet', [mats], (sg, a) => sg.linalg.det(wellConditioned(sg, a)), R);
add('linalg.slogdet', 'linalgSlogdet', [mats], (sg, a) => sg.linalg.slogdet(a.sub(sg.eye(3).mul(2))), R);
add('logdet', 'logdet', [mats], (sg, a) => sg.logdet(positiveDefinite(sg, a)), R);
add('linalg.solve', 'linalgSolve', [mats, f([3, 2], -1, 1, 41)], (sg, a, c) => sg.linalg.solve(wellConditioned(sg, a), c), R);
add('linalg.solve vector', 'linalgSolve', [mats, f([3], -1, 1, 42)], (sg, a, c) => sg.linalg.solve(wellConditioned(sg, a), c), R);
add('linalg.cholesky', 'linalgCholesky', [mats], (sg, a) => sg.linalg.cholesky(positiveDefinite(sg, a)), R);
add('linalg.cholesky upper', 'linalgCholesky', [mats], (sg, a) => sg.linalg.cholesky(positiveDefinite(sg, a), { upper: true }), R);
// Decompositions: sign-independent results of svd/eigh (their vectors' signs may differ between
// backends only if the kernels did; they are the same kernels), QR, LU and the rest as they are.
const tall = f([2, 4, 3], -1, 1, 43);
add('linalg.svd', 'linalgSvd', [tall], (sg, a) => { const [U, S, Vh] = sg.linalg.svd(a, { fullMatrices: false }); return U.mul(S.unsqueeze(-2)).matmul(Vh).add(U.abs().sum()).add(Vh.abs().sum()); }, R);
add('linalg.svdvals', 'linalgSvdvals', [tall], (sg, a) => sg.linalg.svdvals(a), R);
add('linalg.eigh', 'linalgEigh', [mats], (sg, a) => { const [l, V] = sg.linalg.eigh(positiveDefinite(sg, a)); return V.abs().sum().add(l.sum()); }, R);
add('linalg.eigvalsh', 'linalgEigvalsh', [mats], (sg, a) => sg.linalg.eigvalsh(positiveDefinite(sg, a), { UPLO: 'U' }), R);
add('linalg.qr', 'linalgQr', [tall], (sg, a) => { const [Q, R2] = sg.linalg.qr(a); return Q.sum().add(R2.sum()); }, R);
add('linalg.solveTriangular', 'linalgSolveTriangular', [mats, f([3, 2], -1, 1, 44)], (sg, a, c) => sg.linalg.solveTriangular(wellConditioned(sg, a), c, { upper: true }), R);
add('linalg.luFactor', 'linalgLuFactor', [mats], (sg, a) => sg.linalg.luFactor(wellConditioned(sg, a)).LU, R);
add('linalg.matrixExp', 'linalgMatrixExp', [mats], (sg, a) => sg.linalg.matrixExp(a), R);
add('linalg.pinv', 'linalgPinv', [tall], (sg, a) => sg.linalg.pinv(a), R);
add('flip', 'flip', [t3], (sg, a) => a.flip(0, 2));
add('roll', 'roll', [t3], (sg, a) => a.roll([1, -1], [2, 0]));
add('repeat', 'repeat', [x], (sg, a) => a.repeat(2, 1, 2));
add('tile int32', 'tile', [xi], (sg, a) => a.tile(2));
add('tile', 'tile', [x], (sg, a) => a.tile([2, 1, 2]));
add('select', 'select', [t3], (sg, a) => a.select(1, -1));
add('index', 'index', [t3], (sg, a) => a.index(null, -1, [1, null, 2]));
add('bernoulli', 'bernoulli', [f([3, 5], 0, 1, 5)], (sg, a) => a.bernoulli(), 0, { random: true });
add('bernoulli p', 'bernoulli', [f([4])], (sg, a) => a.bernoulli(0.4), 0, { random: true });
add('multinomial', 'multinomial', [f([2, 5], 0, 1, 6)], (sg, a) => sg.multinomial(a, 3), 0, { random: true });
add('multinomial replacement', 'multinomial', [f([5], 0, 1, 7)], (sg, a) => sg.multinomial(a, 8, { replacement: true }), 0, { random: true });
// Layers.
add('linear', 'linear', [f([4, 3]), f([5, 3], -1, 1, 8), f([5], -1, 1, 9)], (sg, a, w, c) => sg.F.linear(a, w, c), R);
add('linear relu', 'linear', [f([4, 3]), f([5, 3], -1, 1, 8), f([5], -1, 1, 9)], (sg, a, w, c) => sg.F.linear(a, w, c, { activation: 'relu' }), R);
add('bilinear', 'bilinear', [f([4, 3]), f([4, 2], -1, 1, 8), f([5, 3, 2], -1, 1, 9), f([5], -1, 1, 10)], (sg, a, c, w, d) => sg.F.bilinear(a, c, w, d), R);
add('batchNorm training', 'batchNorm', [img, fb([3], 0, 0, 1), fb([3], 1, 1, 1), f([3], 0.5, 1.5, 2), f([3])],
  (sg, a, m, v, w, c) => sg.F.batchNorm(a, m, v, w, c, { training: true, momentum: 0.2 }), R);
add('batchNorm eval', 'batchNorm', [img, fb([3], -0.2, 0.2, 4), fb([3], 0.5, 1.5, 5)], (sg, a, m, v) => sg.F.batchNorm(a, m, v), R);
add('instanceNorm', 'instanceNorm', [img, null, null, f([3]), f([3])], (sg, a, m, v, w, c) => sg.F.instanceNorm(a, m, v, w, c), R);
add('layerNorm', 'layerNorm', [img, f([5, 5]), f([5, 5], -1, 1, 2)], (sg, a, w, c) => sg.F.layerNorm(a, [5, 5], w, c), R);
add('groupNorm', 'groupNorm', [f([2, 4, 3]), f([4]), f([4])], (sg, a, w, c) => sg.F.groupNorm(a, 2, w, c), R);
add('embedding', 'embedding', [i([2, 2], [5, 0, 2, 5]), f([6, 3])], (sg, k, w) => sg.F.embedding(k, w));
add('oneHot', 'oneHot', [i([3], [2, 0, 1])], (sg, k) => sg.F.oneHot(k, 4));
// Losses.
const logits = f([4, 5], -2, 2, 13), target = i([4], [1, 4, 0, 4]);
add('crossEntropy', 'crossEntropy', [logits, target], (sg, a, t) => sg.F.crossEntropy(a, t), R);
add('crossEntropy weighted', 'crossEntropy', [logits, target, f([5], 0.5, 2, 3)],
  (sg, a, t, w) => sg.F.crossEntropy(a, t, { weight: w, labelSmoothing: 0.1, ignoreIndex: 0 }), R);
add('crossEntropy probabilities', 'crossEntropy', [logits, f([4, 5], 0, 1, 14)], (sg, a, q) => sg.F.crossEntropy(a, q, { reduction: 'sum' }), R);
add('crossEntropy many classes', 'crossEntropy', [f([3, 300], -2, 2, 15), i([3], [7, 299, 0])], (sg, a, t) => sg.F.crossEntropy(a, t), R);
add('nllLoss', 'nllLoss', [logits, target], (sg, a, t) => sg.F.nllLoss(a, t, { reduction: 'none' }), R);
add('mseLoss', 'mseLoss', [x, s], (sg, a, c) => sg.F.mseLoss(a, c), R);
add('l1Loss', 'l1Loss', [x, s], (sg, a, c) => sg.F.l1Loss(a, c), R);
add('smoothL1Loss', 'smoothL1Loss', [x, s], (sg, a, c) => sg.F.smoothL1Loss(a, c, { beta: 0.5 }), R);
add('huberLoss', 'huberLoss', [x, s], (sg, a, c) => sg.F.huberLoss(a, c, { delta: 0.5 }), R);
add('binaryCrossEntropy', 'binaryCrossEntropy', [f([2, 3], 0.1, 0.9, 3), f([2, 3], 0, 1, 5)], (sg, a, c) => sg.F.binaryCrossEntropy(a, c), R);
add('binaryCrossEntropyWithLogits', 'binaryCrossEntropyWithLogits', [s, f([2, 3], 0, 1, 5), f([3], 0.5, 2, 6)],
  (sg, a, c, p) => sg.F.binaryCrossEntropyWithLogits(a, c, { posWeight: p }), R);
add('klDiv', 'klDiv', [f([2, 3], -2, -0.1, 3), f([2, 3], 0.1, 1, 5)], (sg, a, c) => sg.F.klDiv(a, c, { reduction: 'batchmean' }), R);
add('cosineEmbeddingLoss', 'cosineEmbeddingLoss', [f([3, 4]), f([3, 4], -1, 1, 8), i([3], [1, -1, 1])],
  (sg, a, c, y) => sg.F.cosineEmbeddingLoss(a, c, y, { margin: 0.1 }), R);
// Convolutions and pooling.
add('conv1d', 'conv1d', [f([2, 3, 7]), f([4, 3, 3], -1, 1, 8), f([4], -1, 1, 9)], (sg, a, w, c) => sg.F.conv1d(a, w, c, { padding: 1 }), R);
add('conv2d', 'conv2d', [img, f([4, 3, 3, 3], -1, 1, 8), f([4], -1, 1, 9)], (sg, a, w, c) => sg.F.conv2d(a, w, c, { stride: 2, padding: 1 }), R);
add('conv2d grouped', 'conv2d', [img, f([3, 1, 3, 3], -1, 1, 8)], (sg, a, w) => sg.F.conv2d(a, w, null, { groups: 3, dilation: 2 }), R);
add('convTranspose2d', 'convTranspose2d', [img, f([3, 2, 3, 3], -1, 1, 8), f([2], -1, 1, 9)],
  (sg, a, w, c) => sg.F.convTranspose2d(a, w, c, { stride: 2, padding: 1 }), R);
add('maxPool1d', 'maxPool1d', [f([2, 3, 7])], (sg, a) => sg.F.maxPool1d(a, 2));
add('maxPool2d', 'maxPool2d', [img], (sg, a) => sg.F.maxPool2d(a, 2));
add('Conv2d+ReLU+MaxPool2d fused by Sequential', 'conv2dReluMaxPool2d', [img], (sg, a) => new sg.nn.Sequential(new sg.nn.Conv2d(3, 4, 3, { padding: 1 }), new sg.nn.ReLU(), new sg.nn.MaxPool2d(2)).forward(a), R, { random: true });
add('maxPool2d padded', 'maxPool2d', [img], (sg, a) => sg.F.maxPool2d(a, 3, { stride: 2, padding: 1 }));
// Without a gradient to take, the pools keep no argmax (a kernel variant of their own).
add('maxPool2d without grad', 'maxPool2d', [fb([2, 3, 5, 5], -1, 1, 12)], (sg, a) => sg.F.maxPool2d(a, 2));
add('maxPool2d padded without grad', 'maxPool2d', [fb([2, 3, 5, 5], -1, 1, 12)], (sg, a) => sg.F.maxPool2d(a, 3, { stride: 2, padding: 1 }));
add('Conv2d+ReLU+MaxPool2d fused, under noGrad', 'conv2dReluMaxPool2d', [fb([2, 3, 5, 5], -1, 1, 12)],
  (sg, a) => sg.noGrad(() => new sg.nn.Sequential(new sg.nn.Conv2d(3, 4, 3, { padding: 1 }), new sg.nn.ReLU(), new sg.nn.MaxPool2d(2)).forward(a)), R, { random: true });
// 3×3, stride 1, ≥ 8 channels each way: Winograd F(2×2, 3×3) on wasm (forward and input gradient).
add('conv2d 3×3 8 → 9 channels (Winograd on wasm)', 'conv2d', [f([2, 8, 6, 7], -1, 1, 21), f([9, 8, 3, 3], -1, 1, 22), f([9], -1, 1, 23)],
  (sg, a, w, c) => sg.F.conv2d(a, w, c, { padding: 1, activation: 'relu' }), R);
add('Conv2d+ReLU+MaxPool2d fused, Winograd on wasm', 'conv2dReluMaxPool2d', [f([2, 8, 6, 7], -1, 1, 24)],
  (sg, a) => new sg.nn.Sequential(new sg.nn.Conv2d(8, 9, 3, { padding: 1 }), new sg.nn.ReLU(), new sg.nn.MaxPool2d(2)).forward(a), R, { random: true });
add('avgPool1d', 'avgPool1d', [f([2, 3, 7])], (sg, a) => sg.F.avgPool1d(a, 3), R);
add('avgPool2d', 'avgPool2d', [img], (sg, a) => sg.F.avgPool2d(a, 2, { ceilMode: true }), R);
add('adaptiveAvgPool2d', 'adaptiveAvgPool2d', [img], (sg, a) => sg.F.adaptiveAvgPool2d(a, [2, 3]), R);
// Odd sizes and every geometry knob (the WebGPU kernels gather with closed-form index maps;
// these rows reach their edges: tiles past 32 rows/columns, strides that skip input, dilation
// with padding, asymmetric 'same' padding, a weight gradient long enough to be sliced).
const odd = f([3, 5, 9, 7], -1, 1, 16);
add('conv2d odd sizes, stride 2×3, dilation 2×1, padding 2×0', 'conv2d', [odd, f([6, 5, 3, 2], -1, 1, 17), f([6], -1, 1, 18)],
  (sg, a, w, c) => sg.F.conv2d(a, w, c, { stride: [2, 3], dilation: [2, 1], padding: [2, 0] }), R);
add("conv2d 'same' with an even kernel, relu", 'conv2d', [odd, f([4, 5, 2, 4], -1, 1, 19), f([4], -1, 1, 20)],
  (sg, a, w, c) => sg.F.conv2d(a, w, c, { padding: 'same', activation: 'relu' }), R);
add('conv2d 40 output channels, 2 groups', 'conv2d', [f([2, 4, 6, 5], -1, 1, 21), f([40, 2, 3, 3], -1, 1, 22), f([40], -1, 1, 23)],
  (sg, a, w, c) => sg.F.conv2d(a, w, c, { groups: 2, padding: 1 }), R);
add('conv2d long weight gradient (sliced depth)', 'conv2d', [f([3, 2, 30, 30], -1, 1, 24), f([3, 2, 3, 3], -1, 1, 25)],
  (sg, a, w) => sg.F.conv2d(a, w, null, { padding: 1 }), R);
add('conv2d kernel larger than stride, no bias, unbatched', 'conv2d', [f([2, 7, 6], -1, 1, 26), f([3, 2, 4, 3], -1, 1, 27)],
  (sg, a, w) => sg.F.conv2d(a, w, null, { stride: 3, padding: [1, 2] }), R);
add('conv1d stride 2, dilation 3, grouped', 'conv1d', [f([2, 4, 17], -1, 1, 28), f([6, 2, 3], -1, 1, 29), f([6], -1, 1, 30)],
  (sg, a, w, c) => sg.F.conv1d(a, w, c, { stride: 2, dilation: 3, padding: 2, groups: 2 }), R);
add('convTranspose2d output padding, groups, dilation', 'convTranspose2d', [f([2, 4, 4, 3], -1, 1, 31), f([4, 3, 3, 2], -1, 1, 32), f([6], -1, 1, 33)],
  (sg, a, w, c) => sg.F.convTranspose2d(a, w, c, { stride: [2, 3], padding: [1, 0], outputPadding: [1, 2], groups: 2, dilation: [1, 2] }), R);
add('maxPool2d ceil mode, dilation, odd sizes', 'maxPool2d', [odd], (sg, a) => sg.F.maxPool2d(a, [3, 2], { stride: [2, 3], padding: 1, dilation: [2, 1], ceilMode: true }));
add('maxPool2d overlapping windows, ties', 'maxPool2d', [f([2, 2, 6, 7], 0, 0, 1)], (sg, a) => sg.F.maxPool2d(a, 3, { stride: 1 }));
add('maxPool1d stride 1, padding, ceil mode', 'maxPool1d', [f([2, 3, 10], -1, 1, 34)], (sg, a) => sg.F.maxPool1d(a, 4, { stride: 3, padding: 2, ceilMode: true }));
add('avgPool2d count_include_pad false, ceil mode', 'avgPool2d', [odd], (sg, a) => sg.F.avgPool2d(a, 3, { stride: 2, padding: 1, ceilMode: true, countIncludePad: false }), R);
add('avgPool2d padded, count_include_pad', 'avgPool2d', [odd], (sg, a) => sg.F.avgPool2d(a, [2, 3], { stride: [1, 2], padding: [1, 1] }), R);
add('avgPool1d padded, ceil mode', 'avgPool1d', [f([2, 3, 10], -1, 1, 35)], (sg, a) => sg.F.avgPool1d(a, 4, { stride: 3, padding: 2, ceilMode: true }), R);
add('adaptiveAvgPool2d uneven splits, up and down', 'adaptiveAvgPool2d', [odd], (sg, a) => sg.F.adaptiveAvgPool2d(a, [4, 10]), R);
add('adaptiveAvgPool2d to 1 × 1', 'adaptiveAvgPool2d', [odd], (sg, a) => sg.F.adaptiveAvgPool2d(a, 1), R);
add('Conv2d(stride 2)+ReLU+MaxPool2d(3, stride 2, ceil) fused, odd sizes', 'conv2dReluMaxPool2d', [odd],
  (sg, a) => new sg.nn.Sequential(new sg.nn.Conv2d(5, 3, [3, 2], { stride: [1, 2], padding: 1 }), new sg.nn.ReLU(), new sg.nn.MaxPool2d(3, { stride: 2, ceilMode: true })).forward(a), R, { random: true });
// Recurrent layers (op rnnLayer), parameters drawn from one seed on every backend.
add('LSTM', 'rnnLayer', [f([3, 2, 4])], (sg, x) => new sg.nn.LSTM(4, 3).forward(x)[0], R, { random: true });
add('GRU bidirectional', 'rnnLayer', [f([3, 2, 4])], (sg, x) => new sg.nn.GRU(4, 3, { bidirectional: true }).forward(x)[0], R, { random: true });
add('RNN relu', 'rnnLayer', [f([3, 2, 4])], (sg, x) => new sg.nn.RNN(4, 3, { nonlinearity: 'relu' }).forward(x)[0], R, { random: true });
// Random and creation ops (random ones compare the same seed's draws).
// In-place ops: input 0 (no grad) is changed and returned; with an operand that requires grad
// the change is recorded (its history rebased onto the out-of-place op).
add('add_ recorded', 'add_', [fb([2, 3], -1, 1, 30), row], (sg, a, c) => a.add_(c));
add('sub_ alpha', 'sub_', [fb([2, 3], -1, 1, 31)], (sg, a) => a.sub_(0.5, { alpha: 2 }));
add('mul_ by a scalar', 'mul_', [fb([2, 3], -1, 1, 32)], (sg, a) => a.mul_(-1.5));
add('div_ recorded', 'div_', [fb([2, 3], -1, 1, 33), row], (sg, a, c) => a.div_(c));
add('pow_', 'pow_', [fb([2, 3], 0.5, 2, 34), fb([3], 0, 2, 35)], (sg, a, c) => a.pow_(c));
add('clamp_', 'clamp_', [fb([2, 3], -1, 1, 36)], (sg, a) => a.clamp_(-0.25, 0.5));
add('maskedFill_', 'maskedFill_', [fb([2, 3], -1, 1, 37), mask], (sg, a, m) => a.maskedFill_(m, 9));
add('addcmul_ recorded', 'addcmul_', [fb([2, 3], -1, 1, 38), s, row], (sg, a, c, d) => a.addcmul_(c, d, { value: 0.5 }));
add('addcdiv_', 'addcdiv_', [fb([2, 3], -1, 1, 39), fb([2, 3], -1, 1, 40), fb([3], 1, 2, 41)], (sg, a, c, d) => a.addcdiv_(c, d, { value: -2 }));
for (const op of ['neg_', 'exp_', 'log_', 'sqrt_', 'abs_', 'sigmoid_', 'tanh_', 'relu_']) add(op, op, [fb([2, 3], 0.25, 2, 42)], (sg, a) => a[op]());
add('add_ int32', 'add_', [i([2, 3], [3, -2, 7, 0, -5, 2]), rowi], (sg, a, c) => a.add_(c));
add('fill_', 'fill_', [fb([2, 3], -1, 1, 43)], (sg, a) => a.fill_(2.5));
add('zero_', 'zero_', [fb([2, 3], -1, 1, 44)], (sg, a) => a.zero_());
add('copy_ recorded', 'copy_', [fb([2, 3], -1, 1, 45), row], (sg, a, c) => a.copy_(c));
add('copy_ float to int32', 'copy_', [i([2, 3], [1, 2, 3, 4, 5, 6]), fb([3], -3, 3, 46)], (sg, a, c) => a.copy_(c));
add('in-place on a transposed view', 'add_', [fb([3, 2], -1, 1, 47)], (sg, a) => {
  a.T.mul_(2).add_(1);
  return a;
});
add('normal_', 'normal_', [fb([4, 6], 0, 0, 48)], (sg, a) => a.normal_(1, 0.5), E, { random: true });
add('uniform_', 'uniform_', [fb([4, 6], 0, 0, 49)], (sg, a) => a.uniform_(-2, 3), E, { random: true });
add('dropout', 'dropout', [f([4, 6])], (sg, a) => sg.F.dropout(a, 0.3), E, { random: true });
add('dropout2d', 'dropout2d', [img], (sg, a) => sg.F.dropout2d(a, 0.5), E, { random: true });
add('zeros', 'zeros', [], (sg) => sg.zeros([2, 3]));
add('ones int32', 'ones', [], (sg) => sg.ones([2, 3], { dtype: 'int32' }));
add('full', 'full', [], (sg) => sg.full([3], 2.5));
add('arange', 'arange', [], (sg) => sg.arange(1, 7, 1.5));
add('linspace', 'linspace', [], (sg) => sg.linspace(-1, 1, 5));
add('eye', 'eye', [], (sg) => sg.eye(3, 4));
add('rand', 'rand', [], (sg) => sg.rand([3, 5]), 1e-6, { random: true });
add('randn', 'randn', [], (sg) => sg.randn([7]), 1e-5, { random: true });
add('randint', 'randint', [], (sg) => sg.randint(-3, 9, [2, 4]), 0, { random: true });
// A download lands later: the copy is read (await) before anything uses it; its gradient is
// tested in webgpu.test.mjs.
add('to', 'to', [x], (sg, a) => a.to('cpu').detach());
// Autograd state as registry ops (src/graph/effect_ops.cpp, so that sg.compile records them): they
// compute nothing themselves and run where their tensors are.
const leafOf = (a) => a.detach().requiresGrad_();  // setRequiresGrad
const backwardOfSquare = (sg, a) => {
  const w = leafOf(a);
  w.square().sum().backward();
  return w.grad.mul(1);
};
add('backward', 'backward', [fb([2, 3], -1, 1, 21)], backwardOfSquare);
add('grad (after backward)', 'grad', [fb([2, 3], -1, 1, 21)], backwardOfSquare);
add('setRequiresGrad', 'setRequiresGrad', [fb([2, 3], -1, 1, 21)], (sg, a) => leafOf(a).mul(2));
add('setGrad', 'setGrad', [fb([2, 3], -1, 1, 22)], (sg, a) => {
  const w = leafOf(a);
  w.grad = a.mul(3);
  return w.grad.add(1);
});
add('retainGrad', 'retainGrad', [fb([3], -1, 1, 23)], (sg, a) => {
  const h = leafOf(a).mul(2);
  h.retainGrad();
  h.exp().sum().backward();
  return h.grad.mul(1);
});
add('computeGrads (sg.grad)', 'computeGrads', [fb([4], -1, 1, 24)], (sg, a) => sg.grad((t) => t.sin().sum())(a));
add('detach', 'detach', [x], (sg, a) => a.detach().mul(2));
add('setGradEnabled (noGrad)', 'setGradEnabled', [x], (sg, a) => sg.noGrad(() => a.mul(2)).add(a));
add('addInPlace (BatchNorm1d counting)', 'addInPlace', [f([4, 3], -1, 1, 25)], (sg, a) => {
  const bn = new sg.nn.BatchNorm1d(3);
  const y = bn(a);
  return y.add(bn.num_batches_tracked.float());
});

export const CASES = rows;

// Optimizer steps: three steps of each algorithm on a parameter with fixed gradients.
export const OPTIMIZERS = [
  ['SGD', { lr: 0.1 }],
  ['SGD', { lr: 0.1, momentum: 0.9, nesterov: true, weightDecay: 0.01 }],
  ['SGD', { lr: 0.1, momentum: 0.9, dampening: 0.1, maximize: true }],
  ['Adam', { lr: 0.01 }],
  ['Adam', { lr: 0.01, amsgrad: true, weightDecay: 0.1 }],
  ['AdamW', { lr: 0.01 }],
  ['RMSprop', { lr: 0.01 }],
  ['RMSprop', { lr: 0.01, centered: true, momentum: 0.9, weightDecay: 0.1 }],
  ['Adagrad', { lr: 0.1, lrDecay: 0.01, weightDecay: 0.1 }],
  ['Adadelta', { lr: 1, weightDecay: 0.1 }],
  ['Adamax', { lr: 0.01, weightDecay: 0.1 }],
  ['NAdam', { lr: 0.01, weightDecay: 0.1 }],
  ['RAdam', { lr: 0.01 }],
  ['RAdam', { lr: 0.01, weightDecay: 0.1 }],
];
