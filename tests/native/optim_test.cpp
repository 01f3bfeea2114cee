// Optimizer steps and gradient clipping (src/optim). Three independent yardsticks:
//  - PyTorch 1.13's own trajectories (tests/data/optim_ref.json, from tests/data/gen_optim.py);
//  - the update rules written again here, in double precision, straight from PyTorch's
//    torch/optim/*.py (single-tensor paths), sharing no code with src/optim;
//  - the kernels' scalar twins (ref::), which the SIMD kernels must match bit for bit.
// Tolerance for float32 results against PyTorch and against the double-precision rules:
// |got − want| <= 2e-6 + 2e-6·|want| per element, after six steps (float32 rounding of a
// handful of operations per step). The test prints the worst error as a fraction of this
// tolerance: about 0.06 when written (i.e. ~1e-7), against both references.
#include "optim/optim.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "conv_pool_ref.h"  // sgtest::read_test_data: tests/data files, natively and under node
#include "core/error.h"
#include "core/tensor.h"
#include "gradcheck.h"
#include "io/json.h"
#include "ops/ops.h"
#include "optim/optim_kernels.h"
#include "test_util.h"

namespace {

using sg::Tensor;
using sg::optim::ParamState;

constexpr double kAtol = 2e-6, kRtol = 2e-6;

std::vector<double> numbers(const sg::json::Value& array) {
  std::vector<double> out;
  for (const auto& v : array.items) out.push_back(v.number());
  return out;
}

Tensor tensor_of(const sg::Shape& shape, const std::vector<double>& values, bool leaf = true) {
  Tensor t = Tensor::empty(shape);
  REQUIRE(static_cast<int64_t>(values.size()) == t.numel());
  for (size_t i = 0; i < values.size(); ++i) t.f32()[i] = static_cast<float>(values[i]);
  if (leaf) t.set_requires_grad(true);
  return t;
}

// ---------------------------------------------------------------------------------------------
// The update rules in double precision, per parameter (an independent re-implementation).
struct Hyper {
  std::string algorithm;
  double lr = 0, momentum = 0, dampening = 0, weight_decay = 0, beta1 = 0.9, beta2 = 0.999,
         eps = 1e-8, alpha = 0.99, lr_decay = 0, initial_accumulator_value = 0;
  bool nesterov = false, maximize = false, amsgrad = false, centered = false;
};

Hyper hyper_of(const std::string& algorithm, const sg::json::Value& h) {
  Hyper o;
  o.algorithm = algorithm;
  o.lr = h.find("lr")->number();
  if (algorithm == "AdamW") o.weight_decay = 1e-2;  // PyTorch's AdamW default
  if (algorithm == "Adagrad") o.eps = 1e-10;
  const auto num = [&](const char* key, double& out) {
    if (const sg::json::Value* v = h.find(key)) out = v->number();
  };
  const auto flag = [&](const char* key, bool& out) {
    if (const sg::json::Value* v = h.find(key)) out = v->boolean;
  };
  num("momentum", o.momentum);
  num("dampening", o.dampening);
  num("weightDecay", o.weight_decay);
  num("beta1", o.beta1);
  num("beta2", o.beta2);
  num("eps", o.eps);
  num("alpha", o.alpha);
  num("lrDecay", o.lr_decay);
  num("initialAccumulatorValue", o.initial_accumulator_value);
  flag("nesterov", o.nesterov);
  flag("maximize", o.maximize);
  flag("amsgrad", o.amsgrad);
  flag("centered", o.centered);
  return o;
}

struct DoubleState {
  bool started = false;
  double step = 0;
  std::vector<double> m, v, vmax, buf, sq, gavg, sum;
};

void double_step(const Hyper& o, std::vector<double>& p, std::vector<double> g, DoubleState& s) {
  const size_t n = p.size();
  if (!s.started) {
    s.started = true;
    s.m.assign(n, 0);
    s.v.assign(n, 0);
    s.vmax.assign(n, 0);
    s.sq.assign(n, 0);
    s.gavg.assign(n, 0);
    s.sum.assign(n, o.initial_accumulator_value);
    if (o.algorithm != "SGD") s.buf.assign(n, 0);  // SGD's buffer starts as its first update
  }
  for (double& x : g) x = o.maximize ? -x : x;
  if (o.algorithm == "SGD") {
    std::vector<double> d(n);
    for (size_t i = 0; i < n; ++i) d[i] = g[i] + o.weight_decay * p[i];
    if (o.momentum != 0) {
      if (s.buf.empty()) {
        s.buf = d;
      } else {
        for (size_t i = 0; i < n; ++i) s.buf[i] = o.momentum * s.buf[i] + (1 - o.dampening) * d[i];
      }
      for (size_t i = 0; i < n; ++i) d[i] = o.nesterov ? d[i] + o.momentum * s.buf[i] : s.buf[i];
    }
    for (size_t i = 0; i < n; ++i) p[i] -= o.lr * d[i];
    return;
  }
  s.step += 1;
  const double t = s.step;
  for (size_t i = 0; i < n; ++i) {
    double gi = g[i];
    if (o.algorithm == "Adam" || o.algorithm == "AdamW") {
      if (o.algorithm == "AdamW")
        p[i] *= 1 - o.lr * o.weight_decay;
      else
        gi += o.weight_decay * p[i];
      s.m[i] = o.beta1 * s.m[i] + (1 - o.beta1) * gi;
      s.v[i] = o.beta2 * s.v[i] + (1 - o.beta2) * gi * gi;
      s.vmax[i] = std::max(s.vmax[i], s.v[i]);
      const double second = o.amsgrad ? s.vmax[i] : s.v[i];
      const double denom = std::sqrt(second) / std::sqrt(1 - std::pow(o.beta2, t)) + o.eps;
      p[i] -= o.lr / (1 - std::pow(o.beta1, t)) * s.m[i] / denom;
    } else if (o.algorithm == "RMSprop") {
      gi += o.weight_decay * p[i];
      s.sq[i] = o.alpha * s.sq[i] + (1 - o.alpha) * gi * gi;
      double avg;
      if (o.centered) {
        s.gavg[i] = o.alpha * s.gavg[i] + (1 - o.alpha) * gi;
        avg = std::sqrt(s.sq[i] - s.gavg[i] * s.gavg[i]) + o.eps;
      } else {
        avg = std::sqrt(s.sq[i]) + o.eps;
      }
      if (o.momentum > 0) {
        s.buf[i] = o.momentum * s.buf[i] + gi / avg;
        p[i] -= o.lr * s.buf[i];
      } else {
        p[i] -= o.lr * gi / avg;
      }
    } else if (o.algorithm == "Adagrad") {
      gi += o.weight_decay * p[i];
      const double clr = o.lr / (1 + (t - 1) * o.lr_decay);
      s.sum[i] += gi * gi;
      p[i] -= clr * gi / (std::sqrt(s.sum[i]) + o.eps);
    } else {
      FAIL("unknown algorithm " << o.algorithm);
    }
  }
}

sg::Attrs attrs_of(const sg::json::Value& h) {
  sg::Attrs a;
  for (size_t i = 0; i < h.keys.size(); ++i) {
    if (h.items[i].is(sg::json::Type::Bool))
      a.set(h.keys[i], h.items[i].boolean);
    else
      a.set(h.keys[i], h.items[i].number());
  }
  return a;
}

struct Worst {
  double err = 0;
  std::string where;
  void see(double got, double want, const std::string& at) {
    const double e = std::fabs(got - want) / (kAtol + kRtol * std::fabs(want));
    if (e > err) err = e, where = at;
  }
};

void check_close(const std::vector<double>& got, const std::vector<double>& want,
                 const std::string& what, Worst& worst) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO(what << " [" << i << "]: got " << got[i] << ", want " << want[i]);
    CHECK(std::fabs(got[i] - want[i]) <= kAtol + kRtol * std::fabs(want[i]));
    worst.see(got[i], want[i], what);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
TEST_CASE("optim: trajectories match PyTorch 1.13 and the double-precision rules") {
  const sg::json::Value ref =
      sg::json::parse(sgtest::read_test_data("optim_ref.json"), "optim_ref.json");
  std::vector<sg::Shape> shapes;
  for (const auto& s : ref.find("shapes")->items) {
    sg::Shape shape;
    for (const auto& d : s.items) shape.push_back(static_cast<int64_t>(d.number()));
    shapes.push_back(shape);
  }
  const auto& init = ref.find("init")->items;
  const auto& grads = ref.find("grads")->items;
  const auto& cases = ref.find("cases")->items;
  REQUIRE(cases.size() >= 20);
  Worst vs_torch, vs_double;
  for (const auto& c : cases) {
    const std::string name = c.find("name")->text;
    const std::string algorithm = c.find("algorithm")->text;
    CAPTURE(name);
    const sg::Attrs attrs = attrs_of(*c.find("hyper"));
    const Hyper hyper = hyper_of(algorithm, *c.find("hyper"));

    std::vector<Tensor> params;
    std::vector<std::vector<double>> dparams;
    for (size_t i = 0; i < shapes.size(); ++i) {
      params.push_back(tensor_of(shapes[i], numbers(init[i])));
      dparams.push_back(numbers(init[i]));
    }
    std::vector<ParamState> states(params.size());
    std::vector<DoubleState> dstates(params.size());
    const auto& trajectory = c.find("trajectory")->items;
    for (size_t k = 0; k < grads.size(); ++k) {
      std::vector<Tensor> gs;
      for (size_t i = 0; i < params.size(); ++i) {
        const auto& g = grads[k].items[i];
        if (g.is(sg::json::Type::Null)) {
          gs.emplace_back();
        } else {
          gs.push_back(tensor_of(shapes[i], numbers(g), false));
          double_step(hyper, dparams[i], numbers(g), dstates[i]);
        }
      }
      sg::optim::optimizer_step(algorithm, attrs, params, gs, states);
      for (size_t i = 0; i < params.size(); ++i) {
        const std::string at =
            name + ", step " + std::to_string(k + 1) + ", param " + std::to_string(i);
        check_close(sgtest::values(params[i]), numbers(trajectory[k].items[i]), at + " vs PyTorch",
                    vs_torch);
        check_close(sgtest::values(params[i]), dparams[i], at + " vs double", vs_double);
      }
    }
    // The state holds PyTorch's values under PyTorch's keys.
    const auto& final_state = c.find("final_state")->items;
    for (size_t i = 0; i < params.size(); ++i) {
      const auto& want = final_state[i];
      CHECK_MESSAGE(states[i].size() == want.keys.size(), name << ": param " << i << " state keys");
      for (size_t k = 0; k < want.keys.size(); ++k) {
        const std::string& key = want.keys[k];
        REQUIRE_MESSAGE(states[i].count(key), name << ": missing state '" << key << "'");
        check_close(sgtest::values(states[i][key]), numbers(want.items[k]), name + " state " + key,
                    vs_torch);
      }
    }
  }
  MESSAGE("worst error / tolerance: vs PyTorch " << vs_torch.err << " (" << vs_torch.where
                                                 << "), vs double " << vs_double.err << " ("
                                                 << vs_double.where << ")");
}

TEST_CASE("optim: SIMD kernels agree with their scalar twins, tails included") {
  std::mt19937 gen(5);
  std::normal_distribution<float> normal;
  for (int64_t n : {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 100}) {
    CAPTURE(n);
    std::vector<float> p(n), g(n), a(n), b(n), c(n);
    for (int64_t i = 0; i < n; ++i) {
      p[i] = normal(gen), g[i] = normal(gen), a[i] = normal(gen);
      b[i] = std::fabs(normal(gen)), c[i] = std::fabs(normal(gen));
    }
    // Each variant runs on two copies of the same inputs; all buffers must then agree to a
    // few ulps: with FMA (AVX2/AVX-512 natively) the SIMD path rounds a·b + c once where the
    // scalar twin rounds twice, so bit equality only holds on targets without FMA (wasm).
    const auto close = [&](const std::vector<float>& u, const std::vector<float>& v) {
      for (int64_t i = 0; i < n; ++i) {
        if (std::isnan(u[i]) && std::isnan(v[i])) continue;  // both saw sqrt of a negative
        if (!(std::fabs(u[i] - v[i]) <= 1e-6f * (1.0f + std::fabs(v[i])))) {
          MESSAGE("element " << i << ": simd " << u[i] << " vs scalar " << v[i]);
          return false;
        }
      }
      return true;
    };
    const auto same = [&](const auto& run) {
      std::vector<float> p1 = p, a1 = a, b1 = b, c1 = c, p2 = p, a2 = a, b2 = b, c2 = c;
      run(true, p1.data(), a1.data(), b1.data(), c1.data());
      run(false, p2.data(), a2.data(), b2.data(), c2.data());
      CHECK(close(p1, p2));
      CHECK(close(a1, a2));
      CHECK(close(b1, b2));
      CHECK(close(c1, c2));
    };
    using namespace sg::optim;
    for (int variant = 0; variant < 8; ++variant) {
      const bool x = variant & 1, y = variant & 2, z = variant & 4;
      SgdScalars s;
      s.sign = x ? -1 : 1, s.has_weight_decay = y, s.weight_decay = 0.1f, s.has_momentum = true;
      s.momentum = 0.9f, s.one_minus_dampening = 0.7f, s.nesterov = z, s.neg_lr = -0.05f,
      s.first = x && y;
      same([&](bool simd, float* pp, float* buf, float*, float*) {
        (simd ? simd::sgd_f32 : ref::sgd_f32)(pp, g.data(), buf, n, s);
      });
      AdamScalars as;
      as.sign = x ? -1 : 1, as.l2 = y && !z, as.decoupled = z, as.weight_decay = 0.1f,
      as.decay = 0.999f;
      as.beta1 = 0.9f, as.one_minus_beta1 = 0.1f, as.beta2 = 0.999f, as.one_minus_beta2 = 0.001f;
      as.bias_correction2_sqrt = 0.0447f, as.eps = 1e-8f, as.neg_step_size = -0.01f, as.amsgrad = y;
      same([&](bool simd, float* pp, float* m, float* v, float* vmax) {
        (simd ? simd::adam_f32 : ref::adam_f32)(pp, g.data(), m, v, vmax, n, as);
      });
      RmspropScalars rs;
      rs.sign = x ? -1 : 1, rs.has_weight_decay = x, rs.weight_decay = 0.2f, rs.alpha = 0.9f;
      rs.one_minus_alpha = 0.1f, rs.eps = 1e-6f, rs.centered = y, rs.has_momentum = z,
      rs.momentum = 0.5f;
      rs.neg_lr = -0.01f;
      same([&](bool simd, float* pp, float* buf, float* sq, float* ga) {
        // grad_avg must not exceed sqrt(square_avg) for a centered step: use small values.
        for (int64_t i = 0; i < n; ++i) ga[i] *= 0.01f;
        (simd ? simd::rmsprop_f32 : ref::rmsprop_f32)(pp, g.data(), sq, ga, buf, n, rs);
      });
      AdagradScalars ds;
      ds.sign = x ? -1 : 1, ds.has_weight_decay = y, ds.weight_decay = 0.1f, ds.eps = 1e-10f,
      ds.neg_clr = -0.1f;
      same([&](bool simd, float* pp, float* sum, float*, float*) {
        (simd ? simd::adagrad_f32 : ref::adagrad_f32)(pp, g.data(), sum, n, ds);
      });
    }
    same([&](bool simd, float* x, float*, float*, float*) {
      (simd ? simd::scale_f32 : ref::scale_f32)(x, n, 0.37f);
    });
    same([&](bool simd, float* x, float*, float*, float*) {
      (simd ? simd::clamp_f32 : ref::clamp_f32)(x, n, -0.5f, 0.25f);
    });
    CHECK(simd::max_abs_f32(p.data(), n) == ref::max_abs_f32(p.data(), n));
    CHECK(simd::sum_squares_f32(p.data(), n) ==
          doctest::Approx(ref::sum_squares_f32(p.data(), n)).epsilon(1e-6));
    CHECK(simd::sum_abs_f32(p.data(), n) ==
          doctest::Approx(ref::sum_abs_f32(p.data(), n)).epsilon(1e-6));
  }
}

TEST_CASE("optim: state is created lazily under PyTorch's keys; params without grad are skipped") {
  Tensor a = tensor_of({2, 2}, {1, 2, 3, 4});
  Tensor b = tensor_of({3}, {1, 1, 1});
  std::vector<ParamState> states(2);
  const Tensor ga = tensor_of({2, 2}, {0.1, 0.2, 0.3, 0.4}, false);

  SUBCASE("Adam") {
    sg::optim::AdamOptions o;
    o.amsgrad = true;
    sg::optim::adam_step({a, b}, {ga, Tensor()}, states, o);
    CHECK(states[1].empty());  // b had no grad: no state, untouched
    CHECK(sgtest::values(b) == std::vector<double>{1, 1, 1});
    REQUIRE(states[0].size() == 4);
    CHECK(states[0]["step"].item() == 1);
    CHECK(states[0]["step"].ndim() == 0);
    CHECK(states[0].count("exp_avg"));
    CHECK(states[0].count("exp_avg_sq"));
    CHECK(states[0].count("max_exp_avg_sq"));
    // Adam's first step moves every element by lr·sign(g) (up to eps): m̂ = g, v̂ = g².
    for (int i = 0; i < 4; ++i) CHECK(a.at(i) == doctest::Approx(1 + i - 1e-3).epsilon(1e-6));
    sg::optim::adam_step({a, b}, {ga, Tensor()}, states, o);
    CHECK(states[0]["step"].item() == 2);
  }
  SUBCASE("SGD without momentum keeps no state; with momentum the buffer starts as the update") {
    sg::optim::SGDOptions o;
    o.lr = 0.5;
    std::vector<ParamState> s1(1);
    sg::optim::sgd_step({a}, {ga}, s1, o);
    CHECK(s1[0].empty());
    CHECK(a.at(3) == doctest::Approx(4 - 0.2));
    o.momentum = 0.9;
    o.dampening = 0.5;  // not applied on the first step (PyTorch clones d_p)
    std::vector<ParamState> s2(1);
    sg::optim::sgd_step({b}, {tensor_of({3}, {1, 2, 3}, false)}, s2, o);
    CHECK(sgtest::values(s2[0]["momentum_buffer"]) == std::vector<double>{1, 2, 3});
    CHECK(sgtest::values(b) == std::vector<double>{0.5, 0, -0.5});
  }
  SUBCASE("Adagrad's init_state fills every parameter's sum and step, grads or not") {
    sg::Attrs h;
    h.set("lr", 0.1);
    h.set("initialAccumulatorValue", 0.25);
    sg::optim::optimizer_init_state("Adagrad", h, {a, b}, states);
    CHECK(sgtest::values(states[1]["sum"]) == std::vector<double>{0.25, 0.25, 0.25});
    CHECK(states[1]["step"].item() == 0);
    sg::optim::optimizer_step("Adagrad", h, {a, b}, {ga, Tensor()}, states);
    CHECK(states[0]["step"].item() == 1);
    CHECK(states[1]["step"].item() == 0);
    // sum = 0.25 + g², p −= lr·g/√sum
    CHECK(a.at(0) == doctest::Approx(1 - 0.1 * 0.1 / std::sqrt(0.25 + 0.01)));
  }
}

TEST_CASE("optim: strided parameters, grads and loaded state are updated through their views") {
  // A transposed view as the parameter, a non-contiguous grad, an int32 step, a strided buffer.
  Tensor base = tensor_of({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor p = Tensor::view_of(base, {3, 2}, {1, 3}, 0);  // base.T
  p.set_requires_grad(true);
  Tensor gbase = tensor_of({2, 3}, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, false);
  Tensor g = Tensor::view_of(gbase, {3, 2}, {1, 3}, 0);
  std::vector<ParamState> states(1);
  Tensor buf_base = tensor_of({2, 3}, {1, 1, 1, 1, 1, 1}, false);
  states[0]["momentum_buffer"] = Tensor::view_of(buf_base, {3, 2}, {1, 3}, 0);
  sg::optim::SGDOptions o;
  o.lr = 1;
  o.momentum = 0.5;
  sg::optim::sgd_step({p}, {g}, states, o);
  // buf = 0.5·1 + g; p −= buf. In base's layout: base[i] = v − (0.5 + g[i]).
  const std::vector<double> want = {1 - 0.6, 2 - 0.7, 3 - 0.8, 4 - 0.9, 5 - 1.0, 6 - 1.1};
  for (int i = 0; i < 6; ++i) {
    CHECK(base.f32()[i] == doctest::Approx(want[i]));
    CHECK(buf_base.f32()[i] == doctest::Approx(0.5 + 0.1 * (i + 1)));
  }
  Tensor step = Tensor::empty({1}, sg::DType::Int32);
  step.i32()[0] = 41;
  std::vector<ParamState> adam(1);
  adam[0]["step"] = step;
  sg::optim::adam_step({p}, {g}, adam, sg::optim::AdamOptions{});
  CHECK(step.i32()[0] == 42);
}

TEST_CASE("optim: bad arguments are errors that name the problem and change nothing") {
  Tensor a = tensor_of({2}, {1, 2});
  std::vector<ParamState> states(1);
  const Tensor g = tensor_of({2}, {1, 1}, false);
  const sg::optim::AdamOptions adam;
  sg::optim::SGDOptions sgd;
  sgd.lr = 0.1;

  CHECK_ERROR(sg::optim::adam_step({a}, {tensor_of({3}, {1, 1, 1}, false)}, states, adam),
              "Adam: parameter 0: grad has shape [3], expected the parameter's shape [2]");
  CHECK_ERROR(sg::optim::adam_step({a}, {g, g}, states, adam),
              "Adam: got 1 parameters but 2 gradients");
  std::vector<ParamState> two(2);
  CHECK_ERROR(sg::optim::sgd_step({a}, {g}, two, sgd), "SGD: got 1 parameters but 2 states");
  CHECK_ERROR(sg::optim::sgd_step({Tensor::empty({2}, sg::DType::Int32)}, {g}, states, sgd),
              "SGD: parameter 0 must be float32");
  const Tensor non_leaf = sg::mul(a, a);
  CHECK_ERROR(sg::optim::sgd_step({non_leaf}, {g}, states, sgd), "SGD: parameter 0 is not a leaf");
  CHECK_ERROR(sg::optim::sgd_step({a}, {Tensor::empty({2}, sg::DType::Int32)}, states, sgd),
              "SGD: parameter 0: grad must be float32, got int32");

  sgd.lr = -1;
  CHECK_ERROR(sg::optim::sgd_step({a}, {g}, states, sgd), "SGD: invalid learning rate -1");
  sgd.lr = 0.1;
  sgd.nesterov = true;
  CHECK_ERROR(sg::optim::sgd_step({a}, {g}, states, sgd),
              "SGD: Nesterov momentum requires a momentum and zero dampening");
  sg::optim::AdamOptions bad_beta;
  bad_beta.beta1 = 1;
  CHECK_ERROR(sg::optim::adam_step({a}, {g}, states, bad_beta),
              "Adam: invalid beta parameter at index 0: 1");
  sg::optim::RMSpropOptions rms;
  rms.alpha = -0.5;
  CHECK_ERROR(sg::optim::rmsprop_step({a}, {g}, states, rms), "RMSprop: invalid alpha value -0.5");
  sg::optim::AdagradOptions ada;
  ada.lr_decay = std::nan("");
  CHECK_ERROR(sg::optim::adagrad_step({a}, {g}, states, ada),
              "Adagrad: invalid lr_decay value nan");

  states[0]["exp_avg"] = Tensor::empty({3});
  CHECK_ERROR(
      sg::optim::adam_step({a}, {g}, states, adam),
      "Adam: parameter 0: state 'exp_avg' has shape [3], expected the parameter's shape [2]");
  states[0].clear();
  states[0]["step"] = Tensor::empty({2});
  CHECK_ERROR(sg::optim::adagrad_step({a}, {g}, states, sg::optim::AdagradOptions{}),
              "Adagrad: parameter 0: state 'step' must be a one-element float32 or int32 tensor");
  states[0].clear();

  sg::Attrs none;
  CHECK_ERROR(sg::optim::optimizer_step("Lion", none, {a}, {g}, states),
              "optimizer: unknown algorithm 'Lion'");
  CHECK_ERROR(sg::optim::optimizer_step("SGD", none, {a}, {g}, states),
              "SGD: missing argument 'lr'");
  sg::Attrs typo;
  typo.set("lr", std::string("fast"));
  CHECK_ERROR(sg::optim::optimizer_step("Adam", typo, {a}, {g}, states),
              "Adam: expected 'lr' to be a number");

  // The second parameter's bad grad is found before the first parameter is touched.
  Tensor b = tensor_of({2}, {5, 6});
  std::vector<ParamState> s2(2);
  CHECK_ERROR(sg::optim::adam_step({a, b}, {g, tensor_of({1}, {1}, false)}, s2, adam),
              "parameter 1");
  CHECK(sgtest::values(a) == std::vector<double>{1, 2});
  CHECK(s2[0].empty());
}

// ---------------------------------------------------------------------------------------------
TEST_CASE("optim: clip_grad_norm_ against hand-computed norms") {
  // Two grads [3, 4] and [12]: ‖·‖₂ = 13, ‖·‖₁ = 19, ‖·‖∞ = 12, ‖·‖₃ = (27 + 64 + 1728)^(1/3).
  const auto grads = [] {
    return std::vector<Tensor>{tensor_of({2}, {3, 4}, false), Tensor(),
                               tensor_of({1}, {12}, false)};
  };
  SUBCASE("2-norm, clipped") {
    auto gs = grads();
    const double total = sg::optim::clip_grad_norm_(gs, 6.5);
    CHECK(total == doctest::Approx(13).epsilon(1e-7));
    const double coef = 6.5 / (13 + 1e-6);
    CHECK(gs[0].at(0) == doctest::Approx(3 * coef).epsilon(1e-6));
    CHECK(gs[0].at(1) == doctest::Approx(4 * coef).epsilon(1e-6));
    CHECK(gs[2].at(0) == doctest::Approx(12 * coef).epsilon(1e-6));
  }
  SUBCASE("no clipping when the norm is below max_norm (coef >= 1 leaves the grads as they are)") {
    auto gs = grads();
    CHECK(sg::optim::clip_grad_norm_(gs, 13.0) == doctest::Approx(13));  // coef = 13/(13+1e-6) < 1
    CHECK(gs[0].at(0) < 3);
    gs = grads();
    CHECK(sg::optim::clip_grad_norm_(gs, 100) == doctest::Approx(13));
    CHECK(sgtest::values(gs[0]) == std::vector<double>{3, 4});
    CHECK(sgtest::values(gs[2]) == std::vector<double>{12});
  }
  SUBCASE("other orders") {
    auto gs = grads();
    CHECK(sg::optim::clip_grad_norm_(gs, 1e9, 1) == doctest::Approx(19));
    CHECK(sg::optim::clip_grad_norm_(gs, 1e9, INFINITY) == doctest::Approx(12));
    CHECK(sg::optim::clip_grad_norm_(gs, 1e9, 3) ==
          doctest::Approx(std::cbrt(27.0 + 64 + 1728)).epsilon(1e-6));
    CHECK(sg::optim::clip_grad_norm_(gs, 1e9, -INFINITY) == doctest::Approx(3));
    CHECK(sg::optim::clip_grad_norm_(gs, 1e9, 0) ==
          doctest::Approx(2));  // torch: grads with a nonzero
    const double inf_total = sg::optim::clip_grad_norm_(gs, 6, INFINITY);
    CHECK(inf_total == doctest::Approx(12));
    CHECK(gs[2].at(0) == doctest::Approx(6).epsilon(1e-6));
    CHECK(gs[0].at(1) == doctest::Approx(2).epsilon(1e-6));
  }
  SUBCASE("a long grad (SIMD blocks and tails) against a double sum") {
    Tensor g = sgtest::leaf({3, 1001}, -2, 2, 11, false);
    double ss = 0;
    for (int64_t i = 0; i < g.numel(); ++i) ss += g.at(i) * g.at(i);
    std::vector<Tensor> gs{g};
    CHECK(sg::optim::clip_grad_norm_(gs, 1e9) == doctest::Approx(std::sqrt(ss)).epsilon(1e-6));
  }
  SUBCASE("edge cases") {
    std::vector<Tensor> none{Tensor()};
    CHECK(sg::optim::clip_grad_norm_(none, 1) == 0);
    std::vector<Tensor> nan{tensor_of({2}, {NAN, 1}, false)};
    CHECK(std::isnan(sg::optim::clip_grad_norm_(nan, 1)));
    CHECK(std::isnan(nan[0].at(1)));  // PyTorch multiplies by the NaN coefficient
    std::vector<Tensor> inf{tensor_of({2}, {INFINITY, 1}, false)};
    CHECK_ERROR(sg::optim::clip_grad_norm_(inf, 1, 2, true),
                "clipGradNorm_: the total norm of order 2");
    CHECK(inf[0].at(1) == 1);  // not scaled
    std::vector<Tensor> ints{Tensor::empty({2}, sg::DType::Int32)};
    CHECK_ERROR(sg::optim::clip_grad_norm_(ints, 1), "clipGradNorm_: grad 0 must be float32");
  }
}

TEST_CASE("optim: clip_grad_value_ clamps in place, through views, NaN kept") {
  Tensor base = tensor_of({2, 3}, {-3, -0.5, 0, 0.5, 3, NAN}, false);
  Tensor view = Tensor::view_of(base, {3, 2}, {1, 3}, 0);
  sg::optim::clip_grad_value_({view, Tensor()}, 1);
  CHECK(base.f32()[0] == -1);
  CHECK(base.f32()[1] == -0.5f);
  CHECK(base.f32()[2] == 0);
  CHECK(base.f32()[3] == 0.5f);
  CHECK(base.f32()[4] == 1);
  CHECK(std::isnan(base.f32()[5]));
}

// ---------------------------------------------------------------------------------------------
// Adadelta, Adamax, NAdam and RAdam: the SIMD kernels against their scalar twins on sizes around
// the vector width (tails included) for every variant, NaN propagation of Adamax's max as
// torch.amax, and one step of each against its formula. Their trajectories against PyTorch:
// tests/js/optim_adaptive_variants.test.mjs.

namespace {

using Buffers = std::vector<std::vector<float>>;  // p, state a, state b

// Runs `kernel(simd?, p, a, b)` on two copies of the buffers; they must agree to a few ulps
// (natively the SIMD path may fuse a multiply and an add that the scalar twin rounds twice).
template <class Kernel>
void twins_agree(const Buffers& start, const Kernel& kernel) {
  Buffers simd = start, scalar = start;
  kernel(true, simd[0].data(), simd[1].data(), simd[2].data());
  kernel(false, scalar[0].data(), scalar[1].data(), scalar[2].data());
  for (size_t b = 0; b < start.size(); ++b)
    for (size_t i = 0; i < start[b].size(); ++i) {
      const float u = simd[b][i], v = scalar[b][i];
      if (std::isnan(u) && std::isnan(v)) continue;
      CHECK_MESSAGE(std::fabs(u - v) <= 1e-6f * (1.0f + std::fabs(v)),
                    "buffer " << b << " element " << i << ": simd " << u << " vs scalar " << v);
    }
}

}  // namespace

TEST_CASE("optim: Adadelta, Adamax, NAdam and RAdam SIMD kernels agree with their scalar twins, tails included") {
  using namespace sg::optim;
  std::mt19937 gen(17);
  std::normal_distribution<float> normal;
  for (int64_t n : {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 100}) {
    CAPTURE(n);
    std::vector<float> g(n);
    Buffers start(3, std::vector<float>(n));
    for (int64_t i = 0; i < n; ++i) {
      g[i] = normal(gen);
      start[0][i] = normal(gen);
      start[1][i] = normal(gen) * 0.1f;
      start[2][i] = std::fabs(normal(gen)) * 0.1f;  // second moments are non-negative
    }
    for (int variant = 0; variant < 4; ++variant) {
      const bool x = variant & 1, y = variant & 2;
      CAPTURE(variant);
      AdadeltaScalars ad;
      ad.sign = x ? -1 : 1, ad.has_weight_decay = y, ad.weight_decay = 0.1f, ad.rho = 0.9f;
      ad.one_minus_rho = 0.1f, ad.eps = 1e-6f, ad.neg_lr = -1.0f;
      twins_agree(Buffers{start[0], start[2], start[2]}, [&](bool simd, float* p, float* a, float* b) {
        (simd ? simd::adadelta_f32 : ref::adadelta_f32)(p, g.data(), a, b, n, ad);
      });
      AdamaxScalars am;
      am.sign = x ? -1 : 1, am.has_weight_decay = y, am.weight_decay = 0.1f, am.beta1 = 0.9f;
      am.one_minus_beta1 = 0.1f, am.beta2 = 0.999f, am.eps = 1e-8f, am.neg_clr = -0.02f;
      twins_agree(start, [&](bool simd, float* p, float* a, float* b) {
        (simd ? simd::adamax_f32 : ref::adamax_f32)(p, g.data(), a, b, n, am);
      });
      MomentsScalars mo;
      mo.has_weight_decay = y, mo.weight_decay = 0.1f, mo.beta1 = 0.9f, mo.one_minus_beta1 = 0.1f;
      mo.beta2 = 0.999f, mo.one_minus_beta2 = 0.001f, mo.eps = 1e-8f;
      NadamScalars na;
      na.moments = mo, na.bias_correction2 = 0.003f, na.grad_coef = -0.011f, na.avg_coef = -0.02f;
      twins_agree(start, [&](bool simd, float* p, float* a, float* b) {
        (simd ? simd::nadam_f32 : ref::nadam_f32)(p, g.data(), a, b, n, na);
      });
      RadamScalars ra;
      ra.moments = mo, ra.bias_correction1 = 0.52f, ra.lr = 0.01f;
      ra.bias_correction2_sqrt = 0.08f, ra.rect = 0.03f, ra.rectified = x;
      twins_agree(start, [&](bool simd, float* p, float* a, float* b) {
        (simd ? simd::radam_f32 : ref::radam_f32)(p, g.data(), a, b, n, ra);
      });
    }
  }
}

TEST_CASE("optim: Adamax's infinity norm keeps a NaN as torch.amax does") {
  using namespace sg::optim;
  for (bool simd : {true, false}) {
    CAPTURE(simd);
    std::vector<float> p(5, 1.0f), m(5, 0.0f), u(5, 0.5f), g = {1, NAN, -2, 0, 3};
    u[3] = NAN;
    AdamaxScalars s;
    s.beta1 = 0.9f, s.one_minus_beta1 = 0.1f, s.beta2 = 0.5f, s.eps = 1e-8f, s.neg_clr = -0.1f;
    (simd ? simd::adamax_f32 : ref::adamax_f32)(p.data(), g.data(), m.data(), u.data(), 5, s);
    CHECK(u[0] == doctest::Approx(1.0f));
    CHECK(std::isnan(u[1]));
    CHECK(u[2] == doctest::Approx(2.0f));
    CHECK(std::isnan(u[3]));
    CHECK(u[4] == doctest::Approx(3.0f));
  }
}

TEST_CASE("optim: one step of Adadelta, Adamax, RAdam and NAdam against its formula in double") {
  // One parameter element, first step, so each formula is short enough to write out here.
  const double p0 = 0.5, g0 = -0.8;
  auto step = [&](const std::string& algorithm, const sg::Attrs& attrs) {
    sg::Tensor p = sg::Tensor::empty({1});
    *p.f32() = static_cast<float>(p0);
    p.set_requires_grad(true);
    sg::Tensor g = sg::Tensor::empty({1});
    *g.f32() = static_cast<float>(g0);
    std::vector<sg::optim::ParamState> states(1);
    sg::optim::optimizer_step(algorithm, attrs, {p}, {g}, states);
    return static_cast<double>(*p.f32());
  };
  sg::Attrs a;
  a.set("lr", 1.0);
  // Adadelta: sq = 0.1·g², delta = √eps / √(sq + eps) · g
  const double sq = 0.1 * g0 * g0;
  CHECK(step("Adadelta", a) == doctest::Approx(p0 - std::sqrt(1e-6) / std::sqrt(sq + 1e-6) * g0).epsilon(1e-6));
  sg::Attrs b;
  b.set("lr", 0.1);
  // Adamax: m = 0.1·g, u = |g| + eps, p −= lr / 0.1 · m / u
  CHECK(step("Adamax", b) == doctest::Approx(p0 - 0.1 / 0.1 * (0.1 * g0) / (std::fabs(g0) + 1e-8)).epsilon(1e-6));
  // RAdam, step 1 (not rectified): p −= lr·m/(1 − β1) = lr·g
  CHECK(step("RAdam", b) == doctest::Approx(p0 - 0.1 * g0).epsilon(1e-6));
  // NAdam, step 1: μ1, μ2; d = √(v / (1 − β2)) + eps = |g| + eps; the product is μ1 and the
  // "next" product μ1·μ1·μ2, as PyTorch 1.13 computes it (mu_product * mu * mu_next).
  const double mu1 = 0.9 * (1 - 0.5 * std::pow(0.96, 0.004)), mu2 = 0.9 * (1 - 0.5 * std::pow(0.96, 0.008));
  const double d = std::fabs(g0) + 1e-8;
  const double want = p0 - 0.1 * g0 / d - 0.1 * mu2 / (1 - mu1 * mu1 * mu2) * (0.1 * g0) / d;
  CHECK(step("NAdam", b) == doctest::Approx(want).epsilon(1e-6));
}
