// safetensors reader/writer (src/io/safetensors.h) and the JSON reader under it (src/io/json.h).
// Yardsticks: files assembled byte by byte here from the format's specification; a file
// written from torch tensors in the official writer's layout (tests/data/gen_safetensors.py)
// with its values in tests/data/torch_written.json; IEEE half/bfloat16 definitions.
#include "core/half.h"
#include "io/safetensors.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "conv_pool_ref.h"  // sgtest::read_test_data: tests/data files, natively and under node
#include "core/error.h"
#include "core/tensor.h"
#include "io/json.h"
#include "test_util.h"

namespace {

using sg::Tensor;
using sg::io::load_safetensors;
using sg::io::save_safetensors;

using Bytes = std::vector<uint8_t>;

void append_le(Bytes& out, uint64_t v, int bytes) {
  for (int k = 0; k < bytes; ++k) out.push_back(static_cast<uint8_t>(v >> (8 * k)));
}

// [u64 LE header length][header][data]: exactly what the specification describes.
Bytes file_of(const std::string& header, const Bytes& data) {
  Bytes out;
  append_le(out, header.size(), 8);
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

sg::io::Safetensors load(const Bytes& b) { return load_safetensors(b.data(), b.size()); }

// A valid one-tensor file to corrupt: "w" F32 [2] = {1, 2}.
std::string tensor_json(const std::string& name, const std::string& dtype, const std::string& shape,
                        uint64_t begin, uint64_t end) {
  return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape +
         ",\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(end) + "]}";
}

Bytes f32_data(std::initializer_list<uint32_t> words) {
  Bytes out;
  for (uint32_t w : words) append_le(out, w, 4);
  return out;
}

// IEEE binary16 from its definition, in double: (−1)^s · 2^(e−15) · (1 + m/1024), subnormals
// 2^−14 · m/1024.
double half_by_definition(uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v;
  if (e == 31)
    v = m ? NAN : INFINITY;
  else if (e == 0)
    v = std::ldexp(m / 1024.0, -14);
  else
    v = std::ldexp(1 + m / 1024.0, e - 15);
  return s ? -v : v;
}

}  // namespace

TEST_CASE("safetensors: a file assembled byte by byte from the specification loads exactly") {
  // Header in the spec's form, "__metadata__" last and with an escaped string; data regions
  // in a different order from the header's; trailing spaces as padding.
  const std::string header =
      "{\"h\":{\"dtype\":\"F16\",\"shape\":[2,3],\"data_offsets\":[0,12]},"
      "\"b\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[12,16]},"
      "\"i\":{\"dtype\":\"I64\",\"shape\":[3],\"data_offsets\":[24,48]},"
      "\"f\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]},"
      "\"n\":{\"dtype\":\"I32\",\"shape\":[],\"data_offsets\":[48,52]},"
      "\"m\":{\"dtype\":\"BOOL\",\"shape\":[1,3],\"data_offsets\":[52,55]},"
      "\"z\":{\"dtype\":\"F32\",\"shape\":[0,4],\"data_offsets\":[55,55]},"
      "\"__metadata__\":{\"format\":\"pt\",\"caf\\u00e9\":\"a\\\"b\\\\c\\n\\ud83d\\ude00\"}}   ";
  Bytes data;
  // F16: 1.0, −2.0, 2^−24 (smallest subnormal), 65504 (largest), +inf, 1/3 rounded (0x3555).
  for (uint16_t h : {0x3C00, 0xC000, 0x0001, 0x7BFF, 0x7C00, 0x3555}) append_le(data, h, 2);
  // BF16: 1.0, −3.0.
  for (uint16_t b : {0x3F80, 0xC040}) append_le(data, b, 2);
  // F32: π (0x40490FDB) and −0.5 (0xBF000000).
  for (uint32_t w : {0x40490FDBu, 0xBF000000u}) append_le(data, w, 4);
  // I64: 5, −7, 2^31 − 1.
  for (int64_t v : {int64_t(5), int64_t(-7), int64_t(2147483647)})
    append_le(data, static_cast<uint64_t>(v), 8);
  append_le(data, static_cast<uint32_t>(-123456), 4);  // I32 scalar
  for (uint8_t v : {1, 0, 1}) data.push_back(v);       // BOOL

  const auto st = load(file_of(header, data));
  REQUIRE(st.names == std::vector<std::string>{"h", "b", "i", "f", "n", "m", "z"});
  // Each tensor is read in its file dtype (float16, bfloat16, int64 kept as they are).
  const Tensor& h = st.tensors[0];
  CHECK(h.shape() == sg::Shape{2, 3});
  CHECK(h.dtype() == sg::DType::Float16);
  CHECK(h.at(0) == 1.0);
  CHECK(h.at(1) == -2.0);
  CHECK(h.at(2) == std::ldexp(1.0, -24));
  CHECK(h.at(3) == 65504.0);
  CHECK(std::isinf(h.at(4)));
  CHECK(h.at(5) == 0.333251953125);
  CHECK(st.tensors[1].dtype() == sg::DType::BFloat16);
  CHECK(st.tensors[1].at(0) == 1.0);
  CHECK(st.tensors[1].at(1) == -3.0);
  CHECK(st.tensors[2].dtype() == sg::DType::Int64);
  CHECK(st.tensors[2].i64()[0] == 5);
  CHECK(st.tensors[2].i64()[1] == -7);
  CHECK(st.tensors[2].i64()[2] == 2147483647);
  CHECK(st.tensors[3].f32()[0] == 3.14159274f);
  CHECK(st.tensors[3].f32()[1] == -0.5f);
  CHECK(st.tensors[4].ndim() == 0);
  CHECK(st.tensors[4].item() == -123456);
  CHECK(st.tensors[5].dtype() == sg::DType::Bool);
  CHECK(st.tensors[5].shape() == sg::Shape{1, 3});
  CHECK(st.tensors[5].u8()[0] == 1);
  CHECK(st.tensors[5].u8()[1] == 0);
  CHECK(st.tensors[5].u8()[2] == 1);
  CHECK(st.tensors[6].shape() == sg::Shape{0, 4});
  REQUIRE(st.metadata.size() == 2);
  CHECK(st.metadata.at("format") == "pt");
  CHECK(st.metadata.at("caf\xC3\xA9") == "a\"b\\c\n\xF0\x9F\x98\x80");
}

