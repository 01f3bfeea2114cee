// safetensors reader and writer (safetensors.h). The reader trusts nothing: every length,
// offset and product is checked before it is used, in 64-bit arithmetic with overflow checks
// (size_t is 32 bits in wasm).
#include "io/safetensors.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string_view>

#include "core/copy.h"
#include "core/error.h"
#include "io/json.h"

namespace sg::io {

namespace {

// ------------------------------------------------------------------ dtypes
// The file's dtype names and the tensor dtype each is read as (every one as itself).
struct FileDTypeInfo {
  const char* name;
  DType dtype;
  uint64_t size;
};
constexpr FileDTypeInfo kSupported[] = {
    {"F32", DType::Float32, 4}, {"F16", DType::Float16, 2}, {"BF16", DType::BFloat16, 2},
    {"F64", DType::Float64, 8}, {"I64", DType::Int64, 8},   {"I32", DType::Int32, 4},
    {"I8", DType::Int8, 1},     {"U8", DType::UInt8, 1},    {"BOOL", DType::Bool, 1},
};

const char* file_dtype_name(DType d) {
  for (const FileDTypeInfo& info : kSupported)
    if (info.dtype == d) return info.name;
  return "?";
}

uint64_t read_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int k = bytes - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

void write_le(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int k = 0; k < bytes; ++k) out.push_back(static_cast<uint8_t>(v >> (8 * k)));
}

// ------------------------------------------------------------------ reading
struct Entry {
  std::string name;
  const FileDTypeInfo* dtype;
  Shape shape;
  int64_t numel;
  uint64_t begin, end;
};

std::string tensor_prefix(const std::string& name) { return "load: tensor '" + name + "'"; }

// The member `key` of tensor `name`'s object: present exactly once (serde rejects duplicates).
const json::Value& field(const std::string& name, const json::Value& v, const char* key) {
  const json::Value* found = nullptr;
  for (size_t i = 0; i < v.keys.size(); ++i) {
    if (v.keys[i] != key) continue;
    check(found == nullptr, tensor_prefix(name), " has '", key, "' twice");
    found = &v.items[i];
  }
  check(found != nullptr, tensor_prefix(name), " has no '", key, "'");
  return *found;
}

const FileDTypeInfo& dtype_of(const std::string& name, const json::Value& v) {
  const json::Value* d = &field(name, v, "dtype");
  check(d->is(json::Type::String), tensor_prefix(name), ": 'dtype' must be a string, got ",
        json::type_name(d->type));
  for (const FileDTypeInfo& info : kSupported)
    if (d->text == info.name) return info;
  fail(tensor_prefix(name), " has unsupported dtype ", d->text,
       " (supported: F32, F16, BF16, F64, I64, I32, I8, U8, BOOL)");
}

// The shape, and its element count (0 if any dim is 0). Every dim must fit int64 and the
// product of the nonzero dims must too (it bounds every stride).
Shape shape_of(const std::string& name, const json::Value& v, int64_t& numel) {
  const json::Value* s = &field(name, v, "shape");
  check(s->is(json::Type::Array), tensor_prefix(name), ": 'shape' must be an array, got ",
        json::type_name(s->type));
  Shape shape;
  int64_t product = 1;
  bool has_zero = false;
  for (const json::Value& dim : s->items) {
    int64_t d = 0;
    check(dim.is(json::Type::Number) && dim.to_int64(d), tensor_prefix(name),
          ": 'shape' must hold integers, got ",
          dim.is(json::Type::Number) ? dim.text : json::type_name(dim.type));
    check(d >= 0, tensor_prefix(name), ": 'shape' has a negative dimension ", d);
    if (d == 0)
      has_zero = true;
    else
      check(!__builtin_mul_overflow(product, d, &product), tensor_prefix(name),
            ": 'shape' is too large (the product of its dimensions overflows 64 bits)");
    shape.push_back(d);
  }
  numel = has_zero ? 0 : product;
  return shape;
}

void offsets_of(const std::string& name, const json::Value& v, uint64_t& begin, uint64_t& end) {
  const json::Value* o = &field(name, v, "data_offsets");
  check(o->is(json::Type::Array) && o->items.size() == 2 && o->items[0].to_uint64(begin) &&
            o->items[1].to_uint64(end),
        tensor_prefix(name), ": 'data_offsets' must be an array of two non-negative integers");
  check(begin <= end, tensor_prefix(name), ": data_offsets [", begin, ", ", end,
        "] end before they begin");
}

std::map<std::string, std::string> metadata_of(const json::Value& v) {
  std::map<std::string, std::string> out;
  if (v.is(json::Type::Null)) return out;
  check(v.is(json::Type::Object), "load: '__metadata__' must be an object, got ",
        json::type_name(v.type));
  for (size_t i = 0; i < v.keys.size(); ++i) {
    check(v.items[i].is(json::Type::String), "load: '__metadata__' value for key '", v.keys[i],
          "' must be a string, got ", json::type_name(v.items[i].type));
    check(out.emplace(v.keys[i], v.items[i].text).second, "load: '__metadata__' has the key '",
          v.keys[i], "' twice");
  }
  return out;
}

// The regions, sorted, must tile [0, buffer_size) exactly.
void check_coverage(std::vector<const Entry*> entries, uint64_t buffer_size) {
  std::sort(entries.begin(), entries.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t covered = 0;
  for (const Entry* e : entries) {
    check(e->begin >= covered, "load: tensor '", e->name, "' data_offsets [", e->begin, ", ",
          e->end, "] overlap the data of another tensor (which ends at ", covered, ")");
    check(e->begin == covered, "load: the data buffer has a hole: bytes [", covered, ", ", e->begin,
          ") belong to no tensor (tensor '", e->name, "' starts at ", e->begin, ")");
    covered = e->end;
  }
  check(covered == buffer_size, "load: the data buffer has ", buffer_size,
        " bytes but the tensors cover only the first ", covered);
}

Tensor decode(const Entry& e, const uint8_t* p) {
  Tensor t = Tensor::empty(e.shape, e.dtype->dtype);
  const int64_t n = e.numel;
  const int bytes = static_cast<int>(e.dtype->size);
  if (e.dtype->dtype == DType::Bool) {
    uint8_t* out = t.u8();
    for (int64_t i = 0; i < n; ++i) out[i] = p[i] != 0;  // any nonzero byte is true
    return t;
  }
  uint8_t* out = static_cast<uint8_t*>(t.raw());
  if constexpr (std::endian::native == std::endian::little) {
    if (n > 0) std::memcpy(out, p, static_cast<size_t>(n) * bytes);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t v = read_le(p + bytes * i, bytes);
      std::memcpy(out + bytes * i, &v, bytes);  // unreachable on the little-endian targets built
    }
  }
  return t;
}

}  // namespace

