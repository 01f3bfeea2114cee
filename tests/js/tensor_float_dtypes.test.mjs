// NaN / ±∞ handling and float-valued results for every floating dtype, not only float32:
// isinf, isfinite, nanToNum (±∞ to the dtype's finfo max), isclose's equalNan, nansum, nanmean
// and unique. Each of these treated float64, float16 and bfloat16 as if they were integers
// (isfinite(inf) was true, nansum kept NaN, unique truncated 0.25 to 0, ...). Expected values:
// PyTorch 1.13, quoted at each check (torch.tensor(..., dtype=...) then the same call).
import test from 'node:test';
import assert from 'node:assert/strict';
import { sg } from './helpers.mjs';

const FLOATS = ['float64', 'float16', 'bfloat16', 'float32'];
const special = (dtype) => sg.tensor([Infinity, NaN, 1, -Infinity], { dtype });

test('isinf / isfinite / isnan for every floating dtype', () => {
  for (const dtype of FLOATS) {
    const x = special(dtype);
    // torch.isinf(x) == [True, False, False, True]; torch.isfinite(x) == [False, False, True, False]
    assert.deepEqual(sg.isinf(x).toArray(), [true, false, false, true], `isinf ${dtype}`);
    assert.deepEqual(sg.isfinite(x).toArray(), [false, false, true, false], `isfinite ${dtype}`);
    assert.deepEqual(sg.isnan(x).toArray(), [false, true, false, false], `isnan ${dtype}`);
  }
  // integers are always finite, never inf
  assert.deepEqual(sg.isfinite(sg.tensor([1, 2], { dtype: 'int32' })).toArray(), [true, true]);
  assert.deepEqual(sg.isinf(sg.tensor([1, 2], { dtype: 'int64' })).toArray(), [false, false]);
});

test("nanToNum: NaN to 0 and ±∞ to the dtype's largest finite value (torch.finfo(dtype).max)", () => {
  const max = { float64: 1.7976931348623157e308, float16: 65504, bfloat16: 3.3895313892515355e38, float32: 3.4028234663852886e38 };
  for (const dtype of FLOATS) {
    // torch.nan_to_num(x) == [max, 0, 1, -max]
    assert.deepEqual(sg.nanToNum(special(dtype)).toArray(), [max[dtype], 0, 1, -max[dtype]], dtype);
    assert.deepEqual(sg.nanToNum(special(dtype), { nan: 2, posinf: 5, neginf: -5 }).toArray(), [5, 2, 1, -5], `${dtype} given values`);
  }
  assert.equal(max.float64, sg.finfo('float64').max);
});

test('isclose with equalNan for every floating dtype', () => {
  for (const dtype of FLOATS) {
    const a = sg.tensor([NaN, 1, NaN], { dtype });
    const b = sg.tensor([NaN, 1, 0], { dtype });
    // torch.isclose(a, b, equal_nan=True) == [True, True, False]; without it [False, True, False]
    assert.deepEqual(sg.isclose(a, b, { equalNan: true }).toArray(), [true, true, false], dtype);
    assert.deepEqual(sg.isclose(a, b).toArray(), [false, true, false], dtype);
  }
});

test('nansum and nanmean skip NaN for every floating dtype and keep the dtype', () => {
  for (const dtype of FLOATS) {
    const x = sg.tensor([[1, NaN], [2, 3]], { dtype });
    // torch.nansum(x) == 6; x.nansum(0) == [3, 3]; torch.nanmean(x) == 2; x.nanmean(1) == [1, 2.5]
    assert.equal(sg.nansum(x).item(), 6, `nansum ${dtype}`);
    assert.deepEqual(x.nansum(0).toArray(), [3, 3], `nansum(0) ${dtype}`);
    assert.equal(sg.nanmean(x).item(), 2, `nanmean ${dtype}`);
    assert.deepEqual(x.nanmean(1).toArray(), [1, 2.5], `nanmean(1) ${dtype}`);
    assert.equal(sg.nanmean(x).dtype, dtype);
    assert.equal(sg.nansum(x).dtype, dtype);
  }
});

test('unique keeps fractional values for every floating dtype', () => {
  for (const dtype of FLOATS) {
    // torch.unique(torch.tensor([1.5, 0.25, 1.5], dtype=...)) == [0.25, 1.5]
    const u = sg.unique(sg.tensor([1.5, 0.25, 1.5], { dtype }));
    assert.equal(u.dtype, dtype);
    assert.deepEqual(u.toArray(), [0.25, 1.5], dtype);
  }
  // float64 values that float32 would round: torch.unique(tensor([0.1, 0.1], dtype=float64)) == [0.1]
  assert.deepEqual(sg.unique(sg.tensor([0.1, 0.1], { dtype: 'float64' })).toArray(), [0.1]);
});

test("blockDiag's result has the promoted dtype of its inputs (torch.block_diag)", () => {
  const a = sg.tensor([[0.1]], { dtype: 'float64' });
  const f = sg.tensor([[2]]);
  const i = sg.tensor([[3]], { dtype: 'int32' });
  // torch.block_diag(float64 [[0.1]], float32 [[2.]]) is float64 [[0.1, 0], [0, 2]] (0.1 not rounded to float32)
  const r = sg.blockDiag(a, f);
  assert.equal(r.dtype, 'float64');
  assert.deepEqual(r.toArray(), [[0.1, 0], [0, 2]]);
  // float32 with int32 -> float32; int32 with bool -> int32; float16 with float32 -> float32
  assert.equal(sg.blockDiag(f, i).dtype, 'float32');
  assert.deepEqual(sg.blockDiag(f, i).toArray(), [[2, 0], [0, 3]]);
  assert.equal(sg.blockDiag(i, sg.tensor([[true]])).dtype, 'int32');
  assert.equal(sg.blockDiag(sg.tensor([[1]]).half(), f).dtype, 'float32');
  assert.equal(sg.blockDiag(a, i).dtype, 'float64');
});
