// Sampling ops over the global Philox generator (core/rng.h): each reserves the words it uses and
// draws them in a kernel, so a seed gives the same samples on every device. bernoulli compares
// uniforms with the probabilities; multinomial has a kernel of its own (inverse CDF with
// replacement, the exponential race without), after a kernel has checked the weights.
#include <optional>

#include "autograd/record.h"
#include "core/copy.h"
#include "core/rng.h"
#include "kernels/backend.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace sg {

Tensor bernoulli(const Tensor& x, std::optional<double> p) {
  const char* op = "bernoulli";
  check(x.dtype() == DType::Float32, op, ": expected a float32 tensor, got ", dtype_name(x.dtype()));
  if (p) check(*p >= 0 && *p <= 1, op, ": expected p in [0, 1], got ", *p);
  const Tensor probs = p ? f32_scalar(*p) : as_contiguous(x);
  if (!p && x.numel() > 0)
    backend_for(x.device()).check_range_f32(probs.dev_f32(), probs.numel(), 0.0f, 1.0f,
                                            std::string(op) + ": expected probabilities in [0, 1], got ");
  Tensor u = Tensor::uninitialized(x.shape(), DType::Float32, x.device());
  const RngState at = reserve_words(uniform_words(u.numel()));
  if (u.numel() > 0) backend_for(x.device()).random_uniform_f32(at, 0.0f, 1.0f, u.dev_f32(), u.numel());
  // u < p is 1 with probability p (u in [0, 1): p = 0 never, p = 1 always).
  Tensor out = contiguous_copy(lt(u, probs), DType::Float32);
  // PyTorch: the samples depend on x, with gradient zero.
  return record(op, out, {x}, [shape = x.shape()](const Tensor& g) -> std::vector<Tensor> {
    return {zeros(shape, DType::Float32, g.device())};
  });
}

Tensor multinomial(const Tensor& x, int64_t samples, bool replacement) {
  const char* op = "multinomial";
  check(x.dtype() == DType::Float32, op, ": expected float32 probabilities, got ", dtype_name(x.dtype()));
  check(x.ndim() == 1 || x.ndim() == 2, op, ": expected a 1-D or 2-D tensor of probabilities, got shape ", x.shape());
  const int64_t cats = x.shape().back(), rows = x.ndim() == 2 ? x.shape()[0] : 1;
  check(cats > 0, op, ": expected at least one category, got shape ", x.shape());
  check(samples > 0, op, ": expected a positive number of samples, got ", samples);
  check(replacement || samples <= cats, op, ": cannot draw ", samples, " samples without replacement from ", cats,
        " categories");
  const Tensor w = as_contiguous(x);
  Shape shape = x.shape();
  shape.back() = samples;
  Tensor out = Tensor::uninitialized(shape, DType::Int32, x.device());
  if (rows == 0) return out;
  const Backend& be = backend_for(x.device());
  be.check_distribution(w.dev_f32(), rows, cats, samples, replacement, op);
  const RngState at = reserve_words(multinomial_words(rows, cats, samples, replacement));
  be.multinomial(at, w.dev_f32(), rows, cats, samples, replacement, out.dev_i32());
  return out;
}

}  // namespace sg
