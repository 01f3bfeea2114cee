// The error channel (glue.h): set_pending_error records the message of a failed call and
// sg_take_error hands it to JS. For the Embind functions (guarded<>), the JS wrapper installed
// here throws it and keeps the wasm shadow stack balanced; the plain exports (op_call.cpp,
// handle_calls.cpp) return a failure value and npm/src/runtime/handles.ts takes the message itself.
//
// Why errors travel this way: guarded<> used to throw the JS Error from inside wasm. A JS
// exception leaving wasm skips every C++ destructor and epilogue of the frames it crosses:
// the arguments and the message string leaked (~20 bytes of heap per failed call, measured
// with mallinfo) and __stack_pointer stayed below where the call began, so after ~100k caught
// errors the module died with "memory access out of bounds". Now the C++ call records the
// message (set_pending_error) and returns normally; the wrapper below takes it and throws from
// JS. The stack save/restore stays as a second line of defence (a JS exception can still
// cross wasm from a user's callback), as Emscripten documents (emscripten-core/emscripten#21606).
#include <emscripten/em_js.h>
#include <emscripten/emscripten.h>
#include <emscripten/stack.h>

#include <cstdint>
#include <string>
#include <utility>

#include "glue.h"

// Defined in Emscripten's compiler-rt (stack_ops.S); not declared in any 3.1.6 header.
extern "C" void stackRestore(uintptr_t sp);

namespace {
std::string g_pending_error;
bool g_has_pending_error = false;
}  // namespace

extern "C" {
// Frameless, so they read/write the stack pointer exactly as the JS caller sees it.
EMSCRIPTEN_KEEPALIVE uintptr_t sg_stack_save() { return emscripten_stack_get_current(); }
EMSCRIPTEN_KEEPALIVE void sg_stack_restore(uintptr_t sp) { stackRestore(sp); }

// The message of the last failed call (valid until the next failure), or null; clears it.
EMSCRIPTEN_KEEPALIVE const char* sg_take_error() {
  if (!g_has_pending_error) return nullptr;
  g_has_pending_error = false;
  return g_pending_error.c_str();
}
}

// Runs after every static constructor (so after all EMSCRIPTEN_BINDINGS blocks, whatever
// their order): addOnInit puts the callback right behind the constructors in the init queue.
EM_JS(void, sg_install_stack_guards, (const char* function_names), {
  var names = UTF8ToString(function_names).split(",").filter(function(n) { return n; });
  addOnInit(function() {
    function guard(f) {
      return function() {
        var sp = _sg_stack_save();
        var result;
        try {
          result = f.apply(this, arguments);
        } catch (e) {
          _sg_stack_restore(sp);
          throw e;
        }
        var error = _sg_take_error();
        if (error) {
          var message = UTF8ToString(error);
          // The placeholder result of a failed call is dropped (none holds a tensor id).
          throw new Error(message);
        }
        return result;
      };
    }
    names.forEach(function(n) { Module[n] = guard(Module[n]); });
  });
});

namespace sgjs {
void set_pending_error(std::string message) {
  g_pending_error = std::move(message);
  g_has_pending_error = true;
}

void install_stack_guards(const std::string& function_names) {
  sg_install_stack_guards(function_names.c_str());
}
}  // namespace sgjs
