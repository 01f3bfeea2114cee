// The lean op entry (bindings/README.md, "Calling an op"): sg_call_op(op, nInputs, nWords) runs
// one op of the registry with its input ids and attributes read from the scratch area, and
// writes the result ids back there. Plain wasm exports with number arguments: no Embind value
// conversions, no JS objects, one JS→wasm call per op.
#include <emscripten/emscripten.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "glue.h"
#include "ops/ops.h"
#include "ops/registry.h"

namespace sgjs {
namespace {

std::vector<int32_t> g_ids(64);
std::vector<double> g_words(256);
std::vector<std::string> g_keys;  // interned attribute names (sg_intern)

// Op ids are indices into the registry's names (sorted); JS reads the same list (opNames()).
const std::vector<std::string>& op_table() {
  static const std::vector<std::string> names = sg::op_names();
  return names;
}

// The registry entry of each op id, found once (a lookup by name per call cost more than a
// small op's kernel).
const std::vector<const sg::OpInfo*>& op_infos() {
  static const std::vector<const sg::OpInfo*> infos = [] {
    std::vector<const sg::OpInfo*> out;
    for (const std::string& name : op_table()) out.push_back(sg::find_op(name));
    return out;
  }();
  return infos;
}

// Attribute value tags (npm/src/runtime/handles.ts writes them), as the words hold them.
constexpr double kNumber = 0, kBool = 1, kString = 2, kList = 3;

void append_utf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// words[at] = n, then n more words: the count of a string or a list, checked against `end`.
size_t counted(const std::vector<double>& words, size_t at, size_t end) {
  if (at >= end) sg::fail("callOp: malformed attributes (truncated)");
  const double n = words[at];
  if (!(n >= 0 && n <= static_cast<double>(end - at - 1))) sg::fail("callOp: malformed attributes (count ", n, ")");
  return static_cast<size_t>(n);
}

sg::Attrs read_attrs(size_t end) {
  const std::vector<double>& w = g_words;
  sg::Attrs attrs;
  size_t i = 0;
  while (i < end) {
    if (i + 3 > end) sg::fail("callOp: malformed attributes (truncated)");
    const double key = w[i];
    if (!(key >= 0 && key < static_cast<double>(g_keys.size())))
      sg::fail("callOp: malformed attributes (key ", key, ")");
    const std::string& name = g_keys[static_cast<size_t>(key)];
    const double tag = w[i + 1];
    i += 2;
    if (tag == kNumber) {
      attrs.set(name, w[i++]);
    } else if (tag == kBool) {
      attrs.set(name, w[i++] != 0);
    } else if (tag == kString) {
      const size_t n = counted(w, i, end);
      attrs.set(name, string_at(w, i, end));
      i += 1 + n;
    } else if (tag == kList) {
      const size_t n = counted(w, i, end);
      attrs.set(name, std::vector<double>(w.begin() + static_cast<ptrdiff_t>(i + 1),
                                          w.begin() + static_cast<ptrdiff_t>(i + 1 + n)));
      i += 1 + n;
    } else {
      sg::fail("callOp: malformed attributes (tag ", tag, ")");
    }
  }
  return attrs;
}

// Fills `inputs` (kept between calls, so that its buffer is allocated once) from ids[0..n).
void read_inputs(const std::string& op, size_t n, std::vector<sg::Tensor>& inputs) {
  inputs.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const int32_t id = g_ids[i];
    if (id == 0) {
      inputs.emplace_back();
    } else if (const sg::Tensor* t = find(id)) {
      inputs.push_back(*t);
    } else {
      sg::fail(op, ": inputs[", i, "]: ", id, " is not a live tensor handle (a disposed tensor?)");
    }
  }
}

// The inputs of the outermost call in progress, in a vector kept between calls (its buffer is
// allocated once); emptied when the call ends, so they keep no tensor alive. A call made while
// another runs (an op that calls JavaScript, which calls an op) uses a vector of its own.
std::vector<sg::Tensor> g_inputs;
int g_depth = 0;
struct InputsOfThisCall {
  std::vector<sg::Tensor> own;
  std::vector<sg::Tensor>& inputs = g_depth == 0 ? g_inputs : own;
  InputsOfThisCall() { ++g_depth; }
  ~InputsOfThisCall() {
    inputs.clear();
    --g_depth;
  }
};

}  // namespace

// Puts each result into the handle table: ids[0..n) the ids (0 for an undefined result),
// ids[n..2n) their dtype codes (-1 for none), so JS knows a result's dtype without asking.
int write_results(const std::vector<sg::Tensor>& out) {
  const size_t n = out.size();
  grow_to(g_ids, 2 * n);
  size_t done = 0;
  try {
    for (; done < n; ++done) {
      g_ids[done] = put(out[done]);
      g_ids[n + done] = out[done].defined() ? static_cast<int32_t>(out[done].dtype()) : -1;
    }
  } catch (...) {
    for (size_t k = 0; k < done; ++k)
      if (g_ids[k] != 0) release(g_ids[k]);
    throw;
  }
  return static_cast<int>(n);
}

std::vector<int32_t>& scratch_ids() { return g_ids; }
std::vector<double>& scratch_words() { return g_words; }

sg::Attrs scratch_attrs(size_t n_words) {
  if (n_words > g_words.size()) sg::fail("malformed call (", n_words, " attribute words)");
  return read_attrs(n_words);
}

