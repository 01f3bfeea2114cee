// PyTorch reference data for the layer and loss tests: tests/data/layer_loss_ref.json
// (written by tests/data/gen_layer_loss.py), replayed through the op registry (call_op), so
// every case also checks the op's registry row and attribute names. The JSON reader and the
// file access (native, and node's fs under wasm) are conv_pool_ref.h's.
#pragma once
#include <string>

#include "conv_pool_ref.h"
#include "core/tensor.h"

namespace nntest {

using sgtest::Json;

// The parsed tests/data/layer_loss_ref.json, loaded once.
const Json& layer_loss_ref();

// {shape, dtype ('float32' | 'int32'), data} → a new contiguous tensor (null → undefined).
sg::Tensor to_tensor(const Json& j);

// Runs every case of `family` ('layer' | 'loss') on the active backend: the output, the
// gradients of the inputs marked 'grad' for the case's upstream gradient, and the inputs
// updated in place (running stats), each element within atol·max(1, max|want|) + rtol·|want|.
// Returns the number of cases run.
int run_reference_cases(const std::string& family, double rtol, double atol);

}  // namespace nntest
