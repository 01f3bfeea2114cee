// Ops that split work over threads themselves (not through a Backend call): a batch of small
// matrix products (ops/matmul.cpp) runs whole products per thread and must equal one thread
// bit for bit, broadcast batch dims and transposed views included; the reference backend never
// uses the pool. Likewise the training batch norm (channel ranges) and the average pools
// (plane ranges), and an optimizer step: the float32 updates of all its parameters in one pool
// job (optim/update_batch.h), equal to one thread bit for bit.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/parallel.h"
#include "gradcheck.h"
#include "kernels/backend.h"
#include "nn/norm.h"
#include "nn/pool.h"
#include "ops/ops.h"
#include "ops/registry.h"
#include "optim/optim.h"
#include "optim/update_batch.h"

namespace {

std::vector<float> values(const sg::Tensor& t) {
  sg::Tensor c = t.is_contiguous() ? t : sg::contiguous(t);
  return std::vector<float>(c.f32(), c.f32() + c.numel());
}

}  // namespace

TEST_CASE("parallel ops: batched small matmuls, whole products per thread, bit-identical" *
          doctest::skip(!sg::threads_supported())) {
  using sgtest::leaf;
  // [7, 3, 64, 33] · [3, 33, 50] (batch broadcast), and a transposed view on the right.
  const sg::Tensor a = leaf({7, 3, 64, 33}, -1, 1, 1, false);
  const sg::Tensor b = leaf({3, 33, 50}, -1, 1, 2, false);
  const sg::Tensor bt = sg::transpose(leaf({3, 50, 33}, -1, 1, 3, false), -1, -2);
  for (const sg::Tensor* rhs : {&b, &bt}) {
    sg::set_num_threads(1);
    const std::vector<float> one = values(sg::matmul(a, *rhs));
    for (int t = 2; t <= 4; ++t) {
      sg::set_num_threads(t);
      const uint64_t jobs0 = sg::parallel_jobs();
      const std::vector<float> got = values(sg::matmul(a, *rhs));
      CHECK(sg::parallel_jobs() > jobs0);
      REQUIRE(got.size() == one.size());
      CHECK(std::memcmp(got.data(), one.data(), one.size() * sizeof(float)) == 0);
    }
  }
  // The reference backend stays on one thread.
  sg::set_backend("reference");
  const uint64_t jobs0 = sg::parallel_jobs();
  (void)sg::matmul(a, b);
  CHECK(sg::parallel_jobs() == jobs0);
  sg::set_backend("wasm");
  sg::set_num_threads(1);
}

TEST_CASE("parallel ops: training batch norm and average pools split over channels/planes, bit-identical" *
          doctest::skip(!sg::threads_supported())) {
  using sgtest::leaf;
  // [13, 37, 11, 9]: 37 channels of 1287 values (batch norm), 481 planes (pools).
  const sg::Tensor x0 = leaf({13, 37, 11, 9}, -2, 2, 50, false);
  const sg::Tensor w0 = leaf({37}, 0.5, 1.5, 51, false), b0 = leaf({37}, -1, 1, 52, false);
  auto run = [&] {
    sg::Tensor x = x0.detach(), w = w0.detach(), b = b0.detach();
    for (sg::Tensor* t : {&x, &w, &b}) t->set_requires_grad(true);
    sg::Tensor rm = sg::Tensor::empty({37}), rv = sg::ones({37});
    sg::Tensor y = sg::batch_norm(x, rm, rv, w, b, true, 0.1, 1e-5);
    sg::Tensor a = sg::avg_pool2d(y, {3, 2}, {2, 2}, {1, 0}, true, false);
    sg::Tensor c = sg::adaptive_avg_pool2d(y, {4, 3});
    sg::add(sg::sum(sg::mul(a, a)), sg::sum(sg::mul(c, c))).backward();
    std::vector<float> out;
    for (const sg::Tensor& t : {y, a, c, x.grad(), w.grad(), b.grad(), rm, rv}) {
      const std::vector<float> v = values(t);
      out.insert(out.end(), v.begin(), v.end());
    }
    return out;
  };
  sg::set_num_threads(1);
  const std::vector<float> one = run();
  for (int t = 2; t <= 4; ++t) {
    sg::set_num_threads(t);
    const uint64_t jobs0 = sg::parallel_jobs();
    const std::vector<float> got = run();
    CHECK(sg::parallel_jobs() > jobs0);
    REQUIRE(got.size() == one.size());
    CHECK(std::memcmp(got.data(), one.data(), one.size() * sizeof(float)) == 0);
  }
  sg::set_num_threads(1);
}

