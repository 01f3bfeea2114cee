// Optimizer steps (optim.h): argument checks, lazy state, per-step scalars in double (as
// PyTorch computes them in Python), then the vectorized update kernels: the float32 parameters on
// the CPU that are updated where they live all at once, as one pool job (update_batch.h); any
// other parameter (float64, float16/bfloat16, strided, on another device) by its own call, in
// the parameters' order.
#include "optim/optim.h"

#include <cmath>
#include <initializer_list>
#include <optional>

#include "core/copy.h"
#include "core/error.h"
#include "kernels/backend.h"
#include "optim/optim_kernels.h"
#include "optim/update_batch.h"

namespace sg::optim {

namespace {

// The dtype a parameter's update computes in (PyTorch's CPU optimizers, non-fused path): float64
// parameters in double; float16/bfloat16 parameters in float32, their values and state widened
// (exactly) and each updated value rounded once (to nearest even) on the store.
DType compute_dtype(DType d) { return d == DType::Float64 ? DType::Float64 : DType::Float32; }

// A buffer updated in place, in its compute dtype: the tensor itself when contiguous and of that
// dtype, else a contiguous (widened) copy that finish() writes back, rounded once (a parameter may
// be a strided view; state may be loaded; float16/bfloat16 compute in float32).
class InPlace {
 public:
  explicit InPlace(const Tensor& t) : target_(t), work_(as_contiguous(t, compute_dtype(t.dtype()))) {}
  float* data() const { return work_.dev_f32(); }
  double* data64() const { return work_.f64(); }  // float64 tensors live on the CPU
  void finish() const {
    if (!work_.same(target_)) copy_into(target_, work_);
  }
  // True when the update writes the tensor itself (finish() has nothing to copy back).
  bool direct() const { return work_.same(target_); }

 private:
  Tensor target_, work_;
};

// A parameter's grad in its compute dtype, contiguous.
Tensor grad_values(const Tensor& g) { return as_contiguous(g, compute_dtype(g.dtype())); }
bool is_f64(const Tensor& p) { return p.dtype() == DType::Float64; }

// The buffers of a float32 parameter's update on the CPU, when it can wait in a Batch: the
// parameter and every written state entry updated where they live (nothing to copy back) and
// `g` the grad tensor itself (the batch runs after this parameter's locals are gone, so it may
// point only into tensors the caller's lists hold). Null when the update must run now.
std::optional<UpdateBuffers> batchable(const Tensor& param, const Tensor& grad, const Tensor& g,
                                       std::initializer_list<const InPlace*> written) {
  if (param.dtype() != DType::Float32 || param.device() != Device::CPU || !g.same(grad)) return std::nullopt;
  UpdateBuffers b;
  b.n = param.numel();
  b.grad = g.dev_f32();
  int k = 0;  // written[k] is the k-th entry of `written` (null for an entry not kept)
  for (const InPlace* w : written) {
    if (w && !w->direct()) return std::nullopt;
    b.written[k++] = w ? w->data() : nullptr;
  }
  return b;
}

// The float32 CPU updates of one step, run together by flush() (update_batch.h): kernel(be, b,
// lo, hi, s) updates elements [lo, hi) of the buffers b with the scalars s through the CPU
// backend be. flush() runs before any update that cannot wait (so the parameters are updated in
// their order wherever they may share memory) and at the end of the step.
template <class Scalars, class Kernel>
class Batch {
 public:
  explicit Batch(Kernel kernel) : kernel_(kernel) {}
  void add(const UpdateBuffers& b, const Scalars& s) {
    buffers_.push_back(b);
    scalars_.push_back(s);
  }
  void flush() {
    if (buffers_.empty()) return;
    const Backend& be = backend_for(Device::CPU);
    run_updates(buffers_, [&](size_t i, int64_t lo, int64_t hi) { kernel_(be, buffers_[i], lo, hi, scalars_[i]); });
    buffers_.clear();
    scalars_.clear();
  }

