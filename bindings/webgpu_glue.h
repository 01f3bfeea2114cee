// The WebGPU device seen from C++: a DeviceRuntime (core/device.h) and a Backend whose every
// method forwards to the JavaScript runtime (web/webgpu/), which owns the GPU buffers,
// encodes the WGSL kernels and orders the transfers. Glue only: no GPU logic lives here.
//
// Device addresses. The core hands kernels raw pointers (Tensor::dev_f32() + offsets), so every
// GPU buffer gets a range of virtual addresses in [2 GiB, 4 GiB) that the host never dereferences
// (Tensor::raw() refuses device storages); a kernel argument is mapped back to (buffer id, byte
// offset) here before it crosses to JavaScript. The wasm heap may grow to 4 GiB (MAXIMUM_MEMORY),
// so those addresses are not guaranteed to trap if dereferenced: the guard is Tensor::raw().
//
// Kernel calls cross as (kernel name, a Float64Array of arguments): a buffer argument is the
// pair (id, byte offset) (id −1: none), sizes and scalars are numbers, a list is its length
// followed by its values. The JS runtime returns 0, or 1 with an error message kept for
// lastError(), and never throws into wasm (that would skip C++ destructors).
#pragma once
#include <emscripten/val.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/device.h"
#include "kernels/backend.h"

namespace sgjs::webgpu {

using emscripten::val;

class Runtime;

// The arguments of one kernel call, flattened for JavaScript.
class Args {
 public:
  explicit Args(const Runtime& rt) : rt_(rt) {}
  Args& buf(const void* device_ptr);  // (id, byte offset), or (−1, 0) for nullptr
  Args& num(double v) {
    v_.push_back(v);
    return *this;
  }
  Args& flag(bool b) { return num(b ? 1 : 0); }
  Args& list(const std::vector<int64_t>& xs) {
    num(double(xs.size()));
    for (int64_t x : xs) num(double(x));
    return *this;
  }
  const std::vector<double>& values() const { return v_; }

 private:
  const Runtime& rt_;
  std::vector<double> v_;
};

class Backend final : public sg::Backend {
 public:
  explicit Backend(Runtime& rt) : rt_(rt) {}
  const char* name() const override { return "webgpu"; }

  // Float math (kernels/backend.h).
  void unary_f32(sg::Unary op, float param, const float* x, float* y, int64_t n) const override;
  void binary_f32(sg::Binary op, const sg::BroadcastPlan& plan, const float* a, const float* b,
                  float* out) const override;
  void reduce_f32(sg::Reduce op, const float* x, int64_t outer, int64_t r, int64_t inner, float* out) const override;
  bool fused_f32(const sg::FusedCall& call) const override;
  void softmax_rows_f32(const float* x, float* y, int64_t rows, int64_t cols, bool log_) const override;
  void logsumexp_rows_f32(const float* x, float* out, int64_t rows, int64_t cols) const override;
  void softmax_causal_rows_f32(const float* x, float* y, int64_t rows, int64_t cols, int64_t L) const override;
  void gemm_f32(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) const override;
  void gemm_f32_bias(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                     int64_t lda, const float* b, int64_t ldb, float beta, const float* bias, sg::GemmAct act,
                     float* c, int64_t ldc) const override;
  void max_pool2d_f32(const sg::PoolGeom& g, const float* x, float* y, int32_t* idx) const override;
  void max_pool2d_backward_f32(const sg::PoolGeom& g, const float* dy, const int32_t* idx,
                               float* dx) const override;
  void conv2d_f32(const sg::ConvGeom& g, const float* x, const float* w, const float* bias, sg::GemmAct act,
                  float* y) const override;
  void conv2d_backward_data_f32(const sg::ConvGeom& g, const float* dy, const float* w, const float* bias,
                                float* dx) const override;
  void conv2d_backward_weight_f32(const sg::ConvGeom& g, const float* x, const float* dy, float* dw) const override;
  void conv2d_maxpool2d_f32(const sg::ConvGeom& g, const float* x, const float* w, const float* bias, sg::GemmAct act,
                            const sg::PoolGeom& pool, float* y, int32_t* idx) const override;
  void im2col_f32(const sg::Im2colGeom& g, const float* x, float* col, int64_t ld) const override;
  // Recurrent cells (kernels/rnn_cell.h): one step, one kernel (kernels/rnn.ts).
  void rnn_step_f32(const sg::RnnStep& s) const override;
  void rnn_step_backward_f32(const sg::RnnStepBackward& s) const override;
  void col2im_f32(const sg::Im2colGeom& g, const float* col, int64_t ld, float* dx) const override;