TEST_CASE("safetensors: half and bfloat16 conversions are exact for every bit pattern") {
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    const uint16_t h = static_cast<uint16_t>(bits);
    const double want = half_by_definition(h);
    const float got = sg::f16_to_f32(h);
    if (std::isnan(want)) {
      CHECK(std::isnan(got));
    } else if (got != want || std::signbit(got) != std::signbit(want)) {
      FAIL_CHECK("half 0x" << std::hex << bits << ": got " << got << ", want " << want);
    }
    // bfloat16 is the upper half of a float32.
    uint32_t f32_bits = bits << 16;
    float want_bf;
    std::memcpy(&want_bf, &f32_bits, 4);
    const float got_bf = sg::bf16_to_f32(h);
    if (std::memcmp(&want_bf, &got_bf, 4) != 0) FAIL_CHECK("bfloat16 0x" << std::hex << bits);
  }
}

TEST_CASE("safetensors: save writes the specified layout, byte for byte") {
  Tensor w = Tensor::empty({2});
  w.f32()[0] = 1.0f;   // 0x3F800000
  w.f32()[1] = -2.0f;  // 0xC0000000
  Tensor n = Tensor::empty({}, sg::DType::Int32);
  n.i32()[0] = -1;
  const Bytes got = save_safetensors({"w", "n"}, {w, n}, {{"k", "v"}});
  std::string header =
      "{\"__metadata__\":{\"k\":\"v\"},\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,"
      "8]},"
      "\"n\":{\"dtype\":\"I32\",\"shape\":[],\"data_offsets\":[8,12]}}";
  header.append((8 - header.size() % 8) % 8, ' ');
  Bytes want =
      file_of(header, {0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0xC0, 0xFF, 0xFF, 0xFF, 0xFF});
  CHECK(got == want);
  CHECK((8 + header.size()) % 8 == 0);
  // No metadata: no "__metadata__" key.
  const Bytes plain = save_safetensors({"w"}, {w});
  CHECK(std::string(plain.begin() + 8, plain.begin() + 9) == "{");
  CHECK(std::string(plain.begin(), plain.end()).find("__metadata__") == std::string::npos);
}