 private:
  Kernel kernel_;
  std::vector<UpdateBuffers> buffers_;
  std::vector<Scalars> scalars_;
};
template <class Scalars, class Kernel>
Batch<Scalars, Kernel> make_batch(Kernel kernel) {
  return Batch<Scalars, Kernel>(kernel);
}

// Buffer k of b from element lo on (null stays null).
inline float* at(float* const (&w)[UpdateBuffers::kMaxWritten], int k, int64_t lo) { return w[k] ? w[k] + lo : nullptr; }

// The state entries an algorithm keeps besides `step`, each created filled with `fill`.
struct StateEntry {
  const char* key;
  double fill;
};
struct StateSpec {
  std::vector<StateEntry> entries;
  bool has_step = true;
};

void check_hyper(bool ok, const char* op, const char* what, double value) {
  check(ok, op, ": invalid ", what, " ", value);
}
void check_non_negative(const char* op, const char* what, double value) {
  // Written as !(x >= 0) so that NaN is rejected too.
  check_hyper(value >= 0, op, what, value);
}

// `what` names the tensor in messages: "grad", or with `key`, "state '<key>'" (built only on
// failure: this runs for every parameter and state entry of every step).
void check_float_tensor(const char* op, size_t i, const char* what, const Tensor& t,
                        const Tensor& param, const char* key = nullptr) {
  const auto name = [&] { return key ? std::string("state '") + key + "'" : std::string(what); };
  if (t.dtype() != param.dtype())
    fail(op, ": parameter ", i, ": ", name(), " must be ", dtype_name(param.dtype()), ", got ", dtype_name(t.dtype()),
         " (the parameter's dtype)");
  if (t.device() != param.device())
    fail(op, ": parameter ", i, ": ", name(), " must be on the parameter's device (", device_name(param.device()),
         "), got ", device_name(t.device()));
  if (t.shape() != param.shape())
    fail(op, ": parameter ", i, ": ", name(), " has shape ", t.shape(), ", expected the parameter's shape ",
         param.shape());
}

void check_param(const char* op, size_t i, const Tensor& p) {
  check(p.defined(), op, ": parameter ", i, " is null");
  const DType d = p.dtype();
  check(d == DType::Float32 || d == DType::Float64 || d == DType::Float16 || d == DType::BFloat16, op,
        ": parameter ", i, " must be float32, float64, float16 or bfloat16 (only floating point tensors can be "
        "optimized), got ", dtype_name(d));
  check(d != DType::Float64 || p.device() == Device::CPU, op, ": parameter ", i,
        ": float64 parameters are optimized on the cpu only, got one on the ", device_name(p.device()), " device");
  check(p.is_leaf(), op, ": parameter ", i,
        " is not a leaf tensor (can't optimize a non-leaf Tensor)");
}

void check_state(const char* op, size_t i, const ParamState& st, const Tensor& p,
                 const StateSpec& spec) {
  for (const StateEntry& e : spec.entries) {
    auto it = st.find(e.key);
    if (it == st.end() || !it->second.defined()) continue;  // created when needed
    check_float_tensor(op, i, "state", it->second, p, e.key);
  }
  if (!spec.has_step) return;
  auto it = st.find("step");
  if (it == st.end() || !it->second.defined()) return;
  const Tensor& s = it->second;
  check(s.numel() == 1 && (s.dtype() == DType::Float32 || s.dtype() == DType::Int32) &&
            s.device() == Device::CPU,
        op, ": parameter ", i, ": state 'step' must be a one-element float32 or int32 tensor, got ",
        dtype_name(s.dtype()), " of shape ", s.shape());
}

// Checks the lists, every parameter, grad and existing state entry; returns the indices of
// the parameters that have a grad. Nothing is written before all of it passed.
std::vector<size_t> prepare(const char* op, const std::vector<Tensor>& params,
                            const std::vector<Tensor>& grads, const std::vector<ParamState>& states,
                            const StateSpec& spec) {
  check(grads.size() == params.size(), op, ": got ", params.size(), " parameters but ",
        grads.size(), " gradients");
  check(states.size() == params.size(), op, ": got ", params.size(), " parameters but ",
        states.size(), " states");
  std::vector<size_t> with_grad;
  for (size_t i = 0; i < params.size(); ++i) {
    check_param(op, i, params[i]);
    if (!grads[i].defined()) continue;
    check_float_tensor(op, i, "grad", grads[i], params[i]);
    check_state(op, i, states[i], params[i], spec);
    with_grad.push_back(i);
  }
  return with_grad;
}

void ensure_state(ParamState& st, const Tensor& p, const StateSpec& spec) {
  for (const StateEntry& e : spec.entries) {
    Tensor& t = st[e.key];
    if (t.defined()) continue;
    t = Tensor::empty(p.shape(), p.dtype(), p.device());  // zero-filled, torch.zeros_like(p)
    if (e.fill != 0 && t.numel() > 0) backend_for(p.device()).fill(p.dtype(), e.fill, t.dev_raw(), t.numel());
  }
  if (spec.has_step) {
    Tensor& s = st["step"];
    if (!s.defined()) s = Tensor::empty({});  // torch.tensor(0.)
  }
}

// state['step'] += 1, in the step tensor's dtype (float32 like PyTorch 1.13); returns it.
double bump_step(ParamState& st) {
  Tensor& s = st["step"];
  if (s.dtype() == DType::Int32) return *s.i32() += 1;
  return *s.f32() += 1.0f;
}

double sign_of(bool maximize) { return maximize ? -1.0 : 1.0; }

// The update kernels of the parameter's device.
const Backend& kernels_of(const Tensor& param) { return backend_for(param.device()); }

// --------------------------------------------------------------------- options
void check_sgd(const SGDOptions& o) {
  check_non_negative("SGD", "learning rate", o.lr);
  check_non_negative("SGD", "momentum value", o.momentum);
  check_non_negative("SGD", "weight_decay value", o.weight_decay);
  check(std::isfinite(o.dampening), "SGD: invalid dampening value ", o.dampening);
  check(!o.nesterov || (o.momentum > 0 && o.dampening == 0),
        "SGD: Nesterov momentum requires a momentum and zero dampening");
}

void check_adam(const char* op, const AdamOptions& o) {
  check_non_negative(op, "learning rate", o.lr);
  check_non_negative(op, "epsilon value", o.eps);
  check_hyper(o.beta1 >= 0 && o.beta1 < 1, op, "beta parameter at index 0:", o.beta1);
  check_hyper(o.beta2 >= 0 && o.beta2 < 1, op, "beta parameter at index 1:", o.beta2);
  check_non_negative(op, "weight_decay value", o.weight_decay);
}

void check_rmsprop(const RMSpropOptions& o) {
  check_non_negative("RMSprop", "learning rate", o.lr);
  check_non_negative("RMSprop", "epsilon value", o.eps);
  check_non_negative("RMSprop", "momentum value", o.momentum);
  check_non_negative("RMSprop", "weight_decay value", o.weight_decay);
  check_non_negative("RMSprop", "alpha value", o.alpha);
}

void check_adagrad(const AdagradOptions& o) {
  check_non_negative("Adagrad", "learning rate", o.lr);
  check_non_negative("Adagrad", "lr_decay value", o.lr_decay);
  check_non_negative("Adagrad", "weight_decay value", o.weight_decay);
  check_non_negative("Adagrad", "initial_accumulator_value value", o.initial_accumulator_value);
  check_non_negative("Adagrad", "epsilon value", o.eps);
}

StateSpec sgd_spec(const SGDOptions& o) {
  StateSpec spec;
  spec.has_step = false;  // momentum_buffer is validated here but created by the first step
  if (o.momentum != 0) spec.entries.push_back({"momentum_buffer", 0});
  return spec;
}
StateSpec adam_spec(const AdamOptions& o) {
  StateSpec spec{{{"exp_avg", 0}, {"exp_avg_sq", 0}}};
  if (o.amsgrad) spec.entries.push_back({"max_exp_avg_sq", 0});
  return spec;
}
StateSpec rmsprop_spec(const RMSpropOptions& o) {
  StateSpec spec{{{"square_avg", 0}}};
  if (o.momentum > 0) spec.entries.push_back({"momentum_buffer", 0});
  if (o.centered) spec.entries.push_back({"grad_avg", 0});
  return spec;
}
StateSpec adagrad_spec(const AdagradOptions& o) {
  return StateSpec{{{"sum", o.initial_accumulator_value}}};
}

void adam_like(const char* op, bool decoupled, const std::vector<Tensor>& params,
               const std::vector<Tensor>& grads, std::vector<ParamState>& states,
               const AdamOptions& o) {
  check_adam(op, o);
  const StateSpec spec = adam_spec(o);
  auto batch = make_batch<AdamScalars>([](const Backend& be, const UpdateBuffers& b, int64_t lo, int64_t hi,
                                          const AdamScalars& s) {
    be.adam_step_f32(b.written[0] + lo, b.grad + lo, b.written[1] + lo, b.written[2] + lo, at(b.written, 3, lo), hi - lo, s);
  });
  for (size_t i : prepare(op, params, grads, states, spec)) {
    ParamState& st = states[i];
    ensure_state(st, params[i], spec);
    const double step = bump_step(st);
    const double bias_correction1 = 1 - std::pow(o.beta1, step);
    const double bias_correction2 = 1 - std::pow(o.beta2, step);
    const auto scalars = [&](auto zero) {
      using T = decltype(zero);
      AdamScalarsT<T> s;
      s.sign = T(sign_of(o.maximize));
      s.decoupled = decoupled;
      s.decay = static_cast<T>(1 - o.lr * o.weight_decay);
      s.l2 = !decoupled && o.weight_decay != 0;
      s.weight_decay = static_cast<T>(o.weight_decay);
      s.beta1 = static_cast<T>(o.beta1);
      s.one_minus_beta1 = static_cast<T>(1 - o.beta1);
      s.beta2 = static_cast<T>(o.beta2);
      s.one_minus_beta2 = static_cast<T>(1 - o.beta2);
      s.bias_correction2_sqrt = static_cast<T>(std::sqrt(bias_correction2));
      s.eps = static_cast<T>(o.eps);
      s.neg_step_size = static_cast<T>(-(o.lr / bias_correction1));
      s.amsgrad = o.amsgrad;
      return s;
    };
    InPlace p(params[i]), m(st["exp_avg"]), v(st["exp_avg_sq"]);
    std::optional<InPlace> vmax;
    if (o.amsgrad) vmax.emplace(st["max_exp_avg_sq"]);
    const Tensor g = grad_values(grads[i]);
    if (auto b = batchable(params[i], grads[i], g, {&p, &m, &v, vmax ? &*vmax : nullptr})) {
      batch.add(*b, scalars(0.0f));
      continue;
    }
    batch.flush();
    const int64_t n = params[i].numel();
    if (is_f64(params[i]))
      ref::adam_f64(p.data64(), g.f64(), m.data64(), v.data64(), vmax ? vmax->data64() : nullptr, n, scalars(0.0));
    else
      kernels_of(params[i]).adam_step_f32(p.data(), g.dev_f32(), m.data(), v.data(), vmax ? vmax->data() : nullptr, n,
                                          scalars(0.0f));
    if (vmax) vmax->finish();
    p.finish();
    m.finish();
    v.finish();
  }
  batch.flush();
}

}  // namespace

// ------------------------------------------------------------------ algorithms
void sgd_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
              std::vector<ParamState>& states, const SGDOptions& o) {
  check_sgd(o);
  const StateSpec spec = sgd_spec(o);
  auto batch = make_batch<SgdScalars>([](const Backend& be, const UpdateBuffers& b, int64_t lo, int64_t hi,
                                         const SgdScalars& s) {
    be.sgd_step_f32(b.written[0] + lo, b.grad + lo, at(b.written, 1, lo), hi - lo, s);
  });
  for (size_t i : prepare("SGD", params, grads, states, spec)) {
    const bool has_momentum = o.momentum != 0;
    std::optional<InPlace> b;
    bool first = false;
    if (has_momentum) {
      Tensor& buf = states[i]["momentum_buffer"];
      first = !buf.defined();
      if (first) buf = Tensor::empty(params[i].shape(), params[i].dtype(), params[i].device());
      b.emplace(buf);
    }
    const auto scalars = [&](auto zero) {
      using T = decltype(zero);
      SgdScalarsT<T> s;
      s.sign = T(sign_of(o.maximize));
      s.has_weight_decay = o.weight_decay != 0;
      s.weight_decay = static_cast<T>(o.weight_decay);
      s.has_momentum = has_momentum;
      s.momentum = static_cast<T>(o.momentum);
      s.one_minus_dampening = static_cast<T>(1 - o.dampening);
      s.nesterov = o.nesterov;
      s.neg_lr = static_cast<T>(-o.lr);
      s.first = first;
      return s;
    };
    InPlace p(params[i]);
    const Tensor g = grad_values(grads[i]);
    if (auto bb = batchable(params[i], grads[i], g, {&p, b ? &*b : nullptr})) {
      batch.add(*bb, scalars(0.0f));
      continue;
    }
    batch.flush();
    const int64_t n = params[i].numel();
    if (is_f64(params[i]))
      ref::sgd_f64(p.data64(), g.f64(), b ? b->data64() : nullptr, n, scalars(0.0));
    else
      kernels_of(params[i]).sgd_step_f32(p.data(), g.dev_f32(), b ? b->data() : nullptr, n, scalars(0.0f));
    if (b) b->finish();
    p.finish();
  }
  batch.flush();
}