  // Data kernels (kernels/data_kernels.h).
  void copy_strided(const sg::StridedCopy& c, const void* src, void* dst) const override;
  void fill(sg::DType dtype, double value, void* dst, int64_t n) const override;
  void math_f32(sg::MathFn fn, const float* x, float* y, int64_t n) const override;
  void atan2_f32(const sg::BroadcastPlan& plan, const float* a, const float* b, float* out) const override;
  void scan(sg::Scan op, sg::DType dtype, bool reverse, const void* x, int64_t outer, int64_t r, int64_t inner,
            void* out) const override;
  void cumprod_backward_f32(const float* x, const float* g, int64_t outer, int64_t r, int64_t inner,
                            float* dx) const override;
  void argsort(sg::DType dtype, const void* x, int64_t outer, int64_t r, int64_t inner, bool descending, int64_t k,
               int32_t* out) const override;
  void random_uniform_f32(sg::RngState at, float lo, float hi, float* dst, int64_t n) const override;
  void random_normal_f32(sg::RngState at, float mean, float std, float* dst, int64_t n) const override;
  void binary_i32(sg::IntBinary op, const sg::BroadcastPlan& plan, const int32_t* a, const int32_t* b,
                  sg::DType out_dtype, void* out) const override;
  void unary_i32(sg::IntUnary op, const int32_t* x, int32_t* y, int64_t n) const override;
  void compare(sg::Compare op, sg::DType dtype, const sg::BroadcastPlan& plan, const void* a, const void* b,
               uint8_t* out) const override;
  void select(sg::DType dtype, const sg::SelectPlan& plan, const uint8_t* cond, const void* a, const void* b,
              void* out) const override;
  void reduce_int(sg::Reduce op, sg::DType dtype, const void* x, int64_t outer, int64_t r, int64_t inner,
                  void* out) const override;
  void arg_reduce(bool is_max, sg::DType dtype, const void* x, int64_t outer, int64_t r, int64_t inner,
                  int32_t* out) const override;
  void extreme_backward_f32(bool use_abs, const float* x, const float* y, const float* g, int64_t outer,
                            int64_t r, int64_t inner, float* dx) const override;
  void prod_backward_f32(const float* x, const float* g, int64_t outer, int64_t r, int64_t inner,
                         float* dx) const override;
  void norm_backward_f32(double p, const float* x, const float* y, const float* g, int64_t outer, int64_t r,
                         int64_t inner, float* dx) const override;
  void check_indices(const int32_t* idx, int64_t n, int64_t lo, int64_t hi, int64_t allowed,
                     const std::string& before, const std::string& after) const override;
  void modulo(sg::Modulo op, sg::DType dtype, const sg::BroadcastPlan& plan, const void* a, const void* b,
              void* out) const override;
  void check_nonzero_i32(const int32_t* x, int64_t n, const std::string& before,
                         const std::string& after) const override;
  void check_abs_bound(sg::DType dtype, const void* x, int64_t n, int64_t bound, bool total,
                       const std::string& before, const std::string& after) const override;
  // No WGSL kernels: the linalg ops run on the CPU (web/webgpu/coverage.ts); these refuse
  // GPU buffers instead of reading them as host memory.
  void lu_inverse_f32(const float* a, int64_t batch, int64_t n, float* out, const std::string& op,
                      bool batched) const override;
  void lu_solve_f32(const float* a, const float* b, int64_t batch, int64_t n, int64_t k, float* x,
                    const std::string& op, bool batched) const override;
  void lu_det_f32(const float* a, int64_t batch, int64_t n, float* sign, float* logabsdet, float* det) const override;
  void cofactor_f32(const float* a, int64_t batch, int64_t n, float* out) const override;
  void cholesky_f32(const float* a, int64_t batch, int64_t n, bool upper, float* out, const std::string& op,
                    bool batched) const override;
  // No WGSL kernels for the special functions either (erfinv, lgamma, ...): they run on the CPU.
  void special_f32(sg::Special fn, int n, const float* x, float* y, int64_t count) const override;
  void index_select(size_t elem_bytes, const void* x, int64_t outer, int64_t size, int64_t inner,
                    const int32_t* idx, int64_t n, void* out) const override;
  void index_add_f32(const float* g, int64_t outer, int64_t n, int64_t inner, const int32_t* idx, int64_t size,
                     float* out) const override;
  void gather(size_t elem_bytes, const sg::GatherGeom& g, const void* x, const int32_t* idx,
              void* out) const override;
  void scatter_add_f32(const sg::GatherGeom& g, const float* src, const int32_t* idx, float* out) const override;
  void scatter(size_t elem_bytes, const sg::GatherGeom& g, const void* src, const int32_t* idx,
               void* out) const override;
  void scatter_add_i32(const sg::GatherGeom& g, const int32_t* src, const int32_t* idx, int32_t* out) const override;
  // No WGSL kernel: scatterReduce runs on the CPU (web/webgpu/coverage.ts); this refuses GPU
  // buffers instead of reading them as host memory.
  void scatter_reduce(sg::DType dtype, sg::ScatterReduce reduce, const sg::GatherGeom& g, const void* src,
                      const int32_t* idx, int64_t out_numel, bool include_self, void* out) const override;
  void pad_mapped(size_t elem_bytes, const sg::PadGeom& g, const void* x, void* out) const override;
  void pad_mapped_backward_f32(const sg::PadGeom& g, const float* grad, float* dx) const override;

