// DataKernels' default special_f32 and special_f64 (data_kernels.h): PyTorch 1.13's CPU formulas from ATen's
// Math.h (derived from the Cephes Math Library, 3-clause BSD, Copyright (c) 2018 Steven Moshier),
// evaluated in double for every input and rounded once to float32. PyTorch's float kernels run
// the same formulas in float, so results agree to float32 rounding (the tests' tolerances).
#include <cmath>
#include <cstddef>
#include <limits>

#include "kernels/backend.h"

namespace sg {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// calc_erfinv: a rational first guess, then two Newton steps on erf(x) = y.
double erfinv(double y) {
  static const double a[4] = {0.886226899, -1.645349621, 0.914624893, -0.140543331};
  static const double b[4] = {-2.118377725, 1.442710462, -0.329097515, 0.012229801};
  static const double c[4] = {-1.970840454, -1.624906493, 3.429567803, 1.641345311};
  static const double d[2] = {3.543889200, 1.637067800};
  const double y_abs = std::fabs(y);
  if (y_abs > 1.0) return kNaN;
  if (y_abs == 1.0) return std::copysign(kInf, y);
  double x;
  if (y_abs <= 0.7) {
    const double z = y * y;
    const double num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];
    const double dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1.0;
    x = y * num / dem;
  } else {
    const double z = std::sqrt(-std::log((1.0 - y_abs) / 2.0));
    const double num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
    const double dem = (d[1] * z + d[0]) * z + 1.0;
    x = std::copysign(num, y) / dem;
  }
  for (int step = 0; step < 2; ++step) x -= (std::erf(x) - y) / (2.0 / std::sqrt(kPi) * std::exp(-x * x));
  return x;  // NaN stays NaN (every comparison above is false)
}

double polevl(double x, const double* coef, size_t len) {
  double r = 0;
  for (size_t i = 0; i <= len; ++i) r = r * x + coef[i];
  return r;
}

// calc_digamma: reflection below 0, recurrence up to 10, then the asymptotic series.
double digamma(double x) {
  if (x == 0) return std::copysign(kInf, -x);  // ±0 → ∓inf (C++'s and SciPy's convention)
  if (x < 0) {
    if (x == std::trunc(x)) return kNaN;  // the negative integers
    double q;
    const double r = std::modf(x, &q);  // tan(π·r) is more accurate than tan(π·x)
    return digamma(1 - x) - kPi / std::tan(kPi * r);
  }
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  if (x == 10) return result + 2.25175258906672110764;  // ψ(10)
  static const double A[] = {8.33333333333333333333E-2,  -2.10927960927960927961E-2, 7.57575757575757575758E-3,
                             -4.16666666666666666667E-3, 3.96825396825396825397E-3,  -8.33333333333333333333E-3,
                             8.33333333333333333333E-2};
  double y = 0;
  if (x < 1.0e17) {
    const double z = 1.0 / (x * x);
    y = z * polevl(z, A, 6);
  }
  return result + std::log(x) - 0.5 / x - y;
}

// ATen's trigamma (polygamma of order 1).
double trigamma(double x) {
  double sign = +1, result = 0;
  if (x < 0.5) {
    sign = -1;
    const double s = std::sin(kPi * x);
    result -= kPi * kPi / (s * s);
    x = 1 - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += 1 / (x * x);
    x += 1;
  }
  const double ixx = 1 / (x * x);
  result += (1 + 1 / (2 * x) + ixx * (1. / 6 - ixx * (1. / 30 - ixx * (1. / 42)))) / x;
  return sign * result;
}

// The Hurwitz zeta function ζ(x, q) (ATen's zeta): a direct sum, then Euler-Maclaurin.
double zeta(double x, double q) {
  const double MACHEP = 1.11022302462515654042E-16;
  static const double A[] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
                             7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
                             -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18};
  if (x == 1) return kInf;
  if (x < 1) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (x != std::floor(x)) return kNaN;
  }
  double s = std::pow(q, -x), a = q, b = 0;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    i += 1;
    a += 1;
    b = std::pow(a, -x);
    s += b;
    if (-MACHEP * s < b && b < MACHEP * s) return s;
  }
  const double w = a;
  s += b * w / (x - 1);
  s -= 0.5 * b;
  a = 1;
  double k = 0;
  for (int j = 0; j < 12; j++) {
    a *= x + k;
    b /= w;
    double t = a * b / A[j];
    s = s + t;
    t = std::fabs(t / s);
    if (t < MACHEP) return s;
    k += 1;
    a *= x + k;
    b /= w;
    k += 1;
  }
  return s;
}

// PyTorch's polygamma kernel: digamma and trigamma for n = 0, 1; (−1)^(n+1)·n!·ζ(n+1, x) beyond.
double polygamma(int n, double x) {
  if (n == 0) return digamma(x);
  if (n == 1) return trigamma(x);
  return ((n % 2) ? 1.0 : -1.0) * std::exp(std::lgamma(double(n) + 1.0)) * zeta(double(n + 1), x);
}

// Cephes' Chebyshev series evaluation (ATen's chbevl); the zero-order coefficient is last.
double chbevl(double x, const double* array, size_t len) {
  double b0 = array[0], b1 = 0, b2 = 0;
  for (size_t i = 1; i < len; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = x * b1 - b2 + array[i];
  }
  return 0.5 * (b0 - b2);
}