void adam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
               std::vector<ParamState>& states, const AdamOptions& o) {
  adam_like("Adam", false, params, grads, states, o);
}

void adamw_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                std::vector<ParamState>& states, const AdamOptions& o) {
  adam_like("AdamW", true, params, grads, states, o);
}

void rmsprop_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                  std::vector<ParamState>& states, const RMSpropOptions& o) {
  check_rmsprop(o);
  const StateSpec spec = rmsprop_spec(o);
  auto batch = make_batch<RmspropScalars>([](const Backend& be, const UpdateBuffers& b, int64_t lo, int64_t hi,
                                             const RmspropScalars& s) {
    be.rmsprop_step_f32(b.written[0] + lo, b.grad + lo, b.written[1] + lo, at(b.written, 2, lo), at(b.written, 3, lo),
                        hi - lo, s);
  });
  for (size_t i : prepare("RMSprop", params, grads, states, spec)) {
    ParamState& st = states[i];
    ensure_state(st, params[i], spec);
    bump_step(st);  // counted as PyTorch does; the update does not use it
    const auto scalars = [&](auto zero) {
      using T = decltype(zero);
      RmspropScalarsT<T> s;
      s.sign = T(sign_of(o.maximize));
      s.has_weight_decay = o.weight_decay != 0;
      s.weight_decay = static_cast<T>(o.weight_decay);
      s.alpha = static_cast<T>(o.alpha);
      s.one_minus_alpha = static_cast<T>(1 - o.alpha);
      s.eps = static_cast<T>(o.eps);
      s.centered = o.centered;
      s.has_momentum = o.momentum > 0;
      s.momentum = static_cast<T>(o.momentum);
      s.neg_lr = static_cast<T>(-o.lr);
      return s;
    };
    InPlace p(params[i]), sq(st["square_avg"]);
    std::optional<InPlace> ga, buf;
    if (o.centered) ga.emplace(st["grad_avg"]);
    if (o.momentum > 0) buf.emplace(st["momentum_buffer"]);
    const Tensor g = grad_values(grads[i]);
    if (auto b = batchable(params[i], grads[i], g, {&p, &sq, ga ? &*ga : nullptr, buf ? &*buf : nullptr})) {
      batch.add(*b, scalars(0.0f));
      continue;
    }
    batch.flush();
    if (is_f64(params[i]))
      ref::rmsprop_f64(p.data64(), g.f64(), sq.data64(), ga ? ga->data64() : nullptr, buf ? buf->data64() : nullptr,
                       params[i].numel(), scalars(0.0));
    else
      kernels_of(params[i]).rmsprop_step_f32(p.data(), g.dev_f32(), sq.data(), ga ? ga->data() : nullptr,
                                             buf ? buf->data() : nullptr, params[i].numel(), scalars(0.0f));
    p.finish();
    sq.finish();
    if (ga) ga->finish();
    if (buf) buf->finish();
  }
  batch.flush();
}

