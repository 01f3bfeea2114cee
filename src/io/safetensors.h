// safetensors (https://github.com/huggingface/safetensors), the format of sg.save / sg.load:
//   8 bytes    N, the header length, unsigned little-endian
//   N bytes    UTF-8 JSON object: {"name": {"dtype": "F32", "shape": [2, 3],
//              "data_offsets": [begin, end]}, ..., "__metadata__": {"key": "value", ...}},
//              possibly padded with trailing spaces
//   the rest   the byte buffer; offsets are relative to its start, tensors are stored
//              row-major little-endian, and together they cover it exactly (no gaps, no overlap)
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace sg::io {

struct Safetensors {
  std::vector<std::string> names;  // in the header's order
  std::vector<Tensor> tensors;     // parallel to names
  std::map<std::string, std::string> metadata;
};

// Reads a whole file held in memory. A pure function of its bytes (no I/O, no global state),
// so that a fuzzer can call it directly. dtypes: F32, F16 and BF16 → float32 (exactly), I32,
// and I64 → int32 (an error if a value does not fit), BOOL → bool (any nonzero byte is true).
// Every malformation is an sg::Error starting "load: " that names the problem: truncated file,
// header length beyond the file, invalid JSON or UTF-8, missing or mistyped keys, duplicate
// names, an unsupported dtype, negative or overflowing dims, offsets out of range or not
// matching shape × dtype size, data regions that overlap or leave holes.
Safetensors load_safetensors(const uint8_t* data, size_t size);

// Writes float32 (F32), int32 (I32) and bool (BOOL) tensors, in the order given (the format
// prescribes none; PyTorch's writer sorts by dtype then name, so both orders load everywhere),
// the data packed back to back from offset 0. The header is compact JSON with "__metadata__"
// first when metadata is non-empty, padded with spaces to a multiple of 8 bytes so that the
// data starts 8-byte aligned, as the official writer does. Errors ("save: ...") for mismatched
// list lengths, duplicate or reserved names, invalid UTF-8, undefined tensors.
std::vector<uint8_t> save_safetensors(const std::vector<std::string>& names,
                                      const std::vector<Tensor>& tensors,
                                      const std::map<std::string, std::string>& metadata = {});


}  // namespace sg::io