// exp(−x)·I0(x) on [0, 8] and exp(−x)·√x·I0(x) on (8, ∞) (ATen's chebyshev_coefficients_i0e_A/B).
const double kI0A[30] = {
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16, 1.71539128555513303061E-15,
    -1.16853328779934516808E-14, 7.67618549860493561688E-14, -4.85644678311192946090E-13, 2.95505266312963983461E-12,
    -1.72682629144155570723E-11, 9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8,  6.04699502254191894932E-8,  -2.67079385394061173391E-7,  1.11738753912010371815E-6,
    -4.41673835845875056359E-6,  1.64484480707288970893E-5,  -5.75419501008210370398E-5,  1.88502885095841655729E-4,
    -5.76375574538582365885E-4,  1.63947561694133579842E-3,  -4.32430999505057594430E-3,  1.05464603945949983183E-2,
    -2.37374148058994688156E-2,  4.93052842396707084878E-2,  -9.49010970480476444210E-2,  1.71620901522208775349E-1,
    -3.04682672343198398683E-1,  6.76795274409476084995E-1};
const double kI0B[25] = {
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,  3.46122286769746109310E-17,
    -2.82762398051658348494E-16, -3.42548561967721913462E-16, 1.77256013305652638360E-15,  3.81168066935262242075E-15,
    -9.55484669882830764870E-15, -4.15056934728722208663E-14, 1.54008621752140982691E-14,  3.85277838274214270114E-13,
    7.18012445138366623367E-13,  -1.79417853150680611778E-12, -1.32158118404477131188E-11, -3.14991652796324136454E-11,
    1.18891471078464383424E-11,  4.94060238822496958910E-10,  3.39623202570838634515E-9,   2.26666899049817806459E-8,
    2.04891858946906374183E-7,   2.89137052083475648297E-6,   6.88975834691682398426E-5,   3.36911647825569408990E-3,
    8.04490411014108831608E-1};
// exp(−x)·I1(x)/x on [0, 8] and exp(−x)·√x·I1(x) on (8, ∞) (the double tables of i1e_A/B).
const double kI1A[29] = {
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16, -1.10559694773538630805E-15,
    7.60068429473540693410E-15, -5.04218550472791168711E-14, 3.22379336594557470981E-13, -1.98397439776494371520E-12,
    1.17361862988909016308E-11, -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9,  -4.44505912879632808065E-8,  2.00329475355213526229E-7,  -8.56872026469545474066E-7,
    3.47025130813767847674E-6,  -1.32731636560394358279E-5,  4.78156510755005422638E-5,  -1.61760815825896745588E-4,
    5.12285956168575772895E-4,  -1.51357245063125314899E-3,  4.15642294431288815669E-3,  -1.05640848946261981558E-2,
    2.47264490306265168283E-2,  -5.29459812080949914269E-2,  1.02643658689847095384E-1,  -1.76416518357834055153E-1,
    2.52587186443633654823E-1};
const double kI1B[25] = {
    7.51729631084210481353E-18,  4.41434832307170791151E-18,  -4.65030536848935832153E-17, -3.20952592199342395980E-17,
    2.96262899764595013876E-16,  3.30820231092092828324E-16,  -1.88035477551078244854E-15, -3.81440307243700780478E-15,
    1.04202769841288027642E-14,  4.27244001671195135429E-14,  -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12,  1.41258074366137813316E-11,  3.25260358301548823856E-11,
    -1.89749581235054123450E-11, -5.58974346219658380687E-10, -3.83538038596423702205E-9,  -2.63146884688951950684E-8,
    -2.51223623787020892529E-7,  -3.88256480887769039346E-6,  -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
    7.78576235018280120474E-1};

// calc_i0: even in x.
double i0(double x_in) {
  const double x = std::fabs(x_in);
  if (x <= 8.0) return std::exp(x) * chbevl(x / 2.0 - 2.0, kI0A, 30);
  return std::exp(x) * chbevl(32.0 / x - 2.0, kI0B, 25) / std::sqrt(x);
}

// calc_i1: odd in x.
double i1(double x_in) {
  const double x = std::fabs(x_in);
  const double out = x <= 8.0 ? std::exp(x) * x * chbevl(x / 2.0 - 2.0, kI1A, 29)
                              : std::exp(x) * chbevl(32.0 / x - 2.0, kI1B, 25) / std::sqrt(x);
  return x_in < 0 ? -out : out;
}

double apply(Special fn, int n, double x) {
  switch (fn) {
    case Special::Erfinv: return erfinv(x);
    case Special::Erfc: return std::erfc(x);
    case Special::Lgamma: return std::lgamma(x);
    case Special::Digamma: return digamma(x);
    case Special::Polygamma: return polygamma(n, x);
    case Special::I0: return i0(x);
    case Special::I1: return i1(x);
  }
  return kNaN;
}

}  // namespace

void DataKernels::special_f32(Special fn, int n, const float* x, float* y, int64_t count) const {
  for (int64_t i = 0; i < count; ++i) y[i] = float(apply(fn, n, double(x[i])));
}

void DataKernels::special_f64(Special fn, int n, const double* x, double* y, int64_t count) const {
  for (int64_t i = 0; i < count; ++i) y[i] = apply(fn, n, x[i]);
}

}  // namespace sg
