// WGSL scalar math shared by the float kernels, each the f32 twin of the reference's scalar
// definition (src/kernels/reference/scalar_math.h), written to stay accurate where the f32
// builtins are not (expm1, log1p, erf near 0) and to treat NaN and infinities by their bits
// (shader compilers may assume finite math for comparisons).
export const MATH = /* wgsl */ `
const NAN_BITS = 0x7fc00000u;
// Through a variable: a constant NaN or infinity is a WGSL compile error.
fn nan_f() -> f32 { var b = NAN_BITS; return bitcast<f32>(b); }
fn inf_f() -> f32 { var b = 0x7f800000u; return bitcast<f32>(b); }
fn is_nan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn is_inf(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }

fn sigmoid_f(x: f32) -> f32 {
  if (x >= 0.0) { return 1.0 / (1.0 + exp(-x)); }
  let e = exp(x);
  return e / (1.0 + e);
}
fn tanh_f(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  let e = exp(-2.0 * abs(x));
  let t = (1.0 - e) / (1.0 + e);
  return select(t, -t, x < 0.0);
}
// Kahan's expm1 and log1p: the rounding error of exp(x) (or 1 + x) divides out.
fn expm1_f(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  if (x > 88.0) { return inf_f(); }
  let u = exp(x);
  if (u == 1.0) { return x; }
  let um1 = u - 1.0;
  if (um1 == -1.0) { return -1.0; }
  return um1 * x / log(u);
}
fn log1p_f(x: f32) -> f32 {
  if (is_nan(x) || is_inf(x)) { return select(x, nan_f(), x < 0.0); }
  let u = 1.0 + x;
  if (u == 1.0) { return x; }
  if (u <= 0.0) { return select(nan_f(), -inf_f(), u == 0.0); }
  return log(u) * x / (u - 1.0);
}
fn erf_f(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  let z = abs(x);
  if (z < 0.5) {
    let x2 = x * x;
    // 2/√π · (x − x³/3 + x⁵/10 − x⁷/42 + x⁹/216 − x¹¹/1320)
    return 1.1283791670955126 * x * (1.0 + x2 * (-0.3333333333 + x2 * (0.1 + x2 * (-0.0238095238 + x2 * (0.0046296296 - x2 * 0.0007575758)))));
  }
  // Numerical Recipes' erfc (fractional error < 1.2e-7).
  let t = 1.0 / (1.0 + 0.5 * z);
  let ans = t * exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 +
            t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return select(1.0 - ans, ans - 1.0, x < 0.0);
}
// sin and cos to an ulp or two (the builtins were 5e-5 off on SwiftShader): x reduced by
// multiples of π/2 split in three (Cody–Waite), then cephes' sinf/cosf polynomials.
fn sincos_f(x: f32) -> vec2<f32> {
  if (is_nan(x) || is_inf(x)) { return vec2<f32>(nan_f(), nan_f()); }
  let q = round(x * 0.6366197723675814);
  let r = ((x - q * 1.5703125) - q * 4.8375129699707031e-4) - q * 7.549789948768648e-8;
  let z = r * r;
  let s = ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * r + r;
  let c = ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) * z * z - 0.5 * z + 1.0;
  let k = i32(q) & 3;
  if (k == 0) { return vec2<f32>(s, c); }
  if (k == 1) { return vec2<f32>(c, -s); }
  if (k == 2) { return vec2<f32>(-s, -c); }
  return vec2<f32>(-c, s);
}
fn gelu_tanh_f(x: f32) -> f32 {
  return 0.5 * x * (1.0 + tanh_f(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}
fn pow_f(a: f32, b: f32) -> f32 {
  if (b == 0.0 || a == 1.0) { return 1.0; }
  if (is_nan(a) || is_nan(b)) { return nan_f(); }
  if (a == 0.0) {
    let odd = abs(b - 2.0 * floor(b * 0.5)) == 1.0;
    if (b > 0.0) { return select(0.0, a, odd); }
    return select(inf_f(), select(inf_f(), -inf_f(), bitcast<u32>(a) != 0u), odd);
  }
  if (a < 0.0) {
    if (floor(b) != b) { return nan_f(); }
    let r = pow(-a, b);
    return select(r, -r, abs(b - 2.0 * floor(b * 0.5)) == 1.0);
  }
  return pow(a, b);
}
fn maximum_f(a: f32, b: f32) -> f32 {
  if (is_nan(a) || is_nan(b)) { return nan_f(); }
  return select(b, a, a > b);
}
fn minimum_f(a: f32, b: f32) -> f32 {
  if (is_nan(a) || is_nan(b)) { return nan_f(); }
  return select(b, a, a < b);
}
fn gelu_erf_grad(x: f32) -> f32 {
  return 0.5 * (1.0 + erf_f(x * 0.7071067811865476)) + x * 0.3989422804014327 * exp(-0.5 * x * x);
}
fn gelu_tanh_grad(x: f32) -> f32 {
  let t = tanh_f(0.7978845608028654 * (x + 0.044715 * x * x * x));
  let du = 0.7978845608028654 * (1.0 + 3.0 * 0.044715 * x * x);
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du;
}
`;

