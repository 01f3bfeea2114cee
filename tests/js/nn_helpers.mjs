// Shared by the nn_*.test.mjs files: decoding the tensors of tests/data/nn_*_ref.json
// (written by tests/data/gen_nn_*.py with PyTorch) and building modules from their JS specs.
import { sg } from './helpers.mjs';

export { readRef } from './helpers.mjs';

/** { shape, dtype, data } → Tensor (null stays null). */
export function decode(e) {
  if (e === null || e === undefined) return null;
  // ±Infinity come as strings (JSON has no infinities).
  const data = e.dtype === 'float32' ? Float32Array.from(e.data, Number) : e.dtype === 'int32' ? Int32Array.from(e.data) : Uint8Array.from(e.data);
  return sg.tensor(data, { shape: e.shape, dtype: e.dtype });
}

/** The user model whose PyTorch twin is `Net` in tests/data/gen_nn_names.py (same attribute order). */
export class Net extends sg.nn.Module {
  constructor() {
    super();
    this.conv = new sg.nn.Conv2d(1, 4, 3);
    this.bn = new sg.nn.BatchNorm2d(4);
    const one = sg.ones([1]);
    this.scale = new sg.nn.Parameter(one); // shares one's data; one's own handle is freed below
    one.dispose();
    this.blocks = new sg.nn.Sequential(new sg.nn.Linear(16, 8), new sg.nn.ReLU(), new sg.nn.Linear(8, 2));
    this.registerBuffer('steps', sg.zeros([2]));
    this.head = new sg.nn.Linear(2, 2, { bias: false });
  }

  forward(x) {
    return sg.tidy(() => {
      const h = sg.F.maxPool2d(this.bn(this.conv(x)).relu(), 2).flatten(1);
      return this.head(this.blocks(h)).mul(this.scale);
    });
  }
}

function convert(v) {
  if (Array.isArray(v)) return v.map(convert);
  if (v !== null && typeof v === 'object') {
    if ('$module' in v) return build(v.$module);
    if ('$ones' in v) return sg.ones(v.$ones);
    if ('$tensor' in v) return decode(v.$tensor);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, convert(x)]));
  }
  return v;
}

/** new sg.nn[ctor](...args, opts?) from a { ctor, args, opts } spec. */
export function build(spec) {
  if (spec.ctor === 'Net') return new Net();
  const C = sg.nn[spec.ctor];
  if (typeof C !== 'function') throw new Error(`no sg.nn.${spec.ctor}`);
  const args = spec.args.map(convert);
  const opts = convert(spec.opts ?? {});
  return Object.keys(opts).length ? new C(...args, opts) : new C(...args);
}
