// relu and its gradient at NaN and ±0, on both CPU backends and at kernel level, as PyTorch 1.13
// (checked there): relu(NaN) = NaN (a plain `x > 0 ? x : 0` gives 0), and its threshold_backward
// passes the incoming gradient where x is NaN (x <= 0 is false there). One deviation, the same on
// every target: relu(−0) = +0 (PyTorch keeps −0; wasm code generation turned it into +0).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gradcheck.h"
#include "kernels/backend.h"
#include "ops/ops.h"

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

struct RestoreWasm {
  ~RestoreWasm() { sg::set_backend("wasm"); }
};

}  // namespace

TEST_CASE("relu: NaN stays NaN, -0 gives +0, gradient passes at NaN (kernels)") {
  // Sizes past one vector so both the vector body and the tail see a NaN.
  for (const char* be : {"reference", "wasm"}) {
    CAPTURE(std::string(be));
    const sg::Backend& b = sg::backend_named(be);
    std::vector<float> x = {kNaN, -0.0f, 0.0f, -2.0f, 3.0f, kNaN, -kNaN, 1e-30f, -1e-30f,
                            kNaN, 5.0f, -5.0f, 0.5f, kNaN, 7.0f, -1.0f, kNaN};
    std::vector<float> y(x.size());
    b.unary_f32(sg::Unary::Relu, 0.0f, x.data(), y.data(), int64_t(x.size()));
    for (size_t i = 0; i < x.size(); ++i) {
      CAPTURE(i);
      if (std::isnan(x[i])) {
        CHECK(std::isnan(y[i]));
      } else {
        CHECK(y[i] == (x[i] > 0 ? x[i] : 0.0f));
        CHECK(!std::signbit(y[i]));  // relu(−0) = +0
      }
    }
    std::vector<float> g(x.size(), 2.5f), gx(x.size());
    const int64_t n = int64_t(x.size());
    b.binary_f32(sg::Binary::ReluBackward, sg::BroadcastPlan{{n}, {1}, {1}}, x.data(), g.data(), gx.data());
    for (size_t i = 0; i < x.size(); ++i) {
      CAPTURE(i);
      CHECK(gx[i] == (std::isnan(x[i]) || x[i] > 0 ? 2.5f : 0.0f));
    }
  }
}

TEST_CASE("relu: NaN through the op and autograd on both backends") {
  RestoreWasm restore;
  for (const char* be : {"reference", "wasm"}) {
    CAPTURE(std::string(be));
    sg::set_backend(be);
    sg::Tensor x = sgtest::from({5}, {kNaN, -1.0f, 0.0f, 2.0f, kNaN}, true);
    sg::Tensor y = sg::relu(x);
    CHECK(std::isnan(y.at(0)));
    CHECK(y.at(1) == 0.0);
    CHECK(y.at(2) == 0.0);
    CHECK(y.at(3) == 2.0);
    CHECK(std::isnan(y.at(4)));
    sg::sum(sg::mul(y, sgtest::from({5}, {1, 2, 3, 4, 5}))).backward();
    // d/dx of Σ c·relu(x): c where x > 0 or x is NaN, 0 at x ≤ 0 (PyTorch: [1, 0, 0, 4, 5]).
    const sg::Tensor gx = x.grad();
    CHECK(gx.at(0) == 1.0);
    CHECK(gx.at(1) == 0.0);
    CHECK(gx.at(2) == 0.0);
    CHECK(gx.at(3) == 4.0);
    CHECK(gx.at(4) == 5.0);
  }
}