  // Layer kernels (kernels/layer_kernels.h).
  bool layer_norm_f32(const float* x, const float* w, const float* b, int64_t R, int64_t C, double eps, float* y,
                      float* xhat, float* rstd) const override;
  bool layer_norm_backward_f32(const float* g, const float* xhat, const float* rstd, const float* w, int64_t R,
                               int64_t C, float* dx, float* dw, float* db) const override;
  void batch_norm_stats_f32(const float* x, int64_t N, int64_t C, int64_t S, double eps, float* mean, float* var,
                            float* rstd) const override;
  void batch_norm_apply_f32(const float* x, int64_t N, int64_t C, int64_t S, const float* mean, const float* rstd,
                            const float* w, const float* b, float* y) const override;
  void batch_norm_backward_f32(const float* x, const float* g, int64_t N, int64_t C, int64_t S, const float* mean,
                               const float* rstd, const float* w, float* sum_g, float* sum_gx,
                               float* dx) const override;
  void cross_entropy_f32(const float* x, const int32_t* t, const float* w, int64_t R, int64_t C, int64_t ignore,
                         double eps, float* loss, float* wt) const override;
  void cross_entropy_backward_f32(const float* x, const int32_t* t, const float* w, int64_t R, int64_t C,
                                  int64_t ignore, double eps, const float* s, float* dx) const override;
  void cross_entropy_probs_f32(const float* x, const float* q, const float* w, int64_t R, int64_t C, double eps,
                               float* loss) const override;
  void cross_entropy_probs_backward_f32(const float* x, const float* q, const float* w, int64_t R, int64_t C,
                                        double eps, const float* s, float* dx, float* dq) const override;
  void nll_f32(const float* x, const int32_t* t, const float* w, int64_t R, int64_t C, int64_t ignore, float* loss,
               float* wt) const override;
  void nll_backward_f32(const int32_t* t, const float* w, int64_t R, int64_t C, int64_t ignore, const float* s,
                        float* dx) const override;
  void box_mean_f32(const sg::BoxGeom& g, const float* x, float* y) const override;
  void box_mean_backward_f32(const sg::BoxGeom& g, const float* dy, float* dx) const override;
  void check_range_f32(const float* x, int64_t n, float lo, float hi, const std::string& before) const override;
  void sgd_step_f32(float* p, const float* g, float* buf, int64_t n, const sg::optim::SgdScalars& s) const override;
  void adam_step_f32(float* p, const float* g, float* m, float* v, float* vmax, int64_t n,
                     const sg::optim::AdamScalars& s) const override;
  void rmsprop_step_f32(float* p, const float* g, float* square_avg, float* grad_avg, float* buf, int64_t n,
                        const sg::optim::RmspropScalars& s) const override;
  void adagrad_step_f32(float* p, const float* g, float* sum, int64_t n,
                        const sg::optim::AdagradScalars& s) const override;
  void adadelta_step_f32(float* p, const float* g, float* square_avg, float* acc_delta, int64_t n,
                         const sg::optim::AdadeltaScalars& s) const override;
  void adamax_step_f32(float* p, const float* g, float* exp_avg, float* exp_inf, int64_t n,
                       const sg::optim::AdamaxScalars& s) const override;
  void nadam_step_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
                      const sg::optim::NadamScalars& s) const override;
  void radam_step_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
                      const sg::optim::RadamScalars& s) const override;

 private:
  // Sends one kernel call to the JS runtime; throws sg::Error with its message on failure.
  void call(const char* kernel, const Args& args) const;
  Args args() const { return Args(rt_); }
  Runtime& rt_;
};

class Runtime final : public sg::DeviceRuntime {
 public:
  explicit Runtime(val js);
  sg::Device device() const override { return sg::Device::WebGPU; }
  const sg::Backend& kernels() const override { return backend_; }
  void* allocate(size_t bytes, bool zero) override;
  void release(void* addr, size_t bytes) override;
  void upload(void* dst, const void* src, size_t bytes) override;
  void download(std::vector<sg::Transfer> transfers, std::function<void()> then) override;
  bool supports(const std::string& op) const override;
  void warn(const std::string& message) override;

  // The (buffer id, byte offset) of a device address; throws for an address no buffer holds.
  std::pair<int, double> locate(const void* addr) const;
  // Runs the JS runtime's method `name` with `args...`; throws sg::Error with lastError() when
  // it reports a failure (return value nonzero).
  template <class... A>
  void checked(const char* name, A&&... args) const {
    const int status = js_.call<int>(name, std::forward<A>(args)...);
    if (status != 0) fail_with_js_error();
  }
  val& js() { return js_; }
  [[noreturn]] void fail_with_js_error() const;

 private:
  struct Range {
    int id;
    size_t bytes;
  };
  val js_;
  Backend backend_;
  std::map<uintptr_t, Range> live_;                   // base address → buffer
  std::multimap<size_t, uintptr_t> free_ranges_;       // size → base, reused by the next allocation of that size
  uintptr_t next_address_ = uintptr_t(1) << 31;       // bump pointer through [2 GiB, 4 GiB)
};

// Runs `then` of download `id` (called back by the JS runtime once the bytes have landed).
void run_then(int id);
// The first error a `then` raised since the last call ("" when none), then forgets it.
std::string take_then_error();

}  // namespace sgjs::webgpu