TEST_CASE("safetensors: round trip keeps names, order, dtypes, values and metadata") {
  std::mt19937 gen(3);
  std::normal_distribution<float> normal;
  Tensor a = Tensor::empty({3, 5});
  for (int64_t i = 0; i < a.numel(); ++i) a.f32()[i] = normal(gen);
  Tensor at = Tensor::view_of(a, {5, 3}, {1, 5}, 0);  // a transposed view: saved row-major
  Tensor ids = Tensor::empty({4}, sg::DType::Int32);
  for (int i = 0; i < 4; ++i) ids.i32()[i] = i * 1000003 - 2000000;
  Tensor mask = Tensor::empty({2, 2}, sg::DType::Bool);
  mask.u8()[1] = mask.u8()[2] = 1;
  Tensor scalar = Tensor::empty({});
  scalar.f32()[0] = -0.0f;
  Tensor empty = Tensor::empty({0, 7});
  const std::vector<std::string> names = {
      "z.weight", "a.bias", "ids", "mask", "scalar", "empty", "\xC3\xA9t\xC3\xA9 \"q\""};
  const std::vector<Tensor> tensors = {a, at, ids, mask, scalar, empty, a};
  const std::map<std::string, std::string> meta = {{"format", "pt"}, {"epoch", "12"}, {"", "\t"}};
  const Bytes bytes = save_safetensors(names, tensors, meta);
  const auto st = load(bytes);
  CHECK(st.names == names);  // the given order, not sorted
  CHECK(st.metadata == meta);
  REQUIRE(st.tensors.size() == tensors.size());
  for (size_t k = 0; k < tensors.size(); ++k) {
    CAPTURE(names[k]);
    CHECK(st.tensors[k].shape() == tensors[k].shape());
    CHECK(st.tensors[k].dtype() == tensors[k].dtype());
    CHECK(st.tensors[k].is_contiguous());
    for (int64_t i = 0; i < tensors[k].numel(); ++i) CHECK(st.tensors[k].at(i) == tensors[k].at(i));
  }
  CHECK(std::signbit(st.tensors[4].f32()[0]));
  // The header length keeps the data 8-byte aligned.
  uint64_t n = 0;
  for (int k = 7; k >= 0; --k) n = (n << 8) | bytes[k];
  CHECK((8 + n) % 8 == 0);
}

TEST_CASE("safetensors: a file written from torch tensors in the official layout loads") {
  const std::string blob = sgtest::read_test_data("torch_written.safetensors");
  const sg::json::Value want =
      sg::json::parse(sgtest::read_test_data("torch_written.json"), "torch_written.json");
  const auto st = load_safetensors(reinterpret_cast<const uint8_t*>(blob.data()), blob.size());
  const auto& order = want.find("order")->items;
  REQUIRE(st.names.size() == order.size());
  for (size_t k = 0; k < order.size(); ++k) CHECK(st.names[k] == order[k].text);
  const auto& meta = *want.find("metadata");
  CHECK(st.metadata.size() == meta.keys.size());
  for (size_t k = 0; k < meta.keys.size(); ++k)
    CHECK(st.metadata.at(meta.keys[k]) == meta.items[k].text);
  const auto& tensors = *want.find("tensors");
  for (size_t k = 0; k < st.names.size(); ++k) {
    const std::string& name = st.names[k];
    CAPTURE(name);
    const sg::json::Value* w = tensors.find(name);
    REQUIRE(w != nullptr);
    const std::string file_dtype = w->find("file_dtype")->text;
    // Every file dtype is read as itself (F16 as float16, I64 as int64, ...).
    const sg::DType dtype = file_dtype == "BOOL" ? sg::DType::Bool
                            : file_dtype == "I32" ? sg::DType::Int32
                            : file_dtype == "I64" ? sg::DType::Int64
                            : file_dtype == "F16" ? sg::DType::Float16
                            : file_dtype == "BF16" ? sg::DType::BFloat16
                            : file_dtype == "F64" ? sg::DType::Float64
                                                   : sg::DType::Float32;
    const Tensor& t = st.tensors[k];
    CHECK(t.dtype() == dtype);
    sg::Shape shape;
    for (const auto& d : w->find("shape")->items) shape.push_back(static_cast<int64_t>(d.number()));
    CHECK(t.shape() == shape);
    const auto& values = w->find("values")->items;
    REQUIRE(static_cast<int64_t>(values.size()) == t.numel());
    for (size_t i = 0; i < values.size(); ++i) {
      const double v = values[i].is(sg::json::Type::Bool) ? values[i].boolean : values[i].number();
      CHECK(t.at(static_cast<int64_t>(i)) == v);  // every conversion is exact
    }
  }
}

