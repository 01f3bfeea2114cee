#include "ops/registry.h"

#include <cctype>
#include <cmath>
#include <new>
#include <stdexcept>

#include "core/device.h"
#include "core/error.h"
#include "ops/dtype_widening.h"
#include "ops/elementwise.h"
#include "ops/fallback.h"
#include "ops/ops.h"

namespace sg {

namespace {
const std::map<std::string, OpInfo>& table() {
  static const std::map<std::string, OpInfo> t = [] {
    std::map<std::string, OpInfo> m;
    register_all_ops(m);
    register_conv_pool_ops(m);
    register_layer_ops(m);
    register_loss_ops(m);
    register_optim_ops(m);
    register_effect_ops(m);
    register_rnn_ops(m);
    register_inplace_ops(m);
    apply_dtype_policy(m);
    return m;
  }();
  return t;
}

// "conv2d: ..." / "Linear: ..." / "linalg.inv: ...": the message already starts with a name
// (dotted for the functions of a namespace) and a colon.
bool has_op_prefix(const std::string& message) {
  size_t colon = message.find(':');
  if (colon == 0 || colon == std::string::npos) return false;
  for (size_t i = 0; i < colon; ++i)
    if (!std::isalnum(static_cast<unsigned char>(message[i])) && message[i] != '_' && message[i] != '.') return false;
  return true;
}

// masked_fill ≡ maskedFill: equal ignoring underscores and case.
bool same_name(const std::string& a, const std::string& b) {
  auto fold = [](const std::string& s) {
    std::string out;
    for (char c : s)
      if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  return fold(a) == fold(b);
}

const char* type_name(const AttrValue& v) {
  switch (v.index()) {
    case 0: return "a number";
    case 1: return "a boolean";
    case 2: return "a string";
    default: return "an array";
  }
}
}  // namespace

double Attrs::number(const char* op, const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) fail(op, ": missing argument '", name, "'");
  const double* d = std::get_if<double>(&it->second);
  if (!d) fail(op, ": expected '", name, "' to be a number, got ", type_name(it->second));
  if (std::isnan(*d)) fail(op, ": '", name, "' is NaN");
  return *d;
}

double Attrs::number(const char* op, const std::string& name, double fallback) const {
  return has(name) ? number(op, name) : fallback;
}

std::optional<double> Attrs::opt_number(const char* op, const std::string& name) const {
  if (!has(name)) return std::nullopt;
  return number(op, name);
}

int64_t Attrs::integer(const char* op, const std::string& name) const {
  double d = number(op, name);
  if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.0e15)
    fail(op, ": expected '", name, "' to be an integer, got ", d);
  return static_cast<int64_t>(d);
}

int64_t Attrs::integer(const char* op, const std::string& name, int64_t fallback) const {
  return has(name) ? integer(op, name) : fallback;
}

std::optional<int64_t> Attrs::opt_integer(const char* op, const std::string& name) const {
  if (!has(name)) return std::nullopt;
  return integer(op, name);
}

bool Attrs::flag(const char* op, const std::string& name, bool fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const bool* b = std::get_if<bool>(&it->second);
  if (!b) fail(op, ": expected '", name, "' to be a boolean, got ", type_name(it->second));
  return *b;
}

std::string Attrs::str(const char* op, const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string* s = std::get_if<std::string>(&it->second);
  if (!s) fail(op, ": expected '", name, "' to be a string, got ", type_name(it->second));
  return *s;
}

std::vector<int64_t> Attrs::ints(const char* op, const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return {};
  if (std::holds_alternative<double>(it->second)) return {integer(op, name)};
  const auto* list = std::get_if<std::vector<double>>(&it->second);
  if (!list) fail(op, ": expected '", name, "' to be a number or an array of integers, got ",
                  type_name(it->second));
  std::vector<int64_t> out;
  for (double d : *list) {
    if (!std::isfinite(d) || d != std::floor(d))
      fail(op, ": expected '", name, "' to hold integers, got ", d);
    out.push_back(static_cast<int64_t>(d));
  }
  return out;
}

