#!/usr/bin/env python3
"""Fits the polynomial and rational coefficients of vec_math-inl.h's GELU and tanh kernels.

    /usr/bin/python3 src/kernels/simd/fit_rational.py     (needs python3-mpmath; ~1 min)

Each fit minimises the maximum relative error on Chebyshev nodes: linearised least squares
(for rationals, Sanathanan-Koerner: divide by the previous denominator), reweighted by the
previous errors (Lawson) to approach minimax. Prints the coefficients rounded to float and
the error of those float coefficients evaluated in double on a dense grid.
"""
import math
import struct

from mpmath import cos, erfc, exp, lu_solve, matrix, mp, mpf, pi, sqrt, tanh

mp.dps = 40


def f32(v):
    return struct.unpack('f', struct.pack('f', float(v)))[0]


def horner(cs, t):
    r = 0 * t
    for c in reversed(cs):
        r = r * t + c
    return r


def fit(xs, target, var, p, q, fixed_p0=None, iters=60):
    """target(x) ~ P(var(x))/Q(var(x)), Q(0) = 1 (q = 0: a polynomial); P(0) = fixed_p0 if given."""
    ys = [target(x) for x in xs]
    vs = [var(x) for x in xs]
    free_p = list(range(0 if fixed_p0 is None else 1, p + 1))
    lawson, qprev, best = [mpf(1)] * len(xs), [mpf(1)] * len(xs), None
    for _ in range(iters):
        m = len(free_p) + q
        ata, atb = matrix(m, m), matrix(m, 1)
        for i, v in enumerate(vs):
            row = [v ** k for k in free_p] + [-ys[i] * v ** k for k in range(1, q + 1)]
            rhs = ys[i] - (fixed_p0 or 0)
            w = lawson[i] / (ys[i] * qprev[i]) ** 2
            for r in range(m):
                atb[r] += w * row[r] * rhs
                for c in range(m):
                    ata[r, c] += w * row[r] * row[c]
        sol = lu_solve(ata, atb)
        P = ([mpf(fixed_p0)] if fixed_p0 is not None else []) + [sol[k] for k in range(len(free_p))]
        Q = [mpf(1)] + [sol[len(free_p) + k] for k in range(q)]
        errs = [(horner(P, v) / horner(Q, v) - ys[i]) / ys[i] for i, v in enumerate(vs)]
        worst = max(abs(e) for e in errs)
        if best is None or worst < best[0]:
            best = (worst, P, Q)
        qprev = [horner(Q, v) for v in vs]
        lawson = [lawson[i] * abs(errs[i]) for i in range(len(xs))]
        total = sum(lawson)
        lawson = [w / total * len(xs) for w in lawson]
    return best


def chebyshev(lo, hi, n=500):
    return [mpf(lo) + (mpf(hi) - mpf(lo)) * (1 - cos(pi * (i + mpf(0.5)) / n)) / 2 for i in range(n)]


def report(name, P, Q, target, var, lo, hi, exact):
    Pf, Qf = [f32(c) for c in P], [f32(c) for c in Q]
    worst = 0.0
    for i in range(20001):
        x = lo + (hi - lo) * i / 20000
        want = float(target(mpf(x)))
        if want == 0:
            continue
        v = float(var(x))
        worst = max(worst, abs(horner(Pf, v) / horner(Qf, v) - want) / abs(want))
    print(f'{name}: max relative error {float(exact):.2g} (exact coefficients), {worst:.2g} (float coefficients)')
    print('  P (from degree 0):', ', '.join(f'{c:.10e}' for c in Pf))
    if len(Qf) > 1:
        print('  Q (from degree 0):', ', '.join(f'{c:.10e}' for c in Qf))


# Mills' ratio over sqrt(2 pi): M(a) = Phi(-a) e^{a^2/2} on [0, 13.25], degrees 3 / 4.
mills = lambda a: erfc(a / sqrt(2)) / 2 * exp(a * a / 2)
err, P, Q = fit(chebyshev(0, 13.25, 600), mills, lambda a: a, 3, 4, fixed_p0=0.5)
report('MillsRatioF', P, Q, mills, lambda a: a, 0.0, 13.25, err)
mills_P, mills_Q = [f32(c) for c in P], [f32(c) for c in Q]

# 2^f = 1 + f P(f) on [-1/2, 1/2], degree 5.
err, P, Q = fit(chebyshev(-0.5, 0.5, 400), lambda f: mpf(2) ** f, lambda f: f, 5, 0, fixed_p0=1)
report('2^f', P, Q, lambda f: mpf(2) ** f, lambda f: f, -0.5, 0.5, err)

# NormalLowerTailParts uses them rescaled so that 2^f's polynomial and Q are monic:
# e = 2^f/c5 (b_k = c_k/c5), m = (P·c5/q4)/(Q/q4), and kPdfScaled = c5/sqrt(2 pi).
c5, q4 = f32(P[-1]), mills_Q[-1]
print('NormalLowerTailParts, rescaled:')
print('  2^f/c5 (from degree 0):', ', '.join(f'{f32(f32(c) / c5):.10e}' for c in P))
print('  P*c5/q4 (from degree 0):', ', '.join(f'{f32(c * c5 / q4):.10e}' for c in mills_P))
print('  Q/q4 (from degree 0):', ', '.join(f'{f32(c / q4):.10e}' for c in mills_Q))
print(f'  kPdfScaled: {f32(c5 / math.sqrt(2 * math.pi)):.10e}')

# tanh(x)/x = P(x^2)/Q(x^2) on [0, 8], degrees 4 / 4, P(0) = Q(0) = 1.
tanh_over_x = lambda x: tanh(x) / x if x != 0 else mpf(1)
err, P, Q = fit(chebyshev(0, 8, 500), tanh_over_x, lambda x: x * x, 4, 4, fixed_p0=1)
report('TanhF (tanh(x)/x in x^2)', P, Q, tanh_over_x, lambda x: x * x, 1e-3, 8.0, err)