void adagrad_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                  std::vector<ParamState>& states, const AdagradOptions& o) {
  check_adagrad(o);
  const StateSpec spec = adagrad_spec(o);
  auto batch = make_batch<AdagradScalars>([](const Backend& be, const UpdateBuffers& b, int64_t lo, int64_t hi,
                                             const AdagradScalars& s) {
    be.adagrad_step_f32(b.written[0] + lo, b.grad + lo, b.written[1] + lo, hi - lo, s);
  });
  for (size_t i : prepare("Adagrad", params, grads, states, spec)) {
    ParamState& st = states[i];
    ensure_state(st, params[i], spec);
    const double step = bump_step(st);
    const auto scalars = [&](auto zero) {
      using T = decltype(zero);
      AdagradScalarsT<T> s;
      s.sign = T(sign_of(o.maximize));
      s.has_weight_decay = o.weight_decay != 0;
      s.weight_decay = static_cast<T>(o.weight_decay);
      s.eps = static_cast<T>(o.eps);
      s.neg_clr = static_cast<T>(-(o.lr / (1 + (step - 1) * o.lr_decay)));
      return s;
    };
    InPlace p(params[i]), sum(st["sum"]);
    const Tensor g = grad_values(grads[i]);
    if (auto b = batchable(params[i], grads[i], g, {&p, &sum})) {
      batch.add(*b, scalars(0.0f));
      continue;
    }
    batch.flush();
    if (is_f64(params[i]))
      ref::adagrad_f64(p.data64(), g.f64(), sum.data64(), params[i].numel(), scalars(0.0));
    else
      kernels_of(params[i]).adagrad_step_f32(p.data(), g.dev_f32(), sum.data(), params[i].numel(), scalars(0.0f));
    p.finish();
    sum.finish();
  }
  batch.flush();
}