TEST_CASE("safetensors: malformed files are rejected with a message naming the problem") {
  const Bytes two = f32_data({0x3F800000, 0x40000000});
  const auto one = [](const std::string& body) { return "{" + body + "}"; };
  const std::string good = tensor_json("w", "F32", "[2]", 0, 8);
  REQUIRE_NOTHROW(load(file_of(one(good), two)));

  SUBCASE("framing") {
    CHECK_ERROR(
        load(Bytes{1, 2, 3, 4, 5}),
        "load: the data is 5 bytes long; a safetensors file starts with an 8-byte header length");
    CHECK_ERROR(load(Bytes{}), "load: the data is 0 bytes long");
    Bytes f = file_of(one(good), two);
    for (int k = 0; k < 7; ++k) f[k] = 0xFF;
    f[7] = 0x7F;
    CHECK_ERROR(load(f), "load: the header length 9223372036854775807 exceeds the");
    f = file_of(one(good), two);
    f.resize(20);
    CHECK_ERROR(load(f), "exceeds the 12 bytes that follow the length prefix");
  }
  SUBCASE("invalid JSON, UTF-8 and nesting") {
    CHECK_ERROR(load(file_of("{\"w\":", two)),
                "load: header: invalid JSON at byte 5: unexpected end of input");
    CHECK_ERROR(load(file_of("{\"w\":{}", two)), "invalid JSON");
    CHECK_ERROR(load(file_of("{\"w\":tru}", two)), "invalid JSON at byte 5");
    CHECK_ERROR(load(file_of("{\"w\":{\"a\":1,}}", two)), "expected a string key");
    CHECK_ERROR(load(file_of("{\"w\\x\":1}", two)), "invalid escape character");
    CHECK_ERROR(load(file_of("{\"\\ud800\":1}", two)), "lone leading surrogate");
    CHECK_ERROR(load(file_of("{\"\xC3\x28\":1}", two)), "invalid UTF-8 in a string");
    CHECK_ERROR(load(file_of("{\"a\nb\":1}", two)), "control character in a string");
    CHECK_ERROR(load(file_of("{\"x\":01}", two)), "invalid JSON at byte 6: expected '}'");
    CHECK_ERROR(load(file_of(one(good) + " x", two)), "unexpected data after the JSON value");
    CHECK_ERROR(load(file_of("[1]", two)), "load: the header must be a JSON object, got an array");
    CHECK_ERROR(load(file_of(std::string(100, '[') + std::string(100, ']'), two)),
                "nesting deeper than 64 levels");
    CHECK_ERROR(load(file_of("", two)), "unexpected end of input");
  }
  SUBCASE("missing keys and wrong types") {
    CHECK_ERROR(load(file_of("{\"w\":{\"shape\":[2],\"data_offsets\":[0,8]}}", two)),
                "load: tensor 'w' has no 'dtype'");
    CHECK_ERROR(load(file_of("{\"w\":{\"dtype\":\"F32\",\"data_offsets\":[0,8]}}", two)),
                "load: tensor 'w' has no 'shape'");
    CHECK_ERROR(load(file_of("{\"w\":{\"dtype\":\"F32\",\"shape\":[2]}}", two)),
                "load: tensor 'w' has no 'data_offsets'");
    CHECK_ERROR(
        load(file_of(
            "{\"w\":{\"dtype\":\"F32\",\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[0,8]}}",
            two)),
        "load: tensor 'w' has 'dtype' twice");
    CHECK_ERROR(
        load(file_of("{\"w\":[1]}", two)),
        "load: tensor 'w': expected an object with dtype, shape and data_offsets, got an array");
    CHECK_ERROR(load(file_of("{\"w\":{\"dtype\":32,\"shape\":[2],\"data_offsets\":[0,8]}}", two)),
                "'dtype' must be a string, got a number");
    CHECK_ERROR(load(file_of(one(tensor_json("w", "F32", "2", 0, 8)), two)),
                "'shape' must be an array, got a number");
    CHECK_ERROR(load(file_of(one(tensor_json("w", "F32", "[2.0]", 0, 8)), two)),
                "'shape' must hold integers, got 2.0");
    CHECK_ERROR(load(file_of(one(tensor_json("w", "F32", "[\"2\"]", 0, 8)), two)),
                "'shape' must hold integers, got a string");
    CHECK_ERROR(
        load(file_of("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0]}}", two)),
        "'data_offsets' must be an array of two non-negative integers");
    CHECK_ERROR(
        load(file_of("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[-1,8]}}", two)),
        "'data_offsets' must be an array of two non-negative integers");
    CHECK_ERROR(
        load(file_of(
            "{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,18446744073709551616]}}",
            two)),
        "'data_offsets' must be an array of two non-negative integers");
    CHECK_ERROR(load(file_of("{\"__metadata__\":[]," + good + "}", two)),
                "load: '__metadata__' must be an object, got an array");
    CHECK_ERROR(load(file_of("{\"__metadata__\":{\"epoch\":3}," + good + "}", two)),
                "load: '__metadata__' value for key 'epoch' must be a string, got a number");
    CHECK_ERROR(load(file_of("{\"__metadata__\":{\"a\":\"1\",\"a\":\"2\"}," + good + "}", two)),
                "has the key 'a' twice");
    CHECK_ERROR(load(file_of("{\"__metadata__\":{},\"__metadata__\":{}," + good + "}", two)),
                "'__metadata__' twice");
    // Unknown extra keys are ignored, as serde does for the official reader; null metadata is none.
    const std::string extra =
        "{\"__metadata__\":null,\"w\":{\"dtype\":\"F32\",\"extra\":[{\"x\":null}],\"shape\":[2],"
        "\"data_offsets\":[0,8]}}";
    CHECK(load(file_of(extra, two)).metadata.empty());
  }
  SUBCASE("dtypes and dims") {
    CHECK_ERROR(
        load(file_of(one(tensor_json("w", "F8_E4M3", "[8]", 0, 8)), two)),
        "load: tensor 'w' has unsupported dtype F8_E4M3 (supported: F32, F16, BF16, F64, I64, I32, I8, U8, BOOL)");
    CHECK_ERROR(load(file_of(one(tensor_json("w", "float32", "[2]", 0, 8)), two)),
                "unsupported dtype float32");
    CHECK_ERROR(load(file_of(one(tensor_json("w", "F32", "[-2]", 0, 8)), two)),
                "'shape' has a negative dimension -2");
    CHECK_ERROR(load(file_of(one(tensor_json("w", "F32", "[4294967296,4294967296]", 0, 8)), two)),
                "'shape' is too large (the product of its dimensions overflows 64 bits)");
    CHECK_ERROR(load(file_of(one(tensor_json("w", "F32", "[9223372036854775808]", 0, 8)), two)),
                "'shape' must hold integers");
    CHECK_ERROR(load(file_of(one(tensor_json("w", "F32", "[4611686018427387904]", 0, 8)), two)),
                "needs 4611686018427387904 x 4 bytes");  // numel × size overflows 64 bits
    // I64 is read as int64, whole: values beyond int32 (once an Error: narrowed) are kept.
    Bytes big;
    append_le(big, 5, 8);
    append_le(big, static_cast<uint64_t>(int64_t(1) << 40), 8);
    const auto wide = load(file_of(one(tensor_json("ids", "I64", "[2]", 0, 16)), big));
    REQUIRE(wide.tensors[0].dtype() == sg::DType::Int64);
    CHECK(wide.tensors[0].i64()[1] == int64_t(1) << 40);
  }
  SUBCASE("offsets and coverage") {
    CHECK_ERROR(load(file_of(one(tensor_json("w", "F32", "[2]", 8, 4)), two)),
                "load: tensor 'w': data_offsets [8, 4] end before they begin");
    CHECK_ERROR(load(file_of(one(tensor_json("w", "F32", "[4]", 0, 16)), two)),
                "load: tensor 'w': data_offsets [0, 16] lie outside the 8-byte data buffer");
    CHECK_ERROR(load(file_of(one(tensor_json("w", "F32", "[3]", 0, 8)), two)),
                "load: tensor 'w': data_offsets [0, 8] span 8 bytes but shape [3] of F32 needs 3 x "
                "4 bytes");
    CHECK_ERROR(load(file_of(one(tensor_json("a", "F32", "[2]", 0, 8) + "," +
                                 tensor_json("b", "F32", "[1]", 4, 8)),
                             two)),
                "load: tensor 'b' data_offsets [4, 8] overlap the data of another tensor (which "
                "ends at 8)");
    CHECK_ERROR(load(file_of(one(tensor_json("a", "F32", "[1]", 4, 8)), two)),
                "load: the data buffer has a hole: bytes [0, 4) belong to no tensor (tensor 'a' "
                "starts at 4)");
    CHECK_ERROR(load(file_of(one(tensor_json("a", "F32", "[1]", 0, 4)), two)),
                "load: the data buffer has 8 bytes but the tensors cover only the first 4");
    CHECK_ERROR(load(file_of("{}", two)), "the tensors cover only the first 0");
    CHECK_ERROR(load(file_of(one(good + "," + good), two)),
                "load: the header has the tensor name 'w' twice");
    // Zero-size tensors may share an offset; an empty file with an empty header is valid.
    CHECK(load(file_of(one(tensor_json("a", "F32", "[0]", 0, 0) + "," + good + "," +
                           tensor_json("c", "I32", "[0,3]", 8, 8)),
                       two))
              .names.size() == 3);
    CHECK(load(file_of("{}", {})).names.empty());
  }
}