namespace {

// Every float32 value an optimizer run leaves: the parameters', then each state entry's (by key).
std::vector<float> optimizer_values(const std::vector<sg::Tensor>& params, const std::vector<sg::optim::ParamState>& states) {
  std::vector<float> out;
  for (const sg::Tensor& p : params) {
    const std::vector<float> v = values(p);
    out.insert(out.end(), v.begin(), v.end());
  }
  for (const sg::optim::ParamState& st : states)
    for (const auto& [key, t] : st) {
      if (t.dtype() != sg::DType::Float32) continue;
      const std::vector<float> v = values(t);
      out.insert(out.end(), v.begin(), v.end());
    }
  return out;
}

// `steps` steps of `algorithm` from fixed parameters and grads on `threads` threads; jobs gets the
// pool jobs of each step. `shape_of(i)` gives parameter i's shape.
std::vector<float> run_optimizer(const std::string& algorithm, const sg::Attrs& hyper, const std::vector<sg::Shape>& shapes,
                                 int threads, int steps, std::vector<uint64_t>& jobs) {
  sg::set_num_threads(threads);
  std::vector<sg::Tensor> params, grads;
  for (size_t i = 0; i < shapes.size(); ++i) {
    params.push_back(sgtest::leaf(shapes[i], -1, 1, unsigned(100 + i)));
    grads.push_back(sgtest::leaf(shapes[i], -1, 1, unsigned(200 + i), false));
  }
  std::vector<sg::optim::ParamState> states(params.size());
  jobs.clear();
  for (int s = 0; s < steps; ++s) {
    const uint64_t jobs0 = sg::parallel_jobs();
    sg::optim::optimizer_step(algorithm, hyper, params, grads, states);
    jobs.push_back(sg::parallel_jobs() - jobs0);
  }
  sg::set_num_threads(1);
  return optimizer_values(params, states);
}

}  // namespace

