#include "graph/fused_program.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "core/error.h"
#include "core/parallel.h"

namespace sg::graph {

namespace {

// How a block reads input i: a broadcast scalar, a run of the input's own contiguous data, or a
// gather through its (broadcast) strides.
enum class Load : uint8_t { Scalar, Contiguous, Gather };

struct InputPlan {
  Load load;
  const float* data;
  Shape strides;  // broadcast to the program's shape (Gather)
};

// A register's contents for the current block: `n` values at `ptr`, or one broadcast value.
struct Reg {
  const float* ptr = nullptr;
  bool scalar = false;
};

// Copies elements [start, start + n) of the iteration space (row-major over `shape`) of an
// input read through `strides` into dst.
void gather(const Shape& shape, const Shape& strides, const float* src, int64_t start, int64_t n, float* dst) {
  const size_t nd = shape.size();
  std::vector<int64_t> idx(nd);
  int64_t off = 0, rest = start;
  for (size_t d = nd; d-- > 0;) {
    idx[d] = rest % shape[d];
    rest /= shape[d];
    off += idx[d] * strides[d];
  }
  const int64_t inner = shape[nd - 1], step = strides[nd - 1];
  int64_t k = 0;
  while (k < n) {
    const int64_t run = std::min(n - k, inner - idx[nd - 1]);
    for (int64_t j = 0; j < run; ++j) dst[k + j] = src[off + j * step];
    k += run;
    off += run * step;
    idx[nd - 1] += run;
    for (size_t d = nd - 1; d > 0 && idx[d] == shape[d]; --d) {  // carry
      off -= shape[d] * strides[d];
      idx[d] = 0;
      ++idx[d - 1];
      off += strides[d - 1];
    }
  }
}

bool full_contiguous(const Tensor& t, const Shape& shape) {
  return t.shape() == shape && t.is_contiguous();
}

// Runs blocks [first, last) of the program.
void run_blocks(const FusedProgram& p, const std::vector<InputPlan>& plans, const std::vector<float*>& outs,
                int64_t total, int64_t first, int64_t last) {
  const Backend& be = backend_for(Device::CPU);
  const int regs = p.num_registers;
  const int64_t width = std::min(kBlock, total);
  // Per thread and kept between calls (a small program on a small tensor would otherwise spend
  // a good part of its time allocating): the registers' storage, left uninitialized (every
  // register is written before it is read). Binary kernels run through binary_run_f32, which
  // takes the two operand patterns (vector or broadcast scalar) without a plan to build.
  thread_local std::vector<float> scratch;
  thread_local std::vector<Reg> r;
  if (scratch.size() < static_cast<size_t>(regs * width)) scratch.resize(static_cast<size_t>(regs * width));
  r.assign(static_cast<size_t>(regs), Reg{});
  auto slot = [&](int reg) { return scratch.data() + static_cast<size_t>(reg) * width; };
  for (size_t c = 0; c < p.constants.size(); ++c) r[p.num_inputs + c] = {&p.constants[c], true};
  for (int64_t b = first; b < last; ++b) {
    const int64_t start = b * kBlock, n = std::min(kBlock, total - start);
    for (int i = 0; i < p.num_inputs; ++i) {
      const InputPlan& in = plans[i];
      if (in.load == Load::Scalar) r[i] = {in.data, true};
      else if (in.load == Load::Contiguous) r[i] = {in.data + start, false};
      else {
        gather(p.shape, in.strides, in.data, start, n, slot(i));
        r[i] = {slot(i), false};
      }
    }
    for (const FusedInstr& ins : p.code) {
      float* dst = slot(ins.out);
      Reg a = r[ins.a];
      if (!ins.binary) {
        be.unary_f32(ins.unary, ins.param, a.ptr, dst, a.scalar ? 1 : n);
        r[ins.out] = {dst, a.scalar};
        continue;
      }
      Reg bb = r[ins.b];
      // A one-value operand in the register the result goes to would be overwritten by the
      // result's first element before the others are computed: read it from a copy.
      float a0, b0;
      if (a.scalar && !bb.scalar && a.ptr == dst) a.ptr = &(a0 = a.ptr[0]);
      if (bb.scalar && !a.scalar && bb.ptr == dst) bb.ptr = &(b0 = bb.ptr[0]);
      be.binary_run_f32(ins.op, a.ptr, a.scalar, bb.ptr, bb.scalar, dst, a.scalar && bb.scalar ? 1 : n);
      r[ins.out] = {dst, a.scalar && bb.scalar};
    }
    // Stores come last, after every read of the block: an output may share an input's buffer.
    for (size_t o = 0; o < outs.size(); ++o) {
      const Reg v = r[p.output_registers[o]];
      if (v.scalar) std::fill(outs[o] + start, outs[o] + start + n, v.ptr[0]);
      else std::memcpy(outs[o] + start, v.ptr, static_cast<size_t>(n) * sizeof(float));
    }
  }
}

// An output buffer: the donated input's storage when it is free to take, else a new one.
Tensor output_buffer(const Shape& shape, const Tensor* donor) {
  if (donor && donor->is_contiguous() && donor->offset() == 0 && donor->numel() == numel_of(shape) &&
      donor->ptr().use_count() == 1 && donor->impl()->storage.use_count() == 1 && !donor->requires_grad())
    return Tensor::view_of(*donor, shape, contiguous_strides(shape), 0);
  return Tensor::uninitialized(shape, DType::Float32, Device::CPU);
}

// A one-element CPU input, which a program on another device takes by value (a number operand).
bool cpu_value(const Tensor& t) { return t.device() == Device::CPU && t.numel() == 1; }

// Where the program runs: the device of its inputs besides one-element CPU values.
Device device_of(const std::vector<Tensor>& inputs) {
  for (const Tensor& t : inputs)
    if (!cpu_value(t)) return t.device();
  return Device::CPU;
}

// The program as one kernel of `device`: outputs new buffers there; empty when the backend has
// no kernel for it.
std::vector<Tensor> run_fused_on_device(const FusedProgram& p, const std::vector<Tensor>& inputs, Device device) {
  FusedCall call;
  call.shape = p.shape;
  call.num_registers = p.num_registers;
  call.constants = p.constants;
  call.code = p.code;
  call.output_registers = p.output_registers;
  for (const Tensor& t : inputs) {
    const bool by_value = t.device() != device;
    call.inputs.push_back(by_value ? nullptr : t.dev_f32());
    call.values.push_back(by_value ? t.f32()[0] : 0.0f);
    call.input_strides.push_back(broadcast_strides(t.shape(), t.strides(), p.shape));
  }
  std::vector<Tensor> outputs;
  for (size_t o = 0; o < p.output_registers.size(); ++o) {
    outputs.push_back(Tensor::uninitialized(p.shape, DType::Float32, device));
    call.outputs.push_back(outputs.back().dev_f32());
  }
  if (numel_of(p.shape) == 0) return outputs;
  if (!backend_for(device).fused_f32(call)) return {};
  return outputs;
}

}  // namespace

bool can_run_fused(const FusedProgram& p, const std::vector<Tensor>& inputs) {
  if (inputs.size() != p.input_values.size() || inputs.empty()) return false;
  for (const Tensor& t : inputs)
    if (!t.defined()) return false;
  const Device device = device_of(inputs);
  for (const Tensor& t : inputs) {
    if ((t.device() != device && !cpu_value(t)) || t.dtype() != DType::Float32 || t.impl()->storage->pending())
      return false;
    // Every input broadcasts to the program's shape (its traced shape, or any that does).
    const Shape& s = t.shape();
    if (s.size() > p.shape.size()) return false;
    for (size_t d = 0; d < s.size(); ++d) {
      const int64_t want = p.shape[p.shape.size() - s.size() + d];
      if (s[d] != want && s[d] != 1) return false;
    }
  }
  return true;
}

std::vector<Tensor> run_fused(const FusedProgram& p, const std::vector<Tensor>& inputs,
                              const std::vector<bool>& donated) {
  if (const Device device = device_of(inputs); device != Device::CPU) return run_fused_on_device(p, inputs, device);
  const int64_t total = numel_of(p.shape);
  std::vector<InputPlan> plans;
  plans.reserve(inputs.size());
  for (const Tensor& t : inputs) {
    if (t.numel() == 1) plans.push_back({Load::Scalar, t.f32(), {}});
    else if (full_contiguous(t, p.shape)) plans.push_back({Load::Contiguous, t.f32(), {}});
    else plans.push_back({Load::Gather, t.f32(), broadcast_strides(t.shape(), t.strides(), p.shape)});
  }
  std::vector<Tensor> outputs;
  std::vector<float*> outs;
  std::vector<bool> taken(inputs.size(), false);
  for (size_t o = 0; o < p.output_registers.size(); ++o) {
    const Tensor* donor = nullptr;
    for (size_t i = 0; i < inputs.size() && !donor; ++i)
      if (i < donated.size() && donated[i] && !taken[i] && plans[i].load == Load::Contiguous) {
        donor = &inputs[i];
        taken[i] = true;
      }
    outputs.push_back(output_buffer(p.shape, donor));
    outs.push_back(outputs.back().f32());
  }
  if (total == 0) return outputs;
  const int64_t blocks = (total + kBlock - 1) / kBlock;
  // Blocks are independent: split them over the threads once there is enough work (each
  // kernel call inside a block then stays on its thread).
  const int64_t grain = std::max<int64_t>(1, (int64_t(1) << 16) / kBlock);
  parallel_for(0, blocks, grain, [&](int64_t lo, int64_t hi) { run_blocks(p, plans, outs, total, lo, hi); });
  return outputs;
}

std::vector<Tensor> run_members(const FusedProgram& p, const std::vector<Tensor>& inputs) {
  std::unordered_map<ValueId, Tensor> values;
  for (size_t i = 0; i < inputs.size(); ++i) values[p.input_values[i]] = inputs[i];
  std::vector<Tensor> args;
  for (const Node& m : p.members) {
    args.clear();
    for (ValueId v : m.inputs) args.push_back(v == kNoValue ? Tensor() : values.at(v));
    std::vector<Tensor> outs = run_op(m.op, *m.info, args, m.attrs);
    check(outs.size() == m.outputs.size(), "sg.compile: '", m.op, "' returned ", outs.size(),
          " results where the trace had ", m.outputs.size());
    for (size_t k = 0; k < outs.size(); ++k) values[m.outputs[k]] = std::move(outs[k]);
  }
  std::vector<Tensor> out;
  for (ValueId v : p.output_values) out.push_back(values.at(v));
  return out;
}

}  // namespace sg::graph
