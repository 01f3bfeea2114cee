// In-place ops (inplace.h). Each is its out-of-place op plus three steps: the checks PyTorch
// makes, writing the result into x (version + 1), and, when the change is recorded, rebasing x's
// history onto the out-of-place op's node. The out-of-place op then reads x's value and history
// from before the change: an alias of x as it was, cloned first when the op's formula saves its
// input (x's storage is about to change under it).
#include "ops/inplace.h"

#include <cmath>
#include <functional>
#include <string>

#include "autograd/grad_mode.h"
#include "autograd/record.h"
#include "core/copy.h"
#include "core/error.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

namespace {

using OutOfPlace = std::function<Tensor(const Tensor& self)>;

int width(DType d) { return d == DType::Bool ? 0 : d == DType::Int32 ? 1 : 2; }

bool recorded(const Tensor& x, std::initializer_list<Tensor> operands) {
  return grad_enabled() && x.dtype() == DType::Float32 && (x.requires_grad() || any_requires_grad(operands));
}

void check_target(const char* op, const Tensor& x, bool recording) {
  check(x.defined(), op, ": the tensor to change is undefined");
  if (grad_enabled() && x.is_leaf() && x.requires_grad())
    fail(op, ": a leaf Variable that requires grad is being used in an in-place operation (as in PyTorch: change it "
             "inside sg.noGrad, e.g. an initialization or an optimizer step, or change a clone() of it)");
  if (recording && x.impl()->storage->graph_view())
    fail(op, ": in-place changes are not supported on a tensor whose storage a view in the autograd graph shares "
             "(a view, reshape, transpose, slice, ... of a tensor that requires grad, or the base of one); use the "
             "out-of-place op, or change a clone()");
}

void bump(const Tensor& x) { x.impl()->storage->bump_version(); }

// x ← r. Unless `any_cast` (copy_), r's dtype must fit in x's (PyTorch's "result type Float
// can't be cast to the desired output type Int").
void write_back(const char* op, const Tensor& x, const Tensor& r, bool any_cast) {
  check(r.shape() == x.shape(), op, ": output with shape ", x.shape(), " doesn't match the broadcast shape ",
        r.shape());
  check(any_cast || width(r.dtype()) <= width(x.dtype()), op, ": result type ", dtype_name(r.dtype()),
        " can't be cast to the desired output type ", dtype_name(x.dtype()));
  copy_into(x, r);
  bump(x);
}

// x as it is now, value and history, in a TensorImpl of its own: x's is about to change.
Tensor as_before(const Tensor& x) {
  auto impl = std::make_shared<TensorImpl>();
  const TensorImpl& now = *x.impl();
  impl->storage = now.storage;
  impl->shape = now.shape;
  impl->strides = now.strides;
  impl->offset = now.offset;
  impl->dtype = now.dtype;
  impl->requires_grad = now.requires_grad;
  impl->grad_fn = now.grad_fn;
  return Tensor(std::move(impl));
}

// x ← f(x) with the rules of inplace.h. `saves_self`: f's formula saves its input.
const Tensor& change(const char* op, const Tensor& x, std::initializer_list<Tensor> operands, bool saves_self,
                     const OutOfPlace& f, bool any_cast = false) {
  const bool recording = recorded(x, operands);
  check_target(op, x, recording);
  if (!recording) {
    Tensor r;
    {
      NoGradGuard no_grad;
      r = f(x);
    }
    write_back(op, x, r, any_cast);
    return x;
  }
  Tensor self = as_before(x);
  if (saves_self) self = clone(self);
  const Tensor r = f(self);
  write_back(op, x, r, any_cast);
  x.impl()->grad_fn = r.grad_fn();
  x.impl()->requires_grad = r.requires_grad();
  return x;
}

// Whether `other` reads x's memory in another layout (then a kernel writing x as it reads
// `other` would read elements it already changed).
bool overlaps_differently(const Tensor& x, const Tensor& other) {
  return other.impl()->storage == x.impl()->storage &&
         !(other.offset() == x.offset() && other.shape() == x.shape() && other.strides() == x.strides());
}

// x ← kernel(x, other) written into x itself, when nothing is recorded, x is contiguous
// float32 and `other` broadcasts to x's shape. False when that does not apply.
bool binary_kernel_in_place(const char* op, Binary kernel, const Tensor& x, const Tensor& other) {
  if (recorded(x, {other}) || x.dtype() != DType::Float32 || !x.is_contiguous() || overlaps_differently(x, other) ||
      broadcast_shapes(x.shape(), other.shape(), op) != x.shape())
    return false;
  check_target(op, x, false);
  const Device dev = operands_device(op, {&x, &other});
  const Tensor moved = moved_to(other, dev);
  const Tensor o = moved.dtype() == DType::Float32 ? moved : contiguous_copy(moved, DType::Float32);
  if (x.numel() > 0)
    backend_for(dev).binary_f32(kernel, broadcast_plan(x, o, x.shape()), x.dev_f32(), o.dev_f32(), x.dev_f32());
  bump(x);
  return true;
}

const Tensor& binary_change(const char* op, Binary kernel, const Tensor& x, const Tensor& other, bool saves_self,
                            Tensor (*f)(const Tensor&, const Tensor&)) {
  check(x.defined() && other.defined(), op, ": expected two tensors, got an undefined one");
  if (binary_kernel_in_place(op, kernel, x, other)) return x;
  return change(op, x, {other}, saves_self, [&](const Tensor& self) { return f(self, other); });
}

// other·alpha, or other itself for alpha 1.
Tensor scaled(const Tensor& other, double alpha) { return alpha == 1.0 ? other : mul(other, scalar_tensor(alpha)); }

struct UnaryOp {
  const char* name;
  Unary kernel;
  Tensor (*f)(const Tensor&);
  bool saves_self;  // the out-of-place formula saves x (exp, log, abs, relu) rather than its output
  bool keeps_int;   // int32 stays int32 (neg, abs, relu)
};

const UnaryOp kUnary[] = {
    {"neg_", Unary::Neg, neg, false, true},         {"exp_", Unary::Exp, exp, true, false},
    {"log_", Unary::Log, log, true, false},         {"sqrt_", Unary::Sqrt, sqrt, false, false},
    {"abs_", Unary::Abs, abs, true, true},          {"sigmoid_", Unary::Sigmoid, sigmoid, false, false},
    {"tanh_", Unary::Tanh, tanh, false, false},     {"relu_", Unary::Relu, relu, true, true},
};

}  // namespace