Safetensors load_safetensors(const uint8_t* data, size_t size) {
  check(size >= 8, "load: the data is ", size,
        " bytes long; a safetensors file starts with an 8-byte header length");
  const uint64_t header_len = read_le(data, 8);
  const uint64_t after_prefix = size - 8;
  check(header_len <= after_prefix, "load: the header length ", header_len, " exceeds the ",
        after_prefix, " bytes that follow the length prefix");
  const std::string_view header(reinterpret_cast<const char*>(data + 8),
                                static_cast<size_t>(header_len));
  const json::Value root = json::parse(header, "load: header");
  check(root.is(json::Type::Object), "load: the header must be a JSON object, got ",
        json::type_name(root.type));

  Safetensors out;
  std::vector<Entry> entries;
  std::set<std::string_view> seen;
  bool has_metadata = false;
  const uint64_t buffer_size = after_prefix - header_len;
  for (size_t i = 0; i < root.keys.size(); ++i) {
    const std::string& name = root.keys[i];
    const json::Value& v = root.items[i];
    if (name == "__metadata__") {
      check(!has_metadata, "load: the header has '__metadata__' twice");
      has_metadata = true;
      out.metadata = metadata_of(v);
      continue;
    }
    check(seen.insert(name).second, "load: the header has the tensor name '", name, "' twice");
    check(v.is(json::Type::Object), tensor_prefix(name),
          ": expected an object with dtype, shape and data_offsets, got ", json::type_name(v.type));
    Entry e;
    e.name = name;
    e.dtype = &dtype_of(name, v);
    e.shape = shape_of(name, v, e.numel);
    offsets_of(name, v, e.begin, e.end);
    check(e.end <= buffer_size, tensor_prefix(name), ": data_offsets [", e.begin, ", ", e.end,
          "] lie outside the ", buffer_size, "-byte data buffer");
    uint64_t expected = 0;
    check(!__builtin_mul_overflow(static_cast<uint64_t>(e.numel), e.dtype->size, &expected) &&
              expected == e.end - e.begin,
          tensor_prefix(name), ": data_offsets [", e.begin, ", ", e.end, "] span ", e.end - e.begin,
          " bytes but shape ", e.shape, " of ", e.dtype->name, " needs ", e.numel, " x ",
          e.dtype->size, " bytes");
    entries.push_back(std::move(e));
  }
  std::vector<const Entry*> regions;
  for (const Entry& e : entries) regions.push_back(&e);
  check_coverage(regions, buffer_size);

  const uint8_t* buffer = data + 8 + header_len;
  for (const Entry& e : entries) {
    out.names.push_back(e.name);
    out.tensors.push_back(decode(e, buffer + e.begin));
  }
  return out;
}

