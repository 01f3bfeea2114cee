// The reference-data reader of nn_ref_data.h: a small JSON parser, the file reader (native
// std::ifstream; node's fs under wasm) and the case runner.
#include "nn_ref_data.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/copy.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
// The wasm test binary runs under node: read host files through its fs module.
EM_JS(int, sg_test_file_size, (const char* path), {
  try {
    return require('fs').readFileSync(UTF8ToString(path)).length;
  } catch (e) {
    return -1;
  }
});
EM_JS(void, sg_test_file_read, (const char* path, char* buf, int n), {
  var data = require('fs').readFileSync(UTF8ToString(path));
  HEAPU8.set(data.subarray(0, n), buf);
});
#endif

namespace nntest {

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

  [[noreturn]] void bad(const char* what) const {
    throw std::runtime_error(std::string("json: ") + what + " at offset " + std::to_string(i));
  }
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
  }
  bool word(const char* w) {
    size_t n = std::char_traits<char>::length(w);
    if (s.compare(i, n, w) != 0) return false;
    i += n;
    return true;
  }
  Json value() {
    ws();
    if (i >= s.size()) bad("unexpected end");
    Json j;
    const char c = s[i];
    if (c == '{') {
      j.kind = Json::Kind::Object;
      ++i;
      ws();
      if (s[i] == '}') return ++i, j;
      for (;;) {
        ws();
        std::string key = str();
        ws();
        if (s[i++] != ':') bad("expected ':'");
        j.object.emplace_back(std::move(key), value());
        ws();
        if (s[i] == ',') { ++i; continue; }
        if (s[i++] != '}') bad("expected '}'");
        return j;
      }
    }
    if (c == '[') {
      j.kind = Json::Kind::Array;
      ++i;
      ws();
      if (s[i] == ']') return ++i, j;
      for (;;) {
        j.array.push_back(value());
        ws();
        if (s[i] == ',') { ++i; continue; }
        if (s[i++] != ']') bad("expected ']'");
        return j;
      }
    }
    if (c == '"') {
      j.kind = Json::Kind::String;
      j.string = str();
      return j;
    }
    if (word("null")) return j;
    if (word("true") || word("false")) {
      j.kind = Json::Kind::Bool;
      j.boolean = s[i - 1] == 'e' && s[i - 4] == 't';  // "true" just read, not "false"
      return j;
    }
    j.kind = Json::Kind::Number;
    if (word("NaN")) return j.number = NAN, j;
    if (word("Infinity")) return j.number = INFINITY, j;
    if (word("-Infinity")) return j.number = -INFINITY, j;
    char* end = nullptr;
    j.number = std::strtod(s.c_str() + i, &end);
    if (end == s.c_str() + i) bad("unexpected character");
    i = size_t(end - s.c_str());
    return j;
  }
  std::string str() {
    if (s[i++] != '"') bad("expected a string");
    std::string out;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\') {
        ++i;
        out += s[i] == 'n' ? '\n' : s[i];  // the reference files need no \u escapes
      } else {
        out += s[i];
      }
      ++i;
    }
    ++i;
    return out;
  }
};

std::string data_dir() {
  std::string here = __FILE__;  // .../tests/native/nn_ref_data.cpp
  size_t slash = here.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : here.substr(0, slash);
  return dir + "/../data/";
}

bool close(double got, double want, double rtol, double atol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

void check_tensor(const sg::Tensor& got, const Json& want, double rtol, double atol, const std::string& what) {
  REQUIRE_MESSAGE(got.defined(), what << ": no tensor");
  std::vector<int64_t> shape;
  for (const Json& d : want["shape"].array) shape.push_back(int64_t(d.number));
  REQUIRE_MESSAGE(got.shape() == shape, what << ": shape " << sg::shape_str(got.shape()) << " != "
                                             << sg::shape_str(shape));
  const bool ints = want["dtype"].string == "int32";
  CHECK_MESSAGE((got.dtype() == sg::DType::Int32) == ints, what << ": dtype");
  const std::vector<Json>& data = want["data"].array;
  double scale = 0;
  for (const Json& v : data)
    if (std::isfinite(v.number)) scale = std::max(scale, std::fabs(v.number));
  const double tol = atol * std::max(1.0, scale);
  int bad = 0;
  for (size_t k = 0; k < data.size(); ++k) {
    const double g = got.at(int64_t(k)), w = data[k].number;
    const bool ok = ints ? g == w : close(g, w, rtol, tol);
    if (!ok && ++bad <= 5) CHECK_MESSAGE(ok, what << "[" << k << "]: got " << g << ", PyTorch " << w);
  }
  CHECK_MESSAGE(bad == 0, what << ": " << bad << " of " << data.size() << " elements differ");
}

}  // namespace