const Tensor& add_(const Tensor& x, const Tensor& other, double alpha) {
  if (alpha == 1.0) return binary_change("add_", Binary::Add, x, other, false, add);
  return change("add_", x, {other}, false, [&](const Tensor& self) { return add(self, scaled(other, alpha)); });
}

const Tensor& sub_(const Tensor& x, const Tensor& other, double alpha) {
  if (alpha == 1.0) return binary_change("sub_", Binary::Sub, x, other, false, sub);
  return change("sub_", x, {other}, false, [&](const Tensor& self) { return sub(self, scaled(other, alpha)); });
}

const Tensor& mul_(const Tensor& x, const Tensor& other) { return binary_change("mul_", Binary::Mul, x, other, true, mul); }
const Tensor& div_(const Tensor& x, const Tensor& other) { return binary_change("div_", Binary::Div, x, other, false, div); }
const Tensor& pow_(const Tensor& x, const Tensor& exponent) {
  return binary_change("pow_", Binary::Pow, x, exponent, true, pow);
}

const Tensor& clamp_(const Tensor& x, std::optional<double> lo, std::optional<double> hi) {
  return change("clamp_", x, {}, true, [&](const Tensor& self) { return clamp(self, lo, hi); });
}

const Tensor& masked_fill_(const Tensor& x, const Tensor& mask, double value) {
  return change("maskedFill_", x, {}, false, [&](const Tensor& self) { return masked_fill(self, mask, value); });
}

const Tensor& addcmul_(const Tensor& x, const Tensor& t1, const Tensor& t2, double value) {
  return change("addcmul_", x, {t1, t2}, false,
                [&](const Tensor& self) { return add(self, scaled(mul(t1, t2), value)); });
}