TEST_CASE("safetensors: save rejects what it cannot write") {
  Tensor w = Tensor::empty({2});
  CHECK_ERROR(save_safetensors({"a", "b"}, {w}), "save: got 2 names but 1 tensors");
  CHECK_ERROR(save_safetensors({"a", "a"}, {w, w}), "save: the tensor name 'a' is used twice");
  CHECK_ERROR(save_safetensors({"__metadata__"}, {w}), "save: '__metadata__' is reserved");
  CHECK_ERROR(save_safetensors({"a"}, {Tensor()}), "save: tensor 'a' is null");
  CHECK_ERROR(save_safetensors({"\xFF"}, {w}), "save: tensor name at index 0 is not valid UTF-8");
  CHECK_ERROR(save_safetensors({"a"}, {w}, {{"k", "\xC0\x80"}}),
              "save: metadata key 'k' or its value is not valid UTF-8");
}

TEST_CASE("safetensors: corrupted files never crash the reader (only sg::Error)") {
  Tensor w = Tensor::empty({3, 3});
  for (int i = 0; i < 9; ++i) w.f32()[i] = static_cast<float>(i);
  Tensor ids = Tensor::empty({2}, sg::DType::Int32);
  const Bytes valid = save_safetensors({"w", "ids"}, {w, ids}, {{"format", "pt"}});
  std::mt19937 gen(99);
  int rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    Bytes b = valid;
    const int kind = trial % 3;
    if (kind == 0) {
      b.resize(gen() % b.size());  // truncation
    } else {
      const int flips = 1 + static_cast<int>(gen() % 4);
      for (int k = 0; k < flips; ++k) b[gen() % b.size()] = static_cast<uint8_t>(gen());
    }
    try {
      load(b);
    } catch (const sg::Error&) {
      ++rejected;
    }
  }
  CHECK(rejected > 1000);
}

