// Backend registry: names → backends, and the one active backend (SIMD by default).
#include "kernels/backend.h"

#include "core/device.h"
#include "core/error.h"
#include "kernels/reference/reference_kernels.h"

namespace sg {
namespace {

const Backend* g_active = nullptr;  // null until first use → simd_backend()

const Backend* find(const std::string& name) {
  if (name == "reference") return &reference_backend();
  if (name == "wasm" || name == "simd") return &simd_backend();
  return nullptr;
}

}  // namespace

void Backend::binary_run_f32(Binary op, const float* a, bool a_scalar, const float* b, bool b_scalar, float* out,
                             int64_t n) const {
  const BroadcastPlan plan{{n}, {a_scalar ? 0 : 1}, {b_scalar ? 0 : 1}};
  binary_f32(op, plan, a, b, out);
}

bool Backend::fused_f32(const FusedCall&) const { return false; }

void Backend::unary_f64(Unary op, double param, const double* x, double* y, int64_t n) const {
  ref::unary_f64(op, param, x, y, n);
}

void Backend::binary_f64(Binary op, const BroadcastPlan& plan, const double* a, const double* b, double* out) const {
  ref::binary_f64(op, plan, a, b, out);
}

void Backend::reduce_f64(Reduce op, const double* x, int64_t outer, int64_t r, int64_t inner, double* out) const {
  ref::reduce_f64(op, x, outer, r, inner, out);
}

void Backend::softmax_rows_f64(const double* x, double* y, int64_t rows, int64_t cols, bool log_) const {
  ref::softmax_rows_f64(x, y, rows, cols, log_);
}

void Backend::softmax_causal_rows_f64(const double* x, double* y, int64_t rows, int64_t cols, int64_t L) const {
  ref::softmax_causal_rows_f64(x, y, rows, cols, L);
}

void Backend::logsumexp_rows_f64(const double* x, double* out, int64_t rows, int64_t cols) const {
  ref::logsumexp_rows_f64(x, out, rows, cols);
}

void Backend::gemm_f64(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                       int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) const {
  ref::gemm_f64(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void Backend::max_pool2d_f32(const PoolGeom& g, const float* x, float* y, int32_t* idx) const {
  ref::max_pool2d_f32(g, x, y, idx);
}

void Backend::max_pool2d_backward_f32(const PoolGeom& g, const float* dy, const int32_t* idx,
                                      float* dx) const {
  ref::max_pool2d_backward_f32(g, dy, idx, dx);
}

void Backend::im2col_f32(const Im2colGeom& g, const float* x, float* col, int64_t ld) const {
  ref::im2col_f32(g, x, col, ld);
}

void Backend::col2im_f32(const Im2colGeom& g, const float* col, int64_t ld, float* dx) const {
  ref::col2im_f32(g, col, ld, dx);
}

void Backend::conv2d_f32(const ConvGeom& g, const float* x, const float* w, const float* bias,
                         GemmAct act, float* y) const {
  ref::conv2d_f32(g, x, w, bias, act, y);
}

void Backend::conv2d_backward_data_f32(const ConvGeom& g, const float* dy, const float* w,
                                       const float* bias, float* dx) const {
  ref::conv2d_backward_data_f32(g, dy, w, bias, dx);
}

void Backend::conv2d_backward_weight_f32(const ConvGeom& g, const float* x, const float* dy,
                                         float* dw) const {
  ref::conv2d_backward_weight_f32(g, x, dy, dw);
}

void Backend::conv2d_maxpool2d_f32(const ConvGeom& g, const float* x, const float* w, const float* bias,
                                   GemmAct act, const PoolGeom& pool, float* y, int32_t* idx) const {
  std::vector<float> z(static_cast<size_t>(g.N * g.O * g.L()));
  conv2d_f32(g, x, w, bias, act, z.data());
  max_pool2d_f32(pool, z.data(), y, idx);
}

const Backend& backend() {
  if (!g_active) g_active = &simd_backend();
  return *g_active;
}

const Backend& backend_for(Device d) {
  if (d == Device::CPU) return backend();
  return device_runtime(d)->kernels();
}

const Backend& backend_named(const std::string& name) {
  const Backend* b = find(name);
  if (!b) fail("setBackend: unknown backend '", name, "' (expected one of: reference, wasm)");
  return *b;
}

void set_backend(const std::string& name) { g_active = &backend_named(name); }

std::vector<std::string> backend_names() { return {"reference", "wasm"}; }

}  // namespace sg
