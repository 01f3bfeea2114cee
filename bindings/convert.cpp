// Conversions between JS values and C++ arguments, for the Embind functions (glue.h). Tensors
// travel as handle ids (JS numbers).
#include <emscripten/bind.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "glue.h"

namespace sgjs {

const JsRefs& js_refs() {
  static const JsRefs refs;
  return refs;
}

val handle_value(const sg::Tensor& t) {
  if (!t.defined()) return val::null();
  return val(put(t));
}

val handle_array(const std::vector<sg::Tensor>& ts) {
  val out = val::array();
  for (const sg::Tensor& t : ts) out.call<void>("push", handle_value(t));
  return out;
}

sg::Tensor tensor_or_null(const val& v, const std::string& what) {
  if (v.isNull() || v.isUndefined()) return sg::Tensor();
  if (!v.isNumber()) sg::fail(what, ": expected a tensor id or null");
  return get(v.as<int32_t>(), what);
}

std::vector<sg::Tensor> tensor_list(const val& v, const std::string& what) {
  if (v.isNull() || v.isUndefined()) return {};
  if (!is_array(v)) sg::fail(what, ": expected an array of tensor ids");
  std::vector<sg::Tensor> out;
  const int n = v["length"].as<int>();
  out.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const val e = v[i];
    if (e.isNull() || e.isUndefined()) {
      out.emplace_back();
    } else if (!e.isNumber()) {
      sg::fail(what, "[", i, "]: expected a tensor id or null");
    } else {
      out.push_back(get(e.as<int32_t>(), what + "[" + std::to_string(i) + "]"));
    }
  }
  return out;
}

namespace {
// A JS array of numbers → `out`; false when v is not an array or holds anything else.
bool numbers_of(const val& v, std::vector<double>& out) {
  if (!is_array(v)) return false;
  const int n = v["length"].as<int>();
  for (int i = 0; i < n; ++i) {
    val e = v[i];
    if (!e.isNumber()) return false;
    out.push_back(e.as<double>());
  }
  return true;
}
}  // namespace

sg::Attrs attrs_of(const val& obj, const std::string& what) {
  sg::Attrs attrs;
  if (obj.isNull() || obj.isUndefined()) return attrs;
  if (!obj.typeOf().strictlyEquals(js_refs().object_type) || is_array(obj))
    sg::fail(what, ": expected the attributes to be an object");
  val keys = js_refs().object_keys(obj);
  const int n = keys["length"].as<int>();
  for (int i = 0; i < n; ++i) {
    const std::string key = keys[i].as<std::string>();
    val v = obj[key];
    if (v.isNull() || v.isUndefined()) continue;
    if (v.isNumber()) {
      attrs.set(key, v.as<double>());
    } else if (v.isTrue() || v.isFalse()) {
      attrs.set(key, v.isTrue());
    } else if (v.isString()) {
      attrs.set(key, v.as<std::string>());
    } else if (std::vector<double> list; numbers_of(v, list)) {
      attrs.set(key, std::move(list));
    } else {
      sg::fail(what, ": attribute '", key, "' has an unsupported type");
    }
  }
  return attrs;
}

}  // namespace sgjs