// ------------------------------------------- Adadelta, Adamax, NAdam, RAdam
namespace {

void check_adadelta(const AdadeltaOptions& o) {
  check_non_negative("Adadelta", "learning rate", o.lr);
  check_hyper(o.rho >= 0 && o.rho <= 1, "Adadelta", "rho value (expected a number in [0, 1]):", o.rho);
  check_non_negative("Adadelta", "epsilon value", o.eps);
  check_non_negative("Adadelta", "weight_decay value", o.weight_decay);
}

// Adamax's, NAdam's and RAdam's common checks (Adam's, without amsgrad).
void check_betas(const char* op, const BetasOptions& o) {
  check_non_negative(op, "learning rate", o.lr);
  check_non_negative(op, "epsilon value", o.eps);
  check_hyper(o.beta1 >= 0 && o.beta1 < 1, op, "beta parameter at index 0:", o.beta1);
  check_hyper(o.beta2 >= 0 && o.beta2 < 1, op, "beta parameter at index 1:", o.beta2);
  check_non_negative(op, "weight_decay value", o.weight_decay);
}
void check_adamax(const AdamaxOptions& o) { check_betas("Adamax", o); }
void check_nadam(const NAdamOptions& o) {
  check_betas("NAdam", o);
  check_non_negative("NAdam", "momentum_decay value", o.momentum_decay);
}
void check_radam(const RAdamOptions& o) { check_betas("RAdam", o); }

// The float32 kernel of an update of a parameter, its grad and two state entries.
template <class Scalars>
using TwoStateKernel = void (LayerKernels::*)(float*, const float*, float*, float*, int64_t, const Scalars&) const;

// The Batch of such updates (Adadelta, Adamax, NAdam, RAdam).
template <class Scalars>
auto two_state_batch(TwoStateKernel<Scalars> kernel) {
  return make_batch<Scalars>([kernel](const Backend& be, const UpdateBuffers& b, int64_t lo, int64_t hi, const Scalars& s) {
    (be.*kernel)(b.written[0] + lo, b.grad + lo, b.written[1] + lo, b.written[2] + lo, hi - lo, s);
  });
}

// Runs kernel(p, g, a, b, n, s) on a parameter, its grad and two of its state entries, in place:
// the device's float32 kernel with scalars(0.0f) (through `batch` when it can wait there), or for
// a float64 parameter kernel64 with scalars(0.0) (scalars builds the kernel's scalars in the type
// of its argument).
template <class Batch, class Kernel, class Kernel64, class Scalars>
void update_in_place(Batch& batch, Kernel kernel, Kernel64 kernel64, const Tensor& param, const Tensor& grad,
                     ParamState& st, const char* a, const char* b, const Scalars& scalars) {
  InPlace p(param), x(st[a]), y(st[b]);
  const Tensor g = grad_values(grad);
  if (auto bb = batchable(param, grad, g, {&p, &x, &y})) {
    batch.add(*bb, scalars(0.0f));
    return;
  }
  batch.flush();
  if (is_f64(param))
    kernel64(p.data64(), g.f64(), x.data64(), y.data64(), param.numel(), scalars(0.0));
  else
    (kernels_of(param).*kernel)(p.data(), g.dev_f32(), x.data(), y.data(), param.numel(), scalars(0.0f));
  p.finish();
  x.finish();
  y.finish();
}

template <class T>
MomentsScalarsT<T> moments_scalars(const BetasOptions& o) {
  MomentsScalarsT<T> s;
  s.has_weight_decay = o.weight_decay != 0;
  s.weight_decay = static_cast<T>(o.weight_decay);
  s.beta1 = static_cast<T>(o.beta1);
  s.one_minus_beta1 = static_cast<T>(1 - o.beta1);
  s.beta2 = static_cast<T>(o.beta2);
  s.one_minus_beta2 = static_cast<T>(1 - o.beta2);
  s.eps = static_cast<T>(o.eps);
  return s;
}

StateSpec adadelta_spec() { return StateSpec{{{"square_avg", 0}, {"acc_delta", 0}}}; }
StateSpec adamax_spec() { return StateSpec{{{"exp_avg", 0}, {"exp_inf", 0}}}; }
StateSpec moments_spec() { return StateSpec{{{"exp_avg", 0}, {"exp_avg_sq", 0}}}; }

// NAdam's running product of the momentum coefficients μ_1···μ_t: a one-element float32
// tensor (PyTorch's torch.tensor(1.)), so the product is rounded to float32 at every step as
// PyTorch rounds it.
void check_mu_product(size_t i, const ParamState& st) {
  auto it = st.find("mu_product");
  if (it == st.end() || !it->second.defined()) return;
  const Tensor& t = it->second;
  check(t.numel() == 1 && t.dtype() == DType::Float32 && t.device() == Device::CPU,
        "NAdam: parameter ", i, ": state 'mu_product' must be a one-element float32 tensor, got ",
        dtype_name(t.dtype()), " of shape ", t.shape());
}
Tensor& ensure_mu_product(ParamState& st) {
  Tensor& t = st["mu_product"];
  if (!t.defined()) {
    t = Tensor::empty({});  // a host scalar, as 'step'
    *t.f32() = 1.0f;
  }
  return t;
}

}  // namespace

