// See conv_pool_ref.h. No TEST_CASEs here: helpers for nn_conv_test.cpp and nn_pool_test.cpp.
#include "conv_pool_ref.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

namespace sgtest {

// ---- JSON ----

bool Json::has(const std::string& key) const {
  for (const auto& [k, v] : object)
    if (k == key) return true;
  return false;
}

const Json& Json::operator[](const std::string& key) const {
  for (const auto& [k, v] : object)
    if (k == key) return v;
  throw std::runtime_error("json: no key '" + key + "'");
}

namespace {

struct Parser {
  const std::string& s;
  size_t i = 0;

  [[noreturn]] void error(const char* what) {
    throw std::runtime_error(std::string("json: ") + what + " at offset " + std::to_string(i));
  }
  void skip_ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
  }
  bool eat(char c) {
    skip_ws();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) error("unexpected character");
  }
  bool word(const char* w) {
    const std::string ws(w);
    if (s.compare(i, ws.size(), ws) != 0) return false;
    i += ws.size();
    return true;
  }
  std::string str() {
    expect('"');
    std::string out;
    while (i < s.size() && s[i] != '"') {
      char c = s[i++];
      if (c == '\\') {
        if (i >= s.size()) error("bad escape");
        char e = s[i++];
        switch (e) {
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          case 'r': out += '\r'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'u': error("\\u escapes are not supported");
          default: out += e;
        }
      } else {
        out += c;
      }
    }
    if (i >= s.size()) error("unterminated string");
    ++i;
    return out;
  }
  Json value() {
    skip_ws();
    if (i >= s.size()) error("unexpected end");
    Json j;
    const char c = s[i];
    if (c == '{') {
      ++i;
      j.kind = Json::Kind::Object;
      if (eat('}')) return j;
      do {
        skip_ws();
        std::string key = str();
        expect(':');
        j.object.push_back({std::move(key), value()});
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++i;
      j.kind = Json::Kind::Array;
      if (eat(']')) return j;
      do j.array.push_back(value());
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      j.kind = Json::Kind::String;
      j.string = str();
    } else if (word("true")) {
      j.kind = Json::Kind::Bool;
      j.boolean = true;
    } else if (word("false")) {
      j.kind = Json::Kind::Bool;
    } else if (word("null")) {
      j.kind = Json::Kind::Null;
    } else {
      const char* start = s.c_str() + i;
      char* end = nullptr;
      j.kind = Json::Kind::Number;
      j.number = std::strtod(start, &end);
      if (end == start) error("unexpected character");
      i += static_cast<size_t>(end - start);
    }
    return j;
  }
};

#ifdef __EMSCRIPTEN__
// Under node the wasm heap has no view of the host files: ask node's fs directly.
EM_JS(int, sgtest_file_size, (const char* path), {
  try {
    return require('fs').statSync(UTF8ToString(path)).size;
  } catch (e) {
    return -1;
  }
});
EM_JS(void, sgtest_file_read, (const char* path, char* buf), {
  HEAPU8.set(require('fs').readFileSync(UTF8ToString(path)), buf);
});
#endif

std::string read_file(const std::string& path) {
#ifdef __EMSCRIPTEN__
  const int size = sgtest_file_size(path.c_str());
  if (size < 0) throw std::runtime_error("cannot read " + path);
  std::string out(static_cast<size_t>(size), '\0');
  if (size > 0) sgtest_file_read(path.c_str(), out.data());
  return out;
#else
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot read " + path);
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
#endif
}

}  // namespace

Json parse_json(const std::string& text) {
  Parser p{text};
  Json j = p.value();
  p.skip_ws();
  if (p.i != text.size()) p.error("trailing characters");
  return j;
}

std::string read_test_data(const std::string& name) {
  // This file is tests/native/conv_pool_ref.cpp; the data sits in tests/data.
  std::string here = __FILE__;
  const size_t slash = here.find_last_of("/\\");
  const std::string dir = slash == std::string::npos ? "." : here.substr(0, slash);
  return read_file(dir + "/../data/" + name);
}

const Json& conv_pool_ref() {
  static const Json j = parse_json(read_test_data("conv_pool_ref.json"));
  return j;
}

sg::Tensor tensor_from_json(const Json& j, bool requires_grad) {
  sg::Shape shape;
  for (const Json& d : j["shape"].array) shape.push_back(static_cast<int64_t>(d.number));
  sg::Tensor t = sg::Tensor::empty(shape);
  const auto& data = j["data"].array;
  REQUIRE(static_cast<int64_t>(data.size()) == t.numel());
  for (size_t i = 0; i < data.size(); ++i) t.f32()[i] = static_cast<float>(data[i].number);
  if (requires_grad) t.set_requires_grad(true);
  return t;
}

sg::Attrs attrs_from_json(const Json& j) {
  sg::Attrs a;
  for (const auto& [key, v] : j.object) {
    switch (v.kind) {
      case Json::Kind::Number: a.set(key, v.number); break;
      case Json::Kind::Bool: a.set(key, v.boolean); break;
      case Json::Kind::String: a.set(key, v.string); break;
      case Json::Kind::Array: {
        std::vector<double> list;
        for (const Json& e : v.array) list.push_back(e.number);
        a.set(key, list);
        break;
      }
      default: break;  // null: absent, as the bindings skip it
    }
  }
  return a;
}

namespace {

void check_close(const std::string& what, const sg::Tensor& got, const Json& want, double atol, double rtol) {
  sg::Shape shape;
  for (const Json& d : want["shape"].array) shape.push_back(static_cast<int64_t>(d.number));
  REQUIRE_MESSAGE(got.defined(), what << ": missing");
  REQUIRE_MESSAGE(got.shape() == shape, what << ": shape " << sg::shape_str(got.shape()) << " vs PyTorch's "
                                             << sg::shape_str(shape));
  const auto& data = want["data"].array;
  int bad = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    const double g = got.at(static_cast<int64_t>(i)), w = data[i].number;
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w))) {
      if (++bad <= 5) CHECK_MESSAGE(false, what << "[" << i << "]: got " << g << ", PyTorch " << w);
    }
  }
  CHECK_MESSAGE(bad == 0, what << ": " << bad << " of " << data.size() << " values differ");
}

}  // namespace

int check_reference_cases(const std::string& prefix, double atol, double rtol) {
  int count = 0;
  for (const Json& c : conv_pool_ref()["cases"].array) {
    const std::string op = c["op"].string;
    if (op.compare(0, prefix.size(), prefix) != 0) continue;
    ++count;
    const std::string name = c["name"].string;
    CAPTURE(name);
    std::vector<sg::Tensor> inputs;
    for (const Json& in : c["inputs"].array)
      inputs.push_back(in.is_null() ? sg::Tensor() : tensor_from_json(in, true));
    std::vector<sg::Tensor> outs = sg::call_op(op, inputs, attrs_from_json(c["attrs"]));
    REQUIRE(outs.size() == 1);
    check_close(name + ": output", outs[0], c["output"], atol, rtol);
    outs[0].backward(tensor_from_json(c["grad_output"], false));
    const auto& grads = c["grads"].array;
    REQUIRE(grads.size() == inputs.size());
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (grads[k].is_null()) continue;
      check_close(name + ": gradient of input " + std::to_string(k), inputs[k].grad(), grads[k], atol, rtol);
    }
  }
  return count;
}

}  // namespace sgtest
