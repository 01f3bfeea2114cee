// Keeps the wasm shadow stack balanced when a bound function throws.
//
// Why: guarded<> (glue.h) throws a JS Error out of wasm. A JS exception leaving wasm skips the
// epilogues of the wasm frames it crosses, so __stack_pointer stays below where the call
// began: every throw would leak a few dozen bytes of the 5 MB stack, and after ~100k caught
// errors the module dies with "memory access out of bounds" (measured). Emscripten's
// documented remedy is stackSave()/stackRestore() around the call on the JS side (see
// emscripten-core/emscripten#21606, #21612). This file installs exactly that, once, around every
// function and TensorHandle method the bindings register, so neither the JS layer nor any
// other caller of the raw module has to remember it.
#include <emscripten/em_js.h>
#include <emscripten/emscripten.h>
#include <emscripten/stack.h>

#include <cstdint>

#include "glue.h"

// Defined in Emscripten's compiler-rt (stack_ops.S); not declared in any 3.1.6 header.
extern "C" void stackRestore(uintptr_t sp);

extern "C" {
// Frameless, so they read/write the stack pointer exactly as the JS caller sees it.
EMSCRIPTEN_KEEPALIVE uintptr_t sg_stack_save() { return emscripten_stack_get_current(); }
EMSCRIPTEN_KEEPALIVE void sg_stack_restore(uintptr_t sp) { stackRestore(sp); }
}

// Runs after every static constructor (so after all EMSCRIPTEN_BINDINGS blocks, whatever
// their order): addOnInit puts the callback right behind the constructors in the init queue.
EM_JS(void, sg_install_stack_guards, (const char* function_names), {
  var names = UTF8ToString(function_names).split(",").filter(function(n) { return n; });
  addOnInit(function() {
    function guard(f) {
      return function() {
        var sp = _sg_stack_save();
        try {
          return f.apply(this, arguments);
        } catch (e) {
          _sg_stack_restore(sp);
          throw e;
        }
      };
    }
    names.forEach(function(n) { Module[n] = guard(Module[n]); });
    var proto = Module["TensorHandle"].prototype;
    Object.getOwnPropertyNames(proto).forEach(function(n) {
      if (n !== "constructor" && typeof proto[n] === "function") proto[n] = guard(proto[n]);
    });
  });
});

namespace sgjs {
void install_stack_guards(const std::string& function_names) {
  sg_install_stack_guards(function_names.c_str());
}
}  // namespace sgjs