TEST_CASE("json: numbers, escapes and integer conversions") {
  const auto v = sg::json::parse(
      " {\"a\": [1, -2.5e3, 0, -0, 18446744073709551615, 9223372036854775807, "
      "-9223372036854775808],"
      " \"s\": \"\\u00e9\\t\\/\", \"t\": true, \"f\": false, \"n\": null} ",
      "test");
  const auto& a = v.find("a")->items;
  uint64_t u = 0;
  int64_t i = 0;
  CHECK(a[1].number() == -2500);
  CHECK(!a[1].to_int64(i));
  CHECK((a[3].to_int64(i) && i == 0));
  CHECK((a[4].to_uint64(u) && u == 18446744073709551615ull));
  CHECK(!a[4].to_int64(i));
  CHECK((a[5].to_int64(i) && i == 9223372036854775807ll));
  CHECK((a[6].to_int64(i) && i == std::numeric_limits<int64_t>::min()));
  CHECK(!a[6].to_uint64(u));
  CHECK(v.find("s")->text == "\xC3\xA9\t/");
  CHECK(v.find("t")->boolean);
  CHECK(v.find("f")->is(sg::json::Type::Bool));
  CHECK(v.find("n")->is(sg::json::Type::Null));
  CHECK(v.find("missing") == nullptr);
  CHECK(sg::json::quote("a\"\\\x01\xC3\xA9") == "\"a\\\"\\\\\\u0001\xC3\xA9\"");
  CHECK_ERROR(sg::json::parse("1.", "t"),
              "t: invalid JSON at byte 2: expected a digit after the decimal point");
  CHECK_ERROR(sg::json::parse("-", "t"), "unexpected character");
  CHECK_ERROR(sg::json::parse("1e", "t"), "expected a digit in the exponent");
  CHECK_ERROR(sg::json::parse("\"\\u12G4\"", "t"), "invalid hex digit");
  CHECK_ERROR(sg::json::parse("\"\\udc00\"", "t"), "lone trailing surrogate");
}
