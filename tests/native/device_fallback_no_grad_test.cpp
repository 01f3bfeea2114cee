// The CPU fallback (ops/fallback.cpp) under no_grad: its CPU run must take the caller's grad mode,
// as PyTorch's ops do, so that an in-place update of a leaf that requires grad (an optimizer's
// step: `with torch.no_grad(): p.add_(...)`) works on a device without the op's kernel. A seeded
// defect that ran the fallback with grad on whenever an input required grad survived the other
// device tests (scripts/mutation_cpp.mjs); with it, this update is refused as on a leaf under grad.
#include <doctest/doctest.h>

#include "autograd/grad_mode.h"
#include "fake_device.h"
#include "gradcheck.h"
#include "ops/ops.h"
#include "ops/registry.h"

TEST_CASE("device: the cpu fallback under no_grad updates a leaf that requires grad in place, as on the cpu") {
  sgtest::FakeDeviceScope scope;
  scope.device().unsupported.insert("add_");
  sg::Tensor p = sg::to_device(sgtest::from({3}, {1, 2, 3}), sg::Device::WebGPU);
  p.set_requires_grad(true);
  const sg::Tensor step = sg::to_device(sgtest::from({3}, {0.5f, -1, 2}), sg::Device::WebGPU);
  {
    sg::NoGradGuard off;
    CHECK_NOTHROW(sg::call_op("add_", {p, step}, {}));
  }
  const sg::Tensor back = sgtest::host_copy(p);
  CHECK(back.at(0) == 1.5);
  CHECK(back.at(1) == 1.0);
  CHECK(back.at(2) == 5.0);
  CHECK(p.requires_grad());
  CHECK(scope.device().warnings.size() == 1);
  // With grad on, the same update of a leaf is PyTorch's error, through the fallback too.
  CHECK_THROWS_WITH(sg::call_op("add_", {p, step}, {}), doctest::Contains("a leaf Variable that requires grad"));
}
