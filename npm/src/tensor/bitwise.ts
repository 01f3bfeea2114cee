// Bitwise ops on int32 and bool tensors and gcd/lcm on int32 (src/ops/bitwise.h): PyTorch 1.13's
// torch.bitwise_and/or/xor/not, bitwise_left_shift/right_shift, gcd and lcm, also as Tensor
// methods. On bool, and/or/xor/not are the logical ops (bool results); shifts, gcd and lcm need
// an int32 operand; float32 operands are an Error. No gradients (integer results).
import type { TensorLike } from './call.js';
import { binary, installMethods, unary, type MethodsOf } from './ops.js';
import type { Tensor } from './tensor.js';

export interface BitwiseOpFunctions {
  /** input & other: int32 bits, or logical and of bools. */
  bitwiseAnd(input: TensorLike, other: TensorLike): Tensor;
  /** input | other. */
  bitwiseOr(input: TensorLike, other: TensorLike): Tensor;
  /** input ^ other. */
  bitwiseXor(input: TensorLike, other: TensorLike): Tensor;
  /** ~input (logical not for bool). */
  bitwiseNot(input: TensorLike): Tensor;
  /** input << other (int32, wrapping); a shift outside [0, 32) gives 0. */
  bitwiseLeftShift(input: TensorLike, other: TensorLike): Tensor;
  /** input >> other, arithmetic (the sign fills in); a shift outside [0, 32) gives the sign fill (0 or −1). */
  bitwiseRightShift(input: TensorLike, other: TensorLike): Tensor;
  /** Greatest common divisor, ≥ 0 (gcd(0, 0) = 0); PyTorch's int32 arithmetic, overflow included. */
  gcd(input: TensorLike, other: TensorLike): Tensor;
  /** Least common multiple, |a / gcd · b| (0 when either is 0), wrapping in int32 as PyTorch's. */
  lcm(input: TensorLike, other: TensorLike): Tensor;
}

declare module './tensor.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-interface
  interface Tensor extends MethodsOf<BitwiseOpFunctions> {}
}

export const bitwiseOps: BitwiseOpFunctions = {
  bitwiseAnd: binary('bitwiseAnd'),
  bitwiseOr: binary('bitwiseOr'),
  bitwiseXor: binary('bitwiseXor'),
  bitwiseNot: unary('bitwiseNot'),
  bitwiseLeftShift: binary('bitwiseLeftShift'),
  bitwiseRightShift: binary('bitwiseRightShift'),
  gcd: binary('gcd'),
  lcm: binary('lcm'),
};

installMethods(bitwiseOps);