// Unary ops in the order of sg::Unary (kernels/backend.h); `p` is the op's parameter.
export const UNARY: readonly string[] = [
  '-x', // Neg
  'exp(x)',
  'log(x)',
  'log2(x)',
  'log(x) * 0.4342944819032518', // Log10
  'log1p_f(x)',
  'expm1_f(x)',
  'sqrt(x)',
  '1.0 / sqrt(x)',
  'abs(x)',
  'select(select(select(0.0, -1.0, x < 0.0), 1.0, x > 0.0), x, is_nan(x))', // Sign
  'sincos_f(x).x',
  'sincos_f(x).y',
  'erf_f(x)',
  'x * x',
  '1.0 / x',
  'select(x + 0.0, 0.0, x < 0.0)', // Relu
  'sigmoid_f(x)',
  'tanh_f(x)',
  'x * sigmoid_f(x)', // Silu
  '0.5 * x * (1.0 + erf_f(x * 0.7071067811865476))', // GeluErf
  'gelu_tanh_f(x)',
  'select(log1p_f(exp(p * x)) / p, x, x * p > 20.0)', // Softplus
  'select(p * expm1_f(x), x, x > 0.0)', // Elu
  '1.0507009873554805 * select(1.6732632423543772 * expm1_f(x), x, x > 0.0)', // Selu
  'select(p * x, x, x > 0.0)', // LeakyRelu
];

// Binary ops in the order of sg::Binary.
export const BINARY: readonly string[] = [
  'a + b',
  'a - b',
  'a * b',
  'a / b',
  'pow_f(a, b)',
  'maximum_f(a, b)',
  'minimum_f(a, b)',
  'select(b, 0.0, a <= 0.0)', // ReluBackward (NaN a passes b)
  'b * a * (1.0 - a)', // SigmoidBackward (a = y)
  'b * (1.0 - a * a)', // TanhBackward
  'b * gelu_erf_grad(a)',
  'b * gelu_tanh_grad(a)',
  'b * sigmoid_f(a) * (1.0 + a * (1.0 - sigmoid_f(a)))', // SiluBackward
  // Selection (graph/fused_backward.cpp): masks of 1 or 0, then b or −0 by a mask.
  'select(0.0, 1.0, a > b)',
  'select(0.0, 1.0, a >= b)',
  'select(0.0, 1.0, a < b)',
  'select(0.0, 1.0, a <= b)',
  'select(0.0, 1.0, a == b)',
  'select(bitcast<f32>(0x80000000u), b, a != 0.0)', // KeepIf
  'select(b, bitcast<f32>(0x80000000u), a != 0.0)', // KeepUnless
];

// DataKernels::math_f32 and atan2_f32 (kernels/reference/data_math.cpp): the CPU evaluates them
// in double and rounds once; here in f32 with the cancellations avoided (sinh near 0 through
// expm1, acos near ±1 through asin; tan reduced in three parts, as WGSL's tan loses digits) and C's special cases spelled out where WGSL leaves them undefined (asin/acos outside
// [−1, 1], atan2 of zeros and infinities).
export const MATH_MORE = /* wgsl */ `
fn sinh_f(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  let a = abs(x);
  var r: f32;
  if (a > 20.0) { r = exp(a - 0.6931471805599453); } else { let u = expm1_f(a); r = 0.5 * (u + u / (u + 1.0)); }
  return select(r, -r, x < 0.0);
}
fn cosh_f(x: f32) -> f32 {
  if (is_nan(x)) { return x; }
  let a = abs(x);
  if (a > 20.0) { return exp(a - 0.6931471805599453); }
  let e = exp(a);
  return 0.5 * (e + 1.0 / e);
}
// Cephes' tanf: x reduced by π/4 in three parts (exact for |x| < 8192), a rational-free
// polynomial on [−π/4, π/4], −1/y in the odd octants.
fn tan_f(x: f32) -> f32 {
  if (is_nan(x) || is_inf(x)) { return nan_f(); }
  let a = abs(x);
  var j = floor(a * 1.2732395447351628);
  if ((u32(j) & 1u) == 1u) { j += 1.0; }
  let z = ((a - j * 0.78515625) - j * 2.4187564849853515625e-4) - j * 3.77489497744594108e-8;
  let zz = z * z;
  var y = z;
  if (zz > 1.0e-8) {
    y = (((((9.38540185543e-3 * zz + 3.11992232697e-3) * zz + 2.44301354525e-2) * zz + 5.34112807005e-2) * zz
         + 1.33387994085e-1) * zz + 3.33331568548e-1) * zz * z + z;
  }
  if ((u32(j) & 2u) == 2u) { y = -1.0 / y; }
  return select(y, -y, x < 0.0);
}
// acos through asin of a half-angle near ±1, where acos(x) = π/2 − asin(x) would cancel.
fn acos_f(x: f32) -> f32 {
  if (!(abs(x) <= 1.0)) { return nan_f(); }
  if (x > 0.5) { return 2.0 * asin(sqrt(0.5 * (1.0 - x))); }
  if (x < -0.5) { return 3.141592653589793 - 2.0 * asin(sqrt(0.5 * (1.0 + x))); }
  return 1.5707963267948966 - asin(x);
}
fn sign_bit(x: f32) -> bool { return (bitcast<u32>(x) >> 31u) == 1u; }
fn atan2_f(y: f32, x: f32) -> f32 {
  if (is_nan(x) || is_nan(y)) { return nan_f(); }
  let pi = 3.141592653589793;
  if (y == 0.0) { return select(y, select(pi, -pi, sign_bit(y)), sign_bit(x)); }
  if (is_inf(x) && is_inf(y)) { let q = select(0.7853981633974483, 2.356194490192345, x < 0.0); return select(q, -q, y < 0.0); }
  if (is_inf(x)) { let r = select(0.0, pi, x < 0.0); return select(r, -r, y < 0.0); }
  if (x == 0.0 || is_inf(y)) { return select(1.5707963267948966, -1.5707963267948966, y < 0.0); }
  return atan2(y, x);
}
`;

