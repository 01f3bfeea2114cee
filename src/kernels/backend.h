// The compute interface every backend implements. Ops call backend() and never ask which
// one is active: the user chooses once (sg.setBackend). 'reference' is plain scalar loops,
// the oracle for tests; 'wasm' (named 'simd' natively too) is vectorized with Highway.
// All kernels take contiguous float32 buffers unless a stride argument or a dtype says otherwise
// (the *_f64 methods: float64).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "kernels/conv_geom.h"
#include "kernels/data_kernels.h"
#include "kernels/layer_kernels.h"
#include "kernels/rnn_cell.h"

namespace sg {

enum class Unary : uint8_t {
  Neg, Exp, Log, Log2, Log10, Log1p, Expm1, Sqrt, Rsqrt, Abs, Sign, Sin, Cos, Erf, Square,
  Reciprocal, Relu, Sigmoid, Tanh, Silu, GeluErf, GeluTanh,
  Softplus,   // param = beta; PyTorch's threshold 20 (x*beta > 20 → x)
  Elu,        // param = alpha
  Selu,
  LeakyRelu,  // param = negative slope
};

// An activation gemm_f32_bias applies to each value of C once the product, beta·C and the bias
// are in (Linear's fused epilogue): the same functions as Unary::Relu, GeluErf, GeluTanh.
enum class GemmAct : uint8_t { None, Relu, GeluErf, GeluTanh };
inline Unary gemm_act_unary(GemmAct a) {
  return a == GemmAct::Relu ? Unary::Relu : a == GemmAct::GeluErf ? Unary::GeluErf : Unary::GeluTanh;
}

enum class Binary : uint8_t {
  Add, Sub, Mul, Div, Pow, Maximum, Minimum,
  // Fused backward formulas: a is the forward input x (or output y where named), b the
  // incoming gradient g.
  ReluBackward,      // x <= 0 ? 0 : g (a NaN x passes g, as PyTorch)
  SigmoidBackward,   // a = y: g * y * (1 - y)
  TanhBackward,      // a = y: g * (1 - y²)
  GeluErfBackward,   // g * (Φ(x) + x φ(x))
  GeluTanhBackward,  // g * d/dx of the tanh approximation
  SiluBackward,      // g * s (1 + x (1 - s)), s = sigmoid(x)
  // Selection, for gradient formulas in fused kernels (graph/fused_backward.cpp): comparisons
  // give 1 or 0 (0 where either side is NaN, as IEEE compares), and where(m, u, v) is
  // KeepIf(m, u) + KeepUnless(m, v): the side not kept is −0, which added to any value gives it
  // back exactly (±0, infinities and NaN included).
  Greater, GreaterEqual, Less, LessEqual, Equal,
  KeepIf,      // a ≠ 0 ? b : −0
  KeepUnless,  // a ≠ 0 ? −0 : b
};

// One instruction of a fused elementwise program (graph/fused_program.h): out = unary(a) or
// binary(a, b) over registers.
struct FusedInstr {
  bool binary = false;
  Unary unary = Unary::Neg;
  Binary op = Binary::Add;
  float param = 0;
  int a = 0, b = 0;  // operand registers
  int out = 0;       // result register
};

// A fused elementwise program run on a device (Backend::fused_f32): registers [0, inputs.size())
// hold the inputs, read at their broadcast strides over `shape` (one value where all are 0) or,
// where inputs[k] is null, the value values[k] (a one-element input on the CPU); then one
// register per constant, then temporaries; each output register is stored contiguously.
struct FusedCall {
  std::vector<int64_t> shape;
  int num_registers = 0;
  std::vector<float> constants;
  std::vector<FusedInstr> code;
  std::vector<int> output_registers;
  std::vector<const float*> inputs;
  std::vector<float> values;
  std::vector<std::vector<int64_t>> input_strides;
  std::vector<float*> outputs;
};

enum class Reduce : uint8_t { Sum, Max, Min, Prod };

// A broadcast binary op over `shape` (out contiguous). a_strides/b_strides are in elements
// and 0 along broadcast dims. Backends may merge dims; ndim is at most 8... any.
struct BroadcastPlan {
  std::vector<int64_t> shape;
  std::vector<int64_t> a_strides;
  std::vector<int64_t> b_strides;
};

// Max pooling over P contiguous planes of H × W → P planes of oH × oW: output (i, j) looks at
// rows i·sH − pH + a·dH (a < kH) and columns j·sW − pW + b·dW (b < kW) that lie inside the
// plane (padding never wins). A window with no input element at all (possible with dilation
// and ceil_mode, as in PyTorch) gives −inf and index −1, which the backward skips.
struct PoolGeom {
  int64_t P = 1, H = 1, W = 1, oH = 1, oW = 1;
  int64_t kH = 1, kW = 1, sH = 1, sW = 1, pH = 0, pW = 0, dH = 1, dW = 1;
};

// One image's (one group's) convolution geometry for im2col/col2im: C channels of H × W, a
// kH × kW kernel with stride, top/left padding and dilation, output oH × oW. Positions past
// the input (any side) read as zero.
struct Im2colGeom {
  int64_t C = 1, H = 1, W = 1, kH = 1, kW = 1, sH = 1, sW = 1, pH = 0, pW = 0, dH = 1, dW = 1;
  int64_t oH = 1, oW = 1;
};

// Float math kernels here; copies, int/bool math, indexing and the other data kernels come
// from DataKernels (kernels/data_kernels.h), the fused layer, loss and optimizer kernels from
// LayerKernels (kernels/layer_kernels.h), so that no op touches tensor memory itself.
class Backend : public DataKernels, public LayerKernels {
 public:
  virtual const char* name() const = 0;