const Tensor& addcdiv_(const Tensor& x, const Tensor& t1, const Tensor& t2, double value) {
  return change("addcdiv_", x, {t1, t2}, false,
                [&](const Tensor& self) { return add(self, scaled(div(t1, t2), value)); });
}

const Tensor& unary_(const char* op, const Tensor& x) {
  for (const UnaryOp& u : kUnary) {
    if (std::string(op) != u.name) continue;
    check(x.defined(), op, ": the tensor to change is undefined");
    const bool int_result = u.keeps_int && x.dtype() == DType::Int32;
    if (!int_result)
      check(x.dtype() == DType::Float32, op, ": result type float32 can't be cast to the desired output type ",
            dtype_name(x.dtype()));
    if (!recorded(x, {}) && x.dtype() == DType::Float32 && x.is_contiguous()) {
      check_target(op, x, false);
      if (x.numel() > 0) backend_for(x.device()).unary_f32(u.kernel, 0.0f, x.dev_f32(), x.dev_f32(), x.numel());
      bump(x);
      return x;
    }
    return change(op, x, {}, u.saves_self, u.f);
  }
  fail("unary_: unknown in-place op '", op, "'");
}

namespace {
// fill_ and zero_, each named as the user called it in its errors.
const Tensor& fill_as(const char* op, const Tensor& x, double value) {
  check(x.defined(), op, ": the tensor to change is undefined");
  if (!recorded(x, {}) && x.is_contiguous()) {
    check_target(op, x, false);
    (void)full({}, value, x.dtype());  // throws unless the value fits x's dtype
    if (x.numel() > 0) backend_for(x.device()).fill(x.dtype(), value, x.dev_raw(), x.numel());
    bump(x);
    return x;
  }
  return change(op, x, {}, false, [&](const Tensor& self) { return full(self.shape(), value, self.dtype(), self.device()); });
}

}  // namespace

const Tensor& fill_(const Tensor& x, double value) { return fill_as("fill_", x, value); }
const Tensor& zero_(const Tensor& x) { return fill_as("zero_", x, 0.0); }

const Tensor& copy_(const Tensor& x, const Tensor& src) {
  check(x.defined() && src.defined(), "copy_: expected two tensors, got an undefined one");
  const Device dev = operands_device("copy_", {&x, &src});
  const Tensor s = moved_to(src, dev);
  if (!recorded(x, {s})) {
    check_target("copy_", x, false);
    check(broadcast_shapes(x.shape(), s.shape(), "copy_") == x.shape(), "copy_: cannot copy a tensor of shape ",
          s.shape(), " into one of shape ", x.shape());
    copy_into(x, overlaps_differently(x, s) ? contiguous_copy(s) : s);
    bump(x);
    return x;
  }
  // Recorded: x ← 0 + src (broadcast by add, whose gradient sums back to src's shape).
  return change("copy_", x, {s}, false, [&](const Tensor& self) {
    return add(zeros(self.shape(), DType::Float32, dev), s);
  }, true);
}

const Tensor& normal_(const Tensor& x, double mean, double std) {
  check(x.defined() && x.dtype() == DType::Float32, "normal_: expected a float32 tensor, got ",
        x.defined() ? dtype_name(x.dtype()) : "an undefined one");
  check(std >= 0 && std::isfinite(std) && std::isfinite(mean), "normal_: expected a finite mean and std >= 0, got mean ",
        mean, " and std ", std);
  return change("normal_", x, {}, false, [&](const Tensor& self) {
    return add(mul(randn(self.shape(), self.device()), scalar_tensor(std)), scalar_tensor(mean));
  });
}

const Tensor& uniform_(const Tensor& x, double from, double to) {
  check(x.defined() && x.dtype() == DType::Float32, "uniform_: expected a float32 tensor, got ",
        x.defined() ? dtype_name(x.dtype()) : "an undefined one");
  check(std::isfinite(from) && std::isfinite(to) && from <= to, "uniform_: expected finite from <= to, got from ",
        from, " and to ", to);
  return change("uniform_", x, {}, false, [&](const Tensor& self) {
    return add(mul(rand(self.shape(), self.device()), scalar_tensor(to - from)), scalar_tensor(from));
  });
}

}  // namespace sg
