// DataKernels' defaults for scatter (assign) and int32 scatter-add: gather's adjoints, written
// through the same geometry (GatherGeom) as gather and scatter_add_f32.
#include <cstring>

#include "core/copy.h"
#include "kernels/data_kernels.h"

namespace sg {

void DataKernels::scatter(size_t elem_bytes, const GatherGeom& g, const void* src, const int32_t* idx,
                          void* out) const {
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(out);
  for_each_offset2(g.index_shape, contiguous_strides(g.index_shape), g.walk_strides, [&](int64_t oi, int64_t ox) {
    std::memcpy(d + (ox + int64_t(idx[oi]) * g.dim_stride) * int64_t(elem_bytes), s + oi * int64_t(elem_bytes),
                elem_bytes);
  });
}

void DataKernels::scatter_add_i32(const GatherGeom& g, const int32_t* src, const int32_t* idx, int32_t* out) const {
  for_each_offset2(g.index_shape, contiguous_strides(g.index_shape), g.walk_strides, [&](int64_t oi, int64_t ox) {
    int32_t& d = out[ox + int64_t(idx[oi]) * g.dim_stride];
    d = int32_t(uint32_t(d) + uint32_t(src[oi]));  // wraps as two's complement
  });
}

}  // namespace sg