  // y[i] = op(x[i]) for n elements; `param` is the op's parameter where it has one.
  virtual void unary_f32(Unary op, float param, const float* x, float* y, int64_t n) const = 0;
  virtual void binary_f32(Binary op, const BroadcastPlan& plan, const float* a, const float* b,
                          float* out) const = 0;
  // One contiguous run of n outputs, each operand n values or (a_scalar / b_scalar) one broadcast
  // value (both scalars: n is 1): a fused kernel's block (graph/fused_program.cpp). The results of binary_f32 on that
  // plan, without building one; by default it builds one.
  virtual void binary_run_f32(Binary op, const float* a, bool a_scalar, const float* b, bool b_scalar,
                              float* out, int64_t n) const;
  // A whole fused program in one kernel, on a device whose buffers the CPU cannot walk block by
  // block as graph/fused_program.cpp does. False (the default) when this backend has no kernel
  // for it (or not for this many operands): the graph then runs the program's ops one by one.
  virtual bool fused_f32(const FusedCall& call) const;
  // x viewed as [outer, r, inner] → out [outer, inner]. r may be 0 (sum → 0, prod → 1,
  // max/min → the op layer rejects it first).
  virtual void reduce_f32(Reduce op, const float* x, int64_t outer, int64_t r, int64_t inner,
                          float* out) const = 0;
  // Per row of `cols` values: softmax (log_ = false) or log-softmax, shifted by the row max.
  virtual void softmax_rows_f32(const float* x, float* y, int64_t rows, int64_t cols,
                                bool log_) const = 0;
  // out[row] = log Σ exp(x[row, :]), shifted by the row max (−inf rows give −inf).
  virtual void logsumexp_rows_f32(const float* x, float* out, int64_t rows, int64_t cols) const = 0;
  // Causal softmax of rows of `cols` values, row r being query position i = r mod L (L ≥ 1): the
  // entries j ≤ i take part (shifted by their max), y = 0 for j > i; PyTorch's is_causal mask
  // tril(ones(L, S)) without the [L, S] mask tensor. Entries past i are never read, so a NaN there
  // does not spread (softmax(x + mask) would give NaN: −inf + NaN).
  virtual void softmax_causal_rows_f32(const float* x, float* y, int64_t rows, int64_t cols, int64_t L) const = 0;
  // C = alpha · op(A) · op(B) + beta · C, row-major. op(A) is M×K: A is M×K (lda ≥ K) or,
  // with trans_a, K×M (lda ≥ M). Likewise B. beta = 0 ignores C's old contents (even NaN).
  virtual void gemm_f32(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                        const float* a, int64_t lda, const float* b, int64_t ldb, float beta,
                        float* c, int64_t ldc) const = 0;
  // gemm_f32 with a bias and an activation: C = act(alpha · op(A) · op(B) + beta · C + bias[j])
  // on every row, where bias holds n floats (nullptr: none). The SIMD backend does both in the
  // GEMM's write-back, so a linear layer makes one pass over its output instead of two or three.
  virtual void gemm_f32_bias(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                             float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                             float beta, const float* bias, GemmAct act, float* c,
                             int64_t ldc) const = 0;
  // y = max over each window, idx = its within-plane position (h·W + w) of the first max in
  // row-major window order, a NaN taking over from anything before it (PyTorch's rule).
  // idx may be nullptr: the values alone (a forward no gradient will be taken of).
  // The default is the reference loop; backends override with vector code.
  virtual void max_pool2d_f32(const PoolGeom& g, const float* x, float* y, int32_t* idx) const;
  // dx [P, H, W] (overwritten) = Σ of dy [P, oH, oW] routed to each window's idx.
  virtual void max_pool2d_backward_f32(const PoolGeom& g, const float* dy, const int32_t* idx,
                                       float* dx) const;
  // x [C, H, W] → col [C·kH·kW rows, oH·oW columns], row stride ld ≥ oH·oW (several images
  // may sit side by side); padding positions are written as 0.
  virtual void im2col_f32(const Im2colGeom& g, const float* x, float* col, int64_t ld) const;
  // The adjoint: dx [C, H, W] += every col entry at the position it was read from (padding
  // entries dropped). dx is not cleared.
  virtual void col2im_f32(const Im2colGeom& g, const float* col, int64_t ld, float* dx) const;