// MathFn in the order of sg::MathFn (kernels/data_kernels.h), of `x`.
export const MATH_FN: readonly string[] = [
  'floor(x)',
  'ceil(x)',
  'round(x)', // half to even, as std::nearbyint
  'trunc(x)',
  'tan_f(x)',
  'atan(x)',
  'select(nan_f(), asin(x), abs(x) <= 1.0)',
  'acos_f(x)',
  'sinh_f(x)',
  'cosh_f(x)',
];

// DataKernels::modulo (kernels/reference/data_modulo.cpp), op by op in the order of sg::Modulo:
// Fmod, Remainder, FloorDivide, TruncDivide. fmod_f is exact, as C's fmod: it subtracts the
// largest b·2^k not above the remainder, from the top down; each subtraction is exact (the two
// are within a factor 2 of each other). The floor division is PyTorch's formula from it; the
// truncating one is trunc(a / b). Integers: WGSL's i32 / and % truncate as C's and give a (and 0)
// for INT32_MIN by −1, the CPU's wrap; a zero divisor was refused before the kernel ran.
export const MODULO_WGSL = /* wgsl */ `
fn sign_bit(x: f32) -> u32 { return bitcast<u32>(x) >> 31u; }
fn fmod_f(a: f32, b: f32) -> f32 {
  if (is_nan(a) || is_nan(b) || is_inf(a) || b == 0.0) { return nan_f(); }
  let m = abs(b);
  var r = abs(a);
  if (is_inf(b) || r < m) { return a; }
  let d = frexp(r).exp - frexp(m).exp;
  var s = ldexp(m, d);
  if (is_inf(s) || s > r) { s = ldexp(m, d - 1); }
  loop {
    if (r >= s) { r = r - s; }
    if (s <= m) { break; }
    s = s * 0.5;
  }
  return select(r, -r, sign_bit(a) == 1u);
}
// a / b for b = ±0: NaN for a NaN or zero a, else an infinity of the sign of a·b.
fn div_zero_f(a: f32, b: f32) -> f32 {
  if (is_nan(a) || a == 0.0) { return nan_f(); }
  return select(inf_f(), -inf_f(), (sign_bit(a) ^ sign_bit(b)) == 1u);
}
fn remainder_f(a: f32, b: f32) -> f32 {
  let rem = fmod_f(a, b);
  return select(rem, rem + b, rem != 0.0 && ((b < 0.0) != (rem < 0.0)));
}
fn floor_divide_f(a: f32, b: f32) -> f32 {
  if (b == 0.0) { return div_zero_f(a, b); }
  let rem = fmod_f(a, b);
  var div = (a - rem) / b;
  if (rem != 0.0 && ((b < 0.0) != (rem < 0.0))) { div = div - 1.0; }
  if (div == 0.0) { return select(0.0, neg_zero_f(), (sign_bit(a) ^ sign_bit(b)) == 1u); }
  var fl = floor(div);
  if (div - fl > 0.5) { fl = fl + 1.0; }
  return fl;
}
fn neg_zero_f() -> f32 { var b = 0x80000000u; return bitcast<f32>(b); }
fn trunc_divide_f(a: f32, b: f32) -> f32 {
  if (b == 0.0) { return div_zero_f(a, b); }
  return trunc(a / b);
}
fn adjust_i(r: i32, b: i32) -> bool { return r != 0 && ((r < 0) != (b < 0)); }
`;

export const MODULO_F32: readonly string[] = ['fmod_f(a, b)', 'remainder_f(a, b)', 'floor_divide_f(a, b)', 'trunc_divide_f(a, b)'];
export const MODULO_I32: readonly string[] = [
  'a % b',
  'select(a % b, a % b + b, adjust_i(a % b, b))',
  'select(a / b, a / b - 1, adjust_i(a % b, b))',
  'a / b',
];