void adadelta_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                   std::vector<ParamState>& states, const AdadeltaOptions& o) {
  check_adadelta(o);
  const StateSpec spec = adadelta_spec();
  auto batch = two_state_batch<AdadeltaScalars>(&LayerKernels::adadelta_step_f32);
  for (size_t i : prepare("Adadelta", params, grads, states, spec)) {
    ParamState& st = states[i];
    ensure_state(st, params[i], spec);
    bump_step(st);  // counted as PyTorch does; the update does not use it
    const auto scalars = [&](auto zero) {
      using T = decltype(zero);
      AdadeltaScalarsT<T> s;
      s.sign = T(sign_of(o.maximize));
      s.has_weight_decay = o.weight_decay != 0;
      s.weight_decay = static_cast<T>(o.weight_decay);
      s.rho = static_cast<T>(o.rho);
      s.one_minus_rho = static_cast<T>(1 - o.rho);
      s.eps = static_cast<T>(o.eps);
      s.neg_lr = static_cast<T>(-o.lr);
      return s;
    };
    update_in_place(batch, &LayerKernels::adadelta_step_f32, &ref::adadelta_f64, params[i], grads[i], st, "square_avg",
                    "acc_delta", scalars);
  }
  batch.flush();
}

void adamax_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                 std::vector<ParamState>& states, const AdamaxOptions& o) {
  check_adamax(o);
  const StateSpec spec = adamax_spec();
  auto batch = two_state_batch<AdamaxScalars>(&LayerKernels::adamax_step_f32);
  for (size_t i : prepare("Adamax", params, grads, states, spec)) {
    ParamState& st = states[i];
    ensure_state(st, params[i], spec);
    const double step = bump_step(st);
    const auto scalars = [&](auto zero) {
      using T = decltype(zero);
      AdamaxScalarsT<T> s;
      s.sign = T(sign_of(o.maximize));
      s.has_weight_decay = o.weight_decay != 0;
      s.weight_decay = static_cast<T>(o.weight_decay);
      s.beta1 = static_cast<T>(o.beta1);
      s.one_minus_beta1 = static_cast<T>(1 - o.beta1);
      s.beta2 = static_cast<T>(o.beta2);
      s.eps = static_cast<T>(o.eps);
      s.neg_clr = static_cast<T>(-(o.lr / (1 - std::pow(o.beta1, step))));
      return s;
    };
    update_in_place(batch, &LayerKernels::adamax_step_f32, &ref::adamax_f64, params[i], grads[i], st, "exp_avg", "exp_inf",
                    scalars);
  }
  batch.flush();
}