const std::string& interned(int32_t id, std::string_view what) {
  if (id < 0 || static_cast<size_t>(id) >= g_keys.size()) sg::fail(what, ": unknown name id ", id);
  return g_keys[static_cast<size_t>(id)];
}

std::string string_at(const std::vector<double>& words, size_t at, size_t end) {
  const size_t n = counted(words, at, end);
  std::string out;
  out.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    uint32_t c = static_cast<uint32_t>(words[at + 1 + k]) & 0xFFFF;
    // A surrogate pair is one code point; a lone surrogate becomes U+FFFD (as TextEncoder does).
    if (c >= 0xD800 && c < 0xDC00 && k + 1 < n) {
      const uint32_t low = static_cast<uint32_t>(words[at + 2 + k]) & 0xFFFF;
      if (low >= 0xDC00 && low < 0xE000) {
        c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
        ++k;
      }
    }
    if (c >= 0xD800 && c < 0xE000) c = 0xFFFD;
    append_utf8(out, c);
  }
  return out;
}

}  // namespace sgjs

using namespace sgjs;

extern "C" {

// The address of scratch buffer `which` (0: ids, 1: words), grown to at least min_size entries;
// -1 when that allocation fails. Any call may grow the buffers: JS re-reads the size after it.
EMSCRIPTEN_KEEPALIVE double sg_scratch(int which, int min_size) {
  return catching(-1.0, [&] {
    const size_t n = min_size > 0 ? static_cast<size_t>(min_size) : 0;
    if (which == 0) {
      grow_to(g_ids, n);
      return static_cast<double>(reinterpret_cast<uintptr_t>(g_ids.data()));
    }
    grow_to(g_words, n);
    return static_cast<double>(reinterpret_cast<uintptr_t>(g_words.data()));
  });
}

EMSCRIPTEN_KEEPALIVE int sg_scratch_size(int which) {
  return static_cast<int>(which == 0 ? g_ids.size() : g_words.size());
}

// The id of an attribute name written as a string at words[at..end); the same name always gets
// the same id. JS asks once per name and keeps the id.
EMSCRIPTEN_KEEPALIVE int sg_intern(int at, int end) {
  return catching(-1, [&] {
    if (at < 0 || end < at || static_cast<size_t>(end) > g_words.size()) sg::fail("intern: malformed call");
    const std::string name = string_at(g_words, static_cast<size_t>(at), static_cast<size_t>(end));
    // Room for every attribute name the JS layer uses, taken once: later names then allocate
    // nothing (short names live inside std::string), so the heap stays flat after the first op.
    if (g_keys.capacity() == 0) g_keys.reserve(256);
    for (size_t k = 0; k < g_keys.size(); ++k)
      if (g_keys[k] == name) return static_cast<int>(k);
    g_keys.push_back(name);
    return static_cast<int>(g_keys.size() - 1);
  });
}

// Runs op number `op` (an index into opNames()) on ids[0..n_inputs) (0 = an absent optional
// tensor) with the attributes in words[0..n_words). Returns the number of results n (their ids
// and dtype codes in ids[0..2n)), or -1 with the error pending.
EMSCRIPTEN_KEEPALIVE int sg_call_op(int op, int n_inputs, int n_words) {
  return catching(-1, [&] {
    const std::vector<std::string>& names = op_table();
    if (op < 0 || static_cast<size_t>(op) >= names.size()) sg::fail("callOp: unknown op id ", op);
    if (n_inputs < 0 || static_cast<size_t>(n_inputs) > g_ids.size() || n_words < 0 ||
        static_cast<size_t>(n_words) > g_words.size())
      sg::fail("callOp: malformed call (", n_inputs, " inputs, ", n_words, " words)");
    const std::string& name = names[static_cast<size_t>(op)];
    InputsOfThisCall call;
    read_inputs(name, static_cast<size_t>(n_inputs), call.inputs);
    return write_results(sg::call_op(name, *op_infos()[static_cast<size_t>(op)], call.inputs,
                                     read_attrs(static_cast<size_t>(n_words))));
  });
}

// A new zero-filled contiguous tensor of the shape in words[0..ndim) and dtype code `dtype`:
// its id, or -1.
EMSCRIPTEN_KEEPALIVE int sg_empty(int ndim, int dtype) {
  return catching(-1, [&] {
    if (ndim < 0 || static_cast<size_t>(ndim) > g_words.size()) sg::fail("empty: malformed call (ndim ", ndim, ")");
    if (dtype < 0 || dtype >= sg::kNumDTypes) sg::fail("empty: unknown dtype code ", dtype);
    // Attrs checks the sizes are integers, with the message every shape gets.
    sg::Attrs a;
    a.set("shape", std::vector<double>(g_words.begin(), g_words.begin() + ndim));
    return put(sg::Tensor::empty(a.ints("empty", "shape"), static_cast<sg::DType>(dtype)));
  });
}

// A 0-d tensor holding `value` (a number operand of an op): its id, or -1 (an int32 value out
// of range).
EMSCRIPTEN_KEEPALIVE int sg_scalar(double value, int dtype) {
  return catching(-1, [&] {
    if (dtype < 0 || dtype >= sg::kNumDTypes) sg::fail("scalar: unknown dtype code ", dtype);
    return put(sg::scalar_tensor(value, static_cast<sg::DType>(dtype)));
  });
}

}  // extern "C"
