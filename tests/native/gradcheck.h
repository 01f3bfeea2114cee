// Central-difference gradient checks shared by the op tests.
//   gradcheck("mul", [](auto& in) { return sg::mul(in[0], in[1]); }, {randn_leaf({2,3}), ...});
// The output is projected on a fixed random direction r so that one scalar L = Σ out·r is
// differentiated: autograd gives dL/dx through backward(r), central differences give
// (L(x+h) − L(x−h)) / 2h per element, accumulated in double.
#pragma once
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/copy.h"
#include "core/tensor.h"

namespace sgtest {

using Fn = std::function<sg::Tensor(std::vector<sg::Tensor>&)>;

// A float32 leaf with values drawn from U[lo, hi) by a local generator (not the library's RNG).
inline sg::Tensor leaf(const sg::Shape& shape, double lo = -1.0, double hi = 1.0, unsigned seed = 7,
                       bool requires_grad = true) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  sg::Tensor t = sg::Tensor::empty(shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.f32()[i] = static_cast<float>(dist(gen));
  if (requires_grad) t.set_requires_grad(true);
  return t;
}

// A float32 tensor holding exactly `values` (row-major).
inline sg::Tensor from(const sg::Shape& shape, const std::vector<float>& values, bool requires_grad = false) {
  sg::Tensor t = sg::Tensor::empty(shape);
  REQUIRE(static_cast<int64_t>(values.size()) == t.numel());
  for (size_t i = 0; i < values.size(); ++i) t.f32()[i] = values[i];
  if (requires_grad) t.set_requires_grad(true);
  return t;
}

inline double projected(const sg::Tensor& out, const std::vector<double>& r) {
  double s = 0;
  for (int64_t i = 0; i < out.numel(); ++i) s += out.at(i) * r[i];
  return s;
}

struct GradcheckOptions {
  double eps = 1e-3;   // float32: 1e-3 balances truncation against rounding
  double atol = 2e-3;
  double rtol = 2e-2;
};

// Checks every input that requires grad. Returns false (with a message per element) on mismatch.
inline void gradcheck(const std::string& name, const Fn& fn, std::vector<sg::Tensor> inputs,
                      GradcheckOptions opt = {}) {
  sg::Tensor out = fn(inputs);
  REQUIRE_MESSAGE(out.requires_grad(), name << ": output does not require grad");
  std::mt19937 gen(123);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> r(out.numel());
  for (double& v : r) v = dist(gen);
  sg::Tensor rt = sg::Tensor::empty(out.shape());
  for (int64_t i = 0; i < out.numel(); ++i) rt.f32()[i] = static_cast<float>(r[i]);
  for (auto& t : inputs)
    if (t.defined() && t.requires_grad()) t.set_grad(sg::Tensor());
  out.backward(rt);
  for (size_t k = 0; k < inputs.size(); ++k) {
    sg::Tensor x = inputs[k];
    if (!x.defined() || !x.requires_grad()) continue;
    sg::Tensor g = x.grad();
    REQUIRE_MESSAGE(g.defined(), name << ": input " << k << " got no gradient");
    REQUIRE(g.shape() == x.shape());
    REQUIRE(x.is_contiguous());
    for (int64_t i = 0; i < x.numel(); ++i) {
      float saved = x.f32()[i];
      x.f32()[i] = static_cast<float>(saved + opt.eps);
      double lp = projected(fn(inputs), r);
      x.f32()[i] = static_cast<float>(saved - opt.eps);
      double lm = projected(fn(inputs), r);
      x.f32()[i] = saved;
      double numeric = (lp - lm) / (2 * opt.eps);
      double analytic = g.at(i);
      bool ok = std::fabs(numeric - analytic) <= opt.atol + opt.rtol * std::fabs(numeric);
      CHECK_MESSAGE(ok, name << ": d/d input" << k << "[" << i << "] autograd " << analytic
                             << " vs central difference " << numeric);
    }
  }
}

}  // namespace sgtest