void nadam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                std::vector<ParamState>& states, const NAdamOptions& o) {
  check_nadam(o);
  const StateSpec spec = moments_spec();
  const std::vector<size_t> with_grad = prepare("NAdam", params, grads, states, spec);
  for (size_t i : with_grad) check_mu_product(i, states[i]);
  auto batch = two_state_batch<NadamScalars>(&LayerKernels::nadam_step_f32);
  for (size_t i : with_grad) {
    ParamState& st = states[i];
    ensure_state(st, params[i], spec);
    float& mu_product = *ensure_mu_product(st).f32();
    const double step = bump_step(st);
    const double mu = o.beta1 * (1 - 0.5 * std::pow(0.96, step * o.momentum_decay));
    const double mu_next = o.beta1 * (1 - 0.5 * std::pow(0.96, (step + 1) * o.momentum_decay));
    // mu_product *= mu; mu_product_next = mu_product * mu * mu_next: float32 tensor products.
    mu_product = mu_product * static_cast<float>(mu);
    const float mu_product_next = (mu_product * static_cast<float>(mu)) * static_cast<float>(mu_next);
    const auto scalars = [&](auto zero) {
      using T = decltype(zero);
      NadamScalarsT<T> s;
      s.moments = moments_scalars<T>(o);
      s.bias_correction2 = static_cast<T>(1 - std::pow(o.beta2, step));
      s.grad_coef = static_cast<T>(-o.lr * (1 - mu) / (1 - static_cast<double>(mu_product)));
      s.avg_coef = static_cast<T>(-o.lr * mu_next / (1 - static_cast<double>(mu_product_next)));
      return s;
    };
    update_in_place(batch, &LayerKernels::nadam_step_f32, &ref::nadam_f64, params[i], grads[i], st, "exp_avg", "exp_avg_sq",
                    scalars);
  }
  batch.flush();
}

void radam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                std::vector<ParamState>& states, const RAdamOptions& o) {
  check_radam(o);
  const StateSpec spec = moments_spec();
  auto batch = two_state_batch<RadamScalars>(&LayerKernels::radam_step_f32);
  for (size_t i : prepare("RAdam", params, grads, states, spec)) {
    ParamState& st = states[i];
    ensure_state(st, params[i], spec);
    const double step = bump_step(st);
    const double bias_correction1 = 1 - std::pow(o.beta1, step);
    const double bias_correction2 = 1 - std::pow(o.beta2, step);
    // The length of the approximated simple moving average, and its limit.
    const double rho_inf = 2 / (1 - o.beta2) - 1;
    const double rho_t = rho_inf - 2 * step * std::pow(o.beta2, step) / bias_correction2;
    const auto scalars = [&](auto zero) {
      using T = decltype(zero);
      RadamScalarsT<T> s;
      s.moments = moments_scalars<T>(o);
      s.bias_correction1 = static_cast<T>(bias_correction1);
      s.lr = static_cast<T>(o.lr);
      s.rectified = rho_t > 5;
      if (s.rectified) {
        s.rect = static_cast<T>(std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)));
        s.bias_correction2_sqrt = static_cast<T>(std::sqrt(bias_correction2));
      }
      return s;
    };
    update_in_place(batch, &LayerKernels::radam_step_f32, &ref::radam_f64, params[i], grads[i], st, "exp_avg", "exp_avg_sq",
                    scalars);
  }
  batch.flush();
}

// ------------------------------------------------------------- by name (bindings)
namespace {
SGDOptions sgd_options(const Attrs& a) {
  SGDOptions o;
  o.lr = a.number("SGD", "lr");
  o.momentum = a.number("SGD", "momentum", 0);
  o.dampening = a.number("SGD", "dampening", 0);
  o.weight_decay = a.number("SGD", "weightDecay", 0);
  o.nesterov = a.flag("SGD", "nesterov", false);
  o.maximize = a.flag("SGD", "maximize", false);
  return o;
}
AdamOptions adam_options(const char* op, const Attrs& a, double default_weight_decay) {
  // Attrs has no list-of-reals getter: betas travel as two numbers; a 'betas' list would
  // otherwise be ignored without a word.
  check(!a.has("betas"), op, ": pass betas as the numbers 'beta1' and 'beta2'");
  AdamOptions o;
  o.lr = a.number(op, "lr", 1e-3);
  o.beta1 = a.number(op, "beta1", 0.9);
  o.beta2 = a.number(op, "beta2", 0.999);
  o.eps = a.number(op, "eps", 1e-8);
  o.weight_decay = a.number(op, "weightDecay", default_weight_decay);
  o.amsgrad = a.flag(op, "amsgrad", false);
  o.maximize = a.flag(op, "maximize", false);
  return o;
}
RMSpropOptions rmsprop_options(const Attrs& a) {
  RMSpropOptions o;
  o.lr = a.number("RMSprop", "lr", 1e-2);
  o.alpha = a.number("RMSprop", "alpha", 0.99);
  o.eps = a.number("RMSprop", "eps", 1e-8);
  o.weight_decay = a.number("RMSprop", "weightDecay", 0);
  o.momentum = a.number("RMSprop", "momentum", 0);
  o.centered = a.flag("RMSprop", "centered", false);
  o.maximize = a.flag("RMSprop", "maximize", false);
  return o;
}
AdagradOptions adagrad_options(const Attrs& a) {
  AdagradOptions o;
  o.lr = a.number("Adagrad", "lr", 1e-2);
  o.lr_decay = a.number("Adagrad", "lrDecay", 0);
  o.weight_decay = a.number("Adagrad", "weightDecay", 0);
  o.initial_accumulator_value = a.number("Adagrad", "initialAccumulatorValue", 0);
  o.eps = a.number("Adagrad", "eps", 1e-10);
  o.maximize = a.flag("Adagrad", "maximize", false);
  return o;
}

AdadeltaOptions adadelta_options(const Attrs& a) {
  AdadeltaOptions o;
  o.lr = a.number("Adadelta", "lr", 1.0);
  o.rho = a.number("Adadelta", "rho", 0.9);
  o.eps = a.number("Adadelta", "eps", 1e-6);
  o.weight_decay = a.number("Adadelta", "weightDecay", 0);
  o.maximize = a.flag("Adadelta", "maximize", false);
  return o;
}
// lr, beta1, beta2, eps, weightDecay into o (whose lr already holds the default).
void read_betas(const char* op, const Attrs& a, BetasOptions& o) {
  o.lr = a.number(op, "lr", o.lr);
  o.beta1 = a.number(op, "beta1", o.beta1);
  o.beta2 = a.number(op, "beta2", o.beta2);
  o.eps = a.number(op, "eps", o.eps);
  o.weight_decay = a.number(op, "weightDecay", o.weight_decay);
}
AdamaxOptions adamax_options(const Attrs& a) {
  AdamaxOptions o;
  read_betas("Adamax", a, o);
  o.maximize = a.flag("Adamax", "maximize", false);
  return o;
}
NAdamOptions nadam_options(const Attrs& a) {
  NAdamOptions o;
  read_betas("NAdam", a, o);
  o.momentum_decay = a.number("NAdam", "momentumDecay", o.momentum_decay);
  return o;
}
RAdamOptions radam_options(const Attrs& a) {
  RAdamOptions o;
  read_betas("RAdam", a, o);
  return o;
}

[[noreturn]] void unknown_algorithm(const std::string& algorithm) {
  fail("optimizer: unknown algorithm '", algorithm,
       "' (expected 'SGD', 'Adam', 'AdamW', 'RMSprop', 'Adagrad', 'Adadelta', 'Adamax', 'NAdam' or "
       "'RAdam')");
}
}  // namespace

