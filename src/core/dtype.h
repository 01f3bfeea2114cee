// Element types a tensor can hold. bool is stored as one byte per element.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace sg {

enum class DType : uint8_t { Float32, Int32, Bool };

inline size_t dtype_size(DType t) { return t == DType::Bool ? 1 : 4; }

inline const char* dtype_name(DType t) {
  switch (t) {
    case DType::Float32: return "float32";
    case DType::Int32: return "int32";
    case DType::Bool: return "bool";
  }
  return "?";
}

DType dtype_from_name(const std::string& name);  // throws on an unknown name

// PyTorch-style promotion for binary ops: float beats int beats bool.
inline DType promote(DType a, DType b) {
  if (a == DType::Float32 || b == DType::Float32) return DType::Float32;
  if (a == DType::Int32 || b == DType::Int32) return DType::Int32;
  return DType::Bool;
}

enum class Device : uint8_t { CPU, WebGPU };
inline const char* device_name(Device d) { return d == Device::CPU ? "cpu" : "webgpu"; }

}  // namespace sg
