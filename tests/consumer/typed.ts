// Consumer check (TypeScript): type-checks (and runs) against the installed package's
// .d.ts files. Mistakes marked @ts-expect-error must stay type errors.
import { init, Tensor, type Simdgrad, type InitOptions, type DType, type NestedArray } from 'simdgrad';

async function main(): Promise<void> {
  const options: InitOptions = { backend: 'wasm' };
  const sg: Simdgrad = await init(options);
  const version: string = sg.version;

  const w: Tensor = sg.randn([3, 1], { requiresGrad: true });
  const x = sg.tensor([[1, 2, 3], [4, 5, 6]]);
  const loss: Tensor = x.matmul(w).square().mean();
  loss.backward();
  const g: Tensor | null = w.grad;
  const value: number = loss.item();
  const shape: number[] = x.shape;
  const dtype: DType = x.dtype;
  const nested: NestedArray = x.toArray();
  const data: Float32Array | Float64Array | Int32Array | BigInt64Array | Int8Array | Uint8Array = x.dataSync();

  // methods and functions share one signature
  const a = x.sum(1, true).reshape(2, 1).reshape([1, 2]).permute(1, 0);
  const b = sg.sum(x, [0, 1]);
  const parts: Tensor[] = x.split(1, 0);
  const v = x.var(0, false, { unbiased: false });
  const c = sg.cat([x, x], 1);
  const d = sg.where(x.gt(2), x, 0);
  const e = sg.pad(x, [1, 1], { mode: 'constant', value: 0 });
  const gradFn = sg.grad((t: Tensor) => t.square().sum());
  const gx: Tensor = gradFn(x);
  const [val, grads] = sg.valueAndGrad((p: Tensor, q: Tensor) => p.mul(q).sum(), [0, 1])(x, x);
  const gs: Tensor[] = grads;
  const mem: { tensors: number; bytes: number } = sg.memory();
  const kept = sg.tidy(() => x.add(1).mul(2));
  sg.noGrad(() => x.mul(2)).dispose();

  // the op families of npm/src/tensor: methods typed through the Tensor augmentation, results typed
  const { values, indices }: { values: Tensor; indices: Tensor } = x.sort(1, { descending: true });
  const top: Tensor = sg.topk(x, 2).values;
  const last: Tensor = x.index(null, -1).cumsum(0).flip(0).roll(1).repeat(2);
  const prod: Tensor = sg.einsum('ij,kj->ik', x, x).tril(-1).diag();
  const picks: Tensor = sg.multinomial(sg.ones([4]), 2, { replacement: true });
  const flags: Tensor = x.gt(1).logicalAnd(x.lt(5)).any(1);

  // @ts-expect-error sort's flags go in an options object
  x.sort(1, true);
  // @ts-expect-error index items are numbers, null, '...' or ranges
  x.index('last');
  // @ts-expect-error softmax needs a numeric dim
  x.softmax('last');
  // @ts-expect-error unknown dtype
  sg.zeros([2], { dtype: 'complex64' });
  const f64: DType = sg.zeros([2], { dtype: 'float64' }).dtype;

  {
    using t = sg.ones(2);
    t.add(1).dispose();
  }

  sg.dispose([w, x, loss, g, a, b, parts, v, c, d, e, gx, val, gs, kept]);
  console.log(`typed ok: ${version} ${value.toFixed(3)} ${shape.join('x')} ${dtype} ${JSON.stringify(nested)} ${data.length} ${mem.tensors}`);
}

main().catch((err: unknown) => {
  console.error(err);
  throw err;
});
