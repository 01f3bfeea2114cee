// Element types a tensor can hold, PyTorch's nine. bool is stored as one byte per element (0/1);
// float16 and bfloat16 as their 16 bits (core/half.h converts them, rounding to nearest even).
// The codes are shared with JavaScript (npm/src/runtime/handles.ts): append, never reorder.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace sg {

enum class DType : uint8_t { Float32, Int32, Bool, Float16, BFloat16, Float64, Int64, Int8, UInt8 };
constexpr int kNumDTypes = 9;

inline size_t dtype_size(DType t) {
  switch (t) {
    case DType::Bool:
    case DType::Int8:
    case DType::UInt8: return 1;
    case DType::Float16:
    case DType::BFloat16: return 2;
    case DType::Float32:
    case DType::Int32: return 4;
    case DType::Float64:
    case DType::Int64: return 8;
  }
  return 4;
}

inline const char* dtype_name(DType t) {
  switch (t) {
    case DType::Float32: return "float32";
    case DType::Int32: return "int32";
    case DType::Bool: return "bool";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
    case DType::Float64: return "float64";
    case DType::Int64: return "int64";
    case DType::Int8: return "int8";
    case DType::UInt8: return "uint8";
  }
  return "?";
}

DType dtype_from_name(const std::string& name);  // throws on an unknown name

inline bool is_floating(DType t) {
  return t == DType::Float32 || t == DType::Float64 || t == DType::Float16 || t == DType::BFloat16;
}
inline bool is_integral(DType t) {  // bool excluded, as torch's is_integral(include_bool=False)
  return t == DType::Int32 || t == DType::Int64 || t == DType::Int8 || t == DType::UInt8;
}

// The dtypes every op of this library computed in before float16, bfloat16, float64, int64, int8
// and uint8 came: an op that has not been taught a newer dtype refuses it by name
// (ops/registry.cpp) instead of reading its bytes as one of these.
inline bool is_classic_dtype(DType t) { return t == DType::Float32 || t == DType::Int32 || t == DType::Bool; }

// torch.promote_types: the smallest dtype both values fit in, by category (bool < integer <
// floating). Two differences, both because this library has no int16: uint8 with int8 gives
// int32 (PyTorch: int16), and float16 with bfloat16 gives float32 as in PyTorch.
DType promote_types(DType a, DType b);

// PyTorch-style promotion for binary ops between tensors of the same rank class; see
// result_type (ops/promotion.h) for the rule with 0-d tensors and numbers.
inline DType promote(DType a, DType b) { return promote_types(a, b); }

enum class Device : uint8_t { CPU, WebGPU };
inline const char* device_name(Device d) { return d == Device::CPU ? "cpu" : "webgpu"; }

}  // namespace sg