Json parse_json(const std::string& text) {
  Parser p{text};
  Json j = p.value();
  p.ws();
  if (p.i != text.size()) p.bad("trailing characters");
  return j;
}

std::string read_data_file(const std::string& name) {
  const std::string path = data_dir() + name;
#ifdef __EMSCRIPTEN__
  const int n = sg_test_file_size(path.c_str());
  if (n < 0) throw std::runtime_error("cannot read " + path);
  std::string text(size_t(n), '\0');
  sg_test_file_read(path.c_str(), text.data(), n);
  return text;
#else
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
#endif
}

const Json& layer_loss_ref() {
  static const Json j = parse_json(read_data_file("layer_loss_ref.json"));
  return j;
}

sg::Tensor to_tensor(const Json& j) {
  if (j.is_null()) return sg::Tensor();
  std::vector<int64_t> shape;
  for (const Json& d : j["shape"].array) shape.push_back(int64_t(d.number));
  const bool ints = j["dtype"].string == "int32";
  sg::Tensor t = sg::Tensor::empty(shape, ints ? sg::DType::Int32 : sg::DType::Float32);
  const std::vector<Json>& data = j["data"].array;
  REQUIRE(int64_t(data.size()) == t.numel());
  for (size_t k = 0; k < data.size(); ++k) {
    if (ints) t.i32()[k] = int32_t(data[k].number);
    else t.f32()[k] = float(data[k].number);
  }
  return t;
}

sg::Attrs to_attrs(const Json& j) {
  sg::Attrs a;
  for (const auto& [k, v] : j.object) {
    switch (v.kind) {
      case Json::Kind::Bool: a.set(k, v.boolean); break;
      case Json::Kind::Number: a.set(k, v.number); break;
      case Json::Kind::String: a.set(k, v.string); break;
      case Json::Kind::Array: {
        std::vector<double> list;
        for (const Json& e : v.array) list.push_back(e.number);
        a.set(k, list);
        break;
      }
      default: break;  // null: left out, as the bindings do
    }
  }
  return a;
}

int run_reference_cases(const std::string& family, double rtol, double atol) {
  int count = 0;
  for (const Json& c : layer_loss_ref()["cases"].array) {
    if (c["family"].string != family) continue;
    ++count;
    const std::string name = c["name"].string;
    CAPTURE(name);
    std::vector<sg::Tensor> inputs;
    for (const Json& in : c["inputs"].array) {
      sg::Tensor t = to_tensor(in);
      if (t.defined() && in["grad"].boolean) t.set_requires_grad(true);
      inputs.push_back(t);
    }
    std::vector<sg::Tensor> outs = sg::call_op(c["op"].string, inputs, to_attrs(c["attrs"]));
    REQUIRE(outs.size() == 1);
    check_tensor(outs[0], c["output"], rtol, atol, name + ": output");
    if (c.has("grads")) {
      outs[0].backward(to_tensor(c["grad_output"]));
      for (size_t i = 0; i < inputs.size(); ++i)
        if (!c["grads"][i].is_null())
          check_tensor(inputs[i].grad(), c["grads"][i], rtol, atol, name + ": grad of input " + std::to_string(i));
    }
    if (c.has("after"))
      for (size_t i = 0; i < inputs.size(); ++i)
        if (!c["after"][i].is_null())
          check_tensor(inputs[i], c["after"][i], rtol, atol, name + ": input " + std::to_string(i) + " after");
  }
  return count;
}

}  // namespace nntest
