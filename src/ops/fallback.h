// Running an op that has no kernels on a device on the CPU instead, in the middle of the
// device's work (DeviceRuntime::supports says which ops need it). Device memory cannot be read
// synchronously (a GPU answers later), so the op is deferred, not refused:
//   1. the outputs' shapes and dtypes come from running the op at once on stand-in CPU inputs
//      of the same shapes (1 for float32, 0 for int32/bool), and device outputs are allocated;
//   2. a download brings the real inputs to the host; once they arrive the op runs on the CPU and
//      its results are uploaded into those outputs, before any later device work reads them;
//   3. with autograd on, each output's backward is deferred the same way: the gradient comes
//      down, goes through the op's CPU graph (kept from step 2), and the input gradients go up.
// An error raised by the deferred op surfaces at the device's next synchronization.
#pragma once
#include <string>
#include <vector>

#include "ops/registry.h"

namespace sg {

// True while an op runs on stand-in inputs for its outputs' shapes (step 1): checks of input
// values (a zero integer divisor) belong to the real run.
bool in_stand_in_run();

std::vector<Tensor> run_on_cpu(const std::string& name, const OpFn& fn, const std::vector<Tensor>& inputs,
                               const Attrs& attrs, Device device);

}  // namespace sg
