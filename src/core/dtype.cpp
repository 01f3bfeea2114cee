#include "core/dtype.h"

#include "core/error.h"

namespace sg {

DType dtype_from_name(const std::string& name) {
  if (name == "float32") return DType::Float32;
  if (name == "int32") return DType::Int32;
  if (name == "bool") return DType::Bool;
  fail("unknown dtype '", name, "' (expected float32, int32 or bool)");
}

}  // namespace sg
