// Replays a PyTorch reference case (the *_ref.json files of tests/data, written by the gen_*.py
// generators from float32 inputs, computed in float64) through the op registry on the active
// backend: every output, then the gradients of the inputs marked "grad" for the stored upstream
// gradients ("grad_outputs" or "upstream"). Integer and bool results, and infinities, must be
// equal, NaN where PyTorch has NaN; float values within tol · max(1, max |expected|).
#pragma once
#include <string>

#include "conv_pool_ref.h"
#include "ops/registry.h"

namespace sgtest {

// {shape, dtype ('float32' | 'int32' | 'bool'), data (numbers, "nan", "inf", "-inf")} → a tensor.
sg::Tensor ref_tensor(const Json& j);

// Compares `got` with the expected tensor `want` (same JSON form) as above.
void check_ref_tensor(const sg::Tensor& got, const Json& want, double tol, const std::string& what);

// Runs case `c` as sg::call_op(op, its inputs, attrs) and checks outputs (value_tol) and, when
// the case has "grads" (one per input, or one per input marked "grad"), the gradients (grad_tol).
void replay_ref_case(const Json& c, const std::string& op, const sg::Attrs& attrs, double value_tol, double grad_tol);

}  // namespace sgtest
