#!/usr/bin/env python3
"""Reference values for the bitwise ops and gcd/lcm (npm/src/tensor/bitwise.ts, tests/js/bitwise.test.mjs),
computed by PyTorch. Run with Debian's PyTorch (1.13, CPU):

    /usr/bin/python3 tests/data/gen_bitwise.py   # writes tests/data/bitwise_ref.json

The case format is gen_ops_compose.py's (ref_json.grad_case), values only (integer results carry no
gradient). Shift amounts stay inside [0, 32): outside it PyTorch 1.13's CPU result is whatever the
hardware's shift does (x86 takes the amount mod 32); the tests pin ours (0, or the sign fill) apart.
"""
import torch

from ref_json import grad_case, write

torch.manual_seed(20261125)
CASES = []


def case(cid, fn, inputs):
    CASES.append(grad_case(cid, fn, inputs))


def i32(*v):
    return torch.tensor(v, dtype=torch.int32)


def rand_i32(lo, hi, *shape):
    return torch.randint(lo, hi, shape, dtype=torch.int32)


def b(*v):
    return torch.tensor(v, dtype=torch.bool)


I32_MIN, I32_MAX = -(2**31), 2**31 - 1
edges = i32(0, 1, -1, 2, -2, 255, -256, I32_MAX, I32_MIN, 0x55555555, -0x55555556, 12345678)
others = i32(-1, 0, 7, -8, 0x0F0F0F0F, I32_MIN, I32_MAX, 1, 3, -3, 2**20, -(2**20))

for name, fn in [("and", torch.bitwise_and), ("or", torch.bitwise_or), ("xor", torch.bitwise_xor)]:
    case(f"{name} int32", fn, [edges, others])
    case(f"{name} random broadcast", fn, [rand_i32(-1000, 1000, 3, 1, 4), rand_i32(-(2**31), 2**31 - 1, 5, 1)])
    case(f"{name} bool", fn, [b(True, True, False, False), b(True, False, True, False)])
    case(f"{name} bool int32", fn, [b(True, False, True, True), i32(3, 3, -2, 0)])
    case(f"{name} scalar", lambda x, fn=fn: fn(x, 6), [rand_i32(-50, 50, 2, 3)])
case("not int32", torch.bitwise_not, [edges])
case("not bool", torch.bitwise_not, [b(True, False, True)])
case("not 2d", torch.bitwise_not, [rand_i32(-100, 100, 3, 4)])
amounts = i32(0, 1, 5, 31, 30, 2, 16, 8, 31, 0, 3, 17)
case("left shift", torch.bitwise_left_shift, [edges, amounts])
case("right shift", torch.bitwise_right_shift, [edges, amounts])
case("left shift broadcast", torch.bitwise_left_shift, [rand_i32(-1000, 1000, 4, 1), rand_i32(0, 32, 1, 5)])
case("right shift broadcast", torch.bitwise_right_shift, [rand_i32(-(2**31), 2**31 - 1, 4, 1), rand_i32(0, 32, 1, 5)])
case("left shift scalar", lambda x: torch.bitwise_left_shift(x, 3), [rand_i32(-100, 100, 5)])
case("right shift bool amount", torch.bitwise_right_shift, [i32(-8, 8, 7), b(True, False, True)])
ga = i32(0, 0, 12, -12, 7, 0, 17, 1, I32_MAX, I32_MIN, I32_MIN, I32_MIN, 2**16, 30, 100)
gb = i32(0, 5, -18, -18, 0, -9, 17, -1, 1, 0, 6, 5, 2**16 + 1, 42, -75)
case("gcd edges", torch.gcd, [ga, gb])
case("lcm edges", torch.lcm, [ga[:-6], gb[:-6]])  # (lcm(INT32_MIN, 5) divides INT32_MIN by −1 there: UB in PyTorch's C++)
case("lcm overflow", torch.lcm, [i32(2**16, 46341, -(2**15), 100000), i32(2**16 + 1, 46343, 2**15 + 1, 99999)])
case("gcd random broadcast", torch.gcd, [rand_i32(-500, 500, 3, 4), rand_i32(-500, 500, 4)])
case("lcm random", torch.lcm, [rand_i32(-60, 60, 2, 5), rand_i32(-60, 60, 2, 5)])
case("gcd bool int32", torch.gcd, [b(True, False, True), i32(6, 4, 0)])

write("gen_bitwise.py", "bitwise_ref.json", {"cases": CASES})
