// Shared pieces of the Embind glue: the handle type JS holds, the one exception wrapper every
// bound function goes through, and the conversions between JS values and C++ arguments.
#pragma once
#include <emscripten/val.h>

#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "ops/registry.h"

namespace sgjs {

using emscripten::val;

// What JS holds: one reference to a tensor. Embind copies it into a heap object per JS handle;
// JS calls .delete() to drop that reference.
struct TensorHandle {
  sg::Tensor t;
};

// Throws `message` as a JavaScript Error (a real Error, with a stack and instanceof Error).
[[noreturn]] void throw_js_error(const std::string& message);

// guarded<&f>: f with every C++ exception turned into a JS Error carrying the same message.
// Every function and method is bound through it, so none can leak a C++ exception (which JS
// would only see as an opaque WebAssembly.Exception). The message is copied out of the catch
// block so the C++ exception is fully finished before the JS throw unwinds this frame.
template <auto F>
struct Guarded;

template <class R, class... A, R (*F)(A...)>
struct Guarded<F> {
  static R call(A... args) {
    std::string message;
    try {
      return F(std::forward<A>(args)...);
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {
      message = "unknown C++ exception";
    }
    throw_js_error(message);
  }
};

template <auto F>
constexpr auto guarded = &Guarded<F>::call;

// Wraps the named module functions and every TensorHandle method in a JS-side stack
// save/restore (stack_guard.cpp explains why). Called once, by the function bindings.
void install_stack_guards(const std::string& comma_separated_function_names);

// JS objects the conversions use on every call, looked up once (a global or module property
// lookup per call was the largest cost of callOp).
struct JsRefs {
  val array = val::global("Array");
  val object_keys = val::global("Object")["keys"];
  val tensor_handle = val::module_property("TensorHandle");
  val object_type = val("object");  // what typeof gives for an object
};
const JsRefs& js_refs();
inline bool is_array(const val& v) { return v.instanceof(js_refs().array); }
inline bool is_handle(const val& v) { return v.instanceof(js_refs().tensor_handle); }

// Conversions (convert.cpp). Each throws sg::Error naming `what` on a value of the wrong kind.
val handle_value(const sg::Tensor& t);                        // a new JS TensorHandle, or null
val handle_array(const std::vector<sg::Tensor>& ts);          // a JS array of new handles
sg::Tensor tensor_or_null(const val& v, const std::string& what);  // handle → tensor, null → undefined
std::vector<sg::Tensor> tensor_list(const val& v, const std::string& what);  // array of handles/null
std::vector<int64_t> shape_list(const val& v, const std::string& what);     // array of integers
// callOp's attrs object: numbers, booleans, strings and arrays of numbers; null/undefined
// values are left out (the op then uses its default); anything else is an error.
sg::Attrs attrs_of(const val& obj);

}  // namespace sgjs