  // ---- Convolution: conv2d forward and both backward passes (issue 12) -------------------
  // Whole batches, every group, raw contiguous float32 buffers in PyTorch's layouts (x
  // [N, C, H, W], w [O, C/groups, kH, kW], y [N, O, oH, oW]); conv1d is H = kH = 1 and
  // conv_transpose2d is conv2d_backward_data with its own bias. The defaults are the scalar
  // reference (kernels/reference/conv.cpp, double accumulators), which the reference backend
  // uses; the SIMD backend overrides them with GEMMs whose panels are packed straight from
  // the image. All three overwrite their output.
  // y = act(conv(x, w) + bias[o]) (bias: O floats or nullptr; act: None or Relu).
  virtual void conv2d_f32(const ConvGeom& g, const float* x, const float* w, const float* bias,
                          GemmAct act, float* y) const;
  // dx [N, C, H, W] = the gradient of conv2d's x for dy [N, O, oH, oW], + bias[c] (C floats
  // or nullptr: conv_transpose2d's bias).
  virtual void conv2d_backward_data_f32(const ConvGeom& g, const float* dy, const float* w,
                                        const float* bias, float* dx) const;
  // dw [O, C/groups, kH, kW] = the gradient of conv2d's w for x and dy.
  virtual void conv2d_backward_weight_f32(const ConvGeom& g, const float* x, const float* dy,
                                          float* dw) const;
  // conv2d_f32 then max_pool2d_f32 of its output (pool: over the N·O planes of oH × oW), into
  // y and idx (nullptr: none) as max_pool2d_f32 writes them; the convolution's own output is not kept. The
  // default runs the two methods over a scratch buffer; the SIMD backend pools stride-1
  // convolutions straight from the block it computes.
  virtual void conv2d_maxpool2d_f32(const ConvGeom& g, const float* x, const float* w, const float* bias,
                                    GemmAct act, const PoolGeom& pool, float* y, int32_t* idx) const;
  // ---- end of the convolution block -------------------------------------------------------

  // ---- recurrent cells (kernels/rnn_cell.h): one time step's gate math -------------------
  // The defaults (kernels/reference/rnn_cell.cpp) loop over the rows with this backend's
  // unary_f32 for the activations; a device backend runs each as one kernel.
  virtual void rnn_step_f32(const RnnStep& s) const;
  virtual void rnn_step_backward_f32(const RnnStepBackward& s) const;

  // ---- float64 (issue 27) ----------------------------------------------------------------
  // The float64 twins of the float math above, with the same contracts in double. The defaults
  // are the reference loops instantiated for double (kernels/reference, double accumulators),
  // which both CPU backends use; the SIMD backend overrides gemm_f64 with a Highway GEMM of
  // half the lanes. Ops pick float32 or float64 once per call (ops/elementwise.h), never per
  // element. A device backend (WebGPU) never sees these: float64 cannot be allocated there.
  virtual void unary_f64(Unary op, double param, const double* x, double* y, int64_t n) const;
  virtual void binary_f64(Binary op, const BroadcastPlan& plan, const double* a, const double* b,
                          double* out) const;
  virtual void reduce_f64(Reduce op, const double* x, int64_t outer, int64_t r, int64_t inner,
                          double* out) const;
  virtual void softmax_rows_f64(const double* x, double* y, int64_t rows, int64_t cols, bool log_) const;
  virtual void softmax_causal_rows_f64(const double* x, double* y, int64_t rows, int64_t cols, int64_t L) const;
  virtual void logsumexp_rows_f64(const double* x, double* out, int64_t rows, int64_t cols) const;
  // C = alpha · op(A) · op(B) + beta · C as gemm_f32 (no bias or activation: Linear adds them
  // as separate ops in float64).
  virtual void gemm_f64(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                        const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
                        double* c, int64_t ldc) const;
};

const Backend& backend();                  // the active CPU backend
// The kernels of device d: backend() for the CPU, the device runtime's otherwise
// (core/device.h). Ops call it with the device of the tensors they compute.
const Backend& backend_for(Device d);
const Backend& backend_named(const std::string& name);  // throws on an unknown name
void set_backend(const std::string& name);  // throws on an unknown name
std::vector<std::string> backend_names();

// The two CPU backends (defined in kernels/reference and kernels/simd).
const Backend& reference_backend();
const Backend& simd_backend();

}  // namespace sg
