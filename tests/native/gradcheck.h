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

#include "autograd/engine.h"
#include "core/copy.h"
#include "core/tensor.h"
#include "ops/ops.h"

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

// Double backward: the first-order gradient, built with create_graph, differentiated again.
// H(inputs, r) = Σ_k ⟨dL/d input_k, v_k⟩ with L = Σ out·r and fixed random v_k; the incoming
// gradient r is a leaf too, so the derivative of the gradient with respect to it (the op's
// forward derivative) is checked as well. Autograd's dH (through the recorded gradients) is
// compared with central differences of H, each H computed by an ordinary first-order backward
// (the formulas' fast paths): so the recorded formulas must agree with those too.
// Tighter than gradcheck's defaults: a formula 1% off must fail.
inline GradcheckOptions second_order() { return {1e-3, 5e-4, 5e-3}; }

inline void gradgradcheck(const std::string& name, const Fn& fn, std::vector<sg::Tensor> inputs,
                          GradcheckOptions opt = second_order()) {
  sg::Tensor out0 = fn(inputs);
  REQUIRE_MESSAGE(out0.requires_grad(), name << ": output does not require grad");
  sg::Tensor r = leaf(out0.shape(), -1.0, 1.0, 321);
  std::vector<size_t> wrt;
  for (size_t k = 0; k < inputs.size(); ++k)
    if (inputs[k].defined() && inputs[k].requires_grad()) wrt.push_back(k);
  std::vector<sg::Tensor> v;
  for (size_t j = 0; j < wrt.size(); ++j) v.push_back(leaf(inputs[wrt[j]].shape(), -1.0, 1.0, 400 + unsigned(j), false));
  const auto H = [&](bool create_graph) {
    sg::Tensor out = fn(inputs);
    std::vector<sg::Tensor> xs;
    for (size_t k : wrt) xs.push_back(inputs[k]);
    std::vector<sg::Tensor> gs = sg::compute_grads(out, r, xs, /*retain_graph=*/create_graph, create_graph);
    sg::Tensor h = sg::scalar_tensor(0.0);
    for (size_t j = 0; j < gs.size(); ++j) h = sg::add(h, sg::sum(sg::mul(gs[j], v[j])));
    return h;
  };
  sg::Tensor h = H(true);
  std::vector<sg::Tensor> leaves;
  for (size_t k : wrt) leaves.push_back(inputs[k]);
  leaves.push_back(r);
  if (!h.requires_grad()) {
    MESSAGE(name << ": the gradient does not depend on the inputs (second derivative 0)");
    return;
  }
  std::vector<sg::Tensor> analytic = sg::compute_grads(h, sg::Tensor(), leaves, false);
  for (size_t k = 0; k < leaves.size(); ++k) {
    sg::Tensor x = leaves[k];
    REQUIRE(x.is_contiguous());
    const std::string which = k + 1 == leaves.size() ? "the incoming gradient" : "input " + std::to_string(wrt[k]);
    for (int64_t i = 0; i < x.numel(); ++i) {
      float saved = x.f32()[i];
      x.f32()[i] = static_cast<float>(saved + opt.eps);
      double hp = H(false).item();
      x.f32()[i] = static_cast<float>(saved - opt.eps);
      double hm = H(false).item();
      x.f32()[i] = saved;
      double numeric = (hp - hm) / (2 * opt.eps);
      double got = analytic[k].at(i);
      bool ok = std::fabs(numeric - got) <= opt.atol + opt.rtol * std::fabs(numeric);
      CHECK_MESSAGE(ok, name << ": d²/d " << which << "[" << i << "] autograd " << got << " vs central difference "
                             << numeric);
    }
  }
}

}  // namespace sgtest
