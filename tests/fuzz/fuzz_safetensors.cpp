// libFuzzer target for the safetensors reader (src/io/safetensors.h): sg.load's parser sees
// untrusted bytes, so any input must either load or throw sg::Error("load: ..."), never crash,
// read out of bounds, overflow, hit undefined behaviour or throw anything else. What loads must
// also survive a round trip: save → load gives the same names, shapes, dtypes and bytes.
// Built and run by scripts/fuzz.sh (clang++ -fsanitize=fuzzer,address,undefined).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/error.h"
#include "io/safetensors.h"

namespace {

[[noreturn]] void bug(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_safetensors: %s: %s\n", what, detail.c_str());
  std::abort();  // libFuzzer saves the input as a crash
}

bool same_bytes(const sg::Tensor& a, const sg::Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const size_t n = static_cast<size_t>(a.numel()) * sg::dtype_size(a.dtype());
  return n == 0 || std::memcmp(a.raw(), b.raw(), n) == 0;
}

void round_trip(const sg::io::Safetensors& st) {
  if (st.names.size() != st.tensors.size()) bug("names and tensors differ in length", "");
  for (const sg::Tensor& t : st.tensors) {
    if (!t.defined() || !t.is_contiguous()) bug("a loaded tensor is undefined or strided", "");
  }
  std::vector<uint8_t> bytes;
  try {
    bytes = sg::io::save_safetensors(st.names, st.tensors, st.metadata);
  } catch (const sg::Error& e) {
    bug("save rejected what load accepted", e.what());
  }
  sg::io::Safetensors again;
  try {
    again = sg::io::load_safetensors(bytes.data(), bytes.size());
  } catch (const sg::Error& e) {
    bug("load rejected what save wrote", e.what());
  }
  if (again.names != st.names || again.metadata != st.metadata) bug("round trip changed names or metadata", "");
  for (size_t i = 0; i < st.tensors.size(); ++i) {
    if (!same_bytes(st.tensors[i], again.tensors[i])) bug("round trip changed tensor", st.names[i]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sg::io::Safetensors st;
  try {
    st = sg::io::load_safetensors(data, size);
  } catch (const sg::Error& e) {
    if (std::strncmp(e.what(), "load: ", 6) != 0) bug("an error message without the 'load: ' prefix", e.what());
    return 0;
  }
  // Any other exception type (std::bad_alloc, std::length_error, ...) escapes: libFuzzer
  // reports it as a crash, as it should.
  round_trip(st);
  return 0;
}
