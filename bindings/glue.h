// Shared pieces of the Embind glue: the handle type JS holds, the one exception wrapper every
// bound function goes through, and the conversions between JS values and C++ arguments.
#pragma once
#include <emscripten/val.h>

#include <exception>
#include <string>
#include <string_view>
#include <type_traits>
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

// Records `message` as the error of the bound call in progress. The JS-side wrapper that
// stack_guard.cpp installs around every bound function and TensorHandle method takes it right
// after the call returns and throws it as a real JS Error (with a stack, instanceof Error).
void set_pending_error(std::string message);

// guarded<&f>: f with every C++ exception caught and recorded by set_pending_error; the call
// then returns normally with a placeholder result (discarded by the JS wrapper, which deletes a
// returned handle). Nothing is thrown out of wasm: a JS exception crossing wasm frames skips
// every C++ destructor on the way (the arguments, the message string) and leaked ~20 bytes of
// heap per failed call (measured with mallinfo), and it skipped the shadow-stack epilogues.
template <auto F>
struct Guarded;

template <class R, class... A, R (*F)(A...)>
struct Guarded<F> {
  static R call(A... args) {
    try {
      return F(std::forward<A>(args)...);
    } catch (const std::exception& e) {
      set_pending_error(e.what());
    } catch (...) {
      set_pending_error("unknown C++ exception");
    }
    if constexpr (std::is_same_v<R, val>) {
      return val::undefined();
    } else if constexpr (!std::is_void_v<R>) {
      return R{};
    }
  }
};

template <auto F>
constexpr auto guarded = &Guarded<F>::call;

// Wraps the named module functions and every TensorHandle method in the JS-side wrapper that
// throws the pending error (see set_pending_error) and keeps the shadow stack balanced
// (stack_guard.cpp). Every function bound through guarded<> must be named here, or its errors
// would go unnoticed. Called once per EMSCRIPTEN_BINDINGS block.
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
// array of handles/null; `prefix` + `what` name it in an error (joined only when one is thrown:
// this runs on every op call)
std::vector<sg::Tensor> tensor_list(const val& v, std::string_view prefix, std::string_view what = {});
std::vector<int64_t> shape_list(const val& v, const std::string& what);     // array of integers
// callOp's attrs object: numbers, booleans, strings and arrays of numbers; null/undefined
// values are left out (the op then uses its default); anything else is an error.
sg::Attrs attrs_of(const val& obj);

}  // namespace sgjs
