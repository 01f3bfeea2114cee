// The secular equation's solver (linalg_secular.h), after LAPACK's dlaed4 / dlasd4.
#include "kernels/reference/linalg_secular.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sg {

namespace {

using Vec = std::vector<double>;

constexpr double kEps = 0x1p-53;  // LAPACK's dlamch('E'): the unit roundoff

// A root λ = p[origin] + tau of the secular equation.
struct Root {
  int64_t origin;
  double tau;
};

// The root in (p[j], p[j+1]) (or past p[k−1] for j = k − 1) of
// f(λ) = 1/ρ + Σ z_i²/(p_i − λ), f increasing between poles. A safeguarded iteration: a bracket
// kept from f's signs, steps from dlaed4's two-pole model (all poles left of the root lumped into
// one at p[s], the rest into one at p[s+1], matching f and f′), bisection where a step leaves
// the bracket, until |f| is within rounding of its terms.
Root secular_root(const Vec& d, const Vec& z, double rho, int64_t j, Vec& dd, bool squared) {
  const int64_t k = int64_t(d.size());
  const double rhoinv = 1 / rho;
  if (k == 1) return {0, rho * z[0] * z[0]};
  // p_i − p_o.
  auto gap = [&d, squared](int64_t i, int64_t o) {
    const double t = d[size_t(i)] - d[size_t(o)];
    return squared ? t * (d[size_t(i)] + d[size_t(o)]) : t;
  };
  const bool last = j == k - 1;
  const int64_t s = last ? k - 2 : j;  // poles ≤ s in ψ, the rest in φ
  // f at λ = d[o] + τ, with δ_i = (d_i − d_o) − τ.
  double psi = 0, dpsi = 0, phi = 0, dphi = 0, absum = 0;
  auto eval = [&](double tau) {
    psi = dpsi = phi = dphi = absum = 0;
    for (int64_t i = 0; i <= s; ++i) {
      const double t = z[size_t(i)] / (dd[size_t(i)] - tau);
      psi += z[size_t(i)] * t;
      dpsi += t * t;
    }
    for (int64_t i = s + 1; i < k; ++i) {
      const double t = z[size_t(i)] / (dd[size_t(i)] - tau);
      phi += z[size_t(i)] * t;
      dphi += t * t;
    }
    absum = std::abs(psi) + std::abs(phi);  // ψ's terms share one sign, φ's too
    return rhoinv + psi + phi;
  };
  int64_t o;
  double lo, hi, tau;
  if (last) {
    o = k - 1;
    double zz = 0;
    for (double x : z) zz += x * x;
    lo = 0, hi = rho * zz, tau = hi / 2;
    for (int64_t i = 0; i < k; ++i) dd[size_t(i)] = gap(i, o);
  } else {
    // The half of (d[j], d[j+1]) that holds the root picks the origin.
    const double mid = gap(j + 1, j) / 2;
    for (int64_t i = 0; i < k; ++i) dd[size_t(i)] = gap(i, j);
    if (eval(mid) >= 0) {
      o = j, lo = 0, hi = mid, tau = mid / 2;
    } else {
      o = j + 1;
      for (int64_t i = 0; i < k; ++i) dd[size_t(i)] = gap(i, o);
      lo = dd[size_t(j)] + mid, hi = 0, tau = lo / 2;
    }
  }
  for (int iter = 0; iter < 100; ++iter) {
    const double w = eval(tau);
    const double err = 8 * (rhoinv + absum) + std::abs(tau) * (dpsi + dphi);
    if (std::abs(w) <= kEps * err) break;
    if (w < 0) lo = tau;
    else hi = tau;
    // The two-pole model's root: C·η² − A·η + B = 0 (dlaed4's coefficients).
    const double dp = dd[size_t(s)] - tau, dq = dd[size_t(s) + 1] - tau;
    const double c = w - dp * dpsi - dq * dphi;
    const double a = (dp + dq) * w - dp * dq * (dpsi + dphi), b = dp * dq * w;
    double next = std::numeric_limits<double>::quiet_NaN();
    auto take = [&](double eta) {
      const double t = tau + eta;
      // Inside the bracket and towards the root (f < 0: the root lies to the right).
      if (std::isfinite(t) && t > lo && t < hi && (w < 0 ? eta > 0 : eta < 0) &&
          (std::isnan(next) || std::abs(eta) < std::abs(next - tau)))
        next = t;
    };
    if (c == 0) {
      if (a != 0) take(b / a);
    } else {
      const double disc = std::sqrt(std::abs(a * a - 4 * b * c));
      const double r1 = (a + std::copysign(disc, a)) / (2 * c);
      take(r1);
      if (r1 != 0) take(b / (c * r1));
    }
    if (std::isnan(next)) take(-w / (dpsi + dphi));  // Newton's step
    if (std::isnan(next)) next = lo + (hi - lo) / 2;
    if (next == tau || hi - lo <= 4 * kEps * std::max(std::abs(lo), std::abs(hi))) break;
    tau = next;
  }
  return {o, tau};
}

}  // namespace

void secular_solve(const Vec& d, const Vec& z, double rho, bool squared, Vec& lam, Vec& delta, Vec& zh) {
  const int64_t k = int64_t(d.size());
  lam.resize(size_t(k));
  delta.resize(size_t(k * k));  // every entry written below
  Vec dd(static_cast<size_t>(k));  // (k = 1: left 0, p_0 − p_origin)
  for (int64_t j = 0; j < k; ++j) {
    const Root r = secular_root(d, z, rho, j, dd, squared);
    const double p = d[size_t(r.origin)];
    lam[size_t(j)] = (squared ? p * p : p) + r.tau;
    // dd holds p_i − p_origin from the root's last evaluation.
    for (int64_t i = 0; i < k; ++i) delta[size_t(j * k + i)] = dd[size_t(i)] - r.tau;
  }
  // Gu–Eisenstat: ẑ_i² = (λ_i − p_i)/ρ · Π_{j≠i} (p_i − λ_j)/(p_i − p_j).
  zh.resize(size_t(k));
  for (int64_t i = 0; i < k; ++i) {
    double w = -delta[size_t(i * k + i)] / rho;
    for (int64_t j = 0; j < k; ++j)
      if (j != i) {
        const double t = d[size_t(i)] - d[size_t(j)];
        w *= delta[size_t(j * k + i)] / (squared ? t * (d[size_t(i)] + d[size_t(j)]) : t);
      }
    zh[size_t(i)] = std::copysign(std::sqrt(std::abs(w)), z[size_t(i)]);
  }
}

}  // namespace sg
