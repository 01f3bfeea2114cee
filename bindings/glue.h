// Shared pieces of the glue: the handle table (tensors cross into JS as integers), the error
// channel every call reports through, and the conversions the Embind functions use.
#pragma once
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
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

// ---- the handle table (handles.cpp) ----
// JS holds a tensor as a positive int32 id into this table; 0 means "no tensor". An id carries
// a generation, so a stale id (its slot freed, maybe reused) is an error, never another tensor.
// The table holds one reference per id: release() drops it. Only the JS thread touches it.
int32_t put(sg::Tensor t);  // 0 for an undefined tensor
const sg::Tensor* find(int32_t id);  // the tensor of a live id, else nullptr
// The tensor of `id`; throws sg::Error naming `what` when id is not a live handle.
const sg::Tensor& get(int32_t id, std::string_view what);
sg::Tensor get_or_null(int32_t id, std::string_view what);  // 0 → an undefined tensor
void release(int32_t id);
size_t live_handles();

// ---- the scratch area (op_call.cpp) ----
// Two buffers in the wasm heap that JS writes a call's arguments into and reads its results
// from, through typed-array views: int32 ids, and doubles ("words": attributes, shapes, values).
std::vector<int32_t>& scratch_ids();
std::vector<double>& scratch_words();
// Grows a scratch buffer to at least n entries (JS sees the new size through sg_scratch_size).
template <class T>
void grow_to(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n > 2 * v.size() ? n : 2 * v.size());
}
// Puts tensors into the handle table as a call's results: ids[0..n) new ids (0 for an undefined
// tensor), ids[n..2n) their dtype codes (-1 for none); returns n. All or none: a failure releases
// the ids already made.
int write_results(const std::vector<sg::Tensor>& ts);
// The attributes JS wrote into words[0..n_words) (handles.ts writeAttrs), as callOp reads them.
sg::Attrs scratch_attrs(size_t n_words);
// The name JS interned as `id` (sg_intern); throws sg::Error naming `what` for an unknown id.
const std::string& interned(int32_t id, std::string_view what);
// A string JS wrote as words [length, UTF-16 code units...] starting at words[at], as UTF-8.
std::string string_at(const std::vector<double>& words, size_t at, size_t end);

// ---- the error channel (stack_guard.cpp) ----
// Records `message` as the error of the call in progress. The call then returns normally with a
// failure value; the JS side takes the message (sg_take_error) and throws a real JS Error. Nothing
// is thrown out of wasm: a JS exception crossing wasm frames skips every C++ destructor on the way
// (arguments, message strings: ~20 bytes of heap per failed call, measured with mallinfo) and the
// shadow-stack epilogues.
void set_pending_error(std::string message);

// f() with every C++ exception caught and recorded; `failed` is returned instead.
template <class R, class F>
R catching(R failed, F&& f) noexcept {
  try {
    return f();
  } catch (const std::exception& e) {
    set_pending_error(e.what());
  } catch (...) {
    set_pending_error("unknown C++ exception");
  }
  return failed;
}

// guarded<&f>: an Embind-bound f with every C++ exception caught and recorded; the call then
// returns a placeholder result, which the JS wrapper of install_stack_guards discards before it
// throws the recorded error.
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

// Wraps the named Embind functions in the JS wrapper that throws the pending error and keeps the
// shadow stack balanced (stack_guard.cpp). Every function bound through guarded<> must be named
// here, or its errors would go unnoticed. Called once per EMSCRIPTEN_BINDINGS block.
void install_stack_guards(const std::string& comma_separated_function_names);

// Registers F under `name` through guarded<> and appends the name to `names` (for the guards).
template <auto F>
void def(std::string& names, const char* name) {
  emscripten::function(name, guarded<F>);
  names += name;
  names += ',';
}

// ---- conversions for the Embind functions (convert.cpp) ----
// JS objects the conversions use, looked up once.
struct JsRefs {
  val array = val::global("Array");
  val object_keys = val::global("Object")["keys"];
  val object_type = val("object");  // what typeof gives for an object
};
const JsRefs& js_refs();
inline bool is_array(const val& v) { return v.instanceof(js_refs().array); }

// Each throws sg::Error naming `what` on a value of the wrong kind.
val handle_value(const sg::Tensor& t);                // a new id (a JS number), or null
val handle_array(const std::vector<sg::Tensor>& ts);  // a JS array of new ids
sg::Tensor tensor_or_null(const val& v, const std::string& what);  // id → tensor, null → undefined
std::vector<sg::Tensor> tensor_list(const val& v, const std::string& what);  // array of ids/null
// An attributes object (numbers, booleans, strings, arrays of numbers; null/undefined values
// are left out, so the callee uses its default); anything else is an error naming `what`.
sg::Attrs attrs_of(const val& obj, const std::string& what);

}  // namespace sgjs