// ------------------------------------------------------------------ writing
std::vector<uint8_t> save_safetensors(const std::vector<std::string>& names,
                                      const std::vector<Tensor>& tensors,
                                      const std::map<std::string, std::string>& metadata) {
  check(names.size() == tensors.size(), "save: got ", names.size(), " names but ", tensors.size(),
        " tensors");
  std::string header = "{";
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [key, value] : metadata) {
      check(json::valid_utf8(key) && json::valid_utf8(value), "save: metadata key '", key,
            "' or its value is not valid UTF-8");
      if (!first) header += ',';
      first = false;
      header += json::quote(key) + ":" + json::quote(value);
    }
    header += "}";
  }
  std::set<std::string_view> seen;
  std::vector<Tensor> contiguous;
  uint64_t offset = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    const Tensor& t = tensors[i];
    check(t.defined(), "save: tensor '", name, "' is null");
    check(name != "__metadata__", "save: '__metadata__' is reserved and cannot name a tensor");
    check(json::valid_utf8(name), "save: tensor name at index ", i, " is not valid UTF-8");
    check(seen.insert(name).second, "save: the tensor name '", name, "' is used twice");
    check(t.device() == Device::CPU, "save: tensor '", name, "' must be on the cpu");
    const char* dtype = file_dtype_name(t.dtype());
    const uint64_t bytes = static_cast<uint64_t>(t.numel()) * dtype_size(t.dtype());
    if (header.size() > 1) header += ',';
    header += json::quote(name) + ":{\"dtype\":\"" + dtype + "\",\"shape\":[";
    for (size_t d = 0; d < t.shape().size(); ++d)
      header += (d ? "," : "") + std::to_string(t.shape()[d]);
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," +
              std::to_string(offset + bytes) + "]}";
    offset += bytes;
    contiguous.push_back(as_contiguous(t));
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');

  const uint64_t total = 8 + header.size() + offset;
  check(total <= std::numeric_limits<size_t>::max(), "save: the file would be ", total,
        " bytes, too large for memory");
  std::vector<uint8_t> out;
  out.reserve(static_cast<size_t>(total));
  write_le(out, header.size(), 8);
  out.insert(out.end(), header.begin(), header.end());
  for (const Tensor& t : contiguous) {
    const int64_t n = t.numel();
    if (t.dtype() == DType::Bool) {
      const uint8_t* in = t.u8();
      for (int64_t i = 0; i < n; ++i) out.push_back(in[i] != 0);
      continue;
    }
    // Every other dtype: its bytes, little-endian.
    const size_t elem = dtype_size(t.dtype());
    const uint8_t* in = static_cast<const uint8_t*>(t.raw());
    if constexpr (std::endian::native == std::endian::little) {
      out.insert(out.end(), in, in + n * elem);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        uint64_t v = 0;
        std::memcpy(&v, in + elem * i, elem);
        write_le(out, v, static_cast<int>(elem));
      }
    }
  }
  return out;
}

}  // namespace sg::io
