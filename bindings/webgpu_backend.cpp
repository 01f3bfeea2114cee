// The WebGPU Backend: every kernel method flattens its arguments (webgpu_glue.h) and hands them
// to the JS runtime, whose WGSL kernel of the same name (web/webgpu/kernels/) runs it. The
// argument order of each call here is the order its JS handler reads them in.
#include <algorithm>

#include "core/error.h"
#include "webgpu_glue.h"

namespace sgjs::webgpu {

namespace {
double e(auto v) { return double(static_cast<int>(v)); }  // an enum as its number
}  // namespace

// ---------------------------------------------------------------- float math
void Backend::unary_f32(sg::Unary op, float param, const float* x, float* y, int64_t n) const {
  if (n > 0) call("unary_f32", args().num(e(op)).num(param).buf(x).buf(y).num(double(n)));
}

void Backend::binary_f32(sg::Binary op, const sg::BroadcastPlan& p, const float* a, const float* b,
                         float* out) const {
  call("binary_f32", args().num(e(op)).list(p.shape).list(p.a_strides).list(p.b_strides).buf(a).buf(b).buf(out));
}

// A fused elementwise program as one WGSL kernel (kernels/fused.ts). Within WebGPU's default
// limits: 8 storage buffers per kernel (inputs and outputs; the one-element inputs count as one),
// 8 dims, and what fits the 64-word parameter block (8 words per input read through strides, one
// per number operand from the CPU); beyond them the graph runs the ops one by one.
bool Backend::fused_f32(const sg::FusedCall& c) const {
  constexpr size_t kMaxBuffers = 8, kMaxDims = 8, kParamWords = 64;
  if (c.shape.size() > kMaxDims) return false;
  std::vector<int64_t> contiguous(c.shape.size(), 1);
  for (size_t d = c.shape.size(); d-- > 1;) contiguous[d - 1] = contiguous[d] * c.shape[d];
  // How each input is read: 0 its own contiguous data, 1 one broadcast value, 2 through strides,
  // 3 a value from the CPU (in the parameter block, after the strides: 64 words in all).
  std::vector<int> modes;
  size_t gathers = 0, values = 0;
  for (size_t k = 0; k < c.inputs.size(); ++k) {
    const std::vector<int64_t>& st = c.input_strides[k];
    if (c.inputs[k] == nullptr) {
      modes.push_back(3);
      ++values;
      continue;
    }
    bool dense = true, scalar = true;
    for (size_t d = 0; d < st.size(); ++d) {
      if (c.shape[d] == 1) continue;
      dense = dense && st[d] == contiguous[d];
      scalar = scalar && st[d] == 0;
    }
    modes.push_back(scalar ? 1 : dense ? 0 : 2);
    gathers += modes.back() == 2;
  }
  // One-element inputs on the GPU (number operands) can share one binding (the kernel copies them
  // into one buffer when they would not fit one each).
  const size_t scalars = size_t(std::count(modes.begin(), modes.end(), 1));
  const size_t buffers = c.inputs.size() - values - scalars + c.outputs.size() + (scalars > 0);
  if (buffers > kMaxBuffers || 24 + 8 * gathers + values > kParamWords) return false;
  Args a = args();
  a.list(c.shape).num(double(c.num_registers)).num(double(c.inputs.size())).num(double(c.outputs.size()));
  a.num(double(c.constants.size()));
  for (float v : c.constants) a.num(v);
  a.num(double(c.code.size()));
  for (const sg::FusedInstr& i : c.code)
    a.flag(i.binary).num(e(i.unary)).num(e(i.op)).num(i.param).num(i.a).num(i.b).num(i.out);
  for (int r : c.output_registers) a.num(r);
  for (size_t k = 0; k < c.inputs.size(); ++k) {
    a.num(modes[k]);
    if (modes[k] == 3) a.num(c.values[k]);
    else a.list(c.input_strides[k]).buf(c.inputs[k]);
  }
  for (float* out : c.outputs) a.buf(out);
  call("fused_f32", a);
  return true;
}

void Backend::math_f32(sg::MathFn fn, const float* x, float* y, int64_t n) const {
  if (n > 0) call("math_f32", args().num(e(fn)).buf(x).buf(y).num(double(n)));
}

void Backend::atan2_f32(const sg::BroadcastPlan& p, const float* a, const float* b, float* out) const {
  call("atan2_f32", args().list(p.shape).list(p.a_strides).list(p.b_strides).buf(a).buf(b).buf(out));
}

void Backend::scan(sg::Scan op, sg::DType dtype, bool reverse, const void* x, int64_t outer, int64_t r,
                   int64_t inner, void* out) const {
  if (outer * r * inner > 0)
    call("scan", args().num(e(op)).num(e(dtype)).flag(reverse).buf(x).num(outer).num(r).num(inner).buf(out));
}

void Backend::cumprod_backward_f32(const float* x, const float* g, int64_t outer, int64_t r, int64_t inner,
                                   float* dx) const {
  if (outer * r * inner > 0)
    call("cumprod_backward_f32", args().buf(x).buf(g).num(outer).num(r).num(inner).buf(dx));
}

void Backend::argsort(sg::DType dtype, const void* x, int64_t outer, int64_t r, int64_t inner, bool descending,
                      int64_t k, int32_t* out) const {
  if (outer * k * inner > 0)
    call("argsort", args().num(e(dtype)).buf(x).num(outer).num(r).num(inner).flag(descending).num(k).buf(out));
}

void Backend::reduce_f32(sg::Reduce op, const float* x, int64_t outer, int64_t r, int64_t inner, float* out) const {
  call("reduce_f32", args().num(e(op)).buf(x).num(outer).num(r).num(inner).buf(out));
}

void Backend::softmax_rows_f32(const float* x, float* y, int64_t rows, int64_t cols, bool log_) const {
  call("softmax_rows_f32", args().buf(x).buf(y).num(rows).num(cols).flag(log_));
}

void Backend::logsumexp_rows_f32(const float* x, float* out, int64_t rows, int64_t cols) const {
  call("logsumexp_rows_f32", args().buf(x).buf(out).num(rows).num(cols));
}

void Backend::softmax_causal_rows_f32(const float* x, float* y, int64_t rows, int64_t cols, int64_t L) const {
  if (rows > 0 && cols > 0) call("softmax_causal_rows_f32", args().buf(x).buf(y).num(rows).num(cols).num(L));
}

void Backend::gemm_f32(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                       int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) const {
  gemm_f32_bias(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, nullptr, sg::GemmAct::None, c, ldc);
}

void Backend::gemm_f32_bias(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                            const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                            const float* bias, sg::GemmAct act, float* c, int64_t ldc) const {
  if (m == 0 || n == 0) return;
  call("gemm_f32", args()
                       .flag(trans_a).flag(trans_b).num(m).num(n).num(k).num(alpha)
                       .buf(a).num(lda).buf(b).num(ldb).num(beta).buf(bias).num(e(act)).buf(c).num(ldc));
}

namespace {
void pool_geom(Args& a, const sg::PoolGeom& g) {
  for (int64_t v : {g.P, g.H, g.W, g.oH, g.oW, g.kH, g.kW, g.sH, g.sW, g.pH, g.pW, g.dH, g.dW}) a.num(double(v));
}
void im2col_geom(Args& a, const sg::Im2colGeom& g) {
  for (int64_t v : {g.C, g.H, g.W, g.kH, g.kW, g.sH, g.sW, g.pH, g.pW, g.dH, g.dW, g.oH, g.oW}) a.num(double(v));
}
}  // namespace

void Backend::max_pool2d_f32(const sg::PoolGeom& g, const float* x, float* y, int32_t* idx) const {
  Args a = args();
  pool_geom(a, g);
  call("max_pool2d_f32", a.buf(x).buf(y).buf(idx));
}

void Backend::max_pool2d_backward_f32(const sg::PoolGeom& g, const float* dy, const int32_t* idx,
                                      float* dx) const {
  Args a = args();
  pool_geom(a, g);
  call("max_pool2d_backward_f32", a.buf(dy).buf(idx).buf(dx));
}

namespace {
void conv_geom(Args& a, const sg::ConvGeom& g) {
  for (int64_t v : {g.N, g.C, g.H, g.W, g.O, g.groups, g.kH, g.kW, g.sH, g.sW, g.pH, g.pW, g.dH, g.dW, g.oH, g.oW})
    a.num(double(v));
}
void box_geom(Args& a, const sg::BoxGeom& g) {
  a.num(double(g.P));
  for (const sg::BoxDim& d : {g.rows, g.cols})
    a.num(double(d.in)).num(double(d.out)).flag(d.adaptive).num(double(d.k)).num(double(d.s)).num(double(d.p))
        .flag(d.count_include_pad);
}
}  // namespace

void Backend::conv2d_f32(const sg::ConvGeom& g, const float* x, const float* w, const float* bias, sg::GemmAct act,
                         float* y) const {
  Args a = args();
  conv_geom(a, g);
  call("conv2d_f32", a.buf(x).buf(w).buf(bias).num(e(act)).buf(y));
}

void Backend::conv2d_backward_data_f32(const sg::ConvGeom& g, const float* dy, const float* w, const float* bias,
                                       float* dx) const {
  Args a = args();
  conv_geom(a, g);
  call("conv2d_backward_data_f32", a.buf(dy).buf(w).buf(bias).buf(dx));
}

void Backend::conv2d_backward_weight_f32(const sg::ConvGeom& g, const float* x, const float* dy, float* dw) const {
  Args a = args();
  conv_geom(a, g);
  call("conv2d_backward_weight_f32", a.buf(x).buf(dy).buf(dw));
}

void Backend::conv2d_maxpool2d_f32(const sg::ConvGeom& g, const float* x, const float* w, const float* bias,
                                   sg::GemmAct act, const sg::PoolGeom& pool, float* y, int32_t* idx) const {
  Args a = args();
  conv_geom(a, g);
  a.buf(x).buf(w).buf(bias).num(e(act));
  pool_geom(a, pool);
  call("conv2d_maxpool2d_f32", a.buf(y).buf(idx));
}

void Backend::im2col_f32(const sg::Im2colGeom& g, const float* x, float* col, int64_t ld) const {
  Args a = args();
  im2col_geom(a, g);
  call("im2col_f32", a.buf(x).buf(col).num(ld));
}

void Backend::col2im_f32(const sg::Im2colGeom& g, const float* col, int64_t ld, float* dx) const {
  Args a = args();
  im2col_geom(a, g);
  call("col2im_f32", a.buf(col).num(ld).buf(dx));
}

// ---------------------------------------------------------------- data kernels
void Backend::copy_strided(const sg::StridedCopy& c, const void* src, void* dst) const {
  call("copy_strided", args()
                           .list(c.shape).list(c.dst_strides).list(c.src_strides)
                           .num(e(c.dst_dtype)).num(e(c.src_dtype)).buf(src).buf(dst));
}

void Backend::fill(sg::DType dtype, double value, void* dst, int64_t n) const {
  if (n > 0) call("fill", args().num(e(dtype)).num(value).buf(dst).num(n));
}

namespace {
// The Philox state as four 32-bit halves (doubles hold them exactly).
void rng_state(Args& a, sg::RngState at) {
  a.num(double(uint32_t(at.seed))).num(double(uint32_t(at.seed >> 32)));
  a.num(double(uint32_t(at.offset))).num(double(uint32_t(at.offset >> 32)));
}
}  // namespace

void Backend::random_uniform_f32(sg::RngState at, float lo, float hi, float* dst, int64_t n) const {
  if (n == 0) return;
  Args a = args();
  rng_state(a, at);
  call("random_uniform_f32", a.num(lo).num(hi).buf(dst).num(n));
}

void Backend::random_normal_f32(sg::RngState at, float mean, float std, float* dst, int64_t n) const {
  if (n == 0) return;
  Args a = args();
  rng_state(a, at);
  call("random_normal_f32", a.num(mean).num(std).buf(dst).num(n));
}

void Backend::binary_i32(sg::IntBinary op, const sg::BroadcastPlan& p, const int32_t* a, const int32_t* b,
                         sg::DType out_dtype, void* out) const {
  call("binary_i32", args()
                         .num(e(op)).list(p.shape).list(p.a_strides).list(p.b_strides)
                         .buf(a).buf(b).num(e(out_dtype)).buf(out));
}

void Backend::unary_i32(sg::IntUnary op, const int32_t* x, int32_t* y, int64_t n) const {
  if (n > 0) call("unary_i32", args().num(e(op)).buf(x).buf(y).num(n));
}

void Backend::compare(sg::Compare op, sg::DType dtype, const sg::BroadcastPlan& p, const void* a, const void* b,
                      uint8_t* out) const {
  call("compare", args()
                      .num(e(op)).num(e(dtype)).list(p.shape).list(p.a_strides).list(p.b_strides)
                      .buf(a).buf(b).buf(out));
}

void Backend::select(sg::DType dtype, const sg::SelectPlan& p, const uint8_t* cond, const void* a, const void* b,
                     void* out) const {
  call("select", args()
                     .num(e(dtype)).list(p.shape).list(p.cond_strides).list(p.a_strides).list(p.b_strides)
                     .buf(cond).buf(a).buf(b).buf(out));
}

void Backend::reduce_int(sg::Reduce op, sg::DType dtype, const void* x, int64_t outer, int64_t r, int64_t inner,
                         void* out) const {
  call("reduce_int", args().num(e(op)).num(e(dtype)).buf(x).num(outer).num(r).num(inner).buf(out));
}

void Backend::arg_reduce(bool is_max, sg::DType dtype, const void* x, int64_t outer, int64_t r, int64_t inner,
                         int32_t* out) const {
  call("arg_reduce", args().flag(is_max).num(e(dtype)).buf(x).num(outer).num(r).num(inner).buf(out));
}

void Backend::extreme_backward_f32(bool use_abs, const float* x, const float* y, const float* g, int64_t outer,
                                   int64_t r, int64_t inner, float* dx) const {
  call("extreme_backward_f32", args().flag(use_abs).buf(x).buf(y).buf(g).num(outer).num(r).num(inner).buf(dx));
}

void Backend::prod_backward_f32(const float* x, const float* g, int64_t outer, int64_t r, int64_t inner,
                                float* dx) const {
  call("prod_backward_f32", args().buf(x).buf(g).num(outer).num(r).num(inner).buf(dx));
}

void Backend::norm_backward_f32(double p, const float* x, const float* y, const float* g, int64_t outer,
                                int64_t r, int64_t inner, float* dx) const {
  call("norm_backward_f32", args().num(p).buf(x).buf(y).buf(g).num(outer).num(r).num(inner).buf(dx));
}

// The JS runtime checks on the GPU and reports the first bad index at the next sync, as
// before + value + after (data_kernels.h: asynchronous devices report there).
void Backend::check_indices(const int32_t* idx, int64_t n, int64_t lo, int64_t hi, int64_t allowed,
                            const std::string& before, const std::string& after) const {
  if (n == 0) return;
  const Args a = args().buf(idx).num(n).num(lo).num(hi).num(allowed);
  rt_.checked("check", std::string("check_indices"),
              val(emscripten::typed_memory_view(a.values().size(), a.values().data())), before, after);
}

void Backend::modulo(sg::Modulo op, sg::DType dtype, const sg::BroadcastPlan& p, const void* a, const void* b,
                     void* out) const {
  call("modulo", args().num(e(op)).num(e(dtype)).list(p.shape).list(p.a_strides).list(p.b_strides).buf(a).buf(b).buf(out));
}

// As check_indices: the first zero is found on the GPU and reported at the next sync.
void Backend::check_nonzero_i32(const int32_t* x, int64_t n, const std::string& before,
                                const std::string& after) const {
  if (n == 0) return;
  const Args a = args().buf(x).num(n);
  rt_.checked("check", std::string("check_nonzero_i32"),
              val(emscripten::typed_memory_view(a.values().size(), a.values().data())), before, after);
}

// As check_indices: the GPU finds the first |value| beyond the bound (or the sum beyond it) and
// the next sync reports it. The bound crosses as a number (at most 2^31 − 1 here).
void Backend::check_abs_bound(sg::DType dtype, const void* x, int64_t n, int64_t bound, bool total,
                              const std::string& before, const std::string& after) const {
  if (n == 0) return;
  const Args a = args().buf(x).num(n).num(e(dtype)).num(double(bound)).flag(total);
  rt_.checked("check", std::string("check_abs_bound"),
              val(emscripten::typed_memory_view(a.values().size(), a.values().data())), before, after);
}

namespace {
[[noreturn]] void linalg_on_cpu_only() {
  sg::fail("webgpu: internal error: the linalg ops have no WGSL kernel and must run on the CPU");
}
}  // namespace

void Backend::lu_inverse_f32(const float*, int64_t, int64_t, float*, const std::string&, bool) const {
  linalg_on_cpu_only();
}
void Backend::lu_solve_f32(const float*, const float*, int64_t, int64_t, int64_t, float*, const std::string&,
                           bool) const {
  linalg_on_cpu_only();
}
void Backend::lu_det_f32(const float*, int64_t, int64_t, float*, float*, float*) const { linalg_on_cpu_only(); }
void Backend::cofactor_f32(const float*, int64_t, int64_t, float*) const { linalg_on_cpu_only(); }
void Backend::cholesky_f32(const float*, int64_t, int64_t, bool, float*, const std::string&, bool) const {
  linalg_on_cpu_only();
}

void Backend::special_f32(sg::Special, int, const float*, float*, int64_t) const {
  sg::fail("webgpu: internal error: the special functions have no WGSL kernel and must run on the CPU");
}

void Backend::index_select(size_t elem_bytes, const void* x, int64_t outer, int64_t size, int64_t inner,
                           const int32_t* idx, int64_t n, void* out) const {
  call("index_select", args().num(double(elem_bytes)).buf(x).num(outer).num(size).num(inner).buf(idx).num(n).buf(out));
}

void Backend::index_add_f32(const float* g, int64_t outer, int64_t n, int64_t inner, const int32_t* idx,
                            int64_t size, float* out) const {
  call("index_add_f32", args().buf(g).num(outer).num(n).num(inner).buf(idx).num(size).buf(out));
}

namespace {
void gather_geom(Args& a, const sg::GatherGeom& g) {
  a.list(g.index_shape).list(g.walk_strides).num(g.dim_stride).num(g.dim_size).num(g.dim);
}
}  // namespace

void Backend::gather(size_t elem_bytes, const sg::GatherGeom& g, const void* x, const int32_t* idx,
                     void* out) const {
  Args a = args().num(double(elem_bytes));
  gather_geom(a, g);
  call("gather", a.buf(x).buf(idx).buf(out));
}

void Backend::scatter_add_f32(const sg::GatherGeom& g, const float* src, const int32_t* idx, float* out) const {
  Args a = args();
  gather_geom(a, g);
  call("scatter_add_f32", a.buf(src).buf(idx).buf(out));
}

void Backend::scatter_add_i32(const sg::GatherGeom& g, const int32_t* src, const int32_t* idx, int32_t* out) const {
  Args a = args();
  gather_geom(a, g);
  call("scatter_add_i32", a.buf(src).buf(idx).buf(out));
}

void Backend::scatter(size_t elem_bytes, const sg::GatherGeom& g, const void* src, const int32_t* idx,
                      void* out) const {
  Args a = args().num(double(elem_bytes));
  gather_geom(a, g);
  call("scatter", a.buf(src).buf(idx).buf(out));
}

void Backend::scatter_reduce(sg::DType, sg::ScatterReduce, const sg::GatherGeom&, const void*, const int32_t*, int64_t,
                             bool, void*) const {
  sg::fail("webgpu: internal error: scatterReduce has no WGSL kernel and must run on the CPU");
}

void Backend::pad_mapped(size_t elem_bytes, const sg::PadGeom& g, const void* x, void* out) const {
  call("pad_mapped", args()
                         .num(double(elem_bytes)).list(g.out_shape).list(g.in_shape).list(g.in_strides)
                         .list(g.left).flag(g.reflect).buf(x).buf(out));
}

void Backend::pad_mapped_backward_f32(const sg::PadGeom& g, const float* grad, float* dx) const {
  call("pad_mapped_backward_f32", args()
                                      .list(g.out_shape).list(g.in_shape).list(g.left).flag(g.reflect)
                                      .buf(grad).buf(dx));
}

// ---------------------------------------------------------------- recurrent cells
// One time step of a recurrent layer's gate math as one kernel (kernels/rnn.ts).
void Backend::rnn_step_f32(const sg::RnnStep& s) const {
  if (s.B * s.H > 0)
    call("rnn_step_f32", args()
                             .num(e(s.cell)).num(double(s.B)).num(double(s.H)).buf(s.acts).buf(s.hg).buf(s.h_prev)
                             .buf(s.c_prev).buf(s.c).buf(s.hn).buf(s.h));
}

void Backend::rnn_step_backward_f32(const sg::RnnStepBackward& s) const {
  if (s.B * s.H > 0)
    call("rnn_step_backward_f32", args()
                                      .num(e(s.cell)).num(double(s.B)).num(double(s.H)).buf(s.acts).buf(s.c)
                                      .buf(s.c_prev).buf(s.hn).buf(s.h_prev).buf(s.h).buf(s.g_h).buf(s.g_c)
                                      .buf(s.dh).buf(s.dc).buf(s.dA).buf(s.dXi));
}

// ---------------------------------------------------------------- layer kernels
// Layer norm in one kernel forward and two backward (kernels/layer_norm.ts).
bool Backend::layer_norm_f32(const float* x, const float* w, const float* b, int64_t R, int64_t C, double eps,
                             float* y, float* xhat, float* rstd) const {
  if (R > 0 && C > 0)
    call("layer_norm_f32", args().buf(x).buf(w).buf(b).num(R).num(C).num(eps).buf(y).buf(xhat).buf(rstd));
  return true;
}

bool Backend::layer_norm_backward_f32(const float* g, const float* xhat, const float* rstd, const float* w,
                                      int64_t R, int64_t C, float* dx, float* dw, float* db) const {
  if (C > 0)
    call("layer_norm_backward_f32", args().buf(g).buf(xhat).buf(rstd).buf(w).num(R).num(C).buf(dx).buf(dw).buf(db));
  return true;
}

void Backend::batch_norm_stats_f32(const float* x, int64_t N, int64_t C, int64_t S, double eps, float* mean,
                                   float* var, float* rstd) const {
  call("batch_norm_stats_f32", args().buf(x).num(N).num(C).num(S).num(eps).buf(mean).buf(var).buf(rstd));
}

void Backend::batch_norm_apply_f32(const float* x, int64_t N, int64_t C, int64_t S, const float* mean,
                                   const float* rstd, const float* w, const float* b, float* y) const {
  call("batch_norm_apply_f32", args().buf(x).num(N).num(C).num(S).buf(mean).buf(rstd).buf(w).buf(b).buf(y));
}

void Backend::batch_norm_backward_f32(const float* x, const float* g, int64_t N, int64_t C, int64_t S,
                                      const float* mean, const float* rstd, const float* w, float* sum_g,
                                      float* sum_gx, float* dx) const {
  call("batch_norm_backward_f32", args()
                                      .buf(x).buf(g).num(N).num(C).num(S).buf(mean).buf(rstd).buf(w)
                                      .buf(sum_g).buf(sum_gx).buf(dx));
}

void Backend::cross_entropy_f32(const float* x, const int32_t* t, const float* w, int64_t R, int64_t C,
                                int64_t ignore, double eps, float* loss, float* wt) const {
  call("cross_entropy_f32", args().buf(x).buf(t).buf(w).num(R).num(C).num(ignore).num(eps).buf(loss).buf(wt));
}

void Backend::cross_entropy_backward_f32(const float* x, const int32_t* t, const float* w, int64_t R, int64_t C,
                                         int64_t ignore, double eps, const float* s, float* dx) const {
  call("cross_entropy_backward_f32",
       args().buf(x).buf(t).buf(w).num(R).num(C).num(ignore).num(eps).buf(s).buf(dx));
}

void Backend::cross_entropy_probs_f32(const float* x, const float* q, const float* w, int64_t R, int64_t C,
                                      double eps, float* loss) const {
  call("cross_entropy_probs_f32", args().buf(x).buf(q).buf(w).num(R).num(C).num(eps).buf(loss));
}

void Backend::cross_entropy_probs_backward_f32(const float* x, const float* q, const float* w, int64_t R,
                                               int64_t C, double eps, const float* s, float* dx,
                                               float* dq) const {
  call("cross_entropy_probs_backward_f32",
       args().buf(x).buf(q).buf(w).num(R).num(C).num(eps).buf(s).buf(dx).buf(dq));
}

void Backend::nll_f32(const float* x, const int32_t* t, const float* w, int64_t R, int64_t C, int64_t ignore,
                      float* loss, float* wt) const {
  call("nll_f32", args().buf(x).buf(t).buf(w).num(R).num(C).num(ignore).buf(loss).buf(wt));
}

void Backend::nll_backward_f32(const int32_t* t, const float* w, int64_t R, int64_t C, int64_t ignore,
                               const float* s, float* dx) const {
  call("nll_backward_f32", args().buf(t).buf(w).num(R).num(C).num(ignore).buf(s).buf(dx));
}

void Backend::box_mean_f32(const sg::BoxGeom& g, const float* x, float* y) const {
  Args a = args();
  box_geom(a, g);
  call("box_mean_f32", a.buf(x).buf(y));
}

void Backend::box_mean_backward_f32(const sg::BoxGeom& g, const float* dy, float* dx) const {
  Args a = args();
  box_geom(a, g);
  call("box_mean_backward_f32", a.buf(dy).buf(dx));
}

void Backend::check_range_f32(const float* x, int64_t n, float lo, float hi, const std::string& before) const {
  if (n == 0) return;
  const Args a = args().buf(x).num(n).num(lo).num(hi);
  rt_.checked("check", std::string("check_range_f32"),
              val(emscripten::typed_memory_view(a.values().size(), a.values().data())), before, std::string());
}

void Backend::sgd_step_f32(float* p, const float* g, float* buf, int64_t n, const sg::optim::SgdScalars& s) const {
  if (n == 0) return;
  call("sgd_step_f32", args()
                           .buf(p).buf(g).buf(buf).num(n)
                           .num(s.sign).num(s.weight_decay).num(s.momentum).num(s.one_minus_dampening).num(s.neg_lr)
                           .flag(s.has_weight_decay).flag(s.has_momentum).flag(s.nesterov).flag(s.first));
}

void Backend::adam_step_f32(float* p, const float* g, float* m, float* v, float* vmax, int64_t n,
                            const sg::optim::AdamScalars& s) const {
  if (n == 0) return;
  call("adam_step_f32", args()
                            .buf(p).buf(g).buf(m).buf(v).buf(vmax).num(n)
                            .num(s.sign).num(s.weight_decay).num(s.decay).num(s.beta1).num(s.one_minus_beta1)
                            .num(s.beta2).num(s.one_minus_beta2).num(s.bias_correction2_sqrt).num(s.eps)
                            .num(s.neg_step_size).flag(s.l2).flag(s.decoupled).flag(s.amsgrad));
}

void Backend::rmsprop_step_f32(float* p, const float* g, float* square_avg, float* grad_avg, float* buf, int64_t n,
                               const sg::optim::RmspropScalars& s) const {
  if (n == 0) return;
  call("rmsprop_step_f32", args()
                               .buf(p).buf(g).buf(square_avg).buf(grad_avg).buf(buf).num(n)
                               .num(s.sign).num(s.weight_decay).num(s.alpha).num(s.one_minus_alpha).num(s.eps)
                               .num(s.momentum).num(s.neg_lr)
                               .flag(s.has_weight_decay).flag(s.centered).flag(s.has_momentum));
}

void Backend::adagrad_step_f32(float* p, const float* g, float* sum, int64_t n,
                               const sg::optim::AdagradScalars& s) const {
  if (n == 0) return;
  call("adagrad_step_f32", args()
                               .buf(p).buf(g).buf(sum).num(n)
                               .num(s.sign).num(s.weight_decay).num(s.eps).num(s.neg_clr).flag(s.has_weight_decay));
}

void Backend::adadelta_step_f32(float* p, const float* g, float* square_avg, float* acc_delta, int64_t n,
                                const sg::optim::AdadeltaScalars& s) const {
  if (n == 0) return;
  call("adadelta_step_f32", args()
                                .buf(p).buf(g).buf(square_avg).buf(acc_delta).num(n)
                                .num(s.sign).num(s.weight_decay).num(s.rho).num(s.one_minus_rho).num(s.eps)
                                .num(s.neg_lr).flag(s.has_weight_decay));
}

void Backend::adamax_step_f32(float* p, const float* g, float* exp_avg, float* exp_inf, int64_t n,
                              const sg::optim::AdamaxScalars& s) const {
  if (n == 0) return;
  call("adamax_step_f32", args()
                              .buf(p).buf(g).buf(exp_avg).buf(exp_inf).num(n)
                              .num(s.sign).num(s.weight_decay).num(s.beta1).num(s.one_minus_beta1).num(s.beta2)
                              .num(s.eps).num(s.neg_clr).flag(s.has_weight_decay));
}

namespace {
void moments(Args& a, const sg::optim::MomentsScalars& m) {
  a.num(m.weight_decay).num(m.beta1).num(m.one_minus_beta1).num(m.beta2).num(m.one_minus_beta2).num(m.eps);
  a.flag(m.has_weight_decay);
}
}  // namespace

void Backend::nadam_step_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
                             const sg::optim::NadamScalars& s) const {
  if (n == 0) return;
  Args a = args().buf(p).buf(g).buf(exp_avg).buf(exp_avg_sq).num(n);
  moments(a, s.moments);
  call("nadam_step_f32", a.num(s.bias_correction2).num(s.grad_coef).num(s.avg_coef));
}

void Backend::radam_step_f32(float* p, const float* g, float* exp_avg, float* exp_avg_sq, int64_t n,
                             const sg::optim::RadamScalars& s) const {
  if (n == 0) return;
  Args a = args().buf(p).buf(g).buf(exp_avg).buf(exp_avg_sq).num(n);
  moments(a, s.moments);
  call("radam_step_f32", a.num(s.bias_correction1).num(s.lr).num(s.bias_correction2_sqrt).num(s.rect).flag(s.rectified));
}

}  // namespace sgjs::webgpu