std::vector<Tensor> grads_of(const std::vector<Tensor>& params) {
  std::vector<Tensor> grads;
  grads.reserve(params.size());
  for (const Tensor& p : params) grads.push_back(p.defined() ? p.grad() : Tensor());
  return grads;
}

void optimizer_step(const std::string& algorithm, const Attrs& hyper,
                    const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                    std::vector<ParamState>& states) {
  if (algorithm == "SGD") return sgd_step(params, grads, states, sgd_options(hyper));
  if (algorithm == "Adam") return adam_step(params, grads, states, adam_options("Adam", hyper, 0));
  if (algorithm == "AdamW")
    return adamw_step(params, grads, states, adam_options("AdamW", hyper, 1e-2));
  if (algorithm == "RMSprop") return rmsprop_step(params, grads, states, rmsprop_options(hyper));
  if (algorithm == "Adagrad") return adagrad_step(params, grads, states, adagrad_options(hyper));
  if (algorithm == "Adadelta") return adadelta_step(params, grads, states, adadelta_options(hyper));
  if (algorithm == "Adamax") return adamax_step(params, grads, states, adamax_options(hyper));
  if (algorithm == "NAdam") return nadam_step(params, grads, states, nadam_options(hyper));
  if (algorithm == "RAdam") return radam_step(params, grads, states, radam_options(hyper));
  unknown_algorithm(algorithm);
}

void optimizer_init_state(const std::string& algorithm, const Attrs& hyper,
                          const std::vector<Tensor>& params, std::vector<ParamState>& states) {
  const char* op = algorithm.c_str();
  StateSpec spec;
  if (algorithm == "SGD") {
    check_sgd(sgd_options(hyper));
    spec = sgd_spec(sgd_options(hyper));
    spec.entries.clear();  // the momentum buffer comes from the first gradient
  } else if (algorithm == "Adam" || algorithm == "AdamW") {
    const AdamOptions o = adam_options(op, hyper, algorithm == "Adam" ? 0 : 1e-2);
    check_adam(op, o);
    spec = adam_spec(o);
  } else if (algorithm == "RMSprop") {
    const RMSpropOptions o = rmsprop_options(hyper);
    check_rmsprop(o);
    spec = rmsprop_spec(o);
  } else if (algorithm == "Adagrad") {
    const AdagradOptions o = adagrad_options(hyper);
    check_adagrad(o);
    spec = adagrad_spec(o);
  } else if (algorithm == "Adadelta") {
    check_adadelta(adadelta_options(hyper));
    spec = adadelta_spec();
  } else if (algorithm == "Adamax") {
    check_adamax(adamax_options(hyper));
    spec = adamax_spec();
  } else if (algorithm == "NAdam") {
    check_nadam(nadam_options(hyper));
    spec = moments_spec();
  } else if (algorithm == "RAdam") {
    check_radam(radam_options(hyper));
    spec = moments_spec();
  } else {
    unknown_algorithm(algorithm);
  }
  // Validate as a step would (every parameter counts, with or without a grad).
  check(states.size() == params.size(), op, ": got ", params.size(), " parameters but ",
        states.size(), " states");
  for (size_t i = 0; i < params.size(); ++i) {
    check_param(op, i, params[i]);
    check_state(op, i, states[i], params[i], spec);
    if (algorithm == "NAdam") check_mu_product(i, states[i]);
  }
  for (size_t i = 0; i < params.size(); ++i) {
    ensure_state(states[i], params[i], spec);
    if (algorithm == "NAdam") ensure_mu_product(states[i]);
  }
}

}  // namespace sg::optim