namespace {
// How deep the current thread is inside ops: only calls made at depth 0 reach the observer.
thread_local int op_depth = 0;
thread_local OpObserver* op_observer = nullptr;

struct Nested {
  Nested() { ++op_depth; }
  ~Nested() { --op_depth; }
};
}  // namespace

OpObserver* set_op_observer(OpObserver* observer) {
  OpObserver* prev = op_observer;
  op_observer = observer;
  return prev;
}

const OpInfo* find_op(const std::string& name) {
  auto it = table().find(name);
  return it == table().end() ? nullptr : &it->second;
}

bool is_impure(const OpInfo& info, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  return info.impure || (info.mutates && !info.mutates(inputs, attrs).empty());
}

std::vector<Tensor> call_op(const std::string& name, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  const OpInfo* found = find_op(name);
  if (!found) fail("unknown op '", name, "'");
  return call_op(name, *found, inputs, attrs);
}

std::vector<Tensor> call_op(const std::string& name, const OpInfo& info, const std::vector<Tensor>& inputs,
                            const Attrs& attrs) {
  int n = static_cast<int>(inputs.size());
  if (n < info.min_inputs || (info.max_inputs >= 0 && n > info.max_inputs))
    fail(name, ": expected ", info.min_inputs,
         info.max_inputs == info.min_inputs ? "" : (info.max_inputs < 0 ? " or more" : " to " + std::to_string(info.max_inputs)),
         " tensor arguments, got ", n);
  if (op_observer && op_depth == 0) return op_observer->on_op(name, info, inputs, attrs);
  return run_op(name, info, inputs, attrs);
}

std::vector<Tensor> run_op(const std::string& name, const OpInfo& info, const std::vector<Tensor>& inputs,
                           const Attrs& attrs, bool traced) {
  Nested nested;
  const OpFn& fn = traced && info.trace ? info.trace : info.fn;
  try {
    // A dtype the op has no kernels for is computed in a wider one (ops/dtype_widening.h); the
    // float32/int32/bool path below is untouched by it.
    if ((!info.any_dtype && !computes_natively(info, inputs)) || (info.any_dtype && widen_for_grad(name, inputs)))
      return run_widened(name, info, inputs, attrs,
                         [&](const std::vector<Tensor>& wide) { return run_op(name, info, wide, attrs, traced); });
    if (info.any_dtype && has_wide_index(inputs))
      if (std::vector<Tensor> narrowed = with_int32_index(name, inputs); !narrowed.empty())
        return run_op(name, info, narrowed, attrs, traced);
    if (info.any_device) return fn(inputs, attrs);
    const Device device = operands_device(name.c_str(), inputs);
    if (device == Device::CPU) return fn(inputs, attrs);
    // Scalars (0-d CPU tensors: the numbers of a JS call) join the op's device, with autograd.
    std::vector<Tensor> on_device;
    on_device.reserve(inputs.size());
    for (const Tensor& t : inputs) on_device.push_back(t.defined() ? to_device(t, device) : t);
    if (!device_runtime(device)->supports(name)) return run_on_cpu(name, fn, on_device, attrs, device);
    return fn(on_device, attrs);
  } catch (const Error& e) {
    // Messages from shared helpers (allocation, shape checks) do not know which op called
    // them: prefix the op's JS name so that every error names the function the user called.
    // A C++ spelling of the same name (masked_fill for maskedFill) becomes the JS one.
    const std::string message = e.what();
    const size_t colon = message.find(':');
    if (!has_op_prefix(message)) throw Error(name + ": " + message);
    const std::string prefix = message.substr(0, colon);
    if (prefix != name && same_name(prefix, name)) throw Error(name + message.substr(colon));
    throw;
  } catch (const std::bad_alloc&) {
    throw Error(name + ": out of memory: a temporary buffer could not be allocated");
  } catch (const std::length_error&) {
    throw Error(name + ": out of memory: a temporary buffer would exceed the address space");
  }
}

std::vector<std::string> op_names() {
  std::vector<std::string> out;
  for (const auto& [name, _] : table()) out.push_back(name);
  return out;
}

}  // namespace sg