TEST_CASE("parallel ops: an optimizer step updates every parameter in one pool job, bit-identical to one thread" *
          doctest::skip(!sg::threads_supported())) {
  // nanoGPT-shaped (2 layers, 64 wide, 4·64 MLP, vocabulary 65): every tensor below the size where
  // a lone update splits (before the batch, the whole step ran on one thread), ~110K elements.
  std::vector<sg::Shape> gpt = {{65, 64}, {64, 64}};
  for (int layer = 0; layer < 2; ++layer)
    for (const sg::Shape& s : std::vector<sg::Shape>{{64}, {64}, {192, 64}, {192}, {64, 64}, {64}, {64}, {64}, {256, 64}, {256}, {64, 256}, {64}})
      gpt.push_back(s);
  gpt.push_back({64});
  gpt.push_back({64});
  // The MLP bench's (784→256→256→10): two tensors large enough to split alone, four small ones.
  std::vector<sg::Shape> mlp = {{256, 784}, {256}, {256, 256}, {256}, {10, 256}, {10}};
  const auto attrs = [](std::initializer_list<std::pair<const char*, sg::AttrValue>> kv) {
    sg::Attrs a;
    for (const auto& [k, v] : kv) a.set(k, v);
    return a;
  };
  const std::vector<std::pair<std::string, sg::Attrs>> cases = {
      {"SGD", attrs({{"lr", 0.1}, {"momentum", 0.9}, {"nesterov", true}, {"weightDecay", 0.01}})},
      {"SGD", attrs({{"lr", 0.1}})},
      {"Adam", attrs({{"lr", 0.01}, {"amsgrad", true}, {"weightDecay", 0.1}})},
      {"AdamW", attrs({{"lr", 0.01}, {"beta2", 0.95}})},
      {"RMSprop", attrs({{"lr", 0.01}, {"centered", true}, {"momentum", 0.5}})},
      {"Adagrad", attrs({{"lr", 0.1}, {"lrDecay", 0.01}})},
      {"Adadelta", attrs({{"weightDecay", 0.1}})},
      {"Adamax", attrs({{"lr", 0.01}})},
      {"NAdam", attrs({{"lr", 0.01}})},
      {"RAdam", attrs({{"lr", 0.01}})},
  };
  // Two steps (the first creates the state, the second reads it) on 2 or 3 threads by turns: the
  // whole grid (3 steps, both counts) cost 10 s of CI's ASan run for no path the turns miss.
  int turn = 0;
  for (const std::vector<sg::Shape>* shapes : {&gpt, &mlp}) {
    for (const auto& [algorithm, hyper] : cases) {
      const std::string name = algorithm;
      const int t = 2 + (turn++ % 2);
      INFO(name << (shapes == &gpt ? " (GPT-shaped)" : " (MLP-shaped)") << ", threads " << t);
      std::vector<uint64_t> jobs;
      const std::vector<float> one = run_optimizer(algorithm, hyper, *shapes, 1, 2, jobs);
      CHECK(jobs == std::vector<uint64_t>(2, 0));
      const std::vector<float> got = run_optimizer(algorithm, hyper, *shapes, t, 2, jobs);
      CHECK(jobs == std::vector<uint64_t>(2, 1));  // one job a step, the first (state created) included
      REQUIRE(got.size() == one.size());
      CHECK(std::memcmp(got.data(), one.data(), one.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("parallel ops: an optimizer step with parameters sharing memory, or strided, updates them in order" *
          doctest::skip(!sg::threads_supported())) {
  // Two parameters on one storage: each SGD update reads what the one before wrote, as on one
  // thread (and as PyTorch's single-tensor loop); a batch run in one job would race on it.
  const int64_t n = 70000;  // each update large enough to split alone: one job each
  const auto run = [&](int threads, uint64_t& jobs) {
    sg::set_num_threads(threads);
    sg::Tensor base = sgtest::leaf({n}, -1, 1, 7, false);
    sg::Tensor a = sg::Tensor::view_of(base, {n}, {1}, 0), b = sg::Tensor::view_of(base, {n}, {1}, 0);
    a.set_requires_grad(true);
    b.set_requires_grad(true);
    // A transposed view after them (updated through a contiguous copy, so outside the batch).
    sg::Tensor tbase = sgtest::leaf({30, 20}, -1, 1, 8, false);
    sg::Tensor t = sg::Tensor::view_of(tbase, {20, 30}, {1, 20}, 0);
    t.set_requires_grad(true);
    std::vector<sg::Tensor> params = {a, b, t};
    std::vector<sg::Tensor> grads = {sgtest::leaf({n}, -1, 1, 9, false), sgtest::leaf({n}, -1, 1, 11, false),
                                     sgtest::leaf({20, 30}, -1, 1, 10, false)};
    std::vector<sg::optim::ParamState> states(3);
    sg::optim::SGDOptions o;
    o.lr = 0.5;
    const uint64_t jobs0 = sg::parallel_jobs();
    sg::optim::sgd_step(params, grads, states, o);
    jobs = sg::parallel_jobs() - jobs0;
    sg::set_num_threads(1);
    std::vector<float> out = values(base), tv = values(tbase);
    out.insert(out.end(), tv.begin(), tv.end());
    // base = (base − 0.5·ga) − 0.5·gb, rounded at each step as the kernel does.
    const std::vector<float> x0 = values(sgtest::leaf({n}, -1, 1, 7, false)), ga = values(grads[0]), gb = values(grads[1]);
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      const float once = x0[size_t(i)] + (-0.5f) * ga[size_t(i)];
      wrong += std::fabs(double(out[size_t(i)]) - double(once + (-0.5f) * gb[size_t(i)])) > 1e-6;
    }
    CHECK(wrong == 0);
    return out;
  };
  uint64_t jobs1 = 0, jobs2 = 0;
  const std::vector<float> one = run(1, jobs1);
  const std::vector<float> two = run(2, jobs2);
  CHECK(jobs1 == 0);
  // a and b one job each (the shared storage makes them run one after the other, each splitting
  // itself), t none (600 elements: below any split); as one batch a and b would be one job.
  CHECK(jobs2 == 2);
  REQUIRE(two.size() == one.size());
  CHECK(std::memcmp(two.data(), one.data(), one.size() * sizeof(float)) == 0);
}
